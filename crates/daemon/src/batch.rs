//! One batch of files, judged and recorded: the scan runs off the event loop (on the
//! blocking pool), so watchdog pings and signals are served however long a batch
//! takes; what follows (acceptance, quarantine, the report in the trail, the state)
//! runs on the loop once the scan is back.

use super::link::{Trail, TrailReport};
use super::state;
use super::{Daemon, notify, quarantine, trail};
use privacy_audit_engine::config::OnViolation;
use privacy_audit_engine::report::{FileStatus, Report};
use privacy_audit_engine::scan::Scanner;
use privacy_audit_engine::source::Stamp;
use sd_notify::NotifyState;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// A batch being scanned.
pub(super) struct InFlight {
    files: Vec<PathBuf>,
    before: Vec<Option<Stamp>>,
    /// Report names back to the files they name.
    disk: HashMap<String, PathBuf>,
    pub scan: tokio::task::JoinHandle<privacy_audit_engine::Result<Report>>,
}

/// How the daemon's reports name a file: its absolute path, bytes spelled out (see
/// `guard::path_text`), a leak in its name masked.
pub(super) fn report_name(scanner: &Scanner, path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    scanner
        .check_name(&privacy_audit_engine::guard::path_text(
            path.as_os_str().as_bytes(),
        ))
        .shown
}

/// What a batch is scanned from: (file, report path, root) per file.
type Items = Vec<(PathBuf, String, PathBuf)>;

impl Daemon {
    /// The scan's items, each report name mapped back to its file, and the stamps the
    /// files had before they were read.
    fn prepare(&self, files: &[PathBuf]) -> (Items, HashMap<String, PathBuf>, Vec<Option<Stamp>>) {
        use std::os::unix::ffi::OsStrExt;
        let items = files
            .iter()
            .map(|p| {
                let rel = privacy_audit_engine::guard::path_text(p.as_os_str().as_bytes());
                (p.clone(), rel, self.root_of(p))
            })
            .collect();
        let disk = files
            .iter()
            .map(|p| (report_name(&self.setup.scanner, p), p.clone()))
            .collect();
        let before = files.iter().map(|p| state::stamp(p)).collect();
        (items, disk, before)
    }

    /// Starts scanning `files` on the blocking pool.
    pub(super) fn start_batch(&mut self, files: Vec<PathBuf>) -> InFlight {
        let (items, disk, before) = self.prepare(&files);
        let scanner = Arc::clone(&self.setup.scanner);
        let policy = Arc::clone(&self.setup.policy);
        let scan = tokio::task::spawn_blocking(move || {
            let files = privacy_audit_engine::run::FileList { items: &items };
            privacy_audit_engine::run::run(&scanner, &files, &policy, None)
        });
        InFlight {
            files,
            before,
            disk,
            scan,
        }
    }

    /// Judges `files` in place (before the loop runs, at start and stop).
    pub(super) fn write_batch(&mut self, files: Vec<PathBuf>) {
        let (items, disk, before) = self.prepare(&files);
        let source = privacy_audit_engine::run::FileList { items: &items };
        match privacy_audit_engine::run::run(&self.setup.scanner, &source, &self.setup.policy, None)
        {
            Ok(report) => self.finish_batch(files, before, &disk, report),
            // A list of files is read whole or not at all; unread, they stay queued.
            Err(e) => {
                tracing::error!(error = %e, "a batch scan failed; its files will be judged again");
                self.queue.overflowed = true;
            }
        }
    }

    /// Records a batch whose scan came back.
    pub(super) fn land(&mut self, batch: InFlight, report: Report) {
        self.finish_batch(batch.files, batch.before, &batch.disk, report);
    }

    fn finish_batch(
        &mut self,
        files: Vec<PathBuf>,
        before: Vec<Option<Stamp>>,
        disk: &HashMap<String, PathBuf>,
        report: Report,
    ) {
        let trail = Trail {
            removed: std::mem::take(&mut self.removed),
            trail_note: self.trail_note.take(),
            ..Trail::default()
        };
        let mut written = TrailReport { report, trail };
        let reports = self.setup.dir(&self.setup.config.daemon.reports);
        if self.setup.config.daemon.on_violation == OnViolation::Quarantine {
            let base = self.setup.dir(&self.setup.config.daemon.quarantine);
            quarantine::move_violations(&mut written, disk, &base, self.head.next, &reports);
        }
        match trail::append(
            &reports,
            &mut self.head,
            &mut written,
            self.setup.scanner.key(),
        ) {
            Ok(path) => {
                tracing::info!(report = %path.display(), files = written.report.files.len(),
                findings = written.report.findings.len(), names = %judged_names(&written.report),
                "report written")
            }
            Err(e) => {
                // Nothing was recorded: the removals wait for the next report and the
                // files stay unjudged in the state, so a walk queues them again.
                tracing::error!(error = %e, "cannot write the report; these files will be judged again");
                self.removed = written.trail.removed;
                self.trail_note = written.trail.trail_note;
                self.queue.overflowed = true;
                return;
            }
        }
        let moved: Vec<String> = written
            .trail
            .quarantined
            .iter()
            .map(|q| q.path.clone())
            .collect();
        let report = written.report;
        self.judged += report.files.len() as u64;
        self.found += report.findings.len() as u64;
        self.record(&report, &moved, &files, &before, disk);
        notify(&[NotifyState::Status(&self.status())]);
    }

    fn record(
        &mut self,
        report: &Report,
        quarantined: &[String],
        files: &[PathBuf],
        before: &[Option<Stamp>],
        disk: &HashMap<String, PathBuf>,
    ) {
        let name_of: HashMap<&Path, &str> = disk
            .iter()
            .map(|(n, p)| (p.as_path(), n.as_str()))
            .collect();
        let records: HashMap<&str, &privacy_audit_engine::report::FileRecord> =
            report.files.iter().map(|f| (f.path.as_str(), f)).collect();
        let with_findings: std::collections::HashSet<&str> = report
            .findings
            .iter()
            .map(|f| f.location.path.as_str())
            .collect();
        let moved: std::collections::HashSet<&str> =
            quarantined.iter().map(String::as_str).collect();
        let now = Instant::now();
        for (path, before) in files.iter().zip(before) {
            let Some(&rel) = name_of.get(path.as_path()) else {
                continue;
            };
            let Some(rec) = records.get(rel) else {
                continue;
            };
            // Unreadable now (permissions): not remembered, so it is tried again.
            if moved.contains(rel) || rec.error {
                continue;
            }
            let after = state::stamp(path);
            // Judged in this report and gone already: the next report says it went.
            if after.is_none() {
                self.removed.push(rel.to_string());
                continue;
            }
            if after != *before {
                // Changed while being read: what was judged may not be what is there.
                self.queue.hint(path.clone(), now);
                continue;
            }
            let Some(stamp) = after else { continue };
            let verdict = if rec.status == FileStatus::Skipped {
                "skipped"
            } else if with_findings.contains(rel) {
                "findings"
            } else {
                "clean"
            };
            let (sha256, shown) = (rec.sha256.clone(), rel.to_string());
            self.state.record(path, stamp, sha256, verdict, shown);
        }
        self.state.last_sequence = self.head.next.saturating_sub(1);
        let dir = self.setup.dir(&self.setup.config.daemon.state);
        if let Err(e) = self.state.save(&dir) {
            tracing::error!(error = %e, "cannot save the daemon state; the reports will be replayed at start");
        }
    }
}

/// The files a report judged, as the report names them (values in names already
/// masked), the first five and how many more: what an operator reading the journal
/// needs to find the report's subject.
fn judged_names(report: &Report) -> String {
    const SHOWN: usize = 5;
    let mut names: Vec<&str> = report
        .files
        .iter()
        .take(SHOWN)
        .map(|f| f.path.as_str())
        .collect();
    let more = report.files.len().saturating_sub(SHOWN);
    let more = format!("+{more} more");
    if report.files.len() > SHOWN {
        names.push(&more);
    }
    names.join(", ")
}
