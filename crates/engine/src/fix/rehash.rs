//! Recorded hashes made true again. A claim that was true of a file before `fix`
//! changed it (a manifest line, a hash field bound to a file) gets the file's new
//! sha256, on the claim's own line; the file holding the claim changes with it, so
//! claims on *that* file are looked at again, until nothing more changes. A claim that
//! was already false, or names a file `fix` did not change, is never touched.

use super::{FileFix, Rehashed, sha256_hex};
use crate::error::Result;
use crate::provenance::{Claim, ClaimSite, normalize};
use crate::scan::Scanner;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Where a path leads: through links, as `verify` follows them.
fn real(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| normalize(path))
}

/// One hash to rewrite: on `line` of the claimant (all its lines when unknown).
struct Edit {
    line: Option<u32>,
    old: String,
    new: String,
}

pub(super) fn rehash(
    files: &mut Vec<FileFix>,
    claims: &[(Claim, ClaimSite)],
    disk: &HashMap<String, PathBuf>,
    scanner: &Scanner,
) -> Result<Vec<Rehashed>> {
    let targets: Vec<PathBuf> = claims
        .iter()
        .map(|(c, site)| real(&site.dir.join(&c.target)))
        .collect();
    // What each claim holds now: it may change more than once (its target changed,
    // then changed again when a hash inside it was rewritten).
    let named: HashSet<&PathBuf> = targets.iter().collect();
    let mut holds: Vec<String> = claims.iter().map(|(c, _)| c.expected.clone()).collect();
    let mut done = Vec::new();
    let mut told = HashSet::new();
    for _ in 0..=claims.len() {
        // Only files some claim names are hashed: the rest need no new sha256.
        let changed: HashMap<PathBuf, (String, String)> = files
            .iter()
            .map(|f| (real(&f.disk), f))
            .filter(|(path, _)| named.contains(path))
            .map(|(path, f)| (path, (f.was.clone(), sha256_hex(&f.after))))
            .collect();
        let mut edits: HashMap<PathBuf, Vec<Edit>> = HashMap::new();
        for (i, (claim, _)) in claims.iter().enumerate() {
            let Some((old, new)) = changed.get(&targets[i]) else {
                continue;
            };
            if claim.expected != *old || holds[i] == *new {
                continue;
            }
            let Some(claimant) = disk.get(&claim.claimant) else {
                continue;
            };
            edits.entry(claimant.clone()).or_default().push(Edit {
                line: claim.line,
                old: holds[i].clone(),
                new: new.clone(),
            });
            holds[i] = new.clone();
            if told.insert(i) {
                done.push(Rehashed {
                    path: claim.claimant.clone(),
                    names: crate::guard::guard(&claim.target),
                });
            }
        }
        if edits.is_empty() {
            break;
        }
        for (claimant, edits) in edits {
            let index = match files.iter().position(|f| f.disk == claimant) {
                Some(i) => i,
                None => {
                    let before = std::fs::read(&claimant)
                        .map_err(|e| crate::error::Error::io(&claimant, e))?;
                    let shown = disk
                        .iter()
                        .find(|(_, d)| **d == claimant)
                        .map_or_else(String::new, |(rel, _)| rel.clone());
                    files.push(FileFix {
                        disk: claimant.clone(),
                        shown,
                        was: sha256_hex(&before),
                        after: before,
                    });
                    files.len() - 1
                }
            };
            if let Some(after) = apply(&files[index].after, &edits, scanner) {
                files[index].after = after;
            }
        }
    }
    Ok(done)
}

/// `bytes` (gzip or not) with each edit made on its line; `None` when none was made.
fn apply(bytes: &[u8], edits: &[Edit], scanner: &Scanner) -> Option<Vec<u8>> {
    if !crate::source::read::is_gzip(bytes) {
        let (out, made) = on_lines(bytes, edits, 0);
        return (made > 0).then_some(out);
    }
    let mut members = super::gzip::members(bytes, scanner.config.scan.max_file_bytes)?;
    let (mut lines_before, mut made) = (0u32, 0);
    for m in &mut members {
        let lines = memchr::memchr_iter(b'\n', &m.text).count() as u32;
        let (text, n) = on_lines(&m.text, edits, lines_before);
        m.text = text;
        made += n;
        lines_before += lines;
    }
    if made == 0 {
        return None;
    }
    super::gzip::rebuild(&members, false).ok()
}

/// The text with each edit's old hash written as its new one, as a whole token and in
/// the case it was written in, on the edit's line (counted from `first` + 1).
fn on_lines(text: &[u8], edits: &[Edit], first: u32) -> (Vec<u8>, usize) {
    let mut by_line: HashMap<u32, Vec<&Edit>> = HashMap::new();
    let mut anywhere = Vec::new();
    for e in edits {
        match e.line {
            Some(l) => by_line.entry(l).or_default().push(e),
            None => anywhere.push(e),
        }
    }
    let mut out = Vec::with_capacity(text.len());
    let mut made = 0;
    for (i, line) in text.split_inclusive(|&b| b == b'\n').enumerate() {
        let number = first + i as u32 + 1;
        let mut line = line.to_vec();
        let here = by_line
            .get(&number)
            .into_iter()
            .flatten()
            .chain(anywhere.iter());
        for e in here {
            made += swap(&mut line, &e.old, &e.new);
        }
        out.extend_from_slice(&line);
    }
    (out, made)
}

/// Rewrites whole-token occurrences of hash `old` in `line`; how many.
fn swap(line: &mut [u8], old: &str, new: &str) -> usize {
    let mut made = 0;
    for (from, to) in [
        (old.to_string(), new.to_string()),
        (old.to_ascii_uppercase(), new.to_ascii_uppercase()),
    ] {
        let mut at = 0;
        while let Some(i) = memchr::memmem::find(&line[at..], from.as_bytes()) {
            let (start, end) = (at + i, at + i + from.len());
            let hexish = |b: u8| b.is_ascii_hexdigit();
            if (start == 0 || !hexish(line[start - 1])) && line.get(end).is_none_or(|&b| !hexish(b))
            {
                line[start..end].copy_from_slice(to.as_bytes());
                made += 1;
            }
            at = end;
        }
    }
    made
}
