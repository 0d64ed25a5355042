//! One file's outcome: read from disk (gzip inflated and scanned a piece at a time) or
//! handed over as bytes (a git blob), scanned and audited, or skipped with a reason.

use super::audit::FileAudit;
use super::read::{self, SkipReason, Skipped};
use super::{FileOutcome, Mode, Scanner, file, stream};
use crate::report::{FileRecord, FileStatus};
use std::path::Path;

impl Scanner {
    /// Reads and scans one file on disk; `rel` is the path the report shows.
    pub fn scan_path(&self, path: &Path, rel: String) -> FileOutcome {
        let lock = || self.buffers.lock().unwrap_or_else(|e| e.into_inner());
        let mut bufs = lock().pop().unwrap_or_default();
        let outcome = self.scan_path_with(path, rel, &mut bufs);
        bufs.trim();
        lock().push(bufs);
        outcome
    }

    fn scan_path_with(
        &self,
        path: &Path,
        rel: String,
        bufs: &mut read::ReadBuffers,
    ) -> FileOutcome {
        let limit = self.config.scan.max_file_bytes;
        match read::read_raw_into(path, limit, bufs) {
            Ok(data) => {
                self.cache.record(path, data.stamp, &data.sha256);
                let name = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let transcript = sibling_transcript(path, &name);
                let audit = FileAudit::new(&self.audit, &rel, transcript);
                let scanner = file::FileScanner::new(&self.rules, &self.key, &rel)
                    .with_audit(Some(audit), self.mode == Mode::Full);
                let (raw, pieces) = bufs.raw_and_pieces();
                let (findings, claims, stopped) = match data.gzip {
                    false => {
                        let (findings, claims) = scanner.run(&name, raw);
                        (findings, claims, None)
                    }
                    true => match stream::scan_gzip(scanner, &name, raw, limit, pieces) {
                        Ok(s) => (s.findings, s.claims, s.stopped),
                        Err(reason) => {
                            let skip = Skipped {
                                reason,
                                sha256: Some(data.sha256),
                                bytes: data.bytes,
                                stamp: Some(data.stamp),
                            };
                            return skipped(rel, skip);
                        }
                    },
                };
                FileOutcome {
                    record: FileRecord {
                        path: rel,
                        sha256: Some(data.sha256),
                        bytes: data.bytes,
                        status: match stopped {
                            None => FileStatus::Scanned,
                            Some(_) => FileStatus::Skipped,
                        },
                        error: stopped.as_ref().is_some_and(SkipReason::is_error),
                        reason: stopped.map(|r| format!("{r} (what came before it was scanned)")),
                    },
                    findings,
                    claims,
                }
            }
            Err(skip) => {
                if let (Some(stamp), Some(sha256)) = (skip.stamp, &skip.sha256) {
                    self.cache.record(path, stamp, sha256);
                }
                skipped(rel, skip)
            }
        }
    }

    /// Scans bytes that did not come from a file on disk (a git blob, a test); `rel`
    /// names it in the report and picks the format. Claims on other files are returned
    /// for the caller to verify against its own store.
    pub fn scan_blob(&self, rel: &str, raw: Vec<u8>) -> FileOutcome {
        let name = rel.rsplit('/').next().unwrap_or(rel);
        self.scan_blob_as(rel, name, raw)
    }

    /// [`Scanner::scan_blob`] with the format chosen by `name` rather than by `rel`: a
    /// symbolic link named `x.json` holds a path, which is text.
    pub fn scan_blob_as(&self, rel: &str, name: &str, raw: Vec<u8>) -> FileOutcome {
        use sha2::{Digest, Sha256};
        let sha256 = crate::hex::encode(&Sha256::digest(&raw));
        let bytes = raw.len() as u64;
        let skip = |reason, sha256| {
            let skip = Skipped {
                reason,
                sha256: Some(sha256),
                bytes,
                stamp: None,
            };
            skipped(rel.to_string(), skip)
        };
        if bytes > self.config.scan.max_file_bytes {
            let reason = SkipReason::TooLarge {
                bytes,
                limit: self.config.scan.max_file_bytes,
            };
            return skip(reason, sha256);
        }
        match read::decode_bytes(raw, self.config.scan.max_file_bytes) {
            Ok((text, _gzip)) => {
                let audit = FileAudit::new(&self.audit, rel, None);
                let (findings, claims) = file::FileScanner::new(&self.rules, &self.key, rel)
                    .with_audit(Some(audit), self.mode == Mode::Full)
                    .run(name, &text);
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
                    claims,
                }
            }
            Err(reason) => skip(reason, sha256),
        }
    }
}

/// The `transcript.json` beside an evidence pack, which `turn_index` and `http_audit`
/// are checked against.
fn sibling_transcript(path: &Path, name: &str) -> Option<crate::schema::Transcript> {
    if !name.starts_with("evidence_pack") {
        return None;
    }
    let sibling = path.with_file_name("transcript.json");
    let data = read::read_file(&sibling, 64 << 20).ok()?;
    let value = crate::formats::tree::Node::parse(&data.text).ok()?;
    crate::schema::Transcript::of(&value)
}

pub(super) fn skipped(rel: String, skip: Skipped) -> FileOutcome {
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
        claims: Vec::new(),
    }
}
