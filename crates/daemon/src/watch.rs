//! From file-system events to files ready to judge.
//!
//! Events are hints, not truth: notify's inotify backend forwards them into a bounded
//! channel (a full channel blocks its thread, the kernel queue may then overflow, and
//! the overflow comes back as a rescan request). A path is judged once it is *stable*:
//! its (size, mtime) unchanged across a whole debounce window, so a file still being
//! written is never judged half-written and an atomic save (temp file renamed into
//! place) is judged once, under its final name. Reconcile walks against the persisted
//! state are the truth: at start, after an overflow or a watcher error, and
//! periodically for roots that could not be watched.

use super::state::{State, stamp};
use notify::{EventKind, RecursiveMode, Watcher};
use privacy_audit_engine::source::walk::{self, Entry, Excludes};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// Paths waiting for the debounce window: beyond this many the daemon stops tracking
/// single paths and walks the roots instead, so memory stays bounded in any burst.
pub const MAX_PENDING: usize = 100_000;
const CHANNEL: usize = 4096;

#[derive(Debug)]
pub enum Hint {
    Path(PathBuf),
    /// A folder appeared: files may have been created in it before its watch existed.
    Folder(PathBuf),
    /// Events were lost (queue overflow, watcher error): walk everything.
    Rescan(String),
}

pub struct Watch {
    /// Kept alive: dropping the watcher stops the events.
    _watcher: Option<notify::RecommendedWatcher>,
    /// Roots that could not be watched and are walked every `poll_every`.
    pub polled: Vec<PathBuf>,
    /// Set when a hint could not be queued (the channel was full): a walk is owed.
    pub lost: Arc<AtomicBool>,
}

pub fn start(roots: &[PathBuf]) -> (Watch, mpsc::Receiver<Hint>) {
    let (tx, rx) = mpsc::channel(CHANNEL);
    let handler_tx = tx.clone();
    let lost = Arc::new(AtomicBool::new(false));
    let handler_lost = lost.clone();
    let handler = move |res: notify::Result<notify::Event>| {
        let hints: Vec<Hint> = match res {
            Ok(event) if event.need_rescan() => vec![Hint::Rescan("event queue overflow".into())],
            // Reads (ours included) change nothing; a close after writing is worth a look.
            Ok(event)
                if matches!(event.kind, EventKind::Access(_))
                    && !matches!(
                        event.kind,
                        EventKind::Access(notify::event::AccessKind::Close(
                            notify::event::AccessMode::Write
                        ))
                    ) =>
            {
                Vec::new()
            }
            Ok(event) => {
                let folder = matches!(
                    event.kind,
                    EventKind::Create(notify::event::CreateKind::Folder)
                );
                event
                    .paths
                    .into_iter()
                    .map(|p| {
                        if folder {
                            Hint::Folder(p)
                        } else {
                            Hint::Path(p)
                        }
                    })
                    .collect()
            }
            Err(e) => vec![Hint::Rescan(format!("watcher error: {e}"))],
        };
        for h in hints {
            // Never block notify's thread (it also serves `watch()` calls): a full
            // channel means the daemon is busy, and a walk will find what was dropped.
            if handler_tx.try_send(h).is_err() {
                handler_lost.store(true, Ordering::Relaxed);
            }
        }
    };
    let mut polled = Vec::new();
    let config = notify::Config::default().with_follow_symlinks(false);
    let watcher = match notify::RecommendedWatcher::new(handler, config) {
        Ok(mut w) => {
            for root in roots {
                if let Err(e) = w.watch(root, RecursiveMode::Recursive) {
                    tracing::warn!(root = %root.display(), error = %e,
                        "cannot watch this folder (inotify watch limit? see \
                         /proc/sys/fs/inotify/max_user_watches); polling it instead");
                    polled.push(root.clone());
                }
            }
            Some(w)
        }
        Err(e) => {
            tracing::warn!(error = %e, "no file-system watcher; polling every root instead");
            polled.extend(roots.iter().cloned());
            None
        }
    };
    drop(tx);
    (
        Watch {
            _watcher: watcher,
            polled,
            lost,
        },
        rx,
    )
}

struct Pending {
    /// When the path was first queued: a file that never stops changing is judged
    /// once this is `max_settle` old, as it is then (and again when it changes).
    first_event: Instant,
    last_event: Instant,
    stamp: Option<privacy_audit_engine::source::Stamp>,
}

/// Debounce and stability bookkeeping.
#[derive(Default)]
pub struct Queue {
    pending: HashMap<PathBuf, Pending>,
    /// Too many paths at once: a reconcile walk is owed once the queue drains.
    pub overflowed: bool,
}

impl Queue {
    pub fn len(&self) -> usize {
        self.pending.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    pub fn hint(&mut self, path: PathBuf, now: Instant) {
        if self.pending.len() >= MAX_PENDING && !self.pending.contains_key(&path) {
            self.overflowed = true;
            return;
        }
        let stamp = stamp(&path);
        let first_event = self.pending.get(&path).map_or(now, |p| p.first_event);
        self.pending.insert(
            path,
            Pending {
                first_event,
                last_event: now,
                stamp,
            },
        );
    }

    /// Paths stable for a whole window, or queued for `max_settle` already, at most
    /// `limit`; vanished paths are returned separately (they may need a removal record).
    pub fn take_ready(
        &mut self,
        now: Instant,
        window: Duration,
        max_settle: Duration,
        limit: usize,
    ) -> (Vec<PathBuf>, Vec<PathBuf>) {
        let (mut ready, mut gone) = (Vec::new(), Vec::new());
        self.pending.retain(|path, p| {
            let overdue = now.duration_since(p.first_event) >= max_settle;
            if ready.len() >= limit || (now.duration_since(p.last_event) < window && !overdue) {
                return true;
            }
            let current = stamp(path);
            if current.is_none() {
                gone.push(path.clone());
                return false;
            }
            if current == p.stamp || overdue {
                ready.push(path.clone());
                return false;
            }
            // Still changing: wait another window from now.
            p.stamp = current;
            p.last_event = now;
            true
        });
        ready.sort();
        (ready, gone)
    }
}

/// Every regular file under `roots` that the state does not hold as judged; the
/// state's files that are gone are forgotten, and the names reports show for them
/// returned.
pub fn reconcile(
    roots: &[PathBuf],
    excludes: &Excludes,
    skip_dirs: &[PathBuf],
    state: &mut State,
) -> (Vec<PathBuf>, Vec<String>) {
    let found = std::sync::Mutex::new(Vec::new());
    let troubled = AtomicBool::new(false);
    walk::walk(roots, excludes, 2, &|entry| match entry {
        Entry::File { path, .. } => {
            if !skip_dirs.iter().any(|d| path.starts_with(d))
                && let Ok(mut f) = found.lock()
            {
                f.push(path);
            }
        }
        Entry::Skip { rel, reason } => {
            if reason.is_error() {
                tracing::warn!(path = %rel, reason = %reason, "cannot read; not judged");
                troubled.store(true, Ordering::Relaxed);
            }
        }
    });
    let found = found.into_inner().unwrap_or_default();
    // A root that is missing (unmounted) or partly unreadable proves nothing gone.
    let trusted: Vec<&PathBuf> = if troubled.load(Ordering::Relaxed) {
        Vec::new()
    } else {
        roots.iter().filter(|r| r.is_dir()).collect()
    };
    let gone = state.forget_missing(&trusted, &found);
    let changed = found
        .into_iter()
        .filter(|p| stamp(p).is_none_or(|s| !state.is_current(p, s)))
        .collect();
    (changed, gone)
}

/// The files under a folder that appeared (its watch may have come after them).
pub fn files_under(dir: &Path, excludes: &Excludes) -> Vec<PathBuf> {
    let found = std::sync::Mutex::new(Vec::new());
    walk::walk(&[dir.to_path_buf()], excludes, 1, &|entry| {
        if let Entry::File { path, .. } = entry
            && let Ok(mut f) = found.lock()
        {
            f.push(path);
        }
    });
    found.into_inner().unwrap_or_default()
}

/// (device, inode) of each root, `None` while it is missing: a watch follows an inode,
/// so a change here means the roots must be watched anew.
pub fn root_identities(roots: &[PathBuf]) -> Vec<Option<(u64, u64)>> {
    use std::os::unix::fs::MetadataExt;
    roots
        .iter()
        .map(|r| std::fs::metadata(r).ok().map(|m| (m.dev(), m.ino())))
        .collect()
}
