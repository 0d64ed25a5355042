//! `privacy-audit daemon`: watches the dataset folders, judges every new or changed file
//! once it is stable, and writes the audit trail. One tokio task owns all state; the
//! watcher thread only sends hints; scanning runs on the scanner's own threads.
//!
//! Life under systemd (`Type=notify`): READY after the start-up catch-up, STATUS after
//! each batch, WATCHDOG from the main loop (a wedged loop stops the pings), SIGHUP
//! reloads config and rules (a broken config is logged and the old one kept), SIGTERM
//! finishes the batch in flight, writes its report and exits 0.

mod quarantine;
pub mod state;
pub mod trail;
pub mod watch;

use crate::config::{Config, OnViolation};
use crate::error::{Error, Result};
use crate::provenance::cache::Stamp;
use crate::report::fingerprint::FingerprintKey;
use crate::report::suppress::{Acceptance, Baseline};
use crate::report::{FileStatus, Report};
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
        let cache = crate::provenance::cache::HashCache::open(state_dir.join("hashes-v2.jsonl"));
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
        let mut watching = true;
        self.catch_up("start");
        // READY once what was found at start is judged — bounded, so a file that is
        // written without pause cannot hold the service in "activating" forever.
        let start = Instant::now();
        while !self.queue.is_empty() && start.elapsed() < self.window() * 4 {
            tokio::time::sleep(self.window() / 4).await;
            while self.process_one(Instant::now()) {}
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
        let mut roots_seen = watch::root_identities(&self.setup.roots);
        loop {
            tokio::select! {
                hint = hints.recv(), if watching => match hint {
                    Some(Hint::Rescan(why)) if why.starts_with("watcher error") => {
                        tracing::warn!(reason = %why, "the watcher failed; walking, and polling every root from now on");
                        watch.polled = self.setup.roots.clone();
                        self.catch_up("watcher error");
                    }
                    Some(h) => self.on_hint(h),
                    None => {
                        tracing::warn!("the watcher stopped; polling every root instead");
                        watch.polled = self.setup.roots.clone();
                        watching = false;
                    }
                },
                _ = tick.tick() => {
                    if sd_notify::watchdog_enabled().is_some() {
                        notify(&[NotifyState::Watchdog]);
                    }
                    // A watch follows an inode: a root removed and made again (a
                    // redeploy, a remount) would otherwise never be watched again.
                    let roots_now = watch::root_identities(&self.setup.roots);
                    if roots_now != roots_seen {
                        roots_seen = roots_now;
                        tracing::warn!("a watched folder was removed, replaced or recreated; watching anew");
                        drop(watch);
                        (watch, hints) = watch::start(&self.setup.roots);
                        watching = true;
                        self.catch_up("a watched folder changed");
                    }
                    let lost = watch.lost.swap(false, std::sync::atomic::Ordering::Relaxed);
                    let poll_due = !watch.polled.is_empty() && last_poll.elapsed() >= poll_every;
                    // Overflowed paths are walked for as soon as the queue has room again.
                    let room = self.queue.overflowed && self.queue.len() < watch::MAX_PENDING / 2;
                    if lost || poll_due || room {
                        last_poll = Instant::now();
                        self.queue.overflowed = false;
                        self.catch_up(if lost { "events dropped while busy" } else { "poll" });
                    }
                    // One batch per tick: the watchdog and signals are served between.
                    self.process_one(Instant::now());
                }
                _ = hup.recv() => {
                    if self.reload() {
                        // The old watches go first: two full sets could hit the limit.
                        drop(watch);
                        (watch, hints) = watch::start(&self.setup.roots);
                        watching = true;
                        self.catch_up("reload");
                    }
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

    /// Is `path` one of ours, or excluded by `scan.exclude` (relative to its root)?
    fn ignored(&self, path: &Path, own: &[PathBuf]) -> bool {
        if own.iter().any(|d| path.starts_with(d)) {
            return true;
        }
        let root = self.root_of(path);
        let rel = path
            .strip_prefix(&root)
            .map(|r| r.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        self.setup.excludes.file_excluded(&rel)
    }

    fn on_hint(&mut self, hint: Hint) {
        let now = Instant::now();
        let own = self.own_dirs();
        match hint {
            // A folder moved in arrives as a rename of one path: walk it like a new one.
            Hint::Path(p) | Hint::Folder(p) if p.is_dir() => {
                for f in watch::files_under(&p, &self.setup.excludes) {
                    if !self.ignored(&f, &own) {
                        self.queue.hint(f, now);
                    }
                }
            }
            Hint::Path(p) | Hint::Folder(p) => {
                if !self.ignored(&p, &own) {
                    self.queue.hint(p, now);
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

    /// Records a vanished path — or a vanished folder: everything judged under it.
    fn forget(&mut self, path: &Path) {
        let under: Vec<PathBuf> = self
            .state
            .files
            .keys()
            .filter(|k| k.starts_with(path))
            .cloned()
            .collect();
        for k in under {
            self.state.files.remove(&k);
            self.removed.push(k.to_string_lossy().into_owned());
        }
    }

    /// Judges one batch of what is stable; `false` when there was nothing to do.
    fn process_one(&mut self, now: Instant) -> bool {
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
            return false;
        }
        self.write_batch(ready);
        true
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
            .map(|p| (p.clone(), report_path(p), self.root_of(p)))
            .collect();
        // Report names (bytes spelled out, leaks in names masked) back to the files.
        let disk: std::collections::HashMap<String, PathBuf> = items
            .iter()
            .map(|(p, rel, _)| (self.setup.scanner.check_name(rel).shown, p.clone()))
            .collect();
        let before: Vec<Option<Stamp>> = files.iter().map(|p| state::stamp(p)).collect();
        let mut report = self.setup.scanner.scan_files(&items);
        self.setup.acceptance.apply(&mut report);
        report.removed = std::mem::take(&mut self.removed);
        let reports = self.setup.dir(&self.setup.config.daemon.reports);
        if self.setup.config.daemon.on_violation == OnViolation::Quarantine {
            let base = self.setup.dir(&self.setup.config.daemon.quarantine);
            quarantine::move_violations(&mut report, &disk, &base, self.head.next, &reports);
        }
        match trail::append(&reports, &mut self.head, &mut report) {
            Ok(path) => tracing::info!(report = %path.display(), files = report.files.len(),
                findings = report.findings.len(), "report written"),
            Err(e) => {
                // Nothing was recorded: the removals wait for the next report and the
                // files stay unjudged in the state, so a walk queues them again.
                tracing::error!(error = %e, "cannot write the report; these files will be judged again");
                self.removed = report.removed;
                self.queue.overflowed = true;
                return;
            }
        }
        self.judged += report.files.len() as u64;
        self.found += report.findings.len() as u64;
        self.record(&report, &files, &before);
        notify(&[NotifyState::Status(&self.status())]);
    }

    fn record(&mut self, report: &Report, files: &[PathBuf], before: &[Option<Stamp>]) {
        let with_findings: std::collections::HashSet<&str> = report
            .findings
            .iter()
            .map(|f| f.location.path.as_str())
            .collect();
        let moved: std::collections::HashSet<&str> =
            report.quarantined.iter().map(|q| q.path.as_str()).collect();
        let now = Instant::now();
        for (path, before) in files.iter().zip(before) {
            let rel = self.setup.scanner.check_name(&report_path(path)).shown;
            let Some(rec) = report.files.iter().find(|f| f.path == rel) else {
                continue;
            };
            // Unreadable now (permissions): not remembered, so it is tried again.
            if moved.contains(rel.as_str()) || rec.error {
                continue;
            }
            let after = state::stamp(path);
            if after.is_none() || after != *before {
                // Changed while being read: what was judged may not be what is there.
                self.queue.hint(path.clone(), now);
                continue;
            }
            let Some(stamp) = after else { continue };
            let verdict = if rec.status == FileStatus::Skipped {
                "skipped"
            } else if with_findings.contains(rel.as_str()) {
                "findings"
            } else {
                "clean"
            };
            self.state.files.insert(
                path.clone(),
                FileState {
                    stamp,
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

    /// `true` when the new configuration took over.
    fn reload(&mut self) -> bool {
        match sd_notify::NotifyState::monotonic_usec_now() {
            Ok(usec) => notify(&[NotifyState::Reloading, usec]),
            Err(_) => notify(&[NotifyState::Reloading]),
        }
        let ok = match Setup::load(self.config_path.as_deref(), self.key_file.as_deref()) {
            Ok(setup) => {
                self.setup = setup;
                tracing::info!("configuration and rules reloaded");
                true
            }
            Err(e) => {
                tracing::error!(error = %e, "reload failed; keeping the previous configuration");
                false
            }
        };
        notify(&[NotifyState::Ready, NotifyState::Status(&self.status())]);
        ok
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

/// How the daemon's reports name a file: its absolute path, bytes spelled out (see
/// `report::guard::path_text`).
fn report_path(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    crate::report::guard::path_text(path.as_os_str().as_bytes())
}
