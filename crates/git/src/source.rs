//! What a git event adds, as a source of the engine's one run: the blobs (each once),
//! the messages and identities of the commits and tags, the blobs only a tag reaches,
//! the names of the refs a push moves. Hash claims are looked up in the snapshot the
//! change is judged in: the index for a commit being made, the adding commit's tree
//! for history.

use super::changes::BlobRef;
use super::index::ParsedIndex;
use super::{is_lfs_pointer, join_repo_path};
use git2::{Index, ObjectType, Oid, Repository, Tree};
use privacy_audit_engine::error::Result;
use privacy_audit_engine::finding::Finding;
use privacy_audit_engine::provenance::{Claim, SeenFile, claim_finding, mismatch};
use privacy_audit_engine::report::{FileRecord, FileStatus};
use privacy_audit_engine::run::{Sink, Source, Unit};
use privacy_audit_engine::scan::Scanner;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::path::Path;

/// Where claimed paths are looked up.
pub enum Against {
    /// The index git is about to commit (libgit2's reading, or our own).
    Index(Index),
    Parsed(ParsedIndex),
    /// The tree of the commit that added the claimant.
    AddingCommit,
}

/// A snapshot one claim is looked up in.
enum Snapshot<'s> {
    Index(&'s Index),
    Parsed(&'s ParsedIndex),
    Tree(&'s Tree<'s>),
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

/// Everything a commit, a push or a history scan puts in the repository.
pub struct Changes<'r> {
    pub repo: &'r Repository,
    pub blobs: Vec<BlobRef>,
    pub against: Against,
    /// Commits whose messages and identities are judged.
    pub commits: Vec<Oid>,
    /// Annotated tags whose names, messages and taggers are judged.
    pub tags: Vec<Oid>,
    /// Whether the blobs only a tag reaches are judged (`scan-git` of all history).
    pub tagged: bool,
    /// Names of the refs a push moves.
    pub refs: Vec<String>,
}

impl Source for Changes<'_> {
    /// The commit that added the claimant (`None` for the index).
    type Site = Option<Oid>;

    fn feed(&self, scanner: &Scanner, sink: &Sink<Option<Oid>>) -> Result<()> {
        for b in &self.blobs {
            self.feed_blob(scanner, sink, b)?;
        }
        for &id in &self.commits {
            let commit = self.repo.find_commit(id).map_err(crate::git_err)?;
            let what = format!("commit {id}");
            super::fields::message(scanner, sink, &what, commit.message_raw_bytes(), id);
            for (who, sig) in [
                ("author", commit.author()),
                ("committer", commit.committer()),
            ] {
                super::fields::identity(scanner, sink, &format!("{what} {who}"), &sig, id);
            }
        }
        for &id in &self.tags {
            let tag = self.repo.find_tag(id).map_err(crate::git_err)?;
            let text = [
                tag.name_bytes(),
                b"\n",
                tag.message_bytes().unwrap_or_default(),
            ]
            .concat();
            super::fields::message(scanner, sink, &format!("tag {id}"), &text, id);
            if let Some(sig) = tag.tagger() {
                super::fields::identity(scanner, sink, &format!("tag {id} tagger"), &sig, id);
            }
        }
        if self.tagged {
            super::tagged::feed(self.repo, scanner, sink)?;
        }
        super::fields::refs(scanner, sink, &self.refs);
        Ok(())
    }

    fn verify(
        &self,
        scanner: &Scanner,
        claims: &[(Claim, Option<Oid>)],
        _seen: &[SeenFile],
    ) -> Result<Vec<Finding>> {
        let mut out = Vec::new();
        let mut hashes: HashMap<Oid, String> = HashMap::new();
        let mut trees: HashMap<Oid, Tree<'_>> = HashMap::new();
        let (rules, key) = (&scanner.rules, scanner.key());
        for (c, commit) in claims {
            // A claim's finding is the adding commit's, as its file's findings are.
            let stamp = |f: Option<Finding>| {
                f.map(|mut f| {
                    f.commit = commit.map(|id| id.to_string());
                    f
                })
            };
            let dir = c.claimant.rsplit_once('/').map_or("", |(d, _)| d);
            let Some(target) = join_repo_path(dir, &c.target) else {
                let what = "names a path outside the repository; it was not read";
                out.extend(stamp(claim_finding(rules, key, "path_escape", c, what)));
                continue;
            };
            let snapshot = match (&self.against, commit) {
                (Against::Index(index), _) => Snapshot::Index(index),
                (Against::Parsed(index), _) => Snapshot::Parsed(index),
                (Against::AddingCommit, commit) => {
                    let id = commit.unwrap_or(Oid::ZERO_SHA1);
                    let tree = match trees.entry(id) {
                        Entry::Occupied(e) => e.into_mut(),
                        Entry::Vacant(e) => {
                            let commit = self.repo.find_commit(id).map_err(crate::git_err)?;
                            e.insert(commit.tree().map_err(crate::git_err)?)
                        }
                    };
                    Snapshot::Tree(tree)
                }
            };
            let Some(oid) = snapshot.blob(&target) else {
                let what = "names a file that is not in the snapshot being judged";
                out.extend(stamp(claim_finding(rules, key, "missing_file", c, what)));
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
                let what = mismatch(c, &actual);
                out.extend(stamp(claim_finding(rules, key, "hash_mismatch", c, &what)));
            }
        }
        Ok(out)
    }
}

impl Changes<'_> {
    fn feed_blob(&self, scanner: &Scanner, sink: &Sink<Option<Oid>>, b: &BlobRef) -> Result<()> {
        let commit = b.commit.map(|c| c.to_string());
        if b.gitlink {
            // A submodule's commit is not in this repository; its path is.
            let named = scanner.check_name(&b.shown());
            sink.findings(
                named
                    .findings
                    .into_iter()
                    .map(|mut f| {
                        f.message = format!(
                            "{} (a submodule's path)",
                            f.message.trim_end_matches(" (in the file name)")
                        );
                        f.commit.clone_from(&commit);
                        f
                    })
                    .collect(),
            );
            return Ok(());
        }
        let blob = self.repo.find_blob(b.oid).map_err(crate::git_err)?;
        let content = blob.content();
        let shown = b.shown();
        if is_lfs_pointer(content) {
            // The pointer's own text is still read: its `ext-` names and size are free
            // text a value could ride in.
            let mut outcome = scanner.scan_blob_as(&shown, "pointer", content.to_vec());
            outcome.record = FileRecord {
                path: outcome.record.path,
                sha256: Some(privacy_audit_engine::hex::encode(&Sha256::digest(content))),
                keyed_sha256: None,
                bytes: content.len() as u64,
                status: FileStatus::Skipped,
                reason: Some(
                    "git LFS pointer: the content is not in git (the pointer was scanned)".into(),
                ),
                error: false,
            };
            outcome.claims.clear();
            sink.unit(Unit::new(outcome, None).in_commit(commit));
            return Ok(());
        }
        let name = match b.is_link {
            true => "symlink",
            false => shown.rsplit('/').next().unwrap_or(&shown),
        };
        let outcome = scanner.scan_blob_below(&shown, name, content.to_vec(), sink.floor());
        // Content the gate could not judge already fails the run by the scanner's
        // `scan.allow_unjudged` policy, the same at every door.
        sink.unit(Unit::new(outcome, Some(b.commit)).in_commit(commit));
        Ok(())
    }
}
