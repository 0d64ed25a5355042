//! What `fix --staged` needs from git: the files a commit would take, whether each
//! one's work-tree copy is exactly what is staged (only then may the two be rewritten
//! together), and the index updated with what `fix` wrote.

use super::changes;
use git2::{ObjectType, Oid, Repository};
use privacy_audit_engine::error::{Error, Result};
use std::path::PathBuf;

/// A staged file: its repository path (as reports show it) and whether the work
/// tree holds exactly the staged bytes.
pub struct Staged {
    pub path: String,
    pub clean: bool,
}

/// The regular files the index adds or changes over `HEAD`.
pub fn staged_files(repo: &Repository) -> Result<Vec<Staged>> {
    let index = repo.index().map_err(crate::git_err)?;
    let workdir = workdir(repo)?;
    let mut out = Vec::new();
    for b in changes::staged(repo, &index)? {
        if b.is_link || b.gitlink {
            continue;
        }
        let path = changes::path_text_of(&b.path);
        let disk = workdir.join(changes::repo_path(&b.path));
        let clean = Oid::hash_file(ObjectType::Blob, &disk).is_ok_and(|id| id == b.oid);
        out.push(Staged { path, clean });
    }
    Ok(out)
}

/// The repository's work tree.
pub fn workdir(repo: &Repository) -> Result<PathBuf> {
    repo.workdir()
        .map(std::path::Path::to_path_buf)
        .ok_or_else(|| Error::Usage("a bare repository has no work tree to fix".into()))
}

/// Whether the work tree holds exactly what the index has for `path` (a file not in
/// the index counts as clean only when it is new to git entirely).
pub fn is_clean(repo: &Repository, path: &str) -> Result<bool> {
    let index = repo.index().map_err(crate::git_err)?;
    let disk = workdir(repo)?.join(path);
    Ok(match index.get_path(std::path::Path::new(path), 0) {
        Some(entry) => Oid::hash_file(ObjectType::Blob, &disk).is_ok_and(|id| id == entry.id),
        None => true,
    })
}

/// Stages the work-tree copies of `paths` (repository paths), as `git add` would.
pub fn restage(repo: &Repository, paths: &[String]) -> Result<()> {
    let mut index = repo.index().map_err(crate::git_err)?;
    for p in paths {
        index
            .add_path(std::path::Path::new(p))
            .map_err(crate::git_err)?;
    }
    index.write().map_err(crate::git_err)
}
