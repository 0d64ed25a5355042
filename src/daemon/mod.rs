//! `privacy-audit daemon`: watches the dataset folders, judges every new or changed file
//! once it is stable, and writes the audit trail. One tokio task owns all state; the
//! watcher thread only sends hints; scanning runs on the scanner's own threads.
//!
//! Life under systemd (`Type=notify`): READY after the start-up catch-up, STATUS after
//! each batch, WATCHDOG from the main loop (a wedged loop stops the pings), SIGHUP
//! reloads config and rules (a broken config is logged and the old one kept), SIGTERM
//! finishes the batch in flight, writes its report and exits 0.

pub mod state;
pub mod trail;
pub mod watch;

use crate::config::{Config, OnViolation};
use crate::error::{Error, Result};
use crate::report::fingerprint::FingerprintKey;
use crate::report::suppress::{Acceptance, Baseline};
use crate::report::{FileStatus, Quarantined, Report};
use crate::rules::RuleSet;
use crate::scan::Scanner;
use crate::scan::walk::Excludes;
use sd_notify::NotifyState;
use state::{FileState, State};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use watch::{Hint, Queue};

/// Files judged per report, so a burst yields a steady series of reports.
const BATCH: usize = 1000;

/// What a running daemon is configured with; rebuilt whole on SIGHUP.
struct Setup {
    config: Config,
    scanner: Scanner,
    acceptance: Acceptance,
    excludes: Excludes,
    roots: Vec<PathBuf>,
}

impl Setup {
    fn load(config_path: Option<&Path>, key_file: Option<&Path>) -> Result<Setup> {
        let config = Config::discover(config_path)?;
        let d = &config.daemon;
        let state_dir = config.resolve(&d.state);
        let key_path = key_file.map_or_else(|| state_dir.join("key"), Path::to_path_buf);
        let key = FingerprintKey::load_or_create(&key_path)?;
        let rules = RuleSet::load(&config)?;
        let baseline = Baseline::load(&config.resolve(&config.scan.baseline))?;
        let acceptance = Acceptance::new(baseline.as_ref(), &config.allow, &key)?;
        let excludes = Excludes::new(&config.scan.exclude)?;
        let roots = d
            .watch
            .iter()
            .map(|r| crate::provenance::normalize(&config.resolve(r)))
            .collect();
        let cache = crate::provenance::cache::HashCache::open(state_dir.join("hashes.jsonl"));
        let scanner = Scanner::new(config.clone(), rules, key)?.with_cache(cache);
        Ok(Setup {
            config,
            scanner,
            acceptance,
            excludes,
            roots,
        })
    }

    fn dir(&self, p: &Path) -> PathBuf {
        crate::provenance::normalize(&self.config.resolve(p))
    }
}

pub struct Daemon {
    config_path: Option<PathBuf>,
    key_file: Option<PathBuf>,
    setup: Setup,
    state: State,
    head: trail::Head,
    queue: Queue,
    removed: Vec<String>,
    judged: u64,
    found: u64,
}

fn notify(states: &[NotifyState<'_>]) {
    // Outside systemd there is no socket; that is not an error.
    let _ = sd_notify::notify(states);
}

impl Daemon {
    pub fn new(config_path: Option<PathBuf>, key_file: Option<PathBuf>) -> Result<Daemon> {
        let setup = Setup::load(config_path.as_deref(), key_file.as_deref())?;
        let reports = setup.dir(&setup.config.daemon.reports);
        let state_dir = setup.dir(&setup.config.daemon.state);
        let mut state = State::load(&state_dir)?;
        state.replay(&reports, |rel| Some(PathBuf::from(rel)))?;
        let head = trail::head(&reports)?;
        Ok(Daemon {
            config_path,
            key_file,
            setup,
            state,
            head,
            queue: Queue::default(),
            removed: Vec::new(),
            judged: 0,
            found: 0,
        })
    }

    /// Folders of our own that may sit under a watched root and must not be judged.
    fn own_dirs(&self) -> Vec<PathBuf> {
        let d = &self.setup.config.daemon;
        vec![
            self.setup.dir(&d.reports),
            self.setup.dir(&d.state),
            self.setup.dir(&d.quarantine),
        ]
    }

    fn window(&self) -> Duration {
        Duration::from_millis(self.setup.config.daemon.debounce_ms.max(10))
    }

    pub fn run(mut self) -> Result<()> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::Usage(format!("cannot start the event loop: {e}")))?;
        runtime.block_on(self.main_loop())
    }

    async fn main_loop(&mut self) -> Result<()> {
        use tokio::signal::unix::{SignalKind, signal};
        let sig = |k| signal(k).map_err(|e| Error::Usage(format!("cannot handle signals: {e}")));
        let (mut hup, mut term, mut int) = (
            sig(SignalKind::hangup())?,
            sig(SignalKind::terminate())?,
            sig(SignalKind::interrupt())?,
        );
        let (mut watch, mut hints) = watch::start(&self.setup.roots);
        self.catch_up("start");
        while !self.queue.is_empty() {
            tokio::time::sleep(self.window() / 2).await;
            self.process(Instant::now() + self.window());
        }
        tracing::info!(
            roots = self.setup.roots.len(),
            judged = self.judged,
            "ready"
        );
        notify(&[NotifyState::Ready, NotifyState::Status(&self.status())]);
        let mut tick = tokio::time::interval(self.window() / 4);
        let poll_every = (self.window() * 10).max(Duration::from_secs(5));
        let mut last_poll = Instant::now();
        loop {
            tokio::select! {
                hint = hints.recv() => match hint {
                    Some(h) => self.on_hint(h),
                    None => {
                        tracing::warn!("the watcher stopped; polling every root instead");
                        watch.polled = self.setup.roots.clone();
                        hints = tokio::sync::mpsc::channel(1).1;
                    }
                },
                _ = tick.tick() => {
                    if sd_notify::watchdog_enabled().is_some() {
                        notify(&[NotifyState::Watchdog]);
                    }
                    if !watch.polled.is_empty() && last_poll.elapsed() >= poll_every {
                        last_poll = Instant::now();
                        self.catch_up("poll");
                    }
                    if self.queue.overflowed && self.queue.is_empty() {
                        self.queue.overflowed = false;
                        self.catch_up("queue overflow");
                    }
                    self.process(Instant::now());
                }
                _ = hup.recv() => {
                    self.reload();
                    let (w, h) = watch::start(&self.setup.roots);
                    (watch, hints) = (w, h);
                    self.catch_up("reload");
                }
                _ = term.recv() => break,
                _ = int.recv() => break,
            }
        }
        notify(&[NotifyState::Stopping]);
        if !self.removed.is_empty() {
            self.write_batch(Vec::new());
        }
        tracing::info!(judged = self.judged, "stopped");
        Ok(())
    }

    fn on_hint(&mut self, hint: Hint) {
        let now = Instant::now();
        let own = self.own_dirs();
        match hint {
            Hint::Path(p) if !own.iter().any(|d| p.starts_with(d)) => self.queue.hint(p, now),
            Hint::Path(_) => {}
            Hint::Folder(dir) => {
                for p in watch::files_under(&dir, &self.setup.excludes) {
                    if !own.iter().any(|d| p.starts_with(d)) {
                        self.queue.hint(p, now);
                    }
                }
            }
            Hint::Rescan(why) => {
                tracing::warn!(reason = %why, "events may have been lost; walking every root");
                self.catch_up("rescan");
            }
        }
    }

    /// Queues what changed since the state was last written, and records what is gone.
    fn catch_up(&mut self, why: &str) {
        let (changed, gone) = watch::reconcile(
            &self.setup.roots,
            &self.setup.excludes,
            &self.own_dirs(),
            &self.state,
        );
        tracing::info!(
            reason = why,
            changed = changed.len(),
            gone = gone.len(),
            "reconcile walk"
        );
        let now = Instant::now();
        for p in changed {
            self.queue.hint(p, now);
        }
        for p in gone {
            self.forget(&p);
        }
    }

    fn forget(&mut self, path: &Path) {
        if self.state.files.remove(path).is_some() {
            self.removed.push(path.to_string_lossy().into_owned());
        }
    }

    /// Judges what is stable, in batches of [`BATCH`], one report each.
    fn process(&mut self, now: Instant) {
        loop {
            let (ready, gone) = self.queue.take_ready(now, self.window(), BATCH);
            for p in &gone {
                self.forget(p);
            }
            let ready: Vec<PathBuf> = ready
                .into_iter()
                .filter(|p| state::stamp(p).is_none_or(|s| !self.state.is_current(p, s)))
                .collect();
            if ready.is_empty() {
                if !self.removed.is_empty() {
                    self.write_batch(Vec::new());
                }
                return;
            }
            self.write_batch(ready);
        }
    }

    fn root_of(&self, path: &Path) -> PathBuf {
        self.setup
            .roots
            .iter()
            .find(|r| path.starts_with(r))
            .cloned()
            .unwrap_or_else(|| path.parent().map(Path::to_path_buf).unwrap_or_default())
    }

    fn write_batch(&mut self, files: Vec<PathBuf>) {
        let items: Vec<(PathBuf, String, PathBuf)> = files
            .iter()
            .map(|p| (p.clone(), p.to_string_lossy().into_owned(), self.root_of(p)))
            .collect();
        let stamps: Vec<Option<(u64, i64)>> = files.iter().map(|p| state::stamp(p)).collect();
        let mut report = self.setup.scanner.scan_files(&items);
        self.setup.acceptance.apply(&mut report);
        report.removed = std::mem::take(&mut self.removed);
        if self.setup.config.daemon.on_violation == OnViolation::Quarantine {
            self.quarantine(&mut report);
        }
        let reports = self.setup.dir(&self.setup.config.daemon.reports);
        match trail::append(&reports, &mut self.head, &mut report) {
            Ok(path) => tracing::info!(report = %path.display(), files = report.files.len(),
                findings = report.findings.len(), "report written"),
            Err(e) => {
                // The files stay unjudged in the state: the next walk queues them again.
                tracing::error!(error = %e, "cannot write the report; these files will be judged again");
                return;
            }
        }
        self.judged += report.files.len() as u64;
        self.found += report.findings.len() as u64;
        self.record(&report, &files, &stamps);
        notify(&[NotifyState::Status(&self.status())]);
    }

    fn record(&mut self, report: &Report, files: &[PathBuf], stamps: &[Option<(u64, i64)>]) {
        let with_findings: std::collections::HashSet<&str> = report
            .findings
            .iter()
            .map(|f| f.location.path.as_str())
            .collect();
        let moved: std::collections::HashSet<&str> =
            report.quarantined.iter().map(|q| q.path.as_str()).collect();
        for (path, stamp) in files.iter().zip(stamps) {
            let rel = path.to_string_lossy();
            let Some(rec) = report.files.iter().find(|f| f.path == rel) else {
                continue;
            };
            if moved.contains(rel.as_ref()) {
                continue;
            }
            let Some((size, mtime_ns)) = *stamp else {
                continue;
            };
            let verdict = if rec.status == FileStatus::Skipped {
                "skipped"
            } else if with_findings.contains(rel.as_ref()) {
                "findings"
            } else {
                "clean"
            };
            self.state.files.insert(
                path.clone(),
                FileState {
                    size,
                    mtime_ns,
                    sha256: rec.sha256.clone(),
                    verdict: verdict.into(),
                },
            );
        }
        self.state.last_sequence = self.head.next.saturating_sub(1);
        let dir = self.setup.dir(&self.setup.config.daemon.state);
        if let Err(e) = self.state.save(&dir) {
            tracing::error!(error = %e, "cannot save the daemon state; the reports will be replayed at start");
        }
    }

    /// Moves each violating file into the quarantine folder (a rename on the same
    /// filesystem: not a byte lost, nothing deleted). A move that fails is logged and
    /// the file stays where it is.
    fn quarantine(&mut self, report: &mut Report) {
        let base = self.setup.dir(&self.setup.config.daemon.quarantine);
        let batch = self.head.next;
        let mut paths: Vec<String> = report
            .findings
            .iter()
            .map(|f| f.location.path.clone())
            .collect();
        paths.dedup();
        for p in paths {
            let from = PathBuf::from(&p);
            let inside = from.strip_prefix("/").unwrap_or(&from);
            let to = base.join(batch.to_string()).join(inside);
            let moved = to
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::rename(&from, &to));
            match moved {
                Ok(()) => report.quarantined.push(Quarantined {
                    path: p,
                    to: to.to_string_lossy().into_owned(),
                }),
                Err(e) => tracing::error!(file = %p, error = %e,
                    "cannot quarantine (it must be on the same filesystem); left in place"),
            }
        }
    }

    fn reload(&mut self) {
        let now = sd_notify::NotifyState::monotonic_usec_now();
        match now {
            Ok(usec) => notify(&[NotifyState::Reloading, usec]),
            Err(_) => notify(&[NotifyState::Reloading]),
        }
        match Setup::load(self.config_path.as_deref(), self.key_file.as_deref()) {
            Ok(setup) => {
                self.setup = setup;
                tracing::info!("configuration and rules reloaded");
            }
            Err(e) => {
                tracing::error!(error = %e, "reload failed; keeping the previous configuration")
            }
        }
        notify(&[NotifyState::Ready, NotifyState::Status(&self.status())]);
    }

    fn status(&self) -> String {
        format!(
            "watching {} folder(s); {} files judged, {} findings since start; {} waiting",
            self.setup.roots.len(),
            self.judged,
            self.found,
            self.queue.len()
        )
    }
}
