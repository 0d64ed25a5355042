//! Walking the scan roots in parallel with `ignore`, with none of its repository
//! conventions: an auditor must see dotfiles and gitignored files too. Only the
//! configured excludes prune; symlinks are never followed; only regular files are
//! handed on, everything else is reported as skipped.

use super::read::{SkipReason, kind_name};
use crate::error::{Error, Result};
use globset::{Glob, GlobSet, GlobSetBuilder};
use ignore::{WalkBuilder, WalkState};
use std::path::{Path, PathBuf};

pub enum Entry {
    /// `root`: the folder the file was found under (a file argument's own folder).
    File {
        path: PathBuf,
        rel: String,
        root: PathBuf,
    },
    Skip {
        rel: String,
        reason: SkipReason,
    },
}

/// `scan.exclude`, compiled. Globs ending in `/**` also prune the folder itself, so an
/// excluded tree is never descended.
pub struct Excludes {
    files: GlobSet,
    dirs: GlobSet,
}

impl Excludes {
    pub fn new(globs: &[String]) -> Result<Excludes> {
        let mut files = GlobSetBuilder::new();
        let mut dirs = GlobSetBuilder::new();
        let bad =
            |g: &str, e: globset::Error| Error::invalid("scan.exclude", format!("`{g}`: {e}"));
        for g in globs {
            files.add(Glob::new(g).map_err(|e| bad(g, e))?);
            if let Some(prefix) = g.strip_suffix("/**") {
                dirs.add(Glob::new(prefix).map_err(|e| bad(g, e))?);
            }
        }
        let build = |b: GlobSetBuilder| {
            b.build()
                .map_err(|e| Error::invalid("scan.exclude", e.to_string()))
        };
        Ok(Excludes {
            files: build(files)?,
            dirs: build(dirs)?,
        })
    }

    pub fn file_excluded(&self, rel: &str) -> bool {
        self.files.is_match(rel)
    }

    pub fn dir_excluded(&self, rel: &str) -> bool {
        !rel.is_empty() && (self.dirs.is_match(rel) || self.files.is_match(rel))
    }
}

/// Report path of `path` found under `root`: relative to a folder root, with `/`.
pub fn display_rel(root: &Path, path: &Path, root_is_dir: bool, prefix_root: bool) -> String {
    let rel = if root_is_dir && !prefix_root {
        path.strip_prefix(root).unwrap_or(path)
    } else {
        path
    };
    use std::os::unix::ffi::OsStrExt;
    crate::guard::path_text(rel.as_os_str().as_bytes())
}

/// Calls `visit` from several threads for every entry under `roots`.
pub fn walk(
    roots: &[PathBuf],
    excludes: &Excludes,
    threads: usize,
    visit: &(dyn Fn(Entry) + Sync),
) {
    let prefix_root = roots.len() > 1;
    for root in roots {
        let root_is_dir = root.is_dir();
        let root_dir = if root_is_dir {
            root.clone()
        } else {
            // `verify SHA256SUMS` has the parent `""`, which every path "starts with":
            // the dataset root must be a real folder or nothing is outside it.
            match root.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            }
        };
        let root_dir = &root_dir;
        let walker = WalkBuilder::new(root)
            .standard_filters(false)
            .follow_links(false)
            .threads(threads)
            .build_parallel();
        walker.run(|| {
            Box::new(move |result| {
                let entry = match result {
                    Ok(e) => e,
                    Err(err) => {
                        let rel = error_path(&err)
                            .map(|p| display_rel(root, p, root_is_dir, prefix_root))
                            .unwrap_or_else(|| root.to_string_lossy().into_owned());
                        visit(Entry::Skip {
                            rel,
                            reason: SkipReason::Unreadable(err.to_string()),
                        });
                        return WalkState::Continue;
                    }
                };
                let rel = display_rel(root, entry.path(), root_is_dir, prefix_root);
                let Some(ft) = entry.file_type() else {
                    return WalkState::Continue;
                };
                let is_root = entry.depth() == 0;
                if ft.is_dir() {
                    let rel_in_root = if root_is_dir {
                        display_rel(root, entry.path(), true, false)
                    } else {
                        rel.clone()
                    };
                    if !is_root && excludes.dir_excluded(&rel_in_root) {
                        return WalkState::Skip;
                    }
                    return WalkState::Continue;
                }
                let rel_in_root = display_rel(root, entry.path(), root_is_dir, false);
                if !is_root && excludes.file_excluded(&rel_in_root) {
                    return WalkState::Continue;
                }
                if ft.is_file() {
                    visit(Entry::File {
                        path: entry.path().to_path_buf(),
                        rel,
                        root: root_dir.clone(),
                    });
                } else if ft.is_symlink() {
                    visit(Entry::Skip {
                        rel,
                        reason: SkipReason::Symlink,
                    });
                } else {
                    visit(Entry::Skip {
                        rel,
                        reason: SkipReason::NotRegular(kind_name(&ft)),
                    });
                }
                WalkState::Continue
            })
        });
    }
}

fn error_path(err: &ignore::Error) -> Option<&Path> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } => error_path(err),
        _ => None,
    }
}
