//! Moving violating files out of the watched folders so sync jobs do not carry them
//! further: a rename on the same filesystem (no byte lost), never over an existing file,
//! never a delete. Each move is logged to `audit.jsonl` the moment it happens, so even
//! a crash before the batch's report leaves a record of where the file went.
//!
//! The destination names no one: `<quarantine>/<batch>/<digest>`, the digest a sha256
//! of the batch and the file's path, so a name that holds a value (an e-mail as a file
//! name) is not repeated in the destination that reports and logs print. The original
//! path, needed to put the file back, is kept beside it in `<digest>.origin`, readable
//! by the daemon's user only, inside the quarantine, which holds the file itself.

// unsafe here: renameat2 with RENAME_NOREPLACE is called through libc.
#![allow(unsafe_code)]

use super::link::{Quarantined, TrailReport};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// `disk` maps each report name to the file it names (a name is spelled for reports,
/// with bytes escaped and leaks masked, so it cannot be opened as it is).
pub fn move_violations(
    report: &mut TrailReport,
    disk: &HashMap<String, PathBuf>,
    base: &Path,
    batch: u64,
    reports: &Path,
) {
    let mut paths: Vec<String> = report
        .report
        .findings
        .iter()
        .map(|f| f.location.path.clone())
        .collect();
    paths.sort();
    paths.dedup();
    for p in paths {
        let Some(from) = disk.get(&p).cloned() else {
            tracing::error!(file = %p, "cannot tell which file this report name is; not quarantined");
            continue;
        };
        let to = base.join(batch.to_string()).join(digest(batch, &from));
        let moved = to
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| write_origin(&to, &from))
            .and_then(|()| rename_noreplace(&from, &to));
        match moved {
            Ok(()) => {
                let to = to.to_string_lossy().into_owned();
                log_move(reports, &p, &to);
                report.trail.quarantined.push(Quarantined { path: p, to });
            }
            Err(e) => tracing::error!(file = %p, error = %e,
                "cannot quarantine (it must be on the same filesystem, and nothing there \
                 may be overwritten); left in place"),
        }
    }
}

/// 32 hex digits of sha256(batch, path): the destination's name.
fn digest(batch: u64, path: &Path) -> String {
    use sha2::{Digest, Sha256};
    use std::os::unix::ffi::OsStrExt;
    let mut h = Sha256::new();
    h.update(batch.to_le_bytes());
    h.update(path.as_os_str().as_bytes());
    privacy_audit_engine::hex::encode(&h.finalize()[..16])
}

/// The original path, for putting the file back: owner-only, never overwritten.
fn write_origin(to: &Path, from: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::OpenOptionsExt;
    let mut origin = to.as_os_str().to_owned();
    origin.push(".origin");
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(origin)?;
    f.write_all(from.as_os_str().as_bytes())?;
    f.write_all(b"\n")?;
    f.sync_all()
}

#[cfg(target_os = "linux")]
fn rename_noreplace(from: &Path, to: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| {
        std::ffi::CString::new(p.as_os_str().as_bytes())
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))
    };
    let (f, t) = (c(from)?, c(to)?);
    // SAFETY: both strings are valid NUL-terminated paths for the duration of the call.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            f.as_ptr(),
            libc::AT_FDCWD,
            t.as_ptr(),
            libc::RENAME_NOREPLACE,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn rename_noreplace(from: &Path, to: &Path) -> std::io::Result<()> {
    if to.exists() {
        return Err(std::io::Error::from(std::io::ErrorKind::AlreadyExists));
    }
    std::fs::rename(from, to)
}

fn log_move(reports: &Path, from: &str, to: &str) {
    let line = serde_json::json!({"quarantined": from, "to": to}).to_string() + "\n";
    let log = reports.join(super::trail::AUDIT_LOG);
    let written = std::fs::create_dir_all(reports).and_then(|()| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)?
            .write_all(line.as_bytes())
    });
    if let Err(e) = written {
        tracing::error!(error = %e, "cannot log the quarantine move to audit.jsonl");
    }
}
