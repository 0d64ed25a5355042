//! Reports: the docs/reference.md §4 document and its three renderings. Output formats are sinks:
//! they receive finished, masked findings and never detect anything.

pub mod groups;
pub mod human;
pub mod json;
pub mod merge;
pub mod sarif;
pub mod time;

use crate::finding::Finding;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const REPORT_SCHEMA: &str = "privacy-audit.report/v2";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    Scanned,
    Skipped,
}

/// One file the run looked at.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileRecord {
    pub path: String,
    pub sha256: Option<String>,
    /// In place of `sha256` when `[privacy] file_digest = "keyed"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keyed_sha256: Option<String>,
    pub bytes: u64,
    pub status: FileStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The skip means the scan is incomplete (unreadable, corrupt, or a kind of file
    /// not allowed to pass unjudged), not a policy choice; written when true so a
    /// merged report reaches the same verdict.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub error: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Tool {
    pub name: String,
    pub version: String,
}

impl Default for Tool {
    fn default() -> Self {
        Tool {
            name: "privacy-audit".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Summary {
    pub files_scanned: usize,
    pub files_skipped: usize,
    pub findings: usize,
    pub by_category: BTreeMap<String, usize>,
    pub duration_ms: u64,
    /// Findings accepted by the baseline; they do not fail the run.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub baselined: usize,
    /// Findings accepted by `[[allow]]` entries; they do not fail the run.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub allowed: usize,
    /// Findings below `min_confidence`: counted, not listed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub below_min_confidence: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A finding the run accepted on purpose, with what accepted it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Suppressed {
    #[serde(flatten)]
    pub finding: Finding,
    /// `baseline` or `allow`.
    pub by: String,
    /// The `[[allow]]` entry's reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    pub schema: String,
    pub tool: Tool,
    pub ruleset_sha256: String,
    pub started_at: String,
    pub finished_at: String,
    pub files: Vec<FileRecord>,
    pub findings: Vec<Finding>,
    /// Accepted findings (baseline, `[[allow]]`), listed so nothing is hidden.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suppressed: Vec<Suppressed>,
    pub summary: Summary,
}

/// A file's keyed digest from its sha256 (hex).
pub fn keyed_file_digest(
    key: &crate::finding::fingerprint::FingerprintKey,
    sha256: &str,
) -> String {
    key.fingerprint("privacy-audit.file", sha256.as_bytes()).0
}

/// A run's findings once acceptance had its say: what is reported, what was accepted
/// on purpose, and how many were less sure than the run reports.
#[derive(Debug, Default)]
pub struct Settled {
    pub findings: Vec<Finding>,
    pub suppressed: Vec<Suppressed>,
    pub below_min_confidence: usize,
}

impl Report {
    /// A report of `findings` with nothing accepted.
    pub fn new(
        ruleset_sha256: String,
        started: std::time::SystemTime,
        duration: std::time::Duration,
        files: Vec<FileRecord>,
        findings: Vec<Finding>,
    ) -> Report {
        let settled = Settled {
            findings,
            ..Settled::default()
        };
        Report::build(ruleset_sha256, started, duration, files, settled)
    }

    /// The report of a run: built once, from what it found and what acceptance made
    /// of that.
    pub fn build(
        ruleset_sha256: String,
        started: std::time::SystemTime,
        duration: std::time::Duration,
        files: Vec<FileRecord>,
        settled: Settled,
    ) -> Report {
        let mut report = Report {
            schema: REPORT_SCHEMA.into(),
            tool: Tool::default(),
            ruleset_sha256,
            started_at: time::rfc3339(started),
            finished_at: time::rfc3339(started + duration),
            files,
            findings: settled.findings,
            suppressed: settled.suppressed,
            summary: Summary {
                duration_ms: u64::try_from(duration.as_millis()).unwrap_or(u64::MAX),
                below_min_confidence: settled.below_min_confidence,
                ..Summary::default()
            },
        };
        report.refresh();
        report
    }

    /// Replaces each file's `sha256` with its keyed digest under `key` (see
    /// [`crate::config::FileDigest::Keyed`]).
    pub fn key_file_digests(&mut self, key: &crate::finding::fingerprint::FingerprintKey) {
        for f in &mut self.files {
            if let Some(sha256) = f.sha256.take() {
                f.keyed_sha256 = Some(keyed_file_digest(key, &sha256));
            }
        }
    }

    /// Sorts and counts again after files and findings were added.
    pub fn refresh(&mut self) {
        self.files.sort_by(|a, b| a.path.cmp(&b.path));
        self.findings
            .sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        self.summary.files_skipped = self
            .files
            .iter()
            .filter(|f| f.status == FileStatus::Skipped)
            .count();
        self.summary.files_scanned = self.files.len() - self.summary.files_skipped;
        self.recount();
    }

    /// Recomputes the finding counts after findings moved (suppression).
    pub fn recount(&mut self) {
        groups::assign(&mut self.findings);
        let mut by_category = BTreeMap::new();
        for f in &self.findings {
            *by_category
                .entry(f.category.as_str().to_string())
                .or_insert(0) += 1;
        }
        self.summary.by_category = by_category;
        self.summary.findings = self.findings.len();
        self.summary.baselined = self
            .suppressed
            .iter()
            .filter(|s| s.by == "baseline")
            .count();
        self.summary.allowed = self.suppressed.iter().filter(|s| s.by == "allow").count();
    }

    /// Files that could not be read: the scan is incomplete.
    pub fn incomplete(&self) -> bool {
        self.files.iter().any(|f| f.error)
    }
}

/// Output format, chosen by `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
    Sarif,
}

impl std::str::FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Format, String> {
        match s {
            "human" => Ok(Format::Human),
            "json" => Ok(Format::Json),
            "sarif" => Ok(Format::Sarif),
            other => Err(format!("unknown format `{other}` (human, json or sarif)")),
        }
    }
}

/// How a report is rendered, beyond its format.
#[derive(Debug, Clone, Default)]
pub struct Style {
    /// ANSI colour (human format).
    pub color: bool,
    /// Where the report's paths sit in the repository (`data/` when `data/` was
    /// scanned), so SARIF locations are repository-relative as code scanning expects.
    pub uri_prefix: String,
    /// The repository root as a `file://` URI, for SARIF `originalUriBaseIds`.
    pub root_uri: Option<String>,
    /// `allow` and `baseline` apply here (a repository's scan): the human report ends
    /// with how to accept a finding on purpose.
    pub accept_hint: bool,
}

pub fn render(
    report: &Report,
    format: Format,
    rules: &dyn crate::rules::Catalog,
    style: &Style,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    match format {
        Format::Json => json::write(report, out),
        Format::Human => human::write(report, rules, style, out),
        Format::Sarif => sarif::write(report, rules, style, out),
    }
}
