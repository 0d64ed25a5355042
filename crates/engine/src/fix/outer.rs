//! Manifests above the fixed paths. `fix data/sub` changes files that a `SHA256SUMS`
//! in `data/` may name; left alone, `verify data` would fail after a fix that passed
//! before. So the folders above each given path are looked at too, up to the
//! repository's top (the first folder holding `.git`) or the file system's root:
//! only their `sha256sum` manifests are read, and a line of theirs changes only when it
//! was true of a file `fix` changed (the same rule as for every other claim).

use crate::provenance::{Claim, ClaimSite, manifest};
use crate::scan::Scanner;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Claims of manifests in the folders above `roots`, each with its site, and the name
/// each such manifest is shown by (its path from the first root's folder: `../SUMS`).
pub(super) fn claims_above(
    scanner: &Scanner,
    roots: &[PathBuf],
    known: &HashMap<String, PathBuf>,
) -> (Vec<(Claim, ClaimSite)>, HashMap<String, PathBuf>) {
    let seen: HashSet<PathBuf> = known
        .values()
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    let (mut claims, mut names) = (Vec::new(), HashMap::new());
    let mut looked = HashSet::new();
    for root in roots {
        let Ok(root) = root.canonicalize() else {
            continue;
        };
        // A folder root is scanned whole, so the look starts above it; a file root's
        // own folder is not scanned, so it starts there.
        // Nothing above a repository's top belongs to it.
        if root.join(".git").exists() {
            continue;
        }
        let mut up = usize::from(root.is_dir());
        let mut dir = root.parent().map(Path::to_path_buf);
        while let Some(d) = dir {
            if !looked.insert(d.clone()) {
                break;
            }
            for (manifest, name) in manifests_in(scanner, &d) {
                // A file's name is data: shown guarded, as every report name is.
                let shown = format!("{}{}", "../".repeat(up), crate::guard::guard(&name));
                if seen.contains(&manifest) || known.contains_key(&shown) {
                    continue;
                }
                read_claims(scanner, &manifest, &name, &shown, &d, &mut claims);
                names.insert(shown, manifest);
            }
            if d.join(".git").exists() {
                break;
            }
            dir = d.parent().map(Path::to_path_buf);
            up += 1;
        }
    }
    (claims, names)
}

/// The regular files in `dir` whose names match the manifest globs.
fn manifests_in(scanner: &Scanner, dir: &Path) -> Vec<(PathBuf, String)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<(PathBuf, String)> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            scanner.audit().is_manifest(&name).then(|| (e.path(), name))
        })
        .collect();
    found.sort();
    found
}

fn read_claims(
    scanner: &Scanner,
    path: &Path,
    name: &str,
    shown: &str,
    dir: &Path,
    claims: &mut Vec<(Claim, ClaimSite)>,
) {
    // Best effort, and said so in docs/fix.md: a manifest above the given paths that
    // cannot be read is not this run's to judge (`verify` on its folder reports it).
    let max = scanner.config.scan.max_file_bytes;
    let Ok(meta) = std::fs::metadata(path) else {
        return;
    };
    if meta.len() > max {
        return;
    }
    let Ok(bytes) = std::fs::read(path) else {
        return;
    };
    let text = String::from_utf8_lossy(&bytes);
    let (entries, _) = manifest::parse(&text, name);
    for e in entries {
        claims.push((
            Claim {
                claimant: shown.to_string(),
                line: Some(e.line),
                column: Some(e.column),
                pointer: None,
                expected: e.hash,
                target: e.path,
                from_manifest: true,
            },
            ClaimSite {
                dir: dir.to_path_buf(),
                root: dir.to_path_buf(),
            },
        ));
    }
}
