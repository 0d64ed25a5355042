//! Provenance: every sha256 the data claims is checked.
//!
//! The file pipeline collects [`Claim`]s (manifest entries, hash fields bound to a file)
//! while it reads; once the walk is over, [`Verifier`] resolves each claimed path from
//! the folder of the file that names it (as `sha256sum -c` does), refuses paths that
//! leave the dataset root, and compares hashes obtained through the [`cache::HashCache`]
//! — so a file is hashed at most once per run, and not at all when unchanged since the
//! last run.

pub mod bind;
pub mod cache;
pub mod hygiene;
pub mod manifest;

use crate::finding::fingerprint::FingerprintKey;
use crate::finding::{Finding, Location};
use crate::rules::Catalog;
use cache::HashCache;
use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

/// "The file at `target` has sha256 `expected`", said at a place in a dataset file.
#[derive(Debug, Clone)]
pub struct Claim {
    /// Report path of the file that makes the claim.
    pub claimant: String,
    pub line: Option<u32>,
    pub column: Option<u32>,
    pub pointer: Option<String>,
    /// 64 lower-case hex digits.
    pub expected: String,
    /// The path as written.
    pub target: String,
    pub from_manifest: bool,
}

/// Where a claimant lives on disk: its folder and the scan root it may not leave.
#[derive(Debug, Clone)]
pub struct ClaimSite {
    pub dir: PathBuf,
    pub root: PathBuf,
}

/// A file the run saw, for `--strict` manifest completeness.
pub struct SeenFile {
    pub disk: PathBuf,
    pub rel: String,
}

pub struct Verifier<'a> {
    pub rules: &'a dyn Catalog,
    pub key: &'a FingerprintKey,
    pub cache: &'a HashCache,
    pub strict: bool,
}

impl Verifier<'_> {
    pub fn verify(&self, claims: &[(Claim, ClaimSite)], seen: &[SeenFile]) -> Vec<Finding> {
        let mut out = Vec::new();
        // Per manifest folder: the files its entries name, for --strict.
        let mut listed: HashMap<PathBuf, HashSet<PathBuf>> = HashMap::new();
        let mut real_roots: HashMap<PathBuf, PathBuf> = HashMap::new();
        for (claim, site) in claims {
            let resolved = normalize(&site.dir.join(&claim.target));
            if claim.from_manifest {
                listed
                    .entry(site.dir.clone())
                    .or_default()
                    .insert(resolved.clone());
            }
            let root = normalize(&site.root);
            if !resolved.starts_with(&root) {
                self.emit(
                    &mut out,
                    "path_escape",
                    claim,
                    "names a path outside the dataset root; it was not read",
                );
                continue;
            }
            // The text stays inside the root, but a symbolic link on the way may not:
            // follow links as `sha256sum -c` does, then check where they led.
            let real = match std::fs::canonicalize(&resolved) {
                Ok(real) => real,
                Err(e) => {
                    // The name, guarded like any name (it may hold a value): the
                    // person fixing the manifest needs to know which entry.
                    let name = crate::guard::guard(&claim.target);
                    let why = if e.kind() == std::io::ErrorKind::NotFound {
                        format!("names a file that does not exist, {name}")
                    } else {
                        format!("names a file that cannot be read, {name} ({})", e.kind())
                    };
                    self.emit(&mut out, "missing_file", claim, &why);
                    continue;
                }
            };
            let real_root = real_roots
                .entry(root.clone())
                .or_insert_with(|| std::fs::canonicalize(&root).unwrap_or(root));
            if !real.starts_with(real_root) {
                self.emit(
                    &mut out,
                    "path_escape",
                    claim,
                    "leads outside the dataset root through a symbolic link; it was not read",
                );
                continue;
            }
            let file = match crate::source::read::open_no_block(&real) {
                Ok(f) => f,
                Err(e) => {
                    let why = format!("names a file that cannot be read ({})", e.kind());
                    self.emit(&mut out, "missing_file", claim, &why);
                    continue;
                }
            };
            if !file.metadata().is_ok_and(|m| m.is_file()) {
                self.emit(
                    &mut out,
                    "missing_file",
                    claim,
                    "names something that is not a regular file",
                );
                continue;
            }
            // Keyed by the path as the walk saw it, so the scan's own read is reused.
            match self.cache.sha256(&resolved, file) {
                Ok(actual) if actual == claim.expected => {}
                Ok(actual) => {
                    self.emit(&mut out, "hash_mismatch", claim, &mismatch(claim, &actual))
                }
                Err(e) => self.emit(
                    &mut out,
                    "missing_file",
                    claim,
                    &format!("file could not be read ({})", e.kind()),
                ),
            }
        }
        if self.strict {
            self.unlisted(&listed, claims, seen, &mut out);
        }
        out
    }

    /// Files under a manifest's folder that no manifest names (manifests excepted).
    /// With nested manifests a file belongs to the nearest one above it.
    fn unlisted(
        &self,
        listed: &HashMap<PathBuf, HashSet<PathBuf>>,
        claims: &[(Claim, ClaimSite)],
        seen: &[SeenFile],
        out: &mut Vec<Finding>,
    ) {
        let Some(rule) = self.rules.check("unlisted_file") else {
            return;
        };
        let manifests: HashSet<&str> = claims
            .iter()
            .filter(|(c, _)| c.from_manifest)
            .map(|(c, _)| c.claimant.as_str())
            .collect();
        let mut folders: Vec<(PathBuf, &str)> = Vec::new();
        for (c, site) in claims.iter().filter(|(c, _)| c.from_manifest) {
            let dir = normalize(&site.dir);
            if !folders.iter().any(|(d, _)| *d == dir) {
                folders.push((dir, c.claimant.as_str()));
            }
        }
        let names_any: HashSet<&PathBuf> = listed.values().flatten().collect();
        for f in seen {
            let disk = normalize(&f.disk);
            if manifests.contains(f.rel.as_str()) || names_any.contains(&disk) {
                continue;
            }
            let nearest = folders
                .iter()
                .filter(|(dir, _)| disk.starts_with(dir))
                .max_by_key(|(dir, _)| dir.components().count());
            let Some((_, manifest)) = nearest else {
                continue;
            };
            out.push(Finding {
                rule_id: rule.id.to_string(),
                category: rule.category,
                severity: rule.severity,
                confidence: crate::finding::Confidence::High,
                why: Default::default(),
                location: Location {
                    path: manifest.to_string(),
                    line: None,
                    column: None,
                    json_pointer: None,
                },
                excerpt: format!("not listed: {}", crate::guard::guard(&f.rel)),
                fingerprint: self.key.fingerprint(rule.id, f.rel.as_bytes()),
                shared: self.key.shared_fingerprint(rule.id, f.rel.as_bytes()),
                message: rule.description.to_string(),
                group: None,
                commit: None,
                value: None,
            });
        }
    }

    fn emit(&self, out: &mut Vec<Finding>, check: &str, claim: &Claim, what: &str) {
        out.extend(claim_finding(self.rules, self.key, check, claim, what));
    }
}

/// What a mismatch says: the file named (guarded like any name: it may hold a value)
/// and both hashes, which are not secrets and are what the person fixing it needs.
pub fn mismatch(claim: &Claim, actual: &str) -> String {
    format!(
        "does not match the file it names, {}: recorded sha256 {}, the file has {actual}",
        crate::guard::guard(&claim.target),
        claim.expected
    )
}

/// The finding for a claim that failed `check` (`None` when that rule is disabled).
/// Shared with the git doors, which verify claims against the index or a commit.
pub fn claim_finding(
    rules: &dyn Catalog,
    key: &FingerprintKey,
    check: &str,
    claim: &Claim,
    what: &str,
) -> Option<Finding> {
    let rule = rules.check(check)?;
    let subject = if claim.from_manifest {
        "manifest entry"
    } else {
        "hash"
    };
    let value = format!("{}\0{}", claim.target, claim.expected);
    Some(Finding {
        rule_id: rule.id.to_string(),
        category: rule.category,
        severity: rule.severity,
        confidence: crate::finding::Confidence::High,
        why: Default::default(),
        location: Location {
            path: claim.claimant.clone(),
            line: claim.line,
            column: claim.column,
            json_pointer: claim.pointer.clone(),
        },
        excerpt: format!("{subject} {what}"),
        fingerprint: key.fingerprint(rule.id, value.as_bytes()),
        shared: key.shared_fingerprint(rule.id, value.as_bytes()),
        message: rule.description.to_string(),
        group: None,
        commit: None,
        value: None,
    })
}

/// Lexical normalisation (`a/./b/../c` → `a/c`) of an absolute path: resolution must
/// not touch the disk before the root check, or `../../etc/passwd` would be read.
pub fn normalize(path: &Path) -> PathBuf {
    let path = if path.as_os_str().is_empty() {
        Path::new(".")
    } else {
        path
    };
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalization_cannot_be_tricked_by_dot_dot() {
        let root = Path::new("/data/set");
        let escaped = normalize(&root.join("runs/../../../etc/passwd"));
        assert_eq!(escaped, PathBuf::from("/etc/passwd"));
        assert!(!escaped.starts_with(root));
        assert!(normalize(&root.join("./runs/../a.json")).starts_with(root));
    }
}
