//! privacy-audit's engine: everything that judges data, and nothing that drives it (no
//! command line, git or daemon; those crates call in, never the other way).
//!
//! Data flows one way: [`source::walk`] → [`source::read`] / [`formats`] (bytes, decoding,
//! positions) → [`detect`] (spans) → [`scan::file`] (masked, fingerprinted findings) →
//! [`acceptance`] (baseline, allow, verdict) → [`report`] (json, human, sarif). Rules are
//! data ([`rules`]).

pub mod acceptance;
pub mod bytemask;
pub mod config;
pub mod detect;
pub mod error;
pub mod finding;
pub mod formats;
pub mod guard;
pub mod hex;
pub mod provenance;
pub mod report;
pub mod rules;
pub mod scan;
pub mod schema;
pub mod source;
mod unicode;

pub use error::{Error, Result};
