//! The audit trail: one report per batch, `report-<sequence>.json`, each carrying the
//! sha256 of the report before it, written atomically (temp file, fsync, rename, fsync
//! of the folder) so a crash leaves either the whole report or none. `audit.jsonl`
//! beside them gets one line per finding (masked, like every output) and one line per
//! report with its sha256, for log shippers — which also anchors the newest report,
//! the one no later report vouches for yet.

use super::link::TrailReport;
use privacy_audit_engine::error::{Error, Result};
use privacy_audit_engine::finding::fingerprint::FingerprintKey;
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};

const PREFIX: &str = "report-";
const SUFFIX: &str = ".json";
pub const AUDIT_LOG: &str = "audit.jsonl";

pub fn report_name(sequence: u64) -> String {
    format!("{PREFIX}{sequence:010}{SUFFIX}")
}

pub(super) fn sequence_of(name: &str) -> Option<u64> {
    name.strip_prefix(PREFIX)?
        .strip_suffix(SUFFIX)?
        .parse()
        .ok()
}

pub(super) fn sha256_hex(bytes: &[u8]) -> String {
    privacy_audit_engine::hex::encode(&Sha256::digest(bytes))
}

/// The reports in `dir`, by sequence.
pub fn list(dir: &Path) -> Result<Vec<(u64, PathBuf)>> {
    let mut out = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(Error::io(dir, e)),
    };
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let name = entry.file_name();
        if let Some(seq) = sequence_of(&name.to_string_lossy()) {
            out.push((seq, entry.path()));
        }
    }
    out.sort();
    Ok(out)
}

/// Where the chain stands: the next sequence number and the sha256 of the last report.
pub struct Head {
    pub next: u64,
    pub last_sha256: Option<String>,
    /// `audit.jsonl` may lag the chain (a full disk cut an append short): it is brought
    /// level before the next report.
    pub audit_behind: bool,
}

pub fn head(dir: &Path) -> Result<Head> {
    match list(dir)?.last() {
        Some((seq, path)) => {
            let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
            Ok(Head {
                next: seq + 1,
                last_sha256: Some(sha256_hex(&bytes)),
                audit_behind: true,
            })
        }
        None => Ok(Head {
            next: 1,
            last_sha256: None,
            audit_behind: false,
        }),
    }
}

/// Writes `report` as the next link of the chain and logs it to `audit.jsonl`.
pub fn append(
    dir: &Path,
    head: &mut Head,
    report: &mut TrailReport,
    key: &FingerprintKey,
) -> Result<PathBuf> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    if head.audit_behind {
        match sync_audit(dir, head, key) {
            Ok(()) => head.audit_behind = false,
            Err(e) => tracing::error!(error = %e, "audit.jsonl is still behind the reports"),
        }
    }
    report.trail.sequence = Some(head.next);
    report.trail.prev_report_sha256 = head.last_sha256.clone();
    let mut bytes = serde_json::to_vec_pretty(report)
        .map_err(|e| Error::Runtime(format!("report cannot be serialised: {e}")))?;
    bytes.push(b'\n');
    let path = dir.join(report_name(head.next));
    let hmac = mac(key, &bytes);
    // The MAC first: a report is never in the chain without the key's word for it.
    let macs = dir.join("macs");
    std::fs::create_dir_all(&macs).map_err(|e| Error::io(&macs, e))?;
    write_synced(&macs, &mac_path(&path), format!("{hmac}\n").as_bytes())?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".report-")
        .tempfile_in(dir)
        .map_err(|e| Error::io(dir, e))?;
    tmp.write_all(&bytes).map_err(|e| Error::io(&path, e))?;
    tmp.as_file().sync_all().map_err(|e| Error::io(&path, e))?;
    tmp.persist_noclobber(&path)
        .map_err(|e| Error::io(&path, e.error))?;
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io(dir, e))?;
    let sha = sha256_hex(&bytes);
    // The report is in the chain now, whatever happens to the log line below.
    head.next += 1;
    head.last_sha256 = Some(sha.clone());
    let as_value = serde_json::from_slice(&bytes).unwrap_or_default();
    if let Err(e) = log_audit(dir, &as_value, &path, &sha, &hmac, key) {
        tracing::error!(error = %e, "cannot append to audit.jsonl; the report itself is written and its lines follow with the next report");
        head.audit_behind = true;
    }
    Ok(path)
}

fn log_audit(
    dir: &Path,
    report: &serde_json::Value,
    path: &Path,
    sha: &str,
    hmac: &str,
    key: &FingerprintKey,
) -> Result<()> {
    let log = dir.join(AUDIT_LOG);
    let mut lines = String::new();
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let time = &report["finished_at"];
    let findings = report["findings"].as_array().map_or(&[][..], Vec::as_slice);
    for f in findings {
        let line = serde_json::json!({
            "time": time, "report": name, "path": f["path"],
            "line": f["line"], "column": f["column"],
            "json_pointer": f["json_pointer"], "rule_id": f["rule_id"],
            "category": f["category"], "severity": f["severity"], "excerpt": f["excerpt"],
            "fingerprint": f["fingerprint"],
        });
        lines.push_str(&line.to_string());
        lines.push('\n');
    }
    let files = report["files"].as_array().map_or(0, Vec::len);
    // The batch's finding lines are vouched for by its anchor line: their digest, and
    // keyed with the report's digest, so a line removed or edited is told.
    let lines_sha256 = sha256_hex(lines.as_bytes());
    let lines_hmac = lines_mac(key, &lines_sha256, sha);
    let summary = serde_json::json!({
        "time": time, "report": name, "sha256": sha, "hmac": hmac,
        "files": files, "findings": findings.len(),
        "lines_sha256": lines_sha256, "lines_hmac": lines_hmac,
    });
    lines.push_str(&summary.to_string());
    lines.push('\n');
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
        .map_err(|e| Error::io(&log, e))?;
    f.write_all(lines.as_bytes())
        .and_then(|()| f.sync_data())
        .map_err(|e| Error::io(&log, e))
}

/// Bytes of `audit.jsonl` read back to find its last anchored report.
const AUDIT_TAIL: u64 = 8 << 20;

/// Brings `audit.jsonl` level with the chain: a torn last line (the disk filled up in
/// the middle of an append) is cut off, and every report after the last one the log
/// anchors gets its lines, rebuilt from the report file itself.
fn sync_audit(dir: &Path, head: &Head, key: &FingerprintKey) -> Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let log = dir.join(AUDIT_LOG);
    let mut last_anchored = 0;
    match std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&log)
    {
        Ok(mut f) => {
            let len = f.metadata().map_err(|e| Error::io(&log, e))?.len();
            let from = len.saturating_sub(AUDIT_TAIL);
            let mut tail = Vec::new();
            f.seek(SeekFrom::Start(from))
                .and_then(|_| f.read_to_end(&mut tail))
                .map_err(|e| Error::io(&log, e))?;
            if !tail.is_empty() && !tail.ends_with(b"\n") {
                let keep = tail.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
                f.set_len(from + keep as u64)
                    .map_err(|e| Error::io(&log, e))?;
                tail.truncate(keep);
            }
            let anchor = tail.split(|&b| b == b'\n').rev().find_map(|line| {
                let v: serde_json::Value = serde_json::from_slice(line).ok()?;
                v.get("sha256")?;
                sequence_of(v.get("report")?.as_str()?)
            });
            last_anchored = match anchor {
                Some(seq) => seq,
                // A tail without an anchor in a longer log: nothing to rebuild safely.
                None if from > 0 => return Ok(()),
                None => 0,
            };
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(Error::io(&log, e)),
    }
    for seq in last_anchored + 1..head.next {
        let path = dir.join(report_name(seq));
        let Ok(bytes) = std::fs::read(&path) else {
            continue; // `report verify` names a missing report; the log cannot invent it
        };
        let Ok(report) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
            continue;
        };
        // The line is rebuilt from what was written then, the MAC included: nothing is
        // signed anew, so a report edited in the meantime stays unvouched for.
        let hmac = std::fs::read_to_string(mac_path(&path)).unwrap_or_default();
        log_audit(dir, &report, &path, &sha256_hex(&bytes), hmac.trim(), key)?;
        tracing::warn!(report = %path.display(), "audit.jsonl caught up with a report it had missed");
    }
    Ok(())
}

/// What `audit.jsonl` says of one report: its sha256 and, keyed, its HMAC; the digest
/// and keyed MAC its anchor gives of the batch's finding lines, and the digest of the
/// lines the log actually holds for it.
pub(super) struct Anchor {
    pub sha256: String,
    pub hmac: Option<String>,
    pub lines_sha256: Option<String>,
    pub lines_hmac: Option<String>,
    pub lines_found: String,
}

/// `report` → its anchor line in `audit.jsonl` (absent or unreadable: none).
pub(super) fn audit_anchors(dir: &Path) -> std::collections::HashMap<String, Anchor> {
    let text = std::fs::read_to_string(dir.join(AUDIT_LOG)).unwrap_or_default();
    let mut lines: std::collections::HashMap<String, String> = Default::default();
    let mut out = std::collections::HashMap::new();
    for raw in text.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(raw) else {
            continue;
        };
        let Some(report) = v["report"].as_str() else {
            continue;
        };
        let Some(sha256) = v["sha256"].as_str() else {
            // A finding line of the batch this report anchors, byte for byte.
            let batch = lines.entry(report.to_string()).or_default();
            batch.push_str(raw);
            batch.push('\n');
            continue;
        };
        let found = lines.remove(report).unwrap_or_default();
        let text_of = |k: &str| v[k].as_str().map(str::to_string);
        out.insert(
            report.to_string(),
            Anchor {
                sha256: sha256.to_string(),
                hmac: text_of("hmac"),
                lines_sha256: text_of("lines_sha256"),
                lines_hmac: text_of("lines_hmac"),
                lines_found: sha256_hex(found.as_bytes()),
            },
        );
    }
    out
}

/// The keyed MAC of a batch's finding lines, bound to its report.
pub(super) fn lines_mac(key: &FingerprintKey, lines_sha256: &str, report_sha256: &str) -> String {
    key.fingerprint(
        MAC_LABEL,
        format!("lines {lines_sha256} of {report_sha256}").as_bytes(),
    )
    .0
}

/// The keyed MAC of a report's bytes: only the holder of the daemon's key (kept in its
/// state folder, outside the reports) can make one, so whoever can write the reports
/// folder cannot rewrite the chain and its log without `report verify` saying so.
pub fn mac(key: &FingerprintKey, bytes: &[u8]) -> String {
    key.fingerprint(MAC_LABEL, bytes).0
}

/// Domain separation: no rule id holds a NUL.
const MAC_LABEL: &str = "\0privacy-audit trail";

/// Where the MAC of the report at `path` is kept: `macs/report-<n>.json.hmac` beside
/// it (a folder of their own, so `report-*` still names only reports).
pub(super) fn mac_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_owned();
    name.push(".hmac");
    path.with_file_name("macs").join(name)
}

/// Writes `bytes` to `path` atomically and durably (temp file, fsync, rename).
fn write_synced(dir: &Path, path: &Path, bytes: &[u8]) -> Result<()> {
    let mut tmp = tempfile::Builder::new()
        .prefix(".report-mac-")
        .tempfile_in(dir)
        .map_err(|e| Error::io(dir, e))?;
    tmp.write_all(bytes).map_err(|e| Error::io(path, e))?;
    tmp.as_file().sync_all().map_err(|e| Error::io(path, e))?;
    tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    Ok(())
}
