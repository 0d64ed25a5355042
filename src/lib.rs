//! privacy-audit: a privacy gate and provenance auditor for LLM-evaluation datasets.
//!
//! Data flows one way: [`scan::walk`] → [`scan::read`] / [`formats`] (bytes, decoding,
//! positions) → [`detect`] (spans) → [`scan::file`] (masked, fingerprinted findings) →
//! [`report`] (json, human, sarif). Rules are data ([`rules`]); the CLI is glue ([`cli`]).

pub mod bytemask;
pub mod cli;
pub mod config;
pub mod daemon;
pub mod detect;
pub mod error;
pub mod finding;
pub mod formats;
pub mod git;
pub mod hex;
pub mod provenance;
pub mod report;
pub mod rules;
pub mod scan;
pub mod schema;

pub use error::{Error, Result};
