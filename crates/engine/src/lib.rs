//! privacy-audit's engine: everything that judges data, and nothing that drives it (no
//! command line, git or daemon; those crates call in, never the other way).
//!
//! Data flows one way: a [`run::Source`] (a folder walk, a file list, a door's own) →
//! [`source::read`] / [`formats`] (bytes, decoding, positions) → [`detect`] (spans) →
//! [`scan`] (masked, fingerprinted findings and hash claims, one unit at a time) →
//! [`run`] (claims checked, [`acceptance`] applied) → [`report`] (json, human, sarif).
//! Rules are data ([`rules`]).

pub mod acceptance;
pub mod bytemask;
pub mod config;
pub mod detect;
pub mod error;
pub mod finding;
pub mod fix;
pub mod formats;
pub mod guard;
pub mod hex;
pub mod provenance;
pub mod report;
pub mod rules;
pub mod run;
pub mod scan;
pub mod schema;
pub mod source;
mod unicode;

pub use error::{Error, Result};
