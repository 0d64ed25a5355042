//! One file's outcome: read from disk (gzip inflated and scanned a piece at a time) or
//! handed over as bytes (a git blob), scanned and audited, or skipped with a reason.

use super::audit::FileAudit;
use super::file::Scanned;
use super::sniff::{self, Sniff};
use super::{FileOutcome, Mode, Scanner, baseline_file, file, stream};
use crate::config::Unjudged;
use crate::finding::{Confidence, Finding};
use crate::report::{FileRecord, FileStatus};
use crate::source::read::{self, SkipReason, Skipped};
use std::path::Path;

impl Scanner {
    /// Findings in a gzip file's header fields, placed at the file: a stored name is
    /// judged as a file name is, a comment or extra field as text. Nothing a file
    /// carries goes unread.
    fn gzip_header(&self, rel: &str, raw: &[u8]) -> Vec<Finding> {
        use crate::source::gzip::{HeaderField, header_fields};
        let mut findings = Vec::new();
        for (kind, bytes) in header_fields(raw) {
            let found = match kind {
                HeaderField::Name => self.check_name(&String::from_utf8_lossy(bytes)).findings,
                HeaderField::Other => self.file_scanner(rel).run_text(bytes).findings,
            };
            for mut f in found {
                f.location = crate::finding::Location {
                    path: rel.to_string(),
                    line: None,
                    column: None,
                    json_pointer: None,
                };
                f.message = match kind {
                    HeaderField::Name => format!(
                        "{} (in the gzip header's stored name)",
                        f.message.trim_end_matches(" (in the file name)")
                    ),
                    HeaderField::Other => format!("{} (in the gzip header)", f.message),
                };
                findings.push(f);
            }
        }
        findings
    }

    /// A file scanner under this scanner's rules and key.
    fn file_scanner<'s>(&'s self, rel: &'s str) -> file::FileScanner<'s> {
        file::FileScanner::new(&self.rules, &self.key, rel).keeping_values(self.keep_values)
    }

    /// Reads and scans one file on disk; `rel` is the path the report shows.
    pub fn scan_path(&self, path: &Path, rel: String) -> FileOutcome {
        self.scan_path_below(path, rel, Confidence::Low)
    }

    /// [`Scanner::scan_path`] for a run that lists nothing less sure than `floor`:
    /// such findings of the file's content are counted, not built.
    pub fn scan_path_below(&self, path: &Path, rel: String, floor: Confidence) -> FileOutcome {
        let lock = || self.buffers.lock().unwrap_or_else(|e| e.into_inner());
        let mut bufs = lock().pop().unwrap_or_default();
        let named = self.check_name(&rel);
        let mut outcome = self.scan_path_with(path, named.shown, &mut bufs, floor);
        outcome.findings.extend(named.findings);
        bufs.trim();
        lock().push(bufs);
        outcome
    }

    fn scan_path_with(
        &self,
        path: &Path,
        rel: String,
        bufs: &mut read::ReadBuffers,
        floor: Confidence,
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
                let scanner = self
                    .file_scanner(&rel)
                    .with_audit(Some(audit), self.mode == Mode::Full)
                    .counting_below(floor);
                let (raw, pieces) = bufs.raw_and_pieces();
                let judged = match data.gzip {
                    false => Ok(self.read_content(scanner, &name, raw, 0)),
                    true => match stream::scan_gzip(scanner, &name, raw, limit, pieces) {
                        Ok(s) => Ok((s.scanned, s.stopped)),
                        // Not text once inflated: inflated whole, then judged as bytes.
                        Err(SkipReason::Binary) => {
                            read::decode_bytes(raw.to_vec(), limit).map(|text| {
                                let scanner = self
                                    .file_scanner(&rel)
                                    .with_audit(
                                        Some(FileAudit::new(&self.audit, &rel, None)),
                                        self.mode == Mode::Full,
                                    )
                                    .counting_below(floor);
                                self.read_content(scanner, &name, &text, 1)
                            })
                        }
                        Err(reason) => Err(reason),
                    },
                };
                let header = match data.gzip {
                    true => self.gzip_header(&rel, raw),
                    false => Vec::new(),
                };
                let (mut scanned, stopped) = match judged {
                    Ok(j) => j,
                    Err(reason) => {
                        let skip = Skipped {
                            reason,
                            sha256: Some(data.sha256),
                            bytes: data.bytes,
                            stamp: Some(data.stamp),
                        };
                        return self.skipped(rel, skip);
                    }
                };
                scanned.findings.extend(header);
                FileOutcome {
                    record: FileRecord {
                        path: rel,
                        sha256: Some(data.sha256),
                        keyed_sha256: None,
                        bytes: data.bytes,
                        status: match stopped {
                            None => FileStatus::Scanned,
                            Some(_) => FileStatus::Skipped,
                        },
                        error: stopped.as_ref().is_some_and(|r| self.fails(r)),
                        reason: stopped.map(|r| match r {
                            SkipReason::Binary => BINARY_NOTE.to_string(),
                            r => format!("{r} (what came before it was scanned)"),
                        }),
                    },
                    findings: scanned.findings,
                    claims: scanned.claims,
                    below_floor: scanned.below_floor,
                }
            }
            Err(skip) => {
                if let (Some(stamp), Some(sha256)) = (skip.stamp, &skip.sha256) {
                    self.cache.record(path, stamp, sha256);
                }
                self.skipped(rel, skip)
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
        self.scan_blob_below(rel, name, raw, Confidence::Low)
    }

    /// [`Scanner::scan_blob_as`] for a run that lists nothing less sure than `floor`.
    pub fn scan_blob_below(
        &self,
        rel: &str,
        name: &str,
        raw: Vec<u8>,
        floor: Confidence,
    ) -> FileOutcome {
        let named = self.check_name(rel);
        let mut outcome = self.scan_blob_named(&named.shown, name, raw, floor);
        outcome.findings.extend(named.findings);
        outcome
    }

    fn scan_blob_named(
        &self,
        rel: &str,
        name: &str,
        raw: Vec<u8>,
        floor: Confidence,
    ) -> FileOutcome {
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
            self.skipped(rel.to_string(), skip)
        };
        if bytes > self.config.scan.max_file_bytes {
            let reason = SkipReason::TooLarge {
                bytes,
                limit: self.config.scan.max_file_bytes,
            };
            return skip(reason, sha256);
        }
        let header = match read::is_gzip(&raw) {
            true => self.gzip_header(rel, &raw),
            false => Vec::new(),
        };
        match read::decode_bytes(raw, self.config.scan.max_file_bytes) {
            Ok(text) => {
                let audit = FileAudit::new(&self.audit, rel, None);
                let scanner = self
                    .file_scanner(rel)
                    .with_audit(Some(audit), self.mode == Mode::Full)
                    .counting_below(floor);
                let (mut scanned, note) = self.read_content(scanner, name, &text, 0);
                scanned.findings.extend(header);
                FileOutcome {
                    record: FileRecord {
                        path: rel.to_string(),
                        sha256: Some(sha256),
                        keyed_sha256: None,
                        bytes,
                        status: match note {
                            None => FileStatus::Scanned,
                            Some(_) => FileStatus::Skipped,
                        },
                        error: note.as_ref().is_some_and(|r| self.fails(r)),
                        reason: note.map(|_| BINARY_NOTE.to_string()),
                    },
                    findings: scanned.findings,
                    claims: scanned.claims,
                    below_floor: scanned.below_floor,
                }
            }
            Err(reason) => skip(reason, sha256),
        }
    }

    /// Judges a file's (inflated) bytes: text as it is, UTF-16/32 transcoded, a gzip
    /// inside a gzip inflated, anything else binary with its printable runs scanned.
    /// Binary content comes back with [`SkipReason::Binary`]: only partly judged.
    fn read_content(
        &self,
        scanner: file::FileScanner<'_>,
        name: &str,
        text: &[u8],
        depth: u8,
    ) -> (Scanned, Option<SkipReason>) {
        let baseline = depth == 0 && baseline_file::recognised(self, name, text);
        // A byte order mark or a NUL anywhere is a claim about the bytes that the bytes
        // need not keep (`\xff\xfe` before ASCII; UTF-16 past the first 8 KiB): the
        // file is also read with NULs dropped, and what that reading adds is kept.
        let kind = sniff::sniff(text);
        let twice = sniff::needs_second_reading(kind, text);
        // Both readings, and a baseline's own fields, drop findings only once all are
        // in: every finding is built, so the count below the floor stays the run's.
        let scanner = match twice || baseline {
            true => scanner.counting_below(Confidence::Low),
            false => scanner,
        };
        let second = twice.then(|| scanner.plain_copy());
        let (mut scanned, note) = self.first_reading(scanner, name, text, kind, depth);
        if let Some(plain) = second {
            let more = plain.run_text(&sniff::nul_free_view(text)).findings;
            let seen: std::collections::HashSet<(String, String)> = scanned
                .findings
                .iter()
                .map(|f| (f.rule_id.clone(), f.fingerprint.0.clone()))
                .collect();
            scanned.findings.extend(
                more.into_iter()
                    .filter(|f| !seen.contains(&(f.rule_id.clone(), f.fingerprint.0.clone()))),
            );
        }
        if baseline {
            baseline_file::keep_path_findings(&mut scanned.findings);
        }
        (scanned, note)
    }

    /// The first reading of bytes sniffed as `kind`.
    fn first_reading(
        &self,
        scanner: file::FileScanner<'_>,
        name: &str,
        text: &[u8],
        kind: Sniff,
        depth: u8,
    ) -> (Scanned, Option<SkipReason>) {
        match kind {
            Sniff::Text => (scanner.run(name, text), None),
            Sniff::Wide(wide, mark) => {
                (scanner.run(name, &sniff::transcode(text, wide, mark)), None)
            }
            Sniff::Binary => {
                if depth < 2
                    && read::is_gzip(text)
                    && let Ok(inner) =
                        read::decode_bytes(text.to_vec(), self.config.scan.max_file_bytes)
                {
                    let header = self.gzip_header(scanner.rel(), text);
                    let (mut scanned, note) = self.read_content(scanner, name, &inner, depth + 1);
                    scanned.findings.extend(header);
                    return (scanned, note);
                }
                let scanned = scanner.run_text(&sniff::printable_view(text));
                (scanned, Some(SkipReason::Binary))
            }
        }
    }

    /// Whether a skip of this kind fails the run: errors always; symbolic links and
    /// special files (not content) never; content not judged unless
    /// `scan.allow_unjudged` lets that kind pass.
    pub(super) fn fails(&self, reason: &SkipReason) -> bool {
        match reason {
            SkipReason::Symlink | SkipReason::NotRegular(_) => false,
            // `verify` judges hashes only, and a binary file's hash is judged whole.
            SkipReason::Binary if self.mode == Mode::Provenance => false,
            SkipReason::Binary => !self.config.scan.allow_unjudged.contains(&Unjudged::Binary),
            SkipReason::TooLarge { .. } => !self
                .config
                .scan
                .allow_unjudged
                .contains(&Unjudged::TooLarge),
            SkipReason::Bomb { .. } => !self.config.scan.allow_unjudged.contains(&Unjudged::Bomb),
            SkipReason::CorruptGzip(_) | SkipReason::Unreadable(_) => true,
        }
    }

    pub(crate) fn skipped(&self, rel: String, skip: Skipped) -> FileOutcome {
        FileOutcome {
            record: FileRecord {
                path: rel,
                sha256: skip.sha256,
                keyed_sha256: None,
                bytes: skip.bytes,
                status: FileStatus::Skipped,
                error: self.fails(&skip.reason),
                reason: Some(skip.reason.to_string()),
            },
            findings: Vec::new(),
            claims: Vec::new(),
            below_floor: 0,
        }
    }
}

/// How a binary file is listed: skipped (its structure was not read), but not unseen.
const BINARY_NOTE: &str = "binary (its printable text was scanned)";

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
