//! The judgement over a finished report: which findings are accepted on purpose, and
//! what the run's verdict is.
//!
//! Accepting findings on purpose: a baseline file (today's findings, by fingerprint and
//! path) and `[[allow]]` config entries (a fingerprint, or a rule within a path glob,
//! each with a reason). Nothing is accepted silently: every accepted finding moves to
//! the report's `suppressed` list with what accepted it and why.

mod run_policy;
pub use run_policy::{BaselineChoice, RunPolicy};

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
/// when lines move and merges cleanly. Entries are fingerprints under the shared key
/// (`[team] key`), so a committed baseline holds on every clone.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    pub schema: String,
    /// Which fingerprint key made the entries (not the key itself): a baseline made
    /// with another key cannot match, and the run stops to say so.
    pub key_id: String,
    pub findings: Vec<BaselineEntry>,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaselineEntry {
    pub fingerprint: String,
    pub rule_id: String,
    pub path: String,
}

impl Baseline {
    /// Every finding `report` reports (not those an `[[allow]]` entry accepted: they
    /// need no second acceptance), except those in the file named `own_path` (the
    /// baseline itself: nothing in it is accepted by writing it).
    pub fn from_report(report: &Report, key: &FingerprintKey, own_path: Option<&str>) -> Baseline {
        let mut findings: Vec<BaselineEntry> = report
            .findings
            .iter()
            .filter(|f| Some(f.location.path.as_str()) != own_path)
            .map(|f| BaselineEntry {
                fingerprint: f.shared.0.clone(),
                rule_id: f.rule_id.clone(),
                path: f.location.path.clone(),
            })
            .collect();
        findings.sort();
        findings.dedup();
        Baseline {
            schema: BASELINE_SCHEMA.into(),
            key_id: key.shared_id(),
            findings,
        }
    }

    /// `text` when it is exactly a baseline: the schema, a 16-hex key id, and entries
    /// of a 64-hex fingerprint, a rule id of this run and a path. Anything else (an
    /// unknown field, a made-up rule id that could spell a host name) is not a
    /// baseline, and is scanned like any other file.
    pub fn recognise(text: &[u8], known_rule: impl Fn(&str) -> bool) -> Option<Baseline> {
        let b: Baseline = serde_json::from_slice(text).ok()?;
        let ok = b.schema == BASELINE_SCHEMA
            && is_hex(&b.key_id, 16)
            && b.findings
                .iter()
                .all(|e| is_hex(&e.fingerprint, 64) && known_rule(&e.rule_id));
        ok.then_some(b)
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
#[derive(Clone)]
pub struct Acceptance {
    baseline: HashSet<(String, String)>,
    allow: Vec<(Allow, String)>,
}

#[derive(Clone)]
enum Allow {
    Fingerprint(String, Option<GlobMatcher>),
    /// A rule within a path glob, and (for a table) a pointer pattern.
    PathRule(GlobMatcher, String, Option<String>),
}

impl Allow {
    fn accepts(&self, f: &Finding) -> bool {
        match self {
            Allow::Fingerprint(fp, within) => {
                f.shared.0.starts_with(fp.as_str())
                    && within.as_ref().is_none_or(|g| g.is_match(&f.location.path))
            }
            Allow::PathRule(glob, id, pointer) => {
                *id == f.rule_id
                    && glob.is_match(&f.location.path)
                    && pointer.as_deref().is_none_or(|p| {
                        crate::report::groups::fits(
                            p,
                            f.location.json_pointer.as_deref().unwrap_or(""),
                        )
                    })
            }
        }
    }
}

impl Acceptance {
    pub fn new(
        baseline: Option<&Baseline>,
        allow: &[AllowEntry],
        key: &FingerprintKey,
    ) -> Result<Acceptance> {
        let mut set = HashSet::new();
        if let Some(b) = baseline {
            // A baseline that cannot match accepts nothing: its findings fail as if it
            // were absent (never a pass), and the run says why. Not an error: a bad
            // baseline committed once must not block the commit that replaces it.
            if b.key_id != key.shared_id() {
                let how = if key.has_team() {
                    "this run uses the config's [team] key"
                } else {
                    "this run uses this machine's key (the config has no [team] key)"
                };
                tracing::warn!(
                    "the baseline was made with fingerprint key {}, but {how} ({}): it accepts \
                     nothing. Re-run `privacy-audit baseline` and commit it (with the [team] key \
                     that `privacy-audit init` writes, a baseline holds on every clone)",
                    if is_hex(&b.key_id, 16) {
                        b.key_id.as_str()
                    } else {
                        "(not a key id)"
                    },
                    key.shared_id()
                );
            } else {
                set.extend(
                    b.findings
                        .iter()
                        .map(|e| (e.fingerprint.to_ascii_lowercase(), e.path.clone())),
                );
            }
        }
        let mut rules = Vec::new();
        for a in allow {
            let matcher = match (&a.fingerprint, &a.path, &a.rule) {
                (Some(fp), glob, _) => Allow::Fingerprint(
                    fp.to_ascii_lowercase(),
                    match glob {
                        Some(glob) => Some(path_glob(glob)?),
                        None => None,
                    },
                ),
                (None, Some(glob), Some(rule)) => {
                    Allow::PathRule(path_glob(glob)?, rule.clone(), a.pointer.clone())
                }
                _ => continue, // rejected by config validation
            };
            rules.push((matcher, shown_reason(&a.reason)));
        }
        Ok(Acceptance {
            baseline: set,
            allow: rules,
        })
    }

    fn accepted_by(&self, f: &Finding) -> Option<(&'static str, Option<String>)> {
        for (rule, reason) in &self.allow {
            if rule.accepts(f) {
                return Some(("allow", Some(reason.clone())));
            }
        }
        self.baseline
            .contains(&(f.shared.0.clone(), f.location.path.clone()))
            .then_some(("baseline", None))
    }

    /// What accepts nothing in `report` (a scan made without acceptance): baseline
    /// entries whose finding is gone, and `[[allow]]` entries (by their number, from 1)
    /// that match no finding.
    pub fn unmatched(&self, report: &Report) -> (Vec<(String, String)>, Vec<usize>) {
        let all: Vec<&Finding> = report
            .findings
            .iter()
            .chain(report.suppressed.iter().map(|s| &s.finding))
            .collect();
        let present: HashSet<(&str, &str)> = all
            .iter()
            .map(|f| (f.shared.0.as_str(), f.location.path.as_str()))
            .collect();
        let mut stale: Vec<(String, String)> = self
            .baseline
            .iter()
            .filter(|(fp, path)| !present.contains(&(fp.as_str(), path.as_str())))
            .cloned()
            .collect();
        stale.sort();
        let unused = self
            .allow
            .iter()
            .enumerate()
            .filter(|(_, (rule, _))| !all.iter().any(|f| rule.accepts(f)))
            .map(|(i, _)| i + 1)
            .collect();
        (stale, unused)
    }

    /// Parts `findings` into those still reported and those accepted, each with what
    /// accepted it and why.
    pub fn split(&self, findings: Vec<Finding>) -> (Vec<Finding>, Vec<Suppressed>) {
        if self.baseline.is_empty() && self.allow.is_empty() {
            return (findings, Vec::new());
        }
        let (mut kept, mut suppressed) = (Vec::new(), Vec::new());
        for f in findings {
            match self.accepted_by(&f) {
                Some((by, reason)) => suppressed.push(Suppressed {
                    finding: f,
                    by: by.to_string(),
                    reason,
                }),
                None => kept.push(f),
            }
        }
        (kept, suppressed)
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

fn is_hex(s: &str, len: usize) -> bool {
    s.len() == len && s.bytes().all(|c| c.is_ascii_hexdigit())
}

/// `*` stays inside one folder; `**` crosses folders.
fn path_glob(glob: &str) -> Result<GlobMatcher> {
    Ok(GlobBuilder::new(glob)
        .literal_separator(true)
        .build()
        .map_err(|e| Error::invalid("allow", format!("path glob `{glob}`: {e}")))?
        .compile_matcher())
}

/// An `[[allow]]` reason as reports show it: written by a person, it is text like any
/// other (a value in it is masked) and it cannot move the terminal's cursor.
fn shown_reason(reason: &str) -> String {
    crate::guard::guard(reason)
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}
