//! The list a history rewrite needs (`git filter-repo --replace-text FILE`): every value
//! `fix` rewrote, in each spelling it has in a text blob, and its placeholder. This is
//! the one file privacy-audit writes that holds values in full, so it is created for
//! its owner only (0600), and the caller keeps it out of the repository.

use super::placeholder::Replacement;
use super::rewrite::spellings;
use crate::error::{Error, Result};
use std::io::Write;
use std::path::Path;

/// Writes `replacements` to `path` as `literal:OLD==>NEW` lines, mode 0600.
pub fn write(path: &Path, replacements: &[Replacement]) -> Result<usize> {
    let mut lines: Vec<Vec<u8>> = Vec::new();
    for r in replacements {
        for (old, new) in spellings(&r.old, &r.new) {
            // A line of the list cannot hold a newline, and `==>` splits it.
            let unsafe_ = |b: &[u8]| b.contains(&b'\n') || b.windows(3).any(|w| w == b"==>");
            if old.is_empty() || unsafe_(&old) || unsafe_(&new) {
                continue;
            }
            let line = [b"literal:".as_slice(), &old, b"==>", &new, b"\n"].concat();
            if !lines.contains(&line) {
                lines.push(line);
            }
        }
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path).map_err(|e| Error::io(path, e))?;
    // An existing file keeps its mode on open: made private whatever it was.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| Error::io(path, e))?;
    }
    for line in &lines {
        file.write_all(line).map_err(|e| Error::io(path, e))?;
    }
    Ok(lines.len())
}
