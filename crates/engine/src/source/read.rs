//! Reading one file safely: never blocks on a FIFO, never follows a symlink swapped in
//! after listing, never reads past `max_file_bytes`, inflates gzip (every member) with
//! the same cap, and hashes the bytes as they are read.

use super::gzip::{gunzip, gunzip_into};
use crate::hex;
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

    /// A short name for the kind of skip.
    pub fn kind(&self) -> &'static str {
        match self {
            SkipReason::Binary => "binary",
            SkipReason::TooLarge { .. } => "too_large",
            SkipReason::Bomb { .. } => "bomb",
            SkipReason::CorruptGzip(_) => "corrupt",
            SkipReason::Unreadable(_) => "unreadable",
            SkipReason::NotRegular(_) => "not_regular",
            SkipReason::Symlink => "symlink",
        }
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

/// What was learned reading a file; the text itself is in [`ReadBuffers`] or
/// [`FileData`].
pub struct FileMeta {
    pub sha256: String,
    pub bytes: u64,
    pub gzip: bool,
    /// (device, inode, size, mtime) when read, for the hash cache.
    pub stamp: crate::source::Stamp,
}

/// A file's bytes, ready for the format readers, in a buffer of its own.
pub struct FileData {
    pub meta: FileMeta,
    /// The text to scan: the file itself, or its inflated content for gzip.
    pub text: Vec<u8>,
}

/// One worker's read buffers, kept from file to file: the file's bytes and, for gzip,
/// its inflated text. Reading a file then costs no allocation once they are as large
/// as the files, and no copy when a buffer grows.
#[derive(Default)]
pub struct ReadBuffers {
    raw: Vec<u8>,
    inflated: Vec<u8>,
}

impl ReadBuffers {
    /// Buffers above this are given back after the file, so one huge file does not pin
    /// its size in a long-lived worker (the daemon's).
    const KEEP: usize = 16 << 20;

    /// The text of the file last read by [`read_file_into`].
    pub fn text(&self, meta: &FileMeta) -> &[u8] {
        if meta.gzip { &self.inflated } else { &self.raw }
    }

    /// The bytes of the file last read by [`read_raw_into`], and the buffer its
    /// inflated pieces go to.
    pub fn raw_and_pieces(&mut self) -> (&[u8], &mut Vec<u8>) {
        (&self.raw, &mut self.inflated)
    }

    /// Drops buffers grown past [`ReadBuffers::KEEP`].
    pub fn trim(&mut self) {
        for buf in [&mut self.raw, &mut self.inflated] {
            if buf.capacity() > Self::KEEP {
                *buf = Vec::new();
            }
        }
    }
}

/// A skip, with whatever was learned before deciding it.
pub struct Skipped {
    pub reason: SkipReason,
    pub sha256: Option<String>,
    pub bytes: u64,
    /// Set when the file was read whole (and hashed) before it was refused, so the
    /// hash can serve provenance claims without a second read.
    pub stamp: Option<crate::source::Stamp>,
}

/// Reads a file into fresh buffers: for one-off reads (a sibling transcript).
pub fn read_file(path: &Path, max_bytes: u64) -> Result<FileData, Skipped> {
    let mut bufs = ReadBuffers::default();
    let meta = read_file_into(path, max_bytes, &mut bufs)?;
    let text = match meta.gzip {
        true => bufs.inflated,
        false => bufs.raw,
    };
    Ok(FileData { meta, text })
}

/// Reads, hashes and (for gzip) inflates a file into `bufs`.
pub fn read_file_into(
    path: &Path,
    max_bytes: u64,
    bufs: &mut ReadBuffers,
) -> Result<FileMeta, Skipped> {
    let meta = read_raw_into(path, max_bytes, bufs)?;
    let checked = match meta.gzip {
        false => text_only(&bufs.raw),
        true => gunzip_into(&bufs.raw, max_bytes, &mut bufs.inflated)
            .and_then(|()| text_only(&bufs.inflated)),
    };
    match checked {
        Ok(()) => Ok(meta),
        Err(reason) => Err(Skipped {
            reason,
            sha256: Some(meta.sha256),
            bytes: meta.bytes,
            stamp: Some(meta.stamp),
        }),
    }
}

/// Reads and hashes a file into `bufs`; gzip is left compressed, for
/// [`Pieces`](super::gzip::Pieces) to inflate as it is scanned. What the bytes are
/// (text, wide text, binary) is the caller's to decide (see [`crate::scan::sniff`]).
pub fn read_raw_into(
    path: &Path,
    max_bytes: u64,
    bufs: &mut ReadBuffers,
) -> Result<FileMeta, Skipped> {
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
    let raw = &mut bufs.raw;
    raw.clear();
    // Exact: `reserve` would double a buffer a little too small for this file, and a
    // worker keeps its buffer for the files after (2 MiB of the peak on the real data).
    // `read_to_end` probes for the end without growing.
    raw.reserve_exact(meta.len() as usize);
    // Read one byte past the cap so a file that grew after `fstat` is still caught.
    file.take(max_bytes.saturating_add(1))
        .read_to_end(raw)
        .map_err(|e| skip(SkipReason::Unreadable(e.to_string()), meta.len()))?;
    let bytes = raw.len() as u64;
    if bytes > max_bytes {
        let reason = SkipReason::TooLarge {
            bytes,
            limit: max_bytes,
        };
        return Err(skip(reason, bytes));
    }
    let sha256 = hex::encode(&Sha256::digest(&raw[..]));
    let stamp = crate::source::Stamp::of(&meta);
    Ok(FileMeta {
        sha256,
        bytes,
        gzip: is_gzip(raw),
        stamp,
    })
}

pub fn is_gzip(raw: &[u8]) -> bool {
    raw.starts_with(&[0x1f, 0x8b])
}

/// Binary content is skipped, as git and ripgrep decide it: a NUL early on.
pub fn text_only(text: &[u8]) -> Result<(), SkipReason> {
    match memchr::memchr(0, &text[..text.len().min(BINARY_SNIFF)]) {
        Some(_) => Err(SkipReason::Binary),
        None => Ok(()),
    }
}

/// Inflates gzip (bounded); other bytes are returned as they are.
pub fn decode_bytes(raw: Vec<u8>, max_bytes: u64) -> Result<Vec<u8>, SkipReason> {
    match is_gzip(&raw) {
        true => gunzip(&raw, max_bytes),
        false => Ok(raw),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::gzip::gz;

    /// Buffers carried from file to file must never show one file's bytes as another's:
    /// a short file after a long one, plain after gzip and back, a skip in between.
    #[test]
    fn reused_buffers_hold_exactly_the_file_last_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let long = "long line of text\n".repeat(5000);
        let files: [(&str, Vec<u8>); 5] = [
            ("a.jsonl.gz", gz(long.as_bytes())),
            ("b.md", b"short".to_vec()),
            ("c.bin", b"\0\x01binary".to_vec()),
            ("d.json.gz", gz(b"{\"x\":1}")),
            ("e.md", long.as_bytes().to_vec()),
        ];
        let mut bufs = ReadBuffers::default();
        for (name, bytes) in &files {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).expect("write");
            let got = read_file_into(&path, 1 << 30, &mut bufs);
            let fresh = read_file(&path, 1 << 30);
            match (got, fresh) {
                (Ok(meta), Ok(data)) => {
                    assert_eq!(bufs.text(&meta), &data.text[..], "{name}");
                    assert_eq!((meta.sha256, meta.gzip), (data.meta.sha256, data.meta.gzip));
                }
                (Err(a), Err(b)) => assert_eq!(a.reason, b.reason, "{name}"),
                _ => panic!("{name}: reused and fresh buffers disagree"),
            }
            bufs.trim();
        }
        // Short after long, against the content itself rather than a second read.
        let meta = read_file_into(&dir.path().join("b.md"), 99, &mut bufs);
        assert!(meta.is_ok_and(|m| bufs.text(&m) == b"short"));
        let meta = read_file_into(&dir.path().join("a.jsonl.gz"), 1 << 30, &mut bufs);
        assert!(meta.is_ok_and(|m| bufs.text(&m) == long.as_bytes()));
    }
}
