//! The file-system sources: a walk of folders (`scan`, `verify`) and a list of files
//! (the daemon's batches, a pipeline's shards). Claims resolve from the claimant's
//! folder and may not leave the root it was found under.

use super::{Sink, Source, Unit};
use crate::error::{Error, Result};
use crate::finding::Finding;
use crate::provenance::{Claim, ClaimSite, SeenFile, Verifier};
use crate::scan::Scanner;
use crate::source::read::Skipped;
use crate::source::walk::{self, Entry};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Files and folders walked in parallel. Every root must exist: a path that does not
/// is an error (exit 2), a file that cannot be read is listed as skipped.
pub struct Walk<'a> {
    pub roots: &'a [PathBuf],
}

/// Files named one by one: (disk path, report path, the root claims may not leave).
pub struct FileList<'a> {
    pub items: &'a [(PathBuf, String, PathBuf)],
}

fn site_of(path: &Path, root: PathBuf) -> ClaimSite {
    ClaimSite {
        dir: path.parent().map(Path::to_path_buf).unwrap_or_default(),
        root,
    }
}

/// Reads one file into the sink, listing it as seen.
fn read_one(scanner: &Scanner, sink: &Sink<ClaimSite>, path: &Path, rel: String, root: PathBuf) {
    let outcome = scanner.scan_path_below(path, rel, sink.floor());
    sink.seen(SeenFile {
        disk: path.to_path_buf(),
        rel: outcome.record.path.clone(),
    });
    sink.unit(Unit::new(outcome, Some(site_of(path, root))));
}

fn verify_on_disk(
    scanner: &Scanner,
    claims: &[(Claim, ClaimSite)],
    seen: &[SeenFile],
) -> Vec<Finding> {
    Verifier {
        rules: &scanner.rules,
        key: scanner.key(),
        cache: &scanner.cache,
        strict: scanner.strict(),
    }
    .verify(claims, seen)
}

impl Source for Walk<'_> {
    type Site = ClaimSite;

    fn feed(&self, scanner: &Scanner, sink: &Sink<ClaimSite>) -> Result<()> {
        for root in self.roots {
            std::fs::symlink_metadata(root).map_err(|e| Error::io(root, e))?;
        }
        let visit = |entry: Entry| match entry {
            Entry::File { path, rel, root } => {
                if scanner.wants(&path) {
                    read_one(scanner, sink, &path, rel, root);
                } else {
                    // Provenance mode passes over files that cannot hold hashes; they
                    // still count for `--strict` manifest completeness.
                    sink.seen(SeenFile { disk: path, rel });
                }
            }
            Entry::Skip { rel, reason } => {
                let skip = Skipped {
                    reason,
                    sha256: None,
                    bytes: 0,
                    stamp: None,
                };
                // A link's or a FIFO's name is a name like any other: judged, and
                // shown masked.
                let named = scanner.check_name(&rel);
                let mut outcome = scanner.skipped(named.shown, skip);
                outcome.findings.extend(named.findings);
                sink.unit(Unit::new(outcome, None));
            }
        };
        walk::walk(self.roots, scanner.excludes(), scanner.threads(), &visit);
        Ok(())
    }

    fn verify(
        &self,
        scanner: &Scanner,
        claims: &[(Claim, ClaimSite)],
        seen: &[SeenFile],
    ) -> Result<Vec<Finding>> {
        Ok(verify_on_disk(scanner, claims, seen))
    }
}

impl Source for FileList<'_> {
    type Site = ClaimSite;

    fn feed(&self, scanner: &Scanner, sink: &Sink<ClaimSite>) -> Result<()> {
        let next = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..scanner.threads().min(self.items.len()).max(1) {
                let next = &next;
                s.spawn(move || {
                    while let Some((disk, rel, root)) =
                        self.items.get(next.fetch_add(1, Ordering::Relaxed))
                    {
                        read_one(scanner, sink, disk, rel.clone(), root.clone());
                    }
                });
            }
        });
        Ok(())
    }

    fn verify(
        &self,
        scanner: &Scanner,
        claims: &[(Claim, ClaimSite)],
        seen: &[SeenFile],
    ) -> Result<Vec<Finding>> {
        Ok(verify_on_disk(scanner, claims, seen))
    }
}

/// One shard of a scan of `root`: `rels` as [`Scanner::list_files`] gives them, as the
/// items of a [`FileList`]. Each must be a plain relative path to something that is not
/// a folder: `..`, an absolute path or a folder would read outside the plan or judge
/// nothing.
pub fn shard(root: &Path, rels: &[PathBuf]) -> Result<Vec<(PathBuf, String, PathBuf)>> {
    let mut items = Vec::with_capacity(rels.len());
    for rel in rels {
        let shown = crate::guard::path_text(rel.as_os_str().as_encoded_bytes());
        let plain = rel
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
        if !plain || rel.as_os_str().is_empty() {
            return Err(Error::invalid(
                shown,
                "not a plain path relative to the root",
            ));
        }
        let disk = root.join(rel);
        let meta = std::fs::symlink_metadata(&disk).map_err(|e| Error::io(&shown, e))?;
        if meta.is_dir() {
            return Err(Error::invalid(
                shown,
                "a folder, not a file: list it with list_files",
            ));
        }
        items.push((disk, shown, root.to_path_buf()));
    }
    Ok(items)
}

/// Bytes handed over whole (Python's `scan_bytes`), judged as a file named `name`
/// (its name picks the format). A hash it claims names nothing this run can read, so
/// none is checked.
pub struct Buffer<'a> {
    pub name: &'a str,
    /// Taken by the one feed: a buffer is scanned once, without a copy.
    pub bytes: std::cell::Cell<Vec<u8>>,
}

impl Source for Buffer<'_> {
    type Site = ();

    fn feed(&self, scanner: &Scanner, sink: &Sink<()>) -> Result<()> {
        let outcome = scanner.scan_blob(self.name, self.bytes.take());
        sink.unit(Unit::new(outcome, None));
        Ok(())
    }

    fn verify(&self, _: &Scanner, _: &[(Claim, ())], _: &[SeenFile]) -> Result<Vec<Finding>> {
        Ok(Vec::new())
    }
}
