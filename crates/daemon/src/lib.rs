//! `privacy-audit daemon`: watches the dataset folders, judges every new or changed file
//! once it is stable, and writes the audit trail. One tokio task owns all state; the
//! watcher thread only sends hints; scanning runs on the scanner's own threads.
//!
//! Life under systemd (`Type=notify`): READY after the start-up catch-up, STATUS after
//! each batch, WATCHDOG from the main loop (a wedged loop stops the pings), SIGHUP
//! reloads config and rules (a broken config is logged and the old one kept), SIGTERM
//! finishes the batch in flight, writes its report and exits 0.

mod batch;
pub mod link;
mod quarantine;
pub mod state;
pub mod trail;
pub mod verify;
pub mod watch;

use privacy_audit_engine::acceptance::{BaselineChoice, RunPolicy};
use privacy_audit_engine::config::Config;
use privacy_audit_engine::error::{Error, Result};
use privacy_audit_engine::finding::fingerprint::FingerprintKey;
use privacy_audit_engine::scan::Scanner;
use privacy_audit_engine::source::walk::Excludes;
use sd_notify::NotifyState;
use state::State;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use watch::{Hint, Queue};

/// Files judged per report, so a burst yields a steady series of reports.
const BATCH: usize = 1000;

/// How the daemon gets its settings, at start and on every SIGHUP.
pub type LoadConfig = Box<dyn Fn() -> Result<Config> + Send + Sync>;

/// What a running daemon is configured with; rebuilt whole on SIGHUP.
struct Setup {
    config: Config,
    /// Shared with the batch being scanned on the blocking pool.
    scanner: std::sync::Arc<Scanner>,
    /// Shared with the batch being scanned, like the scanner.
    policy: std::sync::Arc<RunPolicy>,
    excludes: Excludes,
    roots: Vec<PathBuf>,
}

impl Setup {
    fn load(settings: &LoadConfig, key_file: Option<&Path>) -> Result<Setup> {
        let config = settings()?;
        let d = &config.daemon;
        // Before anything is created: a daemon pointed at nothing (no config, a typo,
        // a mount not there) must say so and stop, not watch nothing quietly.
        if !d.wait_for_watch
            && let Some(missing) = d.watch.iter().position(|r| !config.resolve(r).is_dir())
        {
            // Named by its place in the list: the folder's own name is the operator's
            // value and may be anything (an account, a client).
            return Err(config.invalid(format!(
                "daemon.watch[{missing}] is not a folder (create it, correct daemon.watch, or \
                 set daemon.wait_for_watch = true to wait for it)"
            )));
        }
        let state_dir = config.resolve(&d.state);
        let key_path = key_file.map_or_else(|| state_dir.join("key"), Path::to_path_buf);
        let key = FingerprintKey::load_or_create(&key_path)?;
        let excludes = Excludes::new(&config.scan.exclude)?;
        let roots = d
            .watch
            .iter()
            .map(|r| privacy_audit_engine::provenance::normalize(&config.resolve(r)))
            .collect();
        let cache = privacy_audit_engine::provenance::cache::HashCache::open(
            state_dir.join("hashes-v3.jsonl"),
        );
        let scanner =
            std::sync::Arc::new(Scanner::from_config(config.clone(), key)?.with_cache(cache));
        // The scanner's key carries the config's [team] key, which baselines match.
        let policy = RunPolicy::for_run(&config, scanner.key(), &BaselineChoice::Configured, None)?;
        Ok(Setup {
            config,
            scanner,
            policy: std::sync::Arc::new(policy),
            excludes,
            roots,
        })
    }

    fn dir(&self, p: &Path) -> PathBuf {
        privacy_audit_engine::provenance::normalize(&self.config.resolve(p))
    }
}

pub struct Daemon {
    load_config: LoadConfig,
    key_file: Option<PathBuf>,
    setup: Setup,
    state: State,
    head: trail::Head,
    queue: Queue,
    removed: Vec<String>,
    /// Said in the next report: what happened to the chain before it.
    trail_note: Option<String>,
    judged: u64,
    found: u64,
}

fn notify(states: &[NotifyState<'_>]) {
    // Outside systemd there is no socket; that is not an error.
    let _ = sd_notify::notify(states);
}

impl Daemon {
    /// `load_config` resolves the settings (the caller's discovery, environment and
    /// flags); it runs again on every SIGHUP.
    pub fn new(load_config: LoadConfig, key_file: Option<PathBuf>) -> Result<Daemon> {
        let setup = Setup::load(&load_config, key_file.as_deref())?;
        let reports = setup.dir(&setup.config.daemon.reports);
        let state_dir = setup.dir(&setup.config.daemon.state);
        let mut state = State::load(&state_dir, setup.scanner.key().clone())?;
        state.replay(&reports, |rel| Some(PathBuf::from(rel)))?;
        let head = trail::head(&reports)?;
        // The state remembers more reports than the folder holds: the chain vanished
        // (or lost its newest links) under the daemon. It goes on, and says so in the
        // next report and the log, rather than starting over quietly.
        let trail_note = (state.last_sequence >= head.next).then(|| {
            let note = format!(
                "the state recorded {} reports, but the chain holds {}: reports vanished; the chain goes on from here",
                state.last_sequence,
                head.next - 1
            );
            tracing::error!(reports = %reports.display(), "{note}");
            note
        });
        Ok(Daemon {
            load_config,
            key_file,
            setup,
            state,
            head,
            queue: Queue::default(),
            removed: Vec::new(),
            trail_note,
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
            .map_err(|e| Error::Runtime(format!("cannot start the event loop: {e}")))?;
        let result = runtime.block_on(self.main_loop());
        // A batch still scanning at a stop signal is left: its files are not in the
        // state, so the next start judges them. Stopping does not wait for it.
        runtime.shutdown_background();
        result
    }

    async fn main_loop(&mut self) -> Result<()> {
        use tokio::signal::unix::{SignalKind, signal};
        let sig = |k| signal(k).map_err(|e| Error::Runtime(format!("cannot handle signals: {e}")));
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
        let mut last_reconcile = Instant::now();
        let mut roots_seen = watch::root_identities(&self.setup.roots);
        let mut in_flight: Option<batch::InFlight> = None;
        loop {
            tokio::select! {
                scanned = scanned(&mut in_flight), if in_flight.is_some() => {
                    if let Some(done) = in_flight.take() {
                        match scanned {
                            Ok(report) => self.land(done, report),
                            Err(e) => {
                                tracing::error!(error = %e, "a batch scan failed; its files will be judged again");
                                self.queue.overflowed = true;
                            }
                        }
                    }
                }
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
                        // Events the old watcher already sent (a file deleted with its
                        // folder) are handled before its channel goes.
                        while let Ok(h) = hints.try_recv() {
                            self.on_hint(h);
                        }
                        drop(watch);
                        (watch, hints) = watch::start(&self.setup.roots);
                        watching = true;
                        self.catch_up("a watched folder changed");
                    }
                    let lost = watch.lost.swap(false, std::sync::atomic::Ordering::Relaxed);
                    let poll_due = !watch.polled.is_empty() && last_poll.elapsed() >= poll_every;
                    // Overflowed paths are walked for as soon as the queue has room again.
                    let room = self.queue.overflowed && self.queue.len() < watch::MAX_PENDING / 2;
                    let every = Duration::from_secs(self.setup.config.daemon.reconcile_secs.max(1));
                    let reconcile_due = last_reconcile.elapsed() >= every;
                    if lost || poll_due || room || reconcile_due {
                        last_poll = Instant::now();
                        if reconcile_due {
                            last_reconcile = last_poll;
                        }
                        self.queue.overflowed = false;
                        self.catch_up(if lost {
                            "events dropped while busy"
                        } else if reconcile_due {
                            "periodic reconcile"
                        } else {
                            "poll"
                        });
                    }
                    // One batch at a time, scanned off the loop: the watchdog and
                    // signals are served while it runs.
                    if in_flight.is_none() {
                        in_flight = self.start_one(Instant::now());
                    }
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
        // The batch being scanned is finished and its report written: a stop never
        // drops judged work (systemd's TimeoutStopSec bounds the wait).
        if in_flight.is_some() {
            let result = scanned(&mut in_flight).await;
            if let Some(done) = in_flight.take() {
                match result {
                    Ok(report) => self.land(done, report),
                    Err(e) => {
                        tracing::error!(error = %e, "the last batch failed; its files are judged at the next start");
                    }
                }
            }
        }
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
        let own = self.own_dirs();
        let (changed, gone) = watch::reconcile(
            &self.setup.roots,
            &self.setup.excludes,
            &own,
            &mut self.state,
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
        self.removed.extend(gone);
        // A watched folder that no longer exists took its files with it. (One that
        // exists but cannot be read — an unmounted share — records nothing as removed.)
        let vanished: Vec<PathBuf> = self
            .setup
            .roots
            .iter()
            .filter(|r| {
                std::fs::symlink_metadata(r)
                    .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
            })
            .cloned()
            .collect();
        for root in vanished {
            self.forget(&root);
        }
    }

    /// Records a vanished path — or a vanished folder: everything judged under it.
    fn forget(&mut self, path: &Path) {
        let gone = self.state.forget(path);
        self.removed.extend(gone);
    }

    /// Starts scanning the next batch of what is stable, off the loop; removals alone
    /// are written at once.
    fn start_one(&mut self, now: Instant) -> Option<batch::InFlight> {
        let ready = self.take_ready(now);
        if ready.is_empty() {
            if !self.removed.is_empty() {
                self.write_batch(Vec::new());
            }
            return None;
        }
        Some(self.start_batch(ready))
    }

    /// What is stable now and not already judged as it is; vanished paths forgotten.
    fn take_ready(&mut self, now: Instant) -> Vec<PathBuf> {
        let max_settle = Duration::from_millis(self.setup.config.daemon.max_settle_ms);
        let (ready, gone) = self.queue.take_ready(now, self.window(), max_settle, BATCH);
        for p in &gone {
            self.forget(p);
        }
        ready
            .into_iter()
            .filter(|p| state::stamp(p).is_none_or(|s| !self.state.is_current(p, s)))
            .collect()
    }

    /// Judges one batch of what is stable in place; `false` when there was nothing to do.
    fn process_one(&mut self, now: Instant) -> bool {
        let ready = self.take_ready(now);
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

    /// `true` when the new configuration took over.
    fn reload(&mut self) -> bool {
        match sd_notify::NotifyState::monotonic_usec_now() {
            Ok(usec) => notify(&[NotifyState::Reloading, usec]),
            Err(_) => notify(&[NotifyState::Reloading]),
        }
        let ok = match Setup::load(&self.load_config, self.key_file.as_deref()) {
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

/// The scan of the batch in flight; never resolves when there is none.
async fn scanned(
    in_flight: &mut Option<batch::InFlight>,
) -> std::result::Result<privacy_audit_engine::report::Report, String> {
    match in_flight {
        Some(batch) => match (&mut batch.scan).await {
            Ok(Ok(report)) => Ok(report),
            Ok(Err(e)) => Err(e.to_string()),
            Err(e) => Err(e.to_string()),
        },
        None => std::future::pending().await,
    }
}
