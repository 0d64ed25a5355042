//! Applying a plan to someone's only copy: each file written to a temporary file
//! beside it and renamed over it (atomic), with its mode kept; never through a link;
//! refused when the file changed since the plan read it; the original copied to the
//! backup folder first when one is given.

use super::FileFix;
use crate::error::{Error, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Whether `file` can be written as planned: still a regular file, unchanged since
/// the plan read it. Every file is checked before any is written, so a plan is
/// applied whole or not at all (as far as the file system lets).
pub fn check(file: &FileFix) -> Result<()> {
    let disk = &file.disk;
    let meta = std::fs::symlink_metadata(disk).map_err(|e| Error::io(disk, e))?;
    let shown = || crate::guard::path_text(disk.as_os_str().as_encoded_bytes());
    if !meta.file_type().is_file() {
        return Err(Error::invalid(
            shown(),
            "is no longer a regular file: nothing written",
        ));
    }
    if !unchanged(file)? {
        return Err(Error::invalid(
            shown(),
            "changed since it was read: nothing written (run fix again)",
        ));
    }
    let dir = disk.parent().unwrap_or(Path::new("."));
    let probe = tempfile::NamedTempFile::new_in(dir).map_err(|e| Error::io(dir, e))?;
    drop(probe);
    Ok(())
}

/// Whether the file still holds the bytes the plan read.
fn unchanged(file: &FileFix) -> Result<bool> {
    let now = std::fs::read(&file.disk).map_err(|e| Error::io(&file.disk, e))?;
    Ok(super::sha256_hex(&now) == file.was)
}

/// Writes `file.after` over `file.disk`; the original goes to `backup/<its absolute
/// path>` first.
pub fn apply(file: &FileFix, backup: Option<&Path>) -> Result<()> {
    let disk = &file.disk;
    let meta = std::fs::symlink_metadata(disk).map_err(|e| Error::io(disk, e))?;
    if !meta.file_type().is_file() {
        return Err(Error::invalid(
            crate::guard::path_text(disk.as_os_str().as_encoded_bytes()),
            "is no longer a regular file: not written",
        ));
    }
    let now = std::fs::read(disk).map_err(|e| Error::io(disk, e))?;
    if super::sha256_hex(&now) != file.was {
        return Err(Error::invalid(
            crate::guard::path_text(disk.as_os_str().as_encoded_bytes()),
            "changed since it was read: not written (run fix again)",
        ));
    }
    if let Some(dir) = backup {
        // Under its absolute path: a report name may climb (`../d1/a.txt`), and two
        // roots may hold the same name.
        let abs = crate::provenance::normalize(disk);
        let rel: PathBuf = abs
            .components()
            .filter(|c| matches!(c, std::path::Component::Normal(_)))
            .collect();
        let copy = dir.join(rel);
        if let Some(parent) = copy.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
        }
        std::fs::write(&copy, &now).map_err(|e| Error::io(&copy, e))?;
        std::fs::set_permissions(&copy, meta.permissions()).map_err(|e| Error::io(&copy, e))?;
    }
    let dir = disk.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| Error::io(dir, e))?;
    tmp.write_all(&file.after)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| Error::io(tmp.path(), e))?;
    std::fs::set_permissions(tmp.path(), meta.permissions()).map_err(|e| Error::io(disk, e))?;
    // The owner stays who it was (when this process may say so: as root).
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let _ = std::os::unix::fs::chown(tmp.path(), Some(meta.uid()), Some(meta.gid()));
    }
    tmp.persist(disk).map_err(|e| Error::io(disk, e.error))?;
    Ok(())
}
