//! The git doors: `hook run` judges what is staged, `scan-git` and the push hooks judge
//! what a range of commits adds. Content comes from git's object database (libgit2),
//! never from the working tree, and hashes that data claims are checked against the
//! same snapshot: the index for a commit being made, the commit's tree for history.

pub mod changes;
mod fields;
pub mod hook;
pub mod index;
mod tagged;
pub mod trust;

use changes::BlobRef;
use git2::{Index, ObjectType, Oid, Repository, Tree};
use index::ParsedIndex;
use privacy_audit_engine::error::Result;
use privacy_audit_engine::finding::Finding;
use privacy_audit_engine::provenance::{Claim, claim_finding};
use privacy_audit_engine::report::{FileRecord, FileStatus, Report};
use privacy_audit_engine::scan::Scanner;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::Path;
use std::time::{Instant, SystemTime};

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

/// The snapshot claimed paths are looked up in.
enum Snapshot<'r> {
    Index(Index),
    Parsed(std::rc::Rc<ParsedIndex>),
    Tree(Tree<'r>),
}

impl Snapshot<'_> {
    fn blob(&self, path: &str) -> Option<Oid> {
        match self {
            Snapshot::Index(index) => index.get_path(Path::new(path), 0).map(|e| e.id),
            Snapshot::Parsed(index) => index.get(path.as_bytes()),
            Snapshot::Tree(tree) => tree
                .get_path(Path::new(path))
                .ok()
                .filter(|e| e.kind() == Some(ObjectType::Blob))
                .map(|e| e.id()),
        }
    }
}

/// Joins a claimed path to the claimant's folder inside the repository; `None` when
/// it is absolute or climbs above the repository root.
fn join_repo_path(dir: &str, target: &str) -> Option<String> {
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
fn is_lfs_pointer(content: &[u8]) -> bool {
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

impl GitScan<'_> {
    /// What the index adds, plus the manifests (by literal name, e.g. `SHA256SUMS`) in
    /// the folders above each staged file: a data file changed without its manifest is
    /// caught at commit time, at the cost of a few index lookups.
    pub fn staged(&self) -> Result<Report> {
        if let Some(parsed) = index::parsed(self.repo, self.index_file.as_deref())? {
            let parsed = std::rc::Rc::new(parsed);
            let blobs = changes::staged_fast(self.repo, &parsed)?;
            let blobs = self.with_manifests(blobs, |p| parsed.get(p));
            return self.run(blobs, move |_| Ok(Snapshot::Parsed(parsed.clone())));
        }
        let index = match self.repo.index() {
            Ok(index) => index,
            // libgit2 refuses some index forms (split index: `link`); git reads them.
            Err(e) => {
                let parsed = std::rc::Rc::new(index::ls_files(self.repo, self.index_file.as_deref()).map_err(|why| {
                    privacy_audit_engine::error::Error::Git(format!(
                        "cannot read the index: libgit2 says {}; and git's own reading failed: {why}",
                        e.message()
                    ))
                })?);
                let blobs = changes::staged_fast(self.repo, &parsed)?;
                let blobs = self.with_manifests(blobs, |p| parsed.get(p));
                return self.run(blobs, move |_| Ok(Snapshot::Parsed(parsed.clone())));
            }
        };
        let blobs = changes::staged(self.repo, &index)?;
        let blobs = self.with_manifests(blobs, |p| {
            index.get_path(changes::repo_path(p), 0).map(|e| e.id)
        });
        let mut index = Some(index);
        self.run(blobs, move |_| match index.take() {
            Some(index) => Ok(Snapshot::Index(index)),
            None => Ok(Snapshot::Index(self.repo.index().map_err(crate::git_err)?)),
        })
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
    pub fn commits(&self, commits: &[Oid], tags: &[Oid]) -> Result<Report> {
        let blobs = changes::added_by(self.repo, commits)?;
        let mut report = self.run(blobs, |commit| {
            let id = commit.unwrap_or(Oid::ZERO_SHA1);
            Ok(Snapshot::Tree(
                self.repo
                    .find_commit(id)
                    .map_err(crate::git_err)?
                    .tree()
                    .map_err(crate::git_err)?,
            ))
        })?;
        for &id in commits {
            let commit = self.repo.find_commit(id).map_err(crate::git_err)?;
            self.scan_message(
                &mut report,
                &format!("commit {id}"),
                commit.message_raw_bytes(),
                id,
            );
            for (who, sig) in [
                ("author", commit.author()),
                ("committer", commit.committer()),
            ] {
                self.scan_identity(&mut report, &format!("commit {id} {who}"), &sig, id);
            }
        }
        for &id in tags {
            let tag = self.repo.find_tag(id).map_err(crate::git_err)?;
            let text = [
                tag.name_bytes(),
                b"\n",
                tag.message_bytes().unwrap_or_default(),
            ]
            .concat();
            self.scan_message(&mut report, &format!("tag {id}"), &text, id);
            if let Some(sig) = tag.tagger() {
                self.scan_identity(&mut report, &format!("tag {id} tagger"), &sig, id);
            }
        }
        report.refresh();
        Ok(report)
    }

    /// Scans a commit or tag message as text; it is listed as a file named after it.
    fn scan_message(&self, report: &mut Report, what: &str, text: &[u8], id: Oid) {
        let outcome =
            self.scanner
                .scan_blob_as(&format!("({what} message)"), "message.txt", text.to_vec());
        let mut findings = outcome.findings;
        for f in &mut findings {
            f.commit = Some(id.to_string());
        }
        report.files.push(outcome.record);
        report.findings.extend(findings);
    }

    fn run<'r>(
        &'r self,
        blobs: Vec<BlobRef>,
        mut snapshot_for: impl FnMut(Option<Oid>) -> Result<Snapshot<'r>>,
    ) -> Result<Report> {
        let started = SystemTime::now();
        let clock = Instant::now();
        let (mut files, mut findings) = (Vec::new(), Vec::new());
        let mut hashes: HashMap<Oid, String> = HashMap::new();
        let mut snapshots: HashMap<Option<Oid>, Snapshot<'r>> = HashMap::new();
        for b in blobs {
            if b.gitlink {
                // A submodule's commit is not in this repository; its path is.
                let named = self.scanner.check_name(&b.shown());
                findings.extend(named.findings.into_iter().map(|mut f| {
                    f.message = format!(
                        "{} (a submodule's path)",
                        f.message.trim_end_matches(" (in the file name)")
                    );
                    f.commit = b.commit.map(|c| c.to_string());
                    f
                }));
                continue;
            }
            let blob = self.repo.find_blob(b.oid).map_err(crate::git_err)?;
            let content = blob.content();
            let shown = b.shown();
            if is_lfs_pointer(content) {
                // The pointer's own text is still read: its `ext-` names and size are
                // free text a value could ride in.
                let outcome = self
                    .scanner
                    .scan_blob_as(&shown, "pointer", content.to_vec());
                let mut found = outcome.findings;
                for f in &mut found {
                    f.commit = b.commit.map(|c| c.to_string());
                }
                findings.extend(found);
                files.push(FileRecord {
                    path: outcome.record.path,
                    sha256: Some(privacy_audit_engine::hex::encode(&Sha256::digest(content))),
                    keyed_sha256: None,
                    bytes: content.len() as u64,
                    status: FileStatus::Skipped,
                    reason: Some(
                        "git LFS pointer: the content is not in git (the pointer was scanned)"
                            .into(),
                    ),
                    error: false,
                });
                continue;
            }
            let outcome = if b.is_link {
                self.scanner
                    .scan_blob_as(&shown, "symlink", content.to_vec())
            } else {
                self.scanner.scan_blob(&shown, content.to_vec())
            };
            let commit = b.commit.map(|c| c.to_string());
            let mut found = outcome.findings;
            if !outcome.claims.is_empty() {
                let snap = match snapshots.entry(b.commit) {
                    std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                    std::collections::hash_map::Entry::Vacant(e) => {
                        e.insert(snapshot_for(b.commit)?)
                    }
                };
                self.verify(&outcome.claims, snap, &mut hashes, &mut found)?;
            }
            for f in &mut found {
                f.commit.clone_from(&commit);
            }
            // Content the gate could not judge already fails the run by the scanner's
            // `scan.allow_unjudged` policy, the same at every door.
            files.push(outcome.record);
            findings.extend(found);
        }
        let mut report = Report::new(
            self.scanner.rules.sha256.clone(),
            started,
            clock.elapsed(),
            files,
            findings,
        );
        self.scanner.seal_file_digests(&mut report);
        Ok(report)
    }

    fn verify(
        &self,
        claims: &[Claim],
        snapshot: &Snapshot<'_>,
        hashes: &mut HashMap<Oid, String>,
        out: &mut Vec<Finding>,
    ) -> Result<()> {
        let (rules, key) = (&self.scanner.rules, self.scanner.key());
        for c in claims {
            let dir = c.claimant.rsplit_once('/').map_or("", |(d, _)| d);
            let Some(target) = join_repo_path(dir, &c.target) else {
                let what = "names a path outside the repository; it was not read";
                out.extend(claim_finding(rules, key, "path_escape", c, what));
                continue;
            };
            let Some(oid) = snapshot.blob(&target) else {
                let what = "names a file that is not in the snapshot being judged";
                out.extend(claim_finding(rules, key, "missing_file", c, what));
                continue;
            };
            let actual = match hashes.get(&oid) {
                Some(h) => h.clone(),
                None => {
                    let blob = self.repo.find_blob(oid).map_err(crate::git_err)?;
                    let h = privacy_audit_engine::hex::encode(&Sha256::digest(blob.content()));
                    hashes.insert(oid, h.clone());
                    h
                }
            };
            if actual != c.expected {
                let what = privacy_audit_engine::provenance::mismatch(c, &actual);
                out.extend(claim_finding(rules, key, "hash_mismatch", c, &what));
            }
        }
        Ok(())
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
