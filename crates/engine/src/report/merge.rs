//! Reports of shards scanned anywhere (other machines, pipeline workers) merged into
//! one: one file list, one finding list, one summary, and so one verdict.

use super::{REPORT_SCHEMA, Report};
use crate::error::{Error, Result};

/// Merges `reports` (each named for errors). They must be reports of this format made
/// with the same rules: findings judged by different rules do not add up to one
/// verdict. A file or finding present in two shards (overlapping inputs) counts once.
pub fn merge(reports: Vec<(String, Report)>) -> Result<Report> {
    let mut iter = reports.into_iter();
    let Some((first_name, mut merged)) = iter.next() else {
        return Err(Error::Usage("report merge: no reports given".into()));
    };
    check_schema(&first_name, &merged)?;
    merged.sequence = None;
    merged.prev_report_sha256 = None;
    merged.trail_note = None;
    for (name, r) in iter {
        check_schema(&name, &r)?;
        if r.ruleset_sha256 != merged.ruleset_sha256 {
            return Err(Error::invalid(
                name,
                format!(
                    "made with other rules (ruleset {}) than {first_name} ({}); merge reports \
                     of one rule set",
                    short(&r.ruleset_sha256),
                    short(&merged.ruleset_sha256)
                ),
            ));
        }
        if r.started_at < merged.started_at {
            merged.started_at = r.started_at;
        }
        if r.finished_at > merged.finished_at {
            merged.finished_at = r.finished_at;
        }
        merged.files.extend(r.files);
        merged.findings.extend(r.findings);
        merged.suppressed.extend(r.suppressed);
        merged.removed.extend(r.removed);
        merged.quarantined.extend(r.quarantined);
        merged.summary.duration_ms += r.summary.duration_ms;
        merged.summary.below_min_confidence += r.summary.below_min_confidence;
    }
    merged
        .files
        .sort_by(|a, b| (&a.path, &a.sha256).cmp(&(&b.path, &b.sha256)));
    merged
        .files
        .dedup_by(|a, b| a.path == b.path && a.sha256 == b.sha256);
    merged
        .findings
        .sort_by(|a, b| (a.sort_key(), &a.fingerprint).cmp(&(b.sort_key(), &b.fingerprint)));
    merged.findings.dedup();
    merged.refresh();
    Ok(merged)
}

fn check_schema(name: &str, r: &Report) -> Result<()> {
    if r.schema == REPORT_SCHEMA {
        Ok(())
    } else {
        Err(Error::invalid(
            name,
            format!("not a `{REPORT_SCHEMA}` report"),
        ))
    }
}

fn short(sha: &str) -> &str {
    sha.get(..12).unwrap_or(sha)
}
