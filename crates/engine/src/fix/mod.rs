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

mod gzip;
pub mod log;
pub mod placeholder;
mod rehash;
mod rewrite;
mod strings;
mod text_hash;
pub mod write;

use crate::acceptance::RunPolicy;
use crate::error::Result;
use crate::finding::{Confidence, Finding, Fingerprint};
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
    pub before: Vec<u8>,
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
}

/// A finding `fix` may rewrite, with its replacement.
struct Target {
    finding: Finding,
    replacement: Replacement,
}

/// Plans the fix of `roots` under `policy`: what it accepts is left alone, what is
/// less sure than its `min_confidence` too. `scanner` must keep values
/// ([`Scanner::keeping_values`]); a finding without one is left to a person.
pub fn plan(scanner: &Scanner, roots: &[PathBuf], policy: &RunPolicy) -> Result<Plan> {
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
    let disk: HashMap<String, PathBuf> = seen.into_iter().map(|s| (s.rel, s.disk)).collect();
    let (mut by_file, mut unfixed) = (HashMap::<String, Vec<Target>>::new(), Vec::new());
    for f in report
        .findings
        .iter()
        .filter(|f| f.confidence >= policy.min_confidence)
    {
        let replacement = f
            .value
            .as_ref()
            .and_then(|v| placeholder::replacement(scanner.key(), f.category, &f.rule_id, &v.0));
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
    let (mut files, mut changes) = (Vec::new(), Vec::new());
    for path in paths {
        let targets = by_file.remove(&path).unwrap_or_default();
        let Some(disk_path) = disk.get(&path) else {
            continue;
        };
        let before = was.get(path.as_str()).map_or(&[][..], Vec::as_slice);
        match fix_file(scanner, policy, (&path, disk_path), before, &targets) {
            Ok((file, done, left)) => {
                files.extend(file);
                changes.extend(done);
                unfixed.extend(left);
            }
            Err(why) => unfixed.extend(targets.iter().map(|t| unfixed_because(&t.finding, &why))),
        }
    }
    let sites: Vec<(crate::provenance::Claim, ClaimSite)> = claims;
    let rehashed = rehash::rehash(&mut files, &sites, &disk, scanner)?;
    Ok(Plan {
        files,
        changes,
        unfixed,
        rehashed,
        report,
    })
}

fn unfixed_because(f: &Finding, why: &str) -> Unfixed {
    let mut finding = f.clone();
    finding.value = None;
    Unfixed {
        finding,
        why: why.to_string(),
    }
}

/// What fixing one file gives: its new bytes (if any value went), the changes, and
/// the findings left to a person.
type FileOutcome = (Option<FileFix>, Vec<Change>, Vec<Unfixed>);

fn fix_file(
    scanner: &Scanner,
    policy: &RunPolicy,
    (shown, disk): (&str, &std::path::Path),
    was: &[&Finding],
    targets: &[Target],
) -> std::result::Result<FileOutcome, String> {
    let before = std::fs::read(disk).map_err(|e| format!("cannot be read again ({})", e.kind()))?;
    let replacements: Vec<Replacement> = targets.iter().map(|t| t.replacement.clone()).collect();
    let Some(rewriter) = rewrite::Rewriter::new(&replacements) else {
        return Err("nothing to replace".into());
    };
    let mut counts = vec![0; replacements.len()];
    let name = disk
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let after = if crate::source::read::is_gzip(&before) {
        let limit = scanner.config.scan.max_file_bytes;
        let mut members = gzip::members(&before, limit)
            .ok_or("a gzip file that cannot be taken apart and put back whole")?;
        for m in &mut members {
            m.text = rewrite_text(scanner, &rewriter, &name, &m.text, &mut counts);
        }
        let header = targets
            .iter()
            .any(|t| t.finding.message.contains("gzip header"));
        gzip::rebuild(&members, header).map_err(|e| format!("cannot be compressed again ({e})"))?
    } else {
        rewrite_text(scanner, &rewriter, &name, &before, &mut counts)
    };
    let key = |f: &Finding| (f.rule_id.clone(), f.fingerprint.clone());
    // Where a finding stands: a capture whose text held a rewritten value is the
    // same capture, though its fingerprint changed.
    let place = |f: &Finding| {
        let l = &f.location;
        (f.rule_id.clone(), l.line, l.json_pointer.clone())
    };
    let now: Vec<Finding> = scanner.scan_blob_as(shown, &name, after.clone()).findings;
    let was_keys: HashSet<_> = was.iter().map(|f| key(f)).collect();
    let was_places: HashSet<_> = was.iter().map(|f| place(f)).collect();
    let now_keys: HashSet<_> = now.iter().map(key).collect();
    let invalid = |f: &&Finding| f.rule_id == "format.invalid_json";
    if now.iter().filter(invalid).count() > was.iter().copied().filter(invalid).count() {
        return Err("the rewrite would leave the file's JSON broken".into());
    }
    let new: Vec<&str> = now
        .iter()
        // A placeholder is read as one: low at most, whatever the run reports.
        .filter(|f| f.confidence >= policy.min_confidence.max(Confidence::Medium))
        .filter(|f| !was_keys.contains(&key(f)) && !was_places.contains(&place(f)))
        .filter(|f| f.rule_id != "provenance.text_hash_mismatch")
        .map(|f| f.rule_id.as_str())
        .collect();
    if !new.is_empty() {
        return Err(format!(
            "the rewritten file would have new findings ({}): left as it is",
            new.join(", ")
        ));
    }
    let (mut changes, mut left) = (Vec::new(), Vec::new());
    for t in targets {
        if now_keys.contains(&key(&t.finding)) {
            let why = "its value is not written plainly in the file (an encoded layer): \
                       found again after the rewrite";
            left.push(unfixed_because(&t.finding, why));
            continue;
        }
        changes.push(change(&t.finding, &t.replacement));
    }
    let file = (after != before).then(|| FileFix {
        disk: disk.to_path_buf(),
        shown: shown.to_string(),
        before,
        after,
    });
    Ok((file, changes, left))
}

/// A text rewritten: JSON strings read decoded first (any escape), then every
/// spelling written out (plain text, nested JSON, `\/`).
fn rewrite_text(
    scanner: &Scanner,
    rewriter: &rewrite::Rewriter,
    name: &str,
    text: &[u8],
    counts: &mut [usize],
) -> Vec<u8> {
    let base = name.strip_suffix(".gz").unwrap_or(name);
    let json = [".json", ".jsonl", ".ndjson"]
        .iter()
        .any(|x| base.ends_with(x))
        || text
            .iter()
            .find(|b| !b.is_ascii_whitespace())
            .is_some_and(|b| matches!(b, b'{' | b'['));
    if !json {
        return rewriter.apply(text, counts);
    }
    let after = rewriter.apply(&strings::rewrite(text, rewriter, counts), counts);
    text_hash::rehash(scanner.audit().binds(), text, &after)
}

fn change(f: &Finding, r: &Replacement) -> Change {
    let value = String::from_utf8_lossy(&r.old);
    Change {
        path: f.location.path.clone(),
        line: f.location.line,
        json_pointer: f.location.json_pointer.clone(),
        rule_id: f.rule_id.clone(),
        fingerprint: f.fingerprint.clone(),
        was: crate::finding::redact::mask(&value, f.category),
        placeholder: String::from_utf8_lossy(&r.new).into_owned(),
    }
}

/// The sha256 of `bytes`, as claims write it.
fn sha256_hex(bytes: &[u8]) -> String {
    crate::hex::encode(&Sha256::digest(bytes))
}
