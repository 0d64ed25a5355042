//! Reports of shards scanned anywhere (other machines, pipeline workers) merged into
//! one: one file list, one finding list, one summary, and so one verdict.
//!
//! A shard's report is input like any other: it may have been edited. So the merge
//! takes nothing on trust that it would print. Every path and text goes through the
//! caller's judgement (the rules run on it as on a scanned file's name: a secret, an
//! address or a denylisted term in it is masked), every rule id must be one of this
//! rule set's, and the verdict is computed from the lists, never from a shard's
//! summary.

use super::{REPORT_SCHEMA, Report};
use crate::error::{Error, Result};
use crate::guard::guard;

/// What the merge needs of the rules that made the shards.
pub struct MergeRules<'a> {
    /// Text as a scan would show it: a path, an excerpt, a reason (values masked).
    pub path: &'a dyn Fn(&str) -> String,
    /// Whether a rule id is one of this rule set's.
    pub known_rule: &'a dyn Fn(&str) -> bool,
}

/// Merges `reports` (each named for errors). They must be reports of this format made
/// with the same rules: findings judged by different rules do not add up to one
/// verdict. A file or finding present in two shards (overlapping inputs) counts once; a
/// file that failed in either shard fails the merge.
pub fn merge(reports: Vec<(String, Report)>, rules: &MergeRules<'_>) -> Result<Report> {
    let mut iter = reports.into_iter();
    let Some((first_name, mut merged)) = iter.next() else {
        return Err(Error::Usage("report merge: no reports given".into()));
    };
    let first_name = guard(&first_name);
    check(&first_name, &merged, rules)?;
    for (name, r) in iter {
        let name = guard(&name);
        check(&name, &r, rules)?;
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
        merged.summary.duration_ms += r.summary.duration_ms;
        merged.summary.below_min_confidence += r.summary.below_min_confidence;
    }
    remask(&mut merged, rules);
    merged
        .files
        .sort_by(|a, b| (&a.path, &a.sha256, !a.error).cmp(&(&b.path, &b.sha256, !b.error)));
    // The same file from two shards: failing copies sort first and the first is kept.
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

fn check(name: &str, r: &Report, rules: &MergeRules<'_>) -> Result<()> {
    if r.schema != REPORT_SCHEMA {
        return Err(Error::invalid(
            name,
            format!("not a `{REPORT_SCHEMA}` report"),
        ));
    }
    let ids = r
        .findings
        .iter()
        .chain(r.suppressed.iter().map(|s| &s.finding))
        .map(|f| f.rule_id.as_str());
    if let Some(id) = ids.into_iter().find(|id| !(rules.known_rule)(id)) {
        return Err(Error::invalid(
            name,
            format!("names a rule this rule set does not have (`{}`)", guard(id)),
        ));
    }
    Ok(())
}

/// Masks every text the merged report shows, as a scan would have.
fn remask(r: &mut Report, rules: &MergeRules<'_>) {
    // The rules' own judgement of text (as for a file name), then the output guard on
    // the words that hold no mask yet: a report's excerpt was guarded when it was made,
    // so an honest one comes out the same, and the guard must not mask an already
    // masked `a***@o***.pt` a second time.
    let text = |s: &mut String| *s = guard_unmasked(&(rules.path)(s));
    for f in &mut r.files {
        f.path = (rules.path)(&f.path);
        if let Some(reason) = f.reason.as_mut() {
            text(reason);
        }
    }
    let findings = r
        .findings
        .iter_mut()
        .chain(r.suppressed.iter_mut().map(|s| &mut s.finding));
    for f in findings {
        f.location.path = (rules.path)(&f.location.path);
        if let Some(p) = f.location.json_pointer.as_mut() {
            text(p);
        }
        text(&mut f.excerpt);
        text(&mut f.message);
    }
    for s in &mut r.suppressed {
        if let Some(reason) = s.reason.as_mut() {
            text(reason);
        }
    }
}

fn guard_unmasked(text: &str) -> String {
    text.split(' ')
        .map(|word| {
            if word.contains('*') {
                word.to_string()
            } else {
                guard(word)
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The first 12 characters of a ruleset digest, when it is one.
fn short(sha: &str) -> String {
    if sha.len() == 64 && sha.bytes().all(|b| b.is_ascii_hexdigit()) {
        sha[..12].to_string()
    } else {
        "not a sha256".to_string()
    }
}
