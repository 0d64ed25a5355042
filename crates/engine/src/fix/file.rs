//! One file's rewrite: its values replaced in every spelling (inside gzip members
//! too), a record's own text hashes made true again, and the result scanned once more
//! before it is accepted.

use super::capture::Whole;
use super::placeholder::Replacement;
use super::{
    Change, FileFix, Target, Unfixed, capture, gzip, layers, rewrite, strings, text_hash,
    unfixed_because,
};
use crate::acceptance::RunPolicy;
use crate::finding::{Category, Confidence, Finding};
use crate::scan::Scanner;
use std::collections::HashSet;

/// A content's new bytes, the changes made, and the findings left to a person.
pub(super) type Rewritten = (Vec<u8>, Vec<Change>, Vec<Unfixed>);

/// What fixing one file gives: its new bytes (if any value went), the changes, and
/// the findings left to a person.
type FileOutcome = (Option<FileFix>, Vec<Change>, Vec<Unfixed>);

pub(super) fn fix_file(
    scanner: &Scanner,
    policy: &RunPolicy,
    (shown, disk): (&str, &std::path::Path),
    was: &[&Finding],
    targets: &[Target],
) -> std::result::Result<FileOutcome, String> {
    let before = std::fs::read(disk).map_err(|e| format!("cannot be read again ({})", e.kind()))?;
    let name = disk
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (after, changes, left) =
        fix_content(scanner, policy, (shown, &name), &before, was, targets)?;
    let file = (after != before).then(|| FileFix {
        disk: disk.to_path_buf(),
        shown: shown.to_string(),
        was: super::sha256_hex(&before),
        after,
    });
    Ok((file, changes, left))
}

/// Rewrites `before` (the content of a file named `name`, shown as `shown`): its new
/// bytes, the changes, and the findings left to a person. `Err` leaves every target
/// to a person, with the reason.
pub(super) fn fix_content(
    scanner: &Scanner,
    policy: &RunPolicy,
    (shown, name): (&str, &str),
    before: &[u8],
    was: &[&Finding],
    targets: &[Target],
) -> std::result::Result<Rewritten, String> {
    let gz = crate::source::read::is_gzip(before);
    let mut members = match gz {
        true => gzip::members(before, scanner.config.scan.max_file_bytes)
            .ok_or("a gzip file that cannot be taken apart and put back whole")?,
        false => Vec::new(),
    };
    let texts: Vec<&[u8]> = match gz {
        true => members.iter().map(|m| m.text.as_slice()).collect(),
        false => vec![before],
    };
    let json = is_json(name, texts.first().copied().unwrap_or_default());
    // One replacement per distinct value, before and after widening: a capture met on
    // every line is one value, widened once, and one pattern per place it covers.
    let mut distinct = HashSet::new();
    let mut seen = HashSet::new();
    let replacements: Vec<Replacement> = targets
        .iter()
        .filter(|t| distinct.insert(t.replacement.old.clone()))
        .flat_map(|t| match t.finding.category {
            Category::Capture => capture::widen(&t.replacement, &texts, json, Whole::Capture),
            _ if t.replacement.old.starts_with(b"-----BEGIN") => {
                capture::widen(&t.replacement, &texts, json, Whole::KeyBlock)
            }
            _ => vec![t.replacement.clone()],
        })
        .filter(|r| seen.insert(r.old.clone()))
        .collect();
    drop(texts);
    let Some(rewriter) = rewrite::Rewriter::new(&replacements) else {
        return Err("nothing to replace".into());
    };
    let mut counts = vec![0; replacements.len()];
    let after = if gz {
        for m in &mut members {
            m.text = rewrite_text(scanner, &rewriter, name, &m.text, &mut counts);
        }
        let header = targets
            .iter()
            .any(|t| t.finding.message.contains("gzip header"));
        gzip::rebuild(&members, header).map_err(|e| format!("cannot be compressed again ({e})"))?
    } else {
        rewrite_text(scanner, &rewriter, name, before, &mut counts)
    };
    let key = |f: &Finding| (f.rule_id.clone(), f.fingerprint.clone());
    // Where a finding stands: a capture whose text held a rewritten value is the
    // same capture, though its fingerprint changed.
    let place = |f: &Finding| {
        let l = &f.location;
        (f.rule_id.clone(), l.line, l.json_pointer.clone())
    };
    let now: Vec<Finding> = scanner.scan_blob_as(shown, name, after.clone()).findings;
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
    Ok((after, changes, left))
}

/// Whether a file named `name` opening with `text` is JSON (or JSON lines).
fn is_json(name: &str, text: &[u8]) -> bool {
    let base = name.strip_suffix(".gz").unwrap_or(name);
    [".json", ".jsonl", ".ndjson", ".traj"]
        .iter()
        .any(|x| base.ends_with(x))
        || text
            .iter()
            .find(|b| !b.is_ascii_whitespace())
            .is_some_and(|b| matches!(b, b'{' | b'['))
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
    let json = is_json(name, text);
    let plain = match json {
        true => rewriter.apply(&strings::rewrite(text, rewriter, counts), counts),
        false => rewriter.apply(text, counts),
    };
    let after = layers::percent(&layers::base64(&plain, rewriter, counts), rewriter, counts);
    match json {
        true => text_hash::rehash(scanner.audit().binds(), text, &after),
        false => after,
    }
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
