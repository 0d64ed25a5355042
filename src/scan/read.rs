//! Reading one file safely: never blocks on a FIFO, never follows a symlink swapped in
//! after listing, never reads past `max_file_bytes`, inflates gzip (every member) with
//! the same cap, and hashes the bytes as they are read.

use crate::hex;
use flate2::read::MultiGzDecoder;
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Bytes looked at to decide a file is binary, as git and ripgrep do.
const BINARY_SNIFF: usize = 8192;

/// Why a file was not scanned. `is_error` separates "could not read" (the scan is
/// incomplete: exit 2) from deliberate policy skips (binary, too large).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipReason {
    Binary,
    TooLarge { bytes: u64, limit: u64 },
    Bomb { limit: u64 },
    CorruptGzip(String),
    Unreadable(String),
    NotRegular(&'static str),
    Symlink,
}

impl SkipReason {
    pub fn is_error(&self) -> bool {
        matches!(self, SkipReason::CorruptGzip(_) | SkipReason::Unreadable(_))
    }
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkipReason::Binary => f.write_str("binary"),
            SkipReason::TooLarge { bytes, limit } => {
                write!(f, "too large: {bytes} bytes > max_file_bytes {limit}")
            }
            SkipReason::Bomb { limit } => write!(
                f,
                "decompression bomb: inflates past max_file_bytes {limit}"
            ),
            SkipReason::CorruptGzip(e) => write!(f, "corrupt gzip: {e}"),
            SkipReason::Unreadable(e) => write!(f, "unreadable: {e}"),
            SkipReason::NotRegular(kind) => write!(f, "not a regular file: {kind}"),
            SkipReason::Symlink => f.write_str("symlink (not followed)"),
        }
    }
}

/// A file's bytes, ready for the format readers.
pub struct FileData {
    pub sha256: String,
    pub bytes: u64,
    /// The text to scan: the file itself, or its inflated content for gzip.
    pub text: Vec<u8>,
    pub gzip: bool,
    /// (device, inode, size, mtime) when read, for the hash cache.
    pub stamp: crate::provenance::cache::Stamp,
}

/// A skip, with whatever was learned before deciding it.
pub struct Skipped {
    pub reason: SkipReason,
    pub sha256: Option<String>,
    pub bytes: u64,
    /// Set when the file was read whole (and hashed) before it was refused, so the
    /// hash can serve provenance claims without a second read.
    pub stamp: Option<crate::provenance::cache::Stamp>,
}

pub fn read_file(path: &Path, max_bytes: u64) -> Result<FileData, Skipped> {
    let skip = |reason, bytes| Skipped {
        reason,
        sha256: None,
        bytes,
        stamp: None,
    };
    let file = open_no_block(path).map_err(|e| skip(SkipReason::Unreadable(e.to_string()), 0))?;
    let meta = file
        .metadata()
        .map_err(|e| skip(SkipReason::Unreadable(e.to_string()), 0))?;
    if !meta.is_file() {
        return Err(skip(
            SkipReason::NotRegular(kind_name(&meta.file_type())),
            0,
        ));
    }
    if meta.len() > max_bytes {
        let reason = SkipReason::TooLarge {
            bytes: meta.len(),
            limit: max_bytes,
        };
        return Err(skip(reason, meta.len()));
    }
    let mut raw = Vec::with_capacity(meta.len() as usize);
    // Read one byte past the cap so a file that grew after `fstat` is still caught.
    file.take(max_bytes + 1)
        .read_to_end(&mut raw)
        .map_err(|e| skip(SkipReason::Unreadable(e.to_string()), meta.len()))?;
    let bytes = raw.len() as u64;
    if bytes > max_bytes {
        let reason = SkipReason::TooLarge {
            bytes,
            limit: max_bytes,
        };
        return Err(skip(reason, bytes));
    }
    let sha256 = hex::encode(&Sha256::digest(&raw));
    let stamp = crate::provenance::cache::Stamp::of(&meta);
    decode_bytes(raw, max_bytes)
        .map_err(|reason| Skipped {
            reason,
            sha256: Some(sha256.clone()),
            bytes,
            stamp: Some(stamp),
        })
        .map(|(text, gzip)| FileData {
            sha256,
            bytes,
            text,
            gzip,
            stamp,
        })
}

/// Inflates gzip (bounded) and rejects binary content. Shared by files on disk and
/// in-memory blobs.
pub fn decode_bytes(raw: Vec<u8>, max_bytes: u64) -> Result<(Vec<u8>, bool), SkipReason> {
    let gzip = raw.starts_with(&[0x1f, 0x8b]);
    let text = if gzip { gunzip(&raw, max_bytes)? } else { raw };
    if memchr::memchr(0, &text[..text.len().min(BINARY_SNIFF)]).is_some() {
        return Err(SkipReason::Binary);
    }
    Ok((text, gzip))
}

/// Inflates every gzip member, refusing to produce more than `limit` bytes.
pub fn gunzip(raw: &[u8], limit: u64) -> Result<Vec<u8>, SkipReason> {
    let mut out = Vec::new();
    MultiGzDecoder::new(raw)
        .take(limit + 1)
        .read_to_end(&mut out)
        .map_err(|e| SkipReason::CorruptGzip(e.to_string()))?;
    if out.len() as u64 > limit {
        return Err(SkipReason::Bomb { limit });
    }
    Ok(out)
}

#[cfg(unix)]
pub fn open_no_block(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    // O_NONBLOCK: a FIFO swapped in after listing must not hang the scan.
    // O_NOFOLLOW: a symlink swapped in must not lead out of the tree.
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

#[cfg(not(unix))]
pub fn open_no_block(path: &Path) -> std::io::Result<File> {
    File::open(path)
}

pub fn kind_name(ft: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "fifo";
        }
        if ft.is_socket() {
            return "socket";
        }
        if ft.is_block_device() {
            return "block device";
        }
        if ft.is_char_device() {
            return "character device";
        }
    }
    if ft.is_dir() {
        "directory"
    } else if ft.is_symlink() {
        "symlink"
    } else {
        "special file"
    }
}
