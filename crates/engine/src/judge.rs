//! The judgement over a finished report: which findings are accepted on purpose, and
//! what the run's verdict is.
//!
//! Accepting findings on purpose: a baseline file (today's findings, by fingerprint and
//! path) and `[[allow]]` config entries (a fingerprint, or a rule within a path glob,
//! each with a reason). Nothing is accepted silently: every accepted finding moves to
//! the report's `suppressed` list with what accepted it and why.

use crate::config::AllowEntry;
use crate::error::{Error, Result};
use crate::finding::fingerprint::FingerprintKey;
use crate::finding::{Finding, Severity};
use crate::report::{Report, Suppressed};
use globset::{GlobBuilder, GlobMatcher};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::path::Path;

pub const BASELINE_SCHEMA: &str = "privacy-audit.baseline/v1";

/// `.privacy-audit-baseline.json`: sorted, without line numbers, so it does not churn
/// when lines move and merges cleanly.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Baseline {
    pub schema: String,
    /// Which fingerprint key made the entries (not the key itself): a baseline made on
    /// another machine, with another key, matches nothing, and the run says so.
    pub key_id: String,
    pub findings: Vec<BaselineEntry>,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct BaselineEntry {
    pub fingerprint: String,
    pub rule_id: String,
    pub path: String,
}

impl Baseline {
    pub fn from_report(report: &Report, key: &FingerprintKey) -> Baseline {
        let mut findings: Vec<BaselineEntry> = report
            .findings
            .iter()
            .chain(report.suppressed.iter().map(|s| &s.finding))
            .map(|f| BaselineEntry {
                fingerprint: f.fingerprint.0.clone(),
                rule_id: f.rule_id.clone(),
                path: f.location.path.clone(),
            })
            .collect();
        findings.sort();
        findings.dedup();
        Baseline {
            schema: BASELINE_SCHEMA.into(),
            key_id: key.id(),
            findings,
        }
    }

    /// Reads a baseline; a missing file is an empty baseline, a broken one an error.
    pub fn load(path: &Path) -> Result<Option<Baseline>> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(path, e)),
        };
        Baseline::parse(&text, &path.display().to_string()).map(Some)
    }

    /// A baseline's text, read from wherever the caller trusts (`origin` names it).
    pub fn parse(text: &str, origin: &str) -> Result<Baseline> {
        let b: Baseline = serde_json::from_str(text).map_err(|e| {
            Error::invalid(
                origin,
                format!(
                    "not a privacy-audit baseline: line {}, column {}",
                    e.line(),
                    e.column()
                ),
            )
        })?;
        if b.schema != BASELINE_SCHEMA {
            return Err(Error::invalid(
                origin,
                format!("baseline schema is not `{BASELINE_SCHEMA}`"),
            ));
        }
        Ok(b)
    }
}

/// What may suppress findings in this run.
pub struct Acceptance {
    baseline: HashSet<(String, String)>,
    allow: Vec<(Allow, String)>,
}

enum Allow {
    Fingerprint(String),
    PathRule(GlobMatcher, String),
}

impl Acceptance {
    pub fn new(
        baseline: Option<&Baseline>,
        allow: &[AllowEntry],
        key: &FingerprintKey,
    ) -> Result<Acceptance> {
        let mut set = HashSet::new();
        if let Some(b) = baseline {
            if b.key_id != key.id() {
                tracing::warn!(
                    "the baseline was made with another fingerprint key; it matches nothing \
                     here (share the key file through PRIVACY_AUDIT_KEY_FILE to share baselines)"
                );
            }
            set.extend(
                b.findings
                    .iter()
                    .map(|e| (e.fingerprint.clone(), e.path.clone())),
            );
        }
        let mut rules = Vec::new();
        for a in allow {
            let matcher = match (&a.fingerprint, &a.path, &a.rule) {
                (Some(fp), _, _) => Allow::Fingerprint(fp.to_ascii_lowercase()),
                // `*` stays inside one folder; `**` crosses folders.
                (None, Some(glob), Some(rule)) => Allow::PathRule(
                    GlobBuilder::new(glob)
                        .literal_separator(true)
                        .build()
                        .map_err(|e| Error::invalid("allow", format!("path glob `{glob}`: {e}")))?
                        .compile_matcher(),
                    rule.clone(),
                ),
                _ => continue, // rejected by config validation
            };
            rules.push((matcher, a.reason.clone()));
        }
        Ok(Acceptance {
            baseline: set,
            allow: rules,
        })
    }

    fn judge(&self, f: &Finding) -> Option<(&'static str, Option<String>)> {
        for (rule, reason) in &self.allow {
            let hit = match rule {
                Allow::Fingerprint(fp) => *fp == f.fingerprint.0,
                Allow::PathRule(glob, id) => *id == f.rule_id && glob.is_match(&f.location.path),
            };
            if hit {
                return Some(("allow", Some(reason.clone())));
            }
        }
        self.baseline
            .contains(&(f.fingerprint.0.clone(), f.location.path.clone()))
            .then_some(("baseline", None))
    }

    /// Moves accepted findings from `findings` to `suppressed` and recounts the summary.
    pub fn apply(&self, report: &mut Report) {
        if self.baseline.is_empty() && self.allow.is_empty() {
            return;
        }
        let findings = std::mem::take(&mut report.findings);
        for f in findings {
            match self.judge(&f) {
                Some((by, reason)) => report.suppressed.push(Suppressed {
                    finding: f,
                    by,
                    reason,
                }),
                None => report.findings.push(f),
            }
        }
        report.recount();
    }
}

/// What a finished run says: nothing to act on, findings at or above the failing
/// severity, or input that could not be judged (which outranks findings: a partial scan
/// is not a clean one, and its fix is different).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Clean,
    Findings,
    Incomplete,
}

pub fn verdict(report: &Report, fail_on: Severity) -> Verdict {
    if report.incomplete() {
        Verdict::Incomplete
    } else if report.findings.iter().any(|f| f.severity >= fail_on) {
        Verdict::Findings
    } else {
        Verdict::Clean
    }
}
