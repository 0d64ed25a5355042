//! Recorded hashes made true again. A claim that was true of a file before `fix`
//! changed it (a manifest line, a hash field bound to a file) gets the file's new
//! sha256; the file holding the claim changes with it, so claims on *that* file are
//! looked at again, until nothing more changes. A claim that was already false, or
//! names a file `fix` did not change, is never touched.

use super::{FileFix, Rehashed, sha256_hex};
use crate::error::Result;
use crate::provenance::{Claim, ClaimSite, normalize};
use crate::scan::Scanner;
use std::collections::HashMap;
use std::path::PathBuf;

pub(super) fn rehash(
    files: &mut Vec<FileFix>,
    claims: &[(Claim, ClaimSite)],
    disk: &HashMap<String, PathBuf>,
    scanner: &Scanner,
) -> Result<Vec<Rehashed>> {
    let mut done = Vec::new();
    let mut rewritten = vec![false; claims.len()];
    // Each pass re-hashes what the last one changed; a chain is at most as long as
    // there are claims.
    for _ in 0..=claims.len() {
        let changed: HashMap<PathBuf, (String, String)> = files
            .iter()
            .map(|f| {
                let key = normalize(&f.disk);
                (key, (sha256_hex(&f.before), sha256_hex(&f.after)))
            })
            .collect();
        let mut any = false;
        for (i, (claim, site)) in claims.iter().enumerate() {
            let target = normalize(&site.dir.join(&claim.target));
            let Some((old, new)) = changed.get(&target) else {
                continue;
            };
            if rewritten[i] || claim.expected != *old || old == new {
                continue;
            }
            let Some(claimant) = disk.get(&claim.claimant) else {
                continue;
            };
            let index = match files.iter().position(|f| f.disk == *claimant) {
                Some(i) => i,
                None => {
                    let before = std::fs::read(claimant)
                        .map_err(|e| crate::error::Error::io(claimant, e))?;
                    files.push(FileFix {
                        disk: claimant.clone(),
                        shown: claim.claimant.clone(),
                        after: before.clone(),
                        before,
                    });
                    files.len() - 1
                }
            };
            let file = &mut files[index];
            let Some(after) = swap_hash(&file.after, old, new, scanner) else {
                continue;
            };
            file.after = after;
            rewritten[i] = true;
            any = true;
            done.push(Rehashed {
                path: claim.claimant.clone(),
                names: crate::guard::guard(&claim.target),
            });
        }
        if !any {
            break;
        }
    }
    Ok(done)
}

/// `bytes` (gzip or not) with every whole occurrence of hash `old` written as `new`,
/// in the case it was written in; `None` when it is not there.
fn swap_hash(bytes: &[u8], old: &str, new: &str, scanner: &Scanner) -> Option<Vec<u8>> {
    let swap = |text: &[u8]| -> Option<Vec<u8>> {
        let mut out = text.to_vec();
        let mut found = false;
        for (from, to) in [
            (old.to_string(), new.to_string()),
            (old.to_ascii_uppercase(), new.to_ascii_uppercase()),
        ] {
            let mut at = 0;
            while let Some(i) = memchr::memmem::find(&out[at..], from.as_bytes()) {
                let start = at + i;
                let end = start + from.len();
                let hexish = |b: u8| b.is_ascii_hexdigit();
                let whole = (start == 0 || !hexish(out[start - 1]))
                    && out.get(end).is_none_or(|&b| !hexish(b));
                if whole {
                    out[start..end].copy_from_slice(to.as_bytes());
                    found = true;
                }
                at = end;
            }
        }
        found.then_some(out)
    };
    if !crate::source::read::is_gzip(bytes) {
        return swap(bytes);
    }
    let mut members = super::gzip::members(bytes, scanner.config.scan.max_file_bytes)?;
    let mut found = false;
    for m in &mut members {
        if let Some(text) = swap(&m.text) {
            m.text = text;
            found = true;
        }
    }
    if !found {
        return None;
    }
    super::gzip::rebuild(&members, false).ok()
}
