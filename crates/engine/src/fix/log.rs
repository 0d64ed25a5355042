//! The fix log (`fix --format json`): what changed where, what was re-hashed, what
//! is left to a person. It names rules, places, fingerprints and placeholders, never a
//! value.

use super::{Change, Plan, Rehashed};
use serde::Serialize;

/// The fix log: what changed where, never a value.
#[derive(Serialize)]
pub struct Log<'a> {
    pub schema: &'static str,
    pub written: bool,
    pub files: Vec<&'a str>,
    pub changes: &'a [Change],
    pub rehashed: &'a [Rehashed],
    pub unfixed: Vec<Left<'a>>,
}

#[derive(Serialize)]
pub struct Left<'a> {
    pub path: &'a str,
    pub line: Option<u32>,
    pub json_pointer: Option<&'a str>,
    pub rule_id: &'a str,
    pub fingerprint: &'a str,
    pub why: &'a str,
}

impl Plan {
    /// The log of this plan; `written` says whether it was applied.
    pub fn log(&self, written: bool) -> Log<'_> {
        Log {
            schema: "privacy-audit.fix/v1",
            written,
            files: self.files.iter().map(|f| f.shown.as_str()).collect(),
            changes: &self.changes,
            rehashed: &self.rehashed,
            unfixed: self
                .unfixed
                .iter()
                .map(|u| Left {
                    path: &u.finding.location.path,
                    line: u.finding.location.line,
                    json_pointer: u.finding.location.json_pointer.as_deref(),
                    rule_id: &u.finding.rule_id,
                    fingerprint: &u.finding.fingerprint.0,
                    why: &u.why,
                })
                .collect(),
        }
    }
}
