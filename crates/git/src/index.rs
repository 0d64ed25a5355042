//! A reader for git's index file that makes a pre-commit hook cost what the commit
//! changes, not what the repository holds.
//!
//! libgit2 verifies the index's SHA-1 and builds a hash map of every entry, then its
//! tree-to-index diff reads every tree of `HEAD`: in a 50,000-file repository that was
//! most of a hook's time. git itself keeps a *cache tree* in the index (the `TREE`
//! extension): for each folder whose content has not been touched since the last
//! commit it records that folder's tree id. A folder whose cached id equals `HEAD`'s is
//! unchanged as a whole, so only folders `git add` invalidated are compared entry by
//! entry, reading just the `HEAD` trees on their paths.
//!
//! Formats this reader does not handle (split index, sparse index, SHA-256 object ids,
//! unknown versions) return `None`, and the caller falls back to libgit2.

use git2::{Oid, Repository};
use privacy_audit_engine::error::{Error, Result};

const MODE_GITLINK: u32 = 0o160_000;
const MODE_LINK: u32 = 0o120_000;
const FLAG_EXTENDED: u16 = 0x4000;
const EXT_INTENT_TO_ADD: u16 = 0x2000;

/// One stage-0 entry; its path lives in [`ParsedIndex::paths`] (one allocation for
/// the whole index rather than one per entry).
pub struct IndexEntry {
    path: (u32, u32),
    pub oid: Oid,
    pub mode: u32,
}

impl IndexEntry {
    pub fn is_link(&self) -> bool {
        self.mode & 0o170_000 == MODE_LINK
    }

    pub fn is_gitlink(&self) -> bool {
        self.mode & 0o170_000 == MODE_GITLINK
    }
}

/// One cache-tree node: a folder (`""` for the root) and, when still valid, its tree id.
pub struct CachedTree {
    pub path: Vec<u8>,
    pub oid: Option<Oid>,
}

#[derive(Default)]
pub struct ParsedIndex {
    /// Stage-0 entries in index order (sorted by path bytes).
    pub entries: Vec<IndexEntry>,
    pub cache_tree: Vec<CachedTree>,
    /// Every entry's path, as git stores it: bytes, not necessarily UTF-8.
    paths: Vec<u8>,
}

impl ParsedIndex {
    /// The staged blob at `path` (entries are sorted by path bytes).
    pub fn get(&self, path: &[u8]) -> Option<Oid> {
        self.entries
            .binary_search_by(|e| self.path(e).cmp(path))
            .ok()
            .map(|i| self.entries[i].oid)
    }

    pub fn path(&self, e: &IndexEntry) -> &[u8] {
        let (start, end) = (e.path.0 as usize, e.path.1 as usize);
        self.paths.get(start..end).unwrap_or_default()
    }
}

impl ParsedIndex {
    /// The stage-0 entries `git ls-files --stage -z` prints: git's own reading, for the
    /// index forms neither this reader nor libgit2 takes (split and sparse indexes). A
    /// sparse index is expanded by `ls-files`, so every staged file is listed.
    pub fn from_ls_files(out: &[u8]) -> Option<ParsedIndex> {
        let mut index = ParsedIndex::default();
        for record in out.split(|&b| b == 0).filter(|r| !r.is_empty()) {
            // `<mode> <oid> <stage>\t<path>`
            let tab = memchr::memchr(b'\t', record)?;
            let head = std::str::from_utf8(&record[..tab]).ok()?;
            let mut fields = head.split(' ');
            let mode = u32::from_str_radix(fields.next()?, 8).ok()?;
            let oid = Oid::from_str(fields.next()?).ok()?;
            if fields.next()? != "0" {
                continue;
            }
            let path = &record[tab + 1..];
            let begin = u32::try_from(index.paths.len()).ok()?;
            index.paths.extend_from_slice(path);
            let end = u32::try_from(index.paths.len()).ok()?;
            index.entries.push(IndexEntry {
                path: (begin, end),
                oid,
                mode,
            });
        }
        Some(index)
    }
}

/// The index git points the hook at, read by our own reader when its form allows.
/// `Err` when git named an index that is not there: judging "nothing staged" then
/// would let the commit through unseen.
pub fn parsed(repo: &Repository, named: Option<&std::path::Path>) -> Result<Option<ParsedIndex>> {
    let sha256_objects = repo
        .config()
        .and_then(|c| c.get_string("extensions.objectformat"))
        .is_ok_and(|f| f.eq_ignore_ascii_case("sha256"));
    if sha256_objects || repo.is_bare() {
        return Ok(None);
    }
    let named = super::named_index_file(repo, named);
    let file = named.clone().unwrap_or_else(|| repo.path().join("index"));
    match std::fs::read(&file) {
        Ok(data) => Ok(parse(&data)),
        // No index yet (a fresh repository): nothing is staged.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && named.is_none() => {
            Ok(Some(ParsedIndex::default()))
        }
        Err(e) => Err(Error::io(&file, e)),
    }
}

/// The index as `git ls-files --stage -z` lists it, from the index git named for the
/// hook when it named one.
pub fn ls_files(
    repo: &Repository,
    named: Option<&std::path::Path>,
) -> std::result::Result<ParsedIndex, String> {
    let dir = repo.workdir().unwrap_or_else(|| repo.path());
    let mut git = std::process::Command::new("git");
    if let Some(file) = super::named_index_file(repo, named) {
        git.env("GIT_INDEX_FILE", file);
    }
    let out = git
        .current_dir(dir)
        .args(["ls-files", "--stage", "-z"])
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "git ls-files exited {}",
            out.status.code().unwrap_or(-1)
        ));
    }
    ParsedIndex::from_ls_files(&out.stdout).ok_or_else(|| "unexpected git ls-files output".into())
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let s = self.data.get(self.pos..end)?;
        self.pos = end;
        Some(s)
    }

    fn u32(&mut self) -> Option<u32> {
        self.take(4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u16(&mut self) -> Option<u16> {
        self.take(2).map(|b| u16::from_be_bytes([b[0], b[1]]))
    }

    fn until_nul(&mut self) -> Option<&'a [u8]> {
        let rest = self.data.get(self.pos..)?;
        let n = memchr::memchr(0, rest)?;
        self.pos += n + 1;
        Some(&rest[..n])
    }

    /// The offset-encoded integer of index v4 path compression.
    fn varint(&mut self) -> Option<usize> {
        let mut byte = *self.take(1)?.first()?;
        let mut value = usize::from(byte & 0x7f);
        while byte & 0x80 != 0 {
            byte = *self.take(1)?.first()?;
            value = value
                .checked_add(1)?
                .checked_shl(7)?
                .checked_add(usize::from(byte & 0x7f))?;
        }
        Some(value)
    }
}

/// Parses the index at `data`; `None` when it uses a form this reader leaves to
/// libgit2 (or is damaged — libgit2 will then say what is wrong).
pub fn parse(data: &[u8]) -> Option<ParsedIndex> {
    // The trailing 20 bytes are the checksum; nothing after the entries may reach them.
    let body = data.get(..data.len().checked_sub(20)?)?;
    let mut r = Reader { data: body, pos: 0 };
    if r.take(4)? != b"DIRC" {
        return None;
    }
    let version = r.u32()?;
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = r.u32()? as usize;
    let mut entries = Vec::with_capacity(count.min(1 << 20));
    let mut paths: Vec<u8> = Vec::with_capacity(body.len() / 2);
    let mut previous: Vec<u8> = Vec::new();
    for _ in 0..count {
        let start = r.pos;
        r.take(24)?; // ctime, mtime, dev, ino
        let mode = r.u32()?;
        r.take(12)?; // uid, gid, size
        let oid = Oid::from_bytes(r.take(20)?).ok()?;
        let flags = r.u16()?;
        let mut extended = 0u16;
        if flags & FLAG_EXTENDED != 0 {
            if version < 3 {
                return None;
            }
            extended = r.u16()?;
        }
        let path: &[u8] = if version == 4 {
            let strip = r.varint()?;
            let keep = previous.len().checked_sub(strip)?;
            previous.truncate(keep);
            previous.extend_from_slice(r.until_nul()?);
            &previous
        } else {
            let p = r.until_nul()?;
            // Entries are padded with NULs to a multiple of 8 bytes (the NUL read counts).
            let len = r.pos - start;
            r.take((8 - len % 8) % 8)?;
            p
        };
        let stage = (flags >> 12) & 0x3;
        // A directory entry means a sparse index: leave it to libgit2.
        if mode & 0o170_000 == 0o040_000 {
            return None;
        }
        if stage == 0 && extended & EXT_INTENT_TO_ADD == 0 {
            let begin = u32::try_from(paths.len()).ok()?;
            paths.extend_from_slice(path);
            let end = u32::try_from(paths.len()).ok()?;
            entries.push(IndexEntry {
                path: (begin, end),
                oid,
                mode,
            });
        }
    }
    let mut cache_tree = Vec::new();
    while r.pos < body.len() {
        let sig = r.take(4)?;
        let size = r.u32()? as usize;
        let ext = r.take(size)?;
        match sig {
            b"TREE" => cache_tree = parse_tree_extension(ext)?,
            // Split index ("link") and sparse index ("sdir") change what entries mean.
            b"link" | b"sdir" => return None,
            _ => {}
        }
    }
    Some(ParsedIndex {
        entries,
        cache_tree,
        paths,
    })
}

/// `TREE`: pre-order nodes `<component>\0<entries> <subtrees>\n[<oid>]`; an entry count
/// of -1 marks a folder changed since the cache was built.
fn parse_tree_extension(ext: &[u8]) -> Option<Vec<CachedTree>> {
    let mut r = Reader { data: ext, pos: 0 };
    let mut out = Vec::new();
    // (path, subtrees still to come under it)
    let mut stack: Vec<(Vec<u8>, usize)> = Vec::new();
    while r.pos < ext.len() {
        let name = r.until_nul()?.to_vec();
        let rest = &ext[r.pos..];
        let line_end = memchr::memchr(b'\n', rest)?;
        let line = std::str::from_utf8(&rest[..line_end]).ok()?;
        r.pos += line_end + 1;
        let (entries, subtrees) = line.split_once(' ')?;
        let entries: i64 = entries.parse().ok()?;
        let subtrees: usize = subtrees.parse().ok()?;
        let oid = if entries >= 0 {
            Some(Oid::from_bytes(r.take(20)?).ok()?)
        } else {
            None
        };
        while stack.last().is_some_and(|(_, left)| *left == 0) {
            stack.pop();
        }
        let path = match stack.last_mut() {
            Some((parent, left)) => {
                *left -= 1;
                if parent.is_empty() {
                    name
                } else {
                    [parent.as_slice(), b"/", &name].concat()
                }
            }
            None if out.is_empty() => Vec::new(),
            // A second root would overwrite the first one's id: not a cache tree.
            None => return None,
        };
        stack.push((path.clone(), subtrees));
        out.push(CachedTree { path, oid });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damaged_input_is_refused_not_a_panic() {
        assert!(parse(b"").is_none());
        assert!(parse(b"DIRC\0\0\0\x02\0\0\0\x05").is_none());
        let mut fake = b"DIRC\0\0\0\x02\xff\xff\xff\xff".to_vec();
        fake.extend_from_slice(&[0u8; 20]);
        assert!(parse(&fake).is_none());
        assert!(parse_tree_extension(b"\x001 0\nshort").is_none());
    }
}
