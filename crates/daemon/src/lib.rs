//! `privacy-audit daemon`: watches the dataset folders, judges every new or changed file
//! once it is stable, and writes the audit trail. One tokio task owns all state; the
//! watcher thread only sends hints; scanning runs on the scanner's own threads.
//!
//! Life under systemd (`Type=notify`): READY after the start-up catch-up, STATUS after
//! each batch, WATCHDOG from the main loop (a wedged loop stops the pings), SIGHUP
//! reloads config and rules (a broken config is logged and the old one kept), SIGTERM
//! finishes the batch in flight, writes its report and exits 0.

mod batch;
mod event_loop;
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
