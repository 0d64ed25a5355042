//! The engine's front door: walk → read/decode → detect → report.
//!
//! A [`Scanner`] is built once per run (config, compiled rules, fingerprint key) and is
//! shared by every worker thread; it holds no lock. Other doors (git, daemon) call
//! [`Scanner::scan_blob`] with bytes they obtained themselves.

pub mod decode;
pub mod file;
pub mod read;
pub mod walk;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::finding::Finding;
use crate::report::fingerprint::FingerprintKey;
use crate::report::{FileRecord, FileStatus, Report};
use crate::rules::RuleSet;
use read::{SkipReason, Skipped};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Instant, SystemTime};
use walk::{Entry, Excludes};

/// Counters a progress display may read while a scan runs.
#[derive(Default)]
pub struct Progress {
    pub files: AtomicU64,
    pub bytes: AtomicU64,
}

/// What scanning one file produced.
pub struct FileOutcome {
    pub record: FileRecord,
    pub findings: Vec<Finding>,
}

pub struct Scanner {
    pub config: Config,
    pub rules: RuleSet,
    key: FingerprintKey,
    excludes: Excludes,
    threads: usize,
}

impl Scanner {
    pub fn new(config: Config, rules: RuleSet, key: FingerprintKey) -> Result<Scanner> {
        let excludes = Excludes::new(&config.scan.exclude)?;
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        Ok(Scanner {
            config,
            rules,
            key,
            excludes,
            threads,
        })
    }

    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// Scans files and folders. A path that does not exist is an error (exit 2); a file
    /// that cannot be read is listed as skipped and marks the report incomplete.
    pub fn scan_paths(&self, roots: &[PathBuf], progress: Option<&Progress>) -> Result<Report> {
        for root in roots {
            std::fs::symlink_metadata(root).map_err(|e| Error::io(root, e))?;
        }
        let started = SystemTime::now();
        let clock = Instant::now();
        let (tx, rx) = mpsc::channel::<FileOutcome>();
        let visit = |entry: Entry| {
            let outcome = match entry {
                Entry::File { path, rel } => self.scan_path(&path, rel),
                Entry::Skip { rel, reason } => skipped(
                    rel,
                    Skipped {
                        reason,
                        sha256: None,
                        bytes: 0,
                    },
                ),
            };
            if let Some(p) = progress {
                p.files.fetch_add(1, Ordering::Relaxed);
                p.bytes.fetch_add(outcome.record.bytes, Ordering::Relaxed);
            }
            // The receiver outlives the walk; a send cannot fail before it ends.
            let _ = tx.send(outcome);
        };
        walk::walk(roots, &self.excludes, self.threads, &visit);
        drop(tx);
        let (mut files, mut findings) = (Vec::new(), Vec::new());
        for outcome in rx {
            files.push(outcome.record);
            findings.extend(outcome.findings);
        }
        Ok(Report::new(
            self.rules.sha256.clone(),
            started,
            clock.elapsed(),
            files,
            findings,
        ))
    }

    /// Reads and scans one file on disk; `rel` is the path the report shows.
    pub fn scan_path(&self, path: &Path, rel: String) -> FileOutcome {
        match read::read_file(path, self.config.scan.max_file_bytes) {
            Ok(data) => {
                let name = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let findings =
                    file::FileScanner::new(&self.rules, &self.key, &rel, &data.text).run(&name);
                FileOutcome {
                    record: FileRecord {
                        path: rel,
                        sha256: Some(data.sha256),
                        bytes: data.bytes,
                        status: FileStatus::Scanned,
                        reason: None,
                        error: false,
                    },
                    findings,
                }
            }
            Err(skip) => skipped(rel, skip),
        }
    }

    /// Scans bytes that did not come from a file on disk (a git blob, a test); `rel`
    /// names it in the report and picks the format.
    pub fn scan_blob(&self, rel: &str, raw: Vec<u8>) -> FileOutcome {
        use sha2::{Digest, Sha256};
        let sha256 = crate::hex::encode(&Sha256::digest(&raw));
        let bytes = raw.len() as u64;
        if bytes > self.config.scan.max_file_bytes {
            let reason = SkipReason::TooLarge {
                bytes,
                limit: self.config.scan.max_file_bytes,
            };
            return skipped(
                rel.to_string(),
                Skipped {
                    reason,
                    sha256: Some(sha256),
                    bytes,
                },
            );
        }
        match read::decode_bytes(raw, self.config.scan.max_file_bytes) {
            Ok((text, _gzip)) => {
                let name = rel.rsplit('/').next().unwrap_or(rel);
                let findings = file::FileScanner::new(&self.rules, &self.key, rel, &text).run(name);
                FileOutcome {
                    record: FileRecord {
                        path: rel.to_string(),
                        sha256: Some(sha256),
                        bytes,
                        status: FileStatus::Scanned,
                        reason: None,
                        error: false,
                    },
                    findings,
                }
            }
            Err(reason) => skipped(
                rel.to_string(),
                Skipped {
                    reason,
                    sha256: Some(sha256),
                    bytes,
                },
            ),
        }
    }
}

fn skipped(rel: String, skip: Skipped) -> FileOutcome {
    FileOutcome {
        record: FileRecord {
            path: rel,
            sha256: skip.sha256,
            bytes: skip.bytes,
            status: FileStatus::Skipped,
            error: skip.reason.is_error(),
            reason: Some(skip.reason.to_string()),
        },
        findings: Vec::new(),
    }
}
