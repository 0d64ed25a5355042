//! Objects only a tag reaches. `git tag name <blob>` or a tag on a tree puts content in
//! the repository that no commit holds, so a walk of commits never sees it; `scan-git
//! --all` judges it here. (pre-receive refuses such a push outright: git cannot walk
//! it as commits, and the gate fails closed.)

use super::changes::path_text_of;
use git2::{ObjectType, Oid, Repository, TreeWalkMode, TreeWalkResult};
use privacy_audit_engine::error::Result;
use privacy_audit_engine::run::{Sink, Unit};
use privacy_audit_engine::scan::Scanner;

/// Scans every blob that a tag (lightweight or annotated) names directly or through a
/// tree, listed as `(tag <name>)/<path>`.
pub(crate) fn feed(repo: &Repository, scanner: &Scanner, sink: &Sink<Option<Oid>>) -> Result<()> {
    // A claim in such a blob has no snapshot to be checked in: none is kept.
    let loose = |shown: &str, content: &[u8]| {
        sink.unit(Unit::new(scanner.scan_blob(shown, content.to_vec()), None));
    };
    let mut targets = Vec::new();
    for reference in repo
        .references_glob("refs/tags/*")
        .map_err(crate::git_err)?
    {
        let reference = reference.map_err(crate::git_err)?;
        let name = path_text_of(
            reference
                .name_bytes()
                .strip_prefix(b"refs/tags/")
                .unwrap_or_default(),
        );
        // Through annotated tags (and tags of tags) to what they name.
        if let Ok(target) = reference.peel(ObjectType::Any) {
            targets.push((name, target));
        }
    }
    for (name, obj) in targets {
        match obj.kind() {
            Some(ObjectType::Blob) => {
                let blob = obj.peel_to_blob().map_err(crate::git_err)?;
                loose(&format!("(tag {name})"), blob.content());
            }
            Some(ObjectType::Tree) => {
                let tree = obj.peel_to_tree().map_err(crate::git_err)?;
                let mut blobs: Vec<(Vec<u8>, Oid)> = Vec::new();
                tree.walk(TreeWalkMode::PreOrder, |dir, entry| {
                    if entry.kind() == Some(ObjectType::Blob) {
                        let path = [dir.as_bytes(), entry.name_bytes()].concat();
                        blobs.push((path, entry.id()));
                    }
                    TreeWalkResult::Ok
                })
                .map_err(crate::git_err)?;
                for (path, id) in blobs {
                    let blob = repo.find_blob(id).map_err(crate::git_err)?;
                    loose(
                        &format!("(tag {name})/{}", path_text_of(&path)),
                        blob.content(),
                    );
                }
            }
            _ => {}
        }
    }
    Ok(())
}
