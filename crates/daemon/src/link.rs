//! What a daemon report carries beyond a scan's report: its place in the chain, what
//! the daemon found of the chain itself, files gone since they were judged, and files
//! quarantined. Written beside the report's own fields (flattened), so a trail report
//! is still a report every reader of reports reads.

use privacy_audit_engine::report::Report;
use serde::{Deserialize, Serialize};

/// The daemon's fields of one report.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Trail {
    /// This report's place in the chain, and the sha256 of the one before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sequence: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prev_report_sha256: Option<String>,
    /// What the daemon found of the chain before this report (a chain that vanished, or
    /// lost its newest reports, while the state remembered them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trail_note: Option<String>,
    /// Files that disappeared since they were last judged (deleted or renamed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub removed: Vec<String>,
    /// Violating files moved out of the watched folders, and where to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub quarantined: Vec<Quarantined>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Quarantined {
    pub path: String,
    pub to: String,
}

/// A report as the daemon writes it: the scan's, and the trail's fields.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TrailReport {
    #[serde(flatten)]
    pub report: Report,
    #[serde(flatten)]
    pub trail: Trail,
}
