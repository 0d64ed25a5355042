//! The vocabulary every layer shares: categories, severities, locations and findings.
//!
//! A `Finding` never stores a matched value in the clear. Detection hands the raw value
//! to [`crate::finding::redact`] and [`crate::finding::fingerprint`] at the moment the
//! finding is built; from then on only the masked excerpt and the keyed fingerprint exist.

pub mod fingerprint;
pub mod redact;
pub mod why;

pub use why::{Reason, Why};

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The fixed finding vocabulary of docs/reference.md §3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    LocalPath,
    Hostname,
    Email,
    IpAddress,
    Secret,
    Pii,
    Denylist,
    Capture,
    Provenance,
    Schema,
}

impl Category {
    pub const ALL: [Category; 10] = [
        Category::LocalPath,
        Category::Hostname,
        Category::Email,
        Category::IpAddress,
        Category::Secret,
        Category::Pii,
        Category::Denylist,
        Category::Capture,
        Category::Provenance,
        Category::Schema,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Category::LocalPath => "local_path",
            Category::Hostname => "hostname",
            Category::Email => "email",
            Category::IpAddress => "ip_address",
            Category::Secret => "secret",
            Category::Pii => "pii",
            Category::Denylist => "denylist",
            Category::Capture => "capture",
            Category::Provenance => "provenance",
            Category::Schema => "schema",
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Ordered so that `a >= b` reads "a is at least as severe as b".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Low,
    Medium,
    High,
    Critical,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::High => "high",
            Severity::Critical => "critical",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Severity {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "low" => Ok(Severity::Low),
            "medium" => Ok(Severity::Medium),
            "high" => Ok(Severity::High),
            "critical" => Ok(Severity::Critical),
            other => Err(format!(
                "unknown severity `{other}` (expected low, medium, high or critical)"
            )),
        }
    }
}

/// How sure the scanner is that a finding is real, not how bad it would be.
/// Placeholders, personas, sandbox paths, code and documentation examples lower it;
/// values tied to this machine's accounts, host or git user raise it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Confidence {
    Low,
    Medium,
    High,
}

impl Confidence {
    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::Low => "low",
            Confidence::Medium => "medium",
            Confidence::High => "high",
        }
    }
}

impl FromStr for Confidence {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "low" => Ok(Confidence::Low),
            "medium" => Ok(Confidence::Medium),
            "high" => Ok(Confidence::High),
            other => Err(format!(
                "unknown confidence `{other}` (expected low, medium or high)"
            )),
        }
    }
}

/// Where a finding sits, in the terms a person uses to open the file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Location {
    /// Relative to the scanned folder (or as given for a file argument), `/`-separated.
    pub path: String,
    /// 1-based, in the decompressed text; `None` for a finding about the whole file.
    pub line: Option<u32>,
    /// 1-based, counted in Unicode scalar values.
    pub column: Option<u32>,
    /// JSON Pointer of the value the match came from; `None` outside JSON.
    pub json_pointer: Option<String>,
}

/// A keyed hash of (rule id, matched value), hex encoded. See [`crate::finding::fingerprint`].
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Fingerprint(pub String);

/// One violation, already safe to print: it holds no matched value in full.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub rule_id: String,
    pub category: Category,
    pub severity: Severity,
    pub confidence: Confidence,
    #[serde(flatten)]
    pub location: Location,
    /// The reasons behind `confidence` (see [`why`]).
    #[serde(default)]
    pub why: Why,
    /// The line around the match with every matched value on it masked.
    pub excerpt: String,
    pub fingerprint: Fingerprint,
    /// The same under the team key (`[team] key`), which baselines and `[[allow]]`
    /// match; never written into reports that leave the machine.
    #[serde(skip)]
    pub shared: Fingerprint,
    pub message: String,
    /// The group this finding belongs to in its report (`g1`, …): one rule at one
    /// pointer pattern in one file (see [`crate::report::groups`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The commit that added the blob, for findings from `scan-git` and pre-push.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// The matched bytes, kept in memory for `fix` only (a scanner made with
    /// `Scanner::keeping_values`): never serialised, and masked by `Debug`.
    #[serde(skip)]
    pub value: Option<MatchedValue>,
}

/// A matched value held in memory so `fix` can rewrite it. Nothing prints it: its
/// `Debug` says only how long it is, and it has no `Display` or `Serialize`.
#[derive(Clone, PartialEq, Eq)]
pub struct MatchedValue(pub Vec<u8>);

impl std::fmt::Debug for MatchedValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MatchedValue({} bytes)", self.0.len())
    }
}

impl Finding {
    /// The order reports use: by file, then position, then rule.
    pub fn sort_key(&self) -> (&str, Option<u32>, Option<u32>, &str) {
        (
            &self.location.path,
            self.location.line,
            self.location.column,
            &self.rule_id,
        )
    }
}
