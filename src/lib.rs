//! privacy-audit: a privacy gate and provenance auditor for LLM-evaluation datasets.
//!
//! The binary's glue ([`cli`]) over three crates: the engine (scanning, detection,
//! provenance, reports), the git doors and the daemon. Their modules are re-exported
//! here under the names the tools and tests use.

pub mod cli;

pub use privacy_audit_daemon as daemon;
pub use privacy_audit_engine::*;
pub use privacy_audit_git as git;
