//! `fix`: rewrites what a run found as placeholders, where the values stand, and
//! re-hashes every recorded sha256 that covered a changed file.
//!
//! A plan is made first and changes nothing: the run's findings (after its baseline,
//! `[[allow]]` and `min_confidence`) with their values kept in memory; per file, each
//! value's placeholder ([`placeholder`]) written in every spelling the value has there
//! ([`rewrite`]), inside gzip members too ([`gzip`]); the result scanned again, and
//! kept only when the values are gone, nothing new is found and JSON still parses;
//! then every claim that was true of a changed file is made true again ([`rehash`]).
//! [`write`] applies a plan: atomically, keeping modes, never through a link.

mod bytes;
mod capture;
mod file;
mod gzip;
mod layers;
pub mod log;
mod outer;
pub mod placeholder;
mod rehash;
pub mod replacements;
mod rewrite;
mod strings;
mod text_hash;
pub mod write;

use crate::acceptance::RunPolicy;
use crate::error::Result;
use crate::finding::{Finding, Fingerprint};
use crate::provenance::ClaimSite;
use crate::report::Report;
use crate::run::{Kept, Walk};
use crate::scan::Scanner;
use placeholder::Replacement;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

/// One value rewritten: where, by which rule, and what it became. Never the value.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    pub path: String,
    pub line: Option<u32>,
    pub json_pointer: Option<String>,
    pub rule_id: String,
    pub fingerprint: Fingerprint,
    /// The value as reports show it: masked.
    pub was: String,
    pub placeholder: String,
}

/// A finding `fix` leaves to a person, and why.
#[derive(Debug, Clone)]
pub struct Unfixed {
    pub finding: Finding,
    pub why: String,
}

/// A recorded hash made true again after the file it names changed.
#[derive(Debug, Clone, Serialize)]
pub struct Rehashed {
    /// The file that records the hash.
    pub path: String,
    /// The file it names.
    pub names: String,
}

/// A file's new bytes.
pub struct FileFix {
    pub disk: PathBuf,
    pub shown: String,
    /// The sha256 of the bytes the plan read: a write goes ahead only while the file
    /// still holds them. Only the hash is kept, so a plan holds one copy of each file.
    pub was: String,
    pub after: Vec<u8>,
}

/// What `fix` would do, or did.
pub struct Plan {
    pub files: Vec<FileFix>,
    pub changes: Vec<Change>,
    pub unfixed: Vec<Unfixed>,
    pub rehashed: Vec<Rehashed>,
    /// The run the plan was made from (for files that could not be judged).
    pub report: Report,
    /// Each value rewritten and its placeholder: in memory only, for
    /// [`replacements::write`] (a history rewrite's list), never shown.
    pub replacements: Vec<Replacement>,
}

/// A finding `fix` may rewrite, with its replacement.
struct Target {
    finding: Finding,
    replacement: Replacement,
}

pub use bytes::fix_bytes;

/// Plans the fix of `roots` under `policy`: what it accepts is left alone, what is
/// less sure than its `min_confidence` too. `scanner` must keep values
/// ([`Scanner::keeping_values`]); a finding without one is left to a person.
pub fn plan(scanner: &Scanner, roots: &[PathBuf], policy: &RunPolicy) -> Result<Plan> {
    plan_within(scanner, roots, policy, &Options::default())
}

/// What a fix may do beyond rewriting values.
#[derive(Debug, Default)]
pub struct Options<'a> {
    /// Rewrite values only in these files (report paths); the rest of the roots is
    /// read for the hashes that cover them (`fix --staged`).
    pub only: Option<&'a std::collections::HashSet<String>>,
    /// Replace a raw capture whole with a marker (`--drop-capture`).
    pub drop_capture: bool,
}

/// [`plan`], with `options`.
pub fn plan_within(
    scanner: &Scanner,
    roots: &[PathBuf],
    policy: &RunPolicy,
    options: &Options<'_>,
) -> Result<Plan> {
    let only = options.only;
    // The run keeps every confidence: what a rewrite changes is told from what it
    // adds by comparing with all that was there, hidden findings included.
    let every = RunPolicy {
        acceptance: policy.acceptance.clone(),
        min_confidence: crate::finding::Confidence::Low,
    };
    let Kept {
        report,
        claims,
        seen,
    } = crate::run::run_keeping(scanner, &Walk { roots }, &every, None)?;
    let mut was: HashMap<&str, Vec<&Finding>> = HashMap::new();
    let all = report.findings.iter();
    for f in all.chain(report.suppressed.iter().map(|s| &s.finding)) {
        was.entry(f.location.path.as_str()).or_default().push(f);
    }
    let (mut disk, unclear) = files_by_name(seen);
    let (mut by_file, mut unfixed) = (HashMap::<String, Vec<Target>>::new(), Vec::new());
    let wanted = |f: &&Finding| only.is_none_or(|o| o.contains(&f.location.path));
    for f in report
        .findings
        .iter()
        .filter(|f| f.confidence >= policy.min_confidence)
        .filter(wanted)
    {
        let replacement = f.value.as_ref().and_then(|v| {
            placeholder::replacement(
                scanner.key(),
                f,
                &v.0,
                (
                    options.drop_capture,
                    &scanner.config.privacy.denylist_replacement,
                ),
            )
        });
        if f.value
            .as_ref()
            .is_some_and(|v| placeholder::is_placeholder(f.category, &v.0))
        {
            continue;
        }
        if let Some(why) = unclear.get(&f.location.path) {
            unfixed.push(unfixed_because(f, why));
            continue;
        }
        match (replacement, disk.contains_key(&f.location.path)) {
            (Some(replacement), true) => {
                by_file
                    .entry(f.location.path.clone())
                    .or_default()
                    .push(Target {
                        finding: f.clone(),
                        replacement,
                    })
            }
            (None, _) => unfixed.push(unfixed_because(f, placeholder::no_rewrite(f.category))),
            (Some(_), false) => unfixed.push(unfixed_because(f, "found in a file's name")),
        }
    }
    let mut paths: Vec<_> = by_file.keys().cloned().collect();
    paths.sort();
    let (mut files, mut changes, mut replacements) = (Vec::new(), Vec::new(), Vec::new());
    let mut listed = HashSet::new();
    for path in paths {
        let targets = by_file.remove(&path).unwrap_or_default();
        let Some(disk_path) = disk.get(&path) else {
            continue;
        };
        let before = was.get(path.as_str()).map_or(&[][..], Vec::as_slice);
        match file::fix_file(scanner, policy, (&path, disk_path), before, &targets) {
            Ok((file, done, left)) => {
                let made: HashSet<&Fingerprint> = done.iter().map(|c| &c.fingerprint).collect();
                for t in &targets {
                    if made.contains(&t.finding.fingerprint)
                        && listed.insert(t.replacement.old.clone())
                    {
                        replacements.push(t.replacement.clone());
                    }
                }
                files.extend(file);
                changes.extend(done);
                unfixed.extend(left);
            }
            Err(why) => unfixed.extend(targets.iter().map(|t| unfixed_because(&t.finding, &why))),
        }
    }
    let mut sites: Vec<(crate::provenance::Claim, ClaimSite)> = claims;
    if !files.is_empty() {
        let (above, names) = outer::claims_above(scanner, roots, &disk);
        sites.extend(above);
        disk.extend(names);
    }
    let rehashed = rehash::rehash(&mut files, &sites, &disk, scanner)?;
    Ok(Plan {
        files,
        changes,
        unfixed,
        rehashed,
        report,
        replacements,
    })
}

/// Each report name's file on disk, and the names that cannot be told apart: two
/// files whose names mask alike, or one file reached under two of the given paths.
type Names = (HashMap<String, PathBuf>, HashMap<String, &'static str>);

fn files_by_name(seen: Vec<crate::provenance::SeenFile>) -> Names {
    let (mut disk, mut unclear) = (HashMap::new(), HashMap::new());
    let mut owner: HashMap<PathBuf, String> = HashMap::new();
    for s in seen {
        let real = std::fs::canonicalize(&s.disk).unwrap_or_else(|_| s.disk.clone());
        if let Some(first) = owner.get(&real) {
            if *first != s.rel {
                unclear.insert(
                    s.rel,
                    "the same file is under two of the given paths: fixed under the other",
                );
            }
            continue;
        }
        match disk.get(&s.rel) {
            Some(other) if *other != s.disk => {
                unclear.insert(
                    s.rel.clone(),
                    "another file's name is masked the same way: fix them one at a time",
                );
            }
            _ => {
                owner.insert(real, s.rel.clone());
                disk.insert(s.rel, s.disk);
            }
        }
    }
    for rel in unclear.keys() {
        disk.remove(rel);
    }
    (disk, unclear)
}

pub(crate) fn unfixed_because(f: &Finding, why: &str) -> Unfixed {
    let mut finding = f.clone();
    finding.value = None;
    Unfixed {
        finding,
        why: why.to_string(),
    }
}

/// The sha256 of `bytes`, as claims write it.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    crate::hex::encode(&Sha256::digest(bytes))
}
