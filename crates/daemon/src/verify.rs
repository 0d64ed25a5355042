//! `report verify`: walks the daemon's report chain and says what it checked. The chain
//! must start at sequence 1 with no previous report (reports cut from the front are
//! caught), run without gaps or edits, agree with `audit.jsonl`, and — when the
//! daemon's key is at hand — every report must carry a MAC by that key, which whoever
//! can write the reports folder cannot forge. A restart the daemon recorded (a chain
//! that vanished under it) is reported, not hidden.

use super::trail::{
    AUDIT_LOG, Anchor, audit_anchors, lines_mac, list, mac, mac_path, report_name, sha256_hex,
};
use privacy_audit_engine::error::{Error, Result};
use privacy_audit_engine::finding::fingerprint::FingerprintKey;
use std::collections::HashMap;
use std::path::Path;

/// What a successful walk checked.
#[derive(Debug)]
pub struct Checked {
    pub reports: usize,
    /// Every report's MAC was checked with the key.
    pub keyed: bool,
    /// What the daemon recorded about the chain itself (restarts).
    pub notes: Vec<String>,
}

/// Walks the chain; `Err` names the first report that was edited, removed or reordered.
/// `recorded` is how many reports the daemon's state says it wrote, when known: a chain
/// shorter than that lost its newest reports.
pub fn verify(
    dir: &Path,
    key: Option<&FingerprintKey>,
    recorded: Option<u64>,
) -> Result<std::result::Result<Checked, String>> {
    let reports = list(dir)?;
    let anchors = audit_anchors(dir);
    let mut notes = Vec::new();
    let mut prev: Option<(u64, String, String)> = None; // sequence, file name, sha256
    for (seq, path) in &reports {
        let name = report_name(*seq);
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        let sha = sha256_hex(&bytes);
        // The log covers every report: one deleted, emptied or cut loses anchors.
        let Some(anchor) = anchors.get(&name) else {
            return Ok(Err(format!(
                "{AUDIT_LOG}: records nothing of {name} (the log was deleted, emptied or cut)"
            )));
        };
        if let Some(broken) = against_anchor(&name, &sha, Some(anchor)) {
            return Ok(Err(broken));
        }
        if let Some(key) = key {
            let expected = mac(key, &bytes);
            let stored = std::fs::read_to_string(mac_path(path)).unwrap_or_default();
            let logged = anchors.get(&name).and_then(|a| a.hmac.as_deref());
            if stored.trim() != expected || logged.is_some_and(|l| l != expected) {
                return Ok(Err(format!(
                    "{name}: not vouched for by the daemon's key (edited, or its MAC removed or forged)"
                )));
            }
        }
        if let Some(broken) = lines_broken(&name, &sha, anchor, key) {
            return Ok(Err(broken));
        }
        let Ok(doc) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
            return Ok(Err(format!(
                "{name}: not a complete JSON report (edited or truncated)"
            )));
        };
        if doc["sequence"].as_u64() != Some(*seq) {
            return Ok(Err(format!(
                "{name}: its sequence field says {}, not {seq}: reports were renamed or reordered",
                doc["sequence"]
            )));
        }
        if let Some(note) = doc["trail_note"].as_str() {
            notes.push(format!("{name}: {note}"));
        }
        let claimed = doc["prev_report_sha256"].as_str();
        match &prev {
            None if *seq != 1 || claimed.is_some() => {
                return Ok(Err(format!(
                    "{name}: the chain starts here, not at {}: earlier reports were removed",
                    report_name(1)
                )));
            }
            None => {}
            Some((p, pname, psha)) => {
                if *p + 1 != *seq {
                    return Ok(Err(format!(
                        "{}: missing (removed) — the chain jumps from {pname} to {name}",
                        report_name(p + 1)
                    )));
                }
                if claimed != Some(psha.as_str()) {
                    // The log vouches for the earlier report: then this one was altered.
                    let blamed = if anchors.get(pname).is_some_and(|a| a.sha256 == *psha) {
                        &name
                    } else {
                        pname
                    };
                    return Ok(Err(format!(
                        "{blamed}: edited — {name} and {pname} no longer chain"
                    )));
                }
            }
        }
        prev = Some((*seq, name, sha));
    }
    let last = reports.last().map_or(0, |(seq, _)| *seq);
    if let Some(n) = recorded.filter(|&n| n > last) {
        return Ok(Err(format!(
            "{}: missing (removed) — the daemon's state records {n} reports, the chain ends at {last}",
            report_name(last + 1)
        )));
    }
    if let Some(missing) = logged_but_missing(&reports, &anchors) {
        return Ok(Err(format!(
            "{missing}: missing (removed) — {AUDIT_LOG} records it"
        )));
    }
    Ok(Ok(Checked {
        reports: reports.len(),
        keyed: key.is_some(),
        notes,
    }))
}

/// The batch's finding lines against what its anchor says of them.
fn lines_broken(
    name: &str,
    sha: &str,
    anchor: &Anchor,
    key: Option<&FingerprintKey>,
) -> Option<String> {
    let edited = || format!("{AUDIT_LOG}: the finding lines of {name} were edited or removed");
    if let Some(key) = key {
        // With the key, the anchor must vouch for its lines: one stripped of the MAC
        // is as edited as one with a wrong MAC.
        let Some(claimed) = anchor.lines_sha256.as_deref() else {
            return Some(edited());
        };
        if anchor.lines_hmac.as_deref() != Some(lines_mac(key, claimed, sha).as_str()) {
            return Some(edited());
        }
    }
    match &anchor.lines_sha256 {
        Some(claimed) if *claimed != anchor.lines_found => Some(edited()),
        _ => None,
    }
}

fn against_anchor(name: &str, sha: &str, anchor: Option<&Anchor>) -> Option<String> {
    let a = anchor?;
    (a.sha256 != sha)
        .then(|| format!("{name}: edited — {AUDIT_LOG} recorded a different sha256 for it"))
}

fn logged_but_missing(
    reports: &[(u64, std::path::PathBuf)],
    anchors: &HashMap<String, Anchor>,
) -> Option<String> {
    let present: std::collections::HashSet<String> =
        reports.iter().map(|(seq, _)| report_name(*seq)).collect();
    let mut logged: Vec<&String> = anchors.keys().filter(|n| !present.contains(*n)).collect();
    logged.sort();
    logged.first().map(|s| (*s).clone())
}
