//! Applying a plan to someone's only copy: each file written to a temporary file
//! beside it and renamed over it (atomic), with its mode kept; never through a link;
//! refused when the file changed since the plan read it; the original copied to the
//! backup folder first when one is given.

use super::FileFix;
use crate::error::{Error, Result};
use std::io::Write;
use std::path::Path;

/// Writes `file.after` over `file.disk`; the original goes to `backup/<shown>` first.
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
    if now != file.before {
        return Err(Error::invalid(
            crate::guard::path_text(disk.as_os_str().as_encoded_bytes()),
            "changed since it was read: not written (run fix again)",
        ));
    }
    if let Some(dir) = backup {
        let copy = dir.join(file.shown.trim_start_matches('/'));
        if let Some(parent) = copy.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
        }
        std::fs::write(&copy, &file.before).map_err(|e| Error::io(&copy, e))?;
    }
    let dir = disk.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| Error::io(dir, e))?;
    tmp.write_all(&file.after)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| Error::io(tmp.path(), e))?;
    std::fs::set_permissions(tmp.path(), meta.permissions()).map_err(|e| Error::io(disk, e))?;
    tmp.persist(disk).map_err(|e| Error::io(disk, e.error))?;
    Ok(())
}
