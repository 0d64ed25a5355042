//! The git doors: `hook run` judges what is staged, `scan-git` and the push hooks judge
//! what a range of commits adds. Content comes from git's object database (libgit2),
//! never from the working tree, and hashes that data claims are checked against the
//! same snapshot: the index for a commit being made, the commit's tree for history.

pub mod changes;
mod fields;
pub mod hook;
pub mod index;
pub mod source;
pub mod staged_fix;
mod tagged;
pub mod trust;

use changes::BlobRef;
use git2::{Oid, Repository};
use privacy_audit_engine::error::Result;
use privacy_audit_engine::scan::Scanner;
use source::{Against, Changes};
use std::path::Path;

/// `--repo DIR` (searching upwards), else the repository git's environment names —
/// which is what a hook must use: under `git commit -a` git points `GIT_INDEX_FILE` at
/// a temporary index, and only `open_from_env` honours it.
pub fn open(dir: Option<&Path>) -> Result<Repository> {
    // Objects come from the local object database, which git verified when it wrote or
    // fetched them; re-hashing every tree read was a third of a hook's time.
    git2::opts::strict_hash_verification(false);
    Ok(match dir {
        Some(d) => Repository::discover(d).map_err(crate::git_err)?,
        None => Repository::open_from_env().map_err(crate::git_err)?,
    })
}

/// The index file git named (`GIT_INDEX_FILE`, handed in by the caller) as git means
/// it: a relative value is relative to the worktree (git runs hooks there, but a
/// wrapper may have changed folder).
pub(crate) fn named_index_file(
    repo: &Repository,
    value: Option<&std::path::Path>,
) -> Option<std::path::PathBuf> {
    let value = value?.to_path_buf();
    if value.is_absolute() {
        return Some(value);
    }
    let base = repo.workdir().unwrap_or_else(|| repo.path());
    Some(base.join(value))
}

/// Joins a claimed path to the claimant's folder inside the repository; `None` when
/// it is absolute or climbs above the repository root.
pub(crate) fn join_repo_path(dir: &str, target: &str) -> Option<String> {
    if target.starts_with('/') || target.contains('\\') && target.starts_with("\\\\") {
        return None;
    }
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

const LFS_VERSION: &str = "version https://git-lfs.github.com/spec/v1";

/// A git LFS pointer exactly as the spec writes one, and nothing that merely starts
/// like one: the `version` line, then `ext-<n>-<name> sha256:<hex>` lines, `oid
/// sha256:<64 hex>` and `size <digits>`, keys in that (sorted) order, each once, every
/// line ending in a newline, under 1 KiB. Anything else is content and is scanned.
pub(crate) fn is_lfs_pointer(content: &[u8]) -> bool {
    if content.len() >= 1024 || !content.ends_with(b"\n") {
        return false;
    }
    let Ok(text) = std::str::from_utf8(content) else {
        return false;
    };
    let mut lines = text[..text.len() - 1].split('\n');
    if lines.next() != Some(LFS_VERSION) {
        return false;
    }
    let is_oid = |v: &str| {
        v.strip_prefix("sha256:").is_some_and(|h| {
            h.len() == 64
                && h.bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        })
    };
    let (mut last_key, mut oid, mut size) = (String::new(), false, false);
    for line in lines {
        let Some((key, value)) = line.split_once(' ') else {
            return false;
        };
        if key <= last_key.as_str() {
            return false; // keys are sorted and appear once
        }
        let ok = match key {
            "oid" => {
                oid = is_oid(value);
                oid
            }
            "size" => {
                size = !value.is_empty()
                    && value.len() <= 20
                    && value.bytes().all(|b| b.is_ascii_digit());
                size
            }
            _ => {
                key.strip_prefix("ext-").is_some_and(|rest| {
                    rest.split_once('-').is_some_and(|(n, name)| {
                        !n.is_empty()
                            && n.bytes().all(|b| b.is_ascii_digit())
                            && !name.is_empty()
                            && name.bytes().all(|b| b.is_ascii_alphanumeric())
                    })
                }) && !oid
                    && is_oid(value)
            }
        };
        if !ok {
            return false;
        }
        last_key = key.to_string();
    }
    oid && size
}

pub struct GitScan<'a> {
    pub scanner: &'a Scanner,
    pub repo: &'a Repository,
    /// `GIT_INDEX_FILE` as git set it for the hook, if it did.
    pub index_file: Option<std::path::PathBuf>,
}

impl<'r> GitScan<'r> {
    fn changes(&self, blobs: Vec<BlobRef>, against: Against) -> Changes<'r> {
        Changes {
            repo: self.repo,
            blobs,
            against,
            commits: Vec::new(),
            tags: Vec::new(),
            tagged: false,
            refs: Vec::new(),
        }
    }

    /// What the index adds, plus the manifests (by literal name, e.g. `SHA256SUMS`) in
    /// the folders above each staged file: a data file changed without its manifest is
    /// caught at commit time, at the cost of a few index lookups.
    pub fn staged(&self) -> Result<Changes<'r>> {
        if let Some(parsed) = index::parsed(self.repo, self.index_file.as_deref())? {
            let blobs = changes::staged_fast(self.repo, &parsed)?;
            let blobs = self.with_manifests(blobs, |p| parsed.get(p));
            return Ok(self.changes(blobs, Against::Parsed(parsed)));
        }
        let index = match self.repo.index() {
            Ok(index) => index,
            // libgit2 refuses some index forms (split index: `link`); git reads them.
            Err(e) => {
                let parsed = index::ls_files(self.repo, self.index_file.as_deref()).map_err(|why| {
                    privacy_audit_engine::error::Error::Git(format!(
                        "cannot read the index: libgit2 says {}; and git's own reading failed: {why}",
                        e.message()
                    ))
                })?;
                let blobs = changes::staged_fast(self.repo, &parsed)?;
                let blobs = self.with_manifests(blobs, |p| parsed.get(p));
                return Ok(self.changes(blobs, Against::Parsed(parsed)));
            }
        };
        let blobs = changes::staged(self.repo, &index)?;
        let blobs = self.with_manifests(blobs, |p| {
            index.get_path(changes::repo_path(p), 0).map(|e| e.id)
        });
        Ok(self.changes(blobs, Against::Index(index)))
    }

    fn with_manifests(
        &self,
        mut blobs: Vec<BlobRef>,
        lookup: impl Fn(&[u8]) -> Option<Oid>,
    ) -> Vec<BlobRef> {
        let mut extra = Vec::new();
        let mut have: std::collections::HashSet<Vec<u8>> =
            blobs.iter().map(|b| b.path.clone()).collect();
        let mut looked: std::collections::HashSet<Vec<u8>> = std::collections::HashSet::new();
        for b in &blobs {
            let mut dir = b.path.as_slice();
            loop {
                dir = changes::split_dir(dir).0;
                // Folders are shared by many staged files: look each one up once.
                if !looked.insert(dir.to_vec()) {
                    break;
                }
                for name in self.scanner.literal_manifest_names() {
                    let path = if dir.is_empty() {
                        name.as_bytes().to_vec()
                    } else {
                        [dir, b"/", name.as_bytes()].concat()
                    };
                    if !have.contains(&path)
                        && let Some(oid) = lookup(&path)
                    {
                        have.insert(path.clone());
                        extra.push(BlobRef {
                            path,
                            oid,
                            is_link: false,
                            gitlink: false,
                            commit: None,
                        });
                    }
                }
                if dir.is_empty() {
                    break;
                }
            }
        }
        blobs.extend(extra);
        blobs
    }

    /// What the commits add, each blob once; claims are checked in the adding commit.
    /// The commits' messages and the annotated tags' messages are judged too: they
    /// reach the server as surely as any file.
    pub fn commits(&self, commits: &[Oid], tags: &[Oid]) -> Result<Changes<'r>> {
        let blobs = changes::added_by(self.repo, commits)?;
        let mut changes = self.changes(blobs, Against::AddingCommit);
        changes.commits = commits.to_vec();
        changes.tags = tags.to_vec();
        Ok(changes)
    }
}

/// A libgit2 error as the engine's: the engine knows nothing of git.
pub(crate) fn git_err(e: git2::Error) -> privacy_audit_engine::Error {
    privacy_audit_engine::Error::Git(e.message().to_string())
}

#[cfg(test)]
mod tests {
    use super::join_repo_path;

    #[test]
    fn repo_paths_cannot_climb_out() {
        assert_eq!(
            join_repo_path("data/runs", "../x.txt").as_deref(),
            Some("data/x.txt")
        );
        assert_eq!(join_repo_path("", "./a/b").as_deref(), Some("a/b"));
        assert_eq!(join_repo_path("data", "../../etc/passwd"), None);
        assert_eq!(join_repo_path("data", "/etc/passwd"), None);
    }

    #[test]
    fn only_a_pointer_to_the_letter_is_one() {
        let oid = "a".repeat(64);
        let good =
            format!("version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize 12345\n");
        assert!(super::is_lfs_pointer(good.as_bytes()));
        let ext = format!(
            "version https://git-lfs.github.com/spec/v1\next-0-foo sha256:{oid}\noid sha256:{oid}\nsize 1\n"
        );
        assert!(super::is_lfs_pointer(ext.as_bytes()));
        for bad in [
            format!(
                "version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize 1 AKIAIOSFODNN7EXAMPLE\n"
            ),
            format!(
                "version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize 1\next-0-x sha256:{oid}\n"
            ),
            format!(
                "version https://git-lfs.github.com/spec/v1\next-0-x a.b@gmail.com\noid sha256:{oid}\nsize 1\n"
            ),
            format!(
                "version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize 1\nsize 2\n"
            ),
            format!("version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize 1"),
            format!(
                "version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize 1\n\nAKIA\n"
            ),
            "version https://git-lfs.github.com/spec/v1\nsize 1\n".to_string(),
        ] {
            assert!(!super::is_lfs_pointer(bad.as_bytes()), "{bad}");
        }
    }
}
