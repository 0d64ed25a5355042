//! The daemon's event loop: watcher hints, the periodic tick (watchdog, walks that are
//! due, the next batch), signals, and a stop that loses no judged work.

use super::watch::{self, Hint};
use super::{Daemon, batch, notify};
use privacy_audit_engine::error::{Error, Result};
use sd_notify::NotifyState;
use std::time::{Duration, Instant};

impl Daemon {
    pub(super) async fn main_loop(&mut self) -> Result<()> {
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
        self.settle_at_start().await;
        tracing::info!(
            roots = self.setup.roots.len(),
            judged = self.judged,
            "ready"
        );
        notify(&[NotifyState::Ready, NotifyState::Status(&self.status())]);
        let mut tick = tokio::time::interval(self.window() / 4);
        let poll_every = (self.window() * 10).max(Duration::from_secs(5));
        let mut clocks = Clocks {
            poll: Instant::now(),
            reconcile: Instant::now(),
            poll_every,
        };
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
                    self.walk_if_due(&watch, &mut clocks);
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
        self.stop(in_flight).await;
        Ok(())
    }

    /// READY once what was found at start is judged — bounded, so a file that is
    /// written without pause cannot hold the service in "activating" forever.
    async fn settle_at_start(&mut self) {
        let start = Instant::now();
        while !self.queue.is_empty() && start.elapsed() < self.window() * 4 {
            tokio::time::sleep(self.window() / 4).await;
            while self.process_one(Instant::now()) {}
        }
    }

    /// Walks the roots again when the watcher dropped events, a poll or the periodic
    /// reconcile is due, or the queue has room again after an overflow.
    fn walk_if_due(&mut self, watch: &watch::Watch, clocks: &mut Clocks) {
        let lost = watch.lost.swap(false, std::sync::atomic::Ordering::Relaxed);
        let poll_due = !watch.polled.is_empty() && clocks.poll.elapsed() >= clocks.poll_every;
        let room = self.queue.overflowed && self.queue.len() < watch::MAX_PENDING / 2;
        let every = Duration::from_secs(self.setup.config.daemon.reconcile_secs.max(1));
        let reconcile_due = clocks.reconcile.elapsed() >= every;
        if !(lost || poll_due || room || reconcile_due) {
            return;
        }
        clocks.poll = Instant::now();
        if reconcile_due {
            clocks.reconcile = clocks.poll;
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

    /// The batch being scanned is finished and its report written: a stop never drops
    /// judged work (systemd's TimeoutStopSec bounds the wait).
    async fn stop(&mut self, mut in_flight: Option<batch::InFlight>) {
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
    }
}

/// When the main loop last walked the roots, and how often a polled root is walked.
struct Clocks {
    poll: Instant,
    reconcile: Instant,
    poll_every: Duration,
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
