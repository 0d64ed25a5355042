//! Format readers turn a file's bytes into [`Unit`]s: decoded text that detectors search,
//! plus the map from every decoded byte back to the file position and JSON Pointer it
//! came from.
//!
//! Readers own bytes and positions; they never decide what is a violation.

pub mod base64;
mod deep;
pub mod json;
pub mod lines;
pub mod pointer;
mod seed;
pub mod tree;

pub use lines::LineIndex;
pub use pointer::{NodeId, PathArena};
pub use seed::SeedFormat;

/// Separates segments inside [`Unit::text`]. A newline keeps whitespace-bounded
/// patterns from running from one JSON string into the next.
pub const SEGMENT_SEPARATOR: u8 = b'\n';

/// How the text of a unit was obtained, for messages and for recursion limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// Straight from the file (JSON strings unescaped, gzip inflated).
    Plain,
    Base64,
    Percent,
    /// Full-width letters and invisible characters folded away (`ｉｏｎ＠ｇｍａｉｌ`,
    /// `gm\u{200b}ail`): spellings that look the same to a reader but not to a regex.
    Folded,
    /// Tokens wrapped across lines, joined back (see `scan::decode::unwrap_layer`).
    Unwrapped,
    /// HTML character references decoded (`&#64;`, `&commat;`).
    Entities,
    /// Backslash escapes decoded (`\u002F`, `\x2F`), as TOML, YAML and code write them.
    Escapes,
    /// Quoted-printable decoded (`=40`, soft line breaks).
    QuotedPrintable,
    /// Defanged writing refanged (`81[.]196[.]12[.]7`, `hxxps`).
    Defanged,
    /// Path spellings normalised (`//home//ana`, `/var/home/ana`, `\\wsl$\…`).
    PathForm,
}

/// One contiguous piece of decoded text: a JSON string or number, or a run of text.
#[derive(Debug, Clone)]
pub struct Segment {
    /// Byte range in [`Unit::text`].
    pub start: usize,
    pub end: usize,
    /// Byte offset in the file's (decompressed) text of the first byte of the content.
    pub raw_start: usize,
    /// Range in [`Unit::checkpoints`]; empty when the segment is a verbatim copy.
    pub checkpoints: (u32, u32),
    /// Where in the JSON document the value sits; `None` outside JSON.
    pub node: Option<NodeId>,
    /// The segment is an object key, not a value.
    pub is_key: bool,
    /// Every position maps to `raw_start` (content decoded from base64 and the like,
    /// where no byte-accurate map exists).
    pub pinned: bool,
}

/// The first and last characters of `key`: a regex's look-around reads at most one
/// character across a segment's separator, so these are all its neighbours' searches
/// can see of a key left out of the text.
pub fn key_stand_in(key: &str) -> (&str, &str) {
    let first = key.chars().next().map_or(0, char::len_utf8);
    let last = key.chars().next_back().map_or(0, char::len_utf8);
    (&key[..first], &key[key.len() - last..])
}

/// A decoded span of a file that detectors run over in one pass.
#[derive(Debug, Default)]
pub struct Unit {
    pub text: Vec<u8>,
    pub segments: Vec<Segment>,
    /// `(decoded offset within segment, raw offset within segment)` at every point where
    /// an escape sequence changed the length.
    pub checkpoints: Vec<(u32, u32)>,
    pub paths: PathArena,
    /// How deep in nested encodings this unit is, and the last encoding peeled off.
    pub depth: u8,
    pub encoding: Option<Encoding>,
    /// When `Some`, the tokenizer records where every value starts (file offsets), so
    /// a finding about a number, object or missing field can be placed.
    pub value_starts: Option<Vec<(NodeId, usize)>>,
    /// Object keys left out of `text` (see [`Unit::push_key_gap`]), and the bytes
    /// they would have added to it.
    pub gaps: usize,
    pub gap_bytes: usize,
    /// A JSON escape put a control character a reader does not see into `text`
    /// (`\u0000`, `\b`): only then does the disguise layer look for them.
    pub controls: bool,
}

/// How far a unit had grown, to take back a record that turned out not to be JSON.
#[derive(Debug, Clone, Copy)]
pub struct UnitMark {
    text: usize,
    segments: usize,
    checkpoints: usize,
    gaps: usize,
    gap_bytes: usize,
}

impl Unit {
    pub fn clear(&mut self) {
        self.text.clear();
        self.segments.clear();
        self.checkpoints.clear();
        self.paths.clear();
        self.depth = 0;
        self.encoding = None;
        self.gaps = 0;
        self.gap_bytes = 0;
        self.controls = false;
        if let Some(starts) = self.value_starts.as_mut() {
            starts.clear();
        }
    }

    /// Empties the unit for the next piece of a document being tokenized, keeping the
    /// first `keep_nodes` nodes of its path arena (see [`json::Tokenizer`]).
    pub fn clear_piece(&mut self, keep_nodes: usize) {
        let paths = std::mem::take(&mut self.paths);
        self.clear();
        self.paths = paths;
        self.paths.truncate(keep_nodes);
    }

    /// Appends a verbatim run of text found at `raw_start` in the file.
    pub fn push_plain(&mut self, bytes: &[u8], raw_start: usize, node: Option<NodeId>) {
        let start = self.begin_segment();
        self.text.extend_from_slice(bytes);
        self.segments.push(Segment {
            start,
            end: self.text.len(),
            raw_start,
            checkpoints: (0, 0),
            node,
            is_key: false,
            pinned: false,
        });
    }

    /// Starts a segment and returns its start offset; the caller appends bytes to
    /// `text` and then calls [`Unit::finish_segment`].
    pub fn begin_segment(&mut self) -> usize {
        // By segment, not by text: an empty first value must not share its start
        // with the next one.
        if !self.segments.is_empty() || self.gaps > 0 {
            self.text.push(SEGMENT_SEPARATOR);
        }
        self.text.len()
    }

    /// Leaves an object key out of the text, keeping in its place, in no segment, what a
    /// search beside it can see of it: [`key_stand_in`]. Only for a key that neither it
    /// nor its stand-in holds anything any rule starts from (`scan::keys` decides):
    /// every window is bounded by its own segment and the separators around it, so the
    /// neighbours' searches read the same bytes as with the whole key there.
    pub fn push_key_gap(&mut self, key: &str) {
        let start = self.begin_segment();
        let (first, last) = key_stand_in(key);
        self.text.extend_from_slice(first.as_bytes());
        self.text.extend_from_slice(last.as_bytes());
        debug_assert!(self.text.len() > start);
        self.gaps += 1;
        self.gap_bytes += key.len() - first.len() - last.len();
    }

    /// The text's length as if every key were in it: units are cut by this, so where
    /// they are cut (and so which values share a unit) does not depend on key gaps.
    pub fn len_with_keys(&self) -> usize {
        self.text.len() + self.gap_bytes
    }

    pub fn mark(&self) -> UnitMark {
        UnitMark {
            text: self.text.len(),
            segments: self.segments.len(),
            checkpoints: self.checkpoints.len(),
            gaps: self.gaps,
            gap_bytes: self.gap_bytes,
        }
    }

    /// Drops everything pushed since `mark` was taken.
    pub fn truncate(&mut self, mark: UnitMark) {
        self.text.truncate(mark.text);
        self.segments.truncate(mark.segments);
        self.checkpoints.truncate(mark.checkpoints);
        self.gaps = mark.gaps;
        self.gap_bytes = mark.gap_bytes;
    }

    pub fn finish_segment(&mut self, seg: Segment) {
        self.segments.push(seg);
    }

    /// Appends one segment: the ranges `pieces` of `parent`'s segment `seg`, joined by
    /// `sep`, each mapped to where it is written (the parent's own escapes included),
    /// so a finding in a piece is placed where the file holds it.
    pub fn push_joined(
        &mut self,
        parent: &Unit,
        seg: usize,
        pieces: &[(usize, usize)],
        sep: &[u8],
    ) {
        let Some(&(first, _)) = pieces.first() else {
            return;
        };
        let ps = &parent.segments[seg];
        let raw_start = parent.raw_offset(seg, first);
        let node = ps
            .node
            .map(|n| self.paths.verbatim(&parent.paths.pointer(n)));
        let start = self.begin_segment();
        let lo = self.checkpoints.len();
        let clamp = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let (plo, phi) = (ps.checkpoints.0 as usize, ps.checkpoints.1 as usize);
        for (k, &(a, b)) in pieces.iter().enumerate() {
            if k > 0 {
                self.text.extend_from_slice(sep);
            }
            let at = self.text.len() - start;
            let raw = |p: usize| parent.raw_offset(seg, p).saturating_sub(raw_start);
            self.checkpoints.push((clamp(at), clamp(raw(a))));
            for &(d, _) in &parent.checkpoints[plo..phi] {
                let p = ps.start + d as usize;
                if p > a && p < b {
                    self.checkpoints.push((clamp(at + p - a), clamp(raw(p))));
                }
            }
            self.text.extend_from_slice(&parent.text[a..b]);
        }
        self.segments.push(Segment {
            start,
            end: self.text.len(),
            raw_start,
            checkpoints: (clamp(lo), clamp(self.checkpoints.len())),
            node,
            is_key: false,
            pinned: false,
        });
    }

    /// The segment holding decoded offset `pos`, if any.
    pub fn segment_at(&self, pos: usize) -> Option<usize> {
        let idx = self.segments.partition_point(|s| s.start <= pos);
        let idx = idx.checked_sub(1)?;
        let seg = &self.segments[idx];
        (pos <= seg.end).then_some(idx)
    }

    /// File offset of decoded offset `pos` inside segment `seg`.
    pub fn raw_offset(&self, seg: usize, pos: usize) -> usize {
        let s = &self.segments[seg];
        if s.pinned {
            return s.raw_start;
        }
        let rel = pos.saturating_sub(s.start);
        let (lo, hi) = (s.checkpoints.0 as usize, s.checkpoints.1 as usize);
        let cps = &self.checkpoints[lo..hi];
        let i = cps.partition_point(|&(d, _)| (d as usize) <= rel);
        match i.checked_sub(1) {
            None => s.raw_start + rel,
            Some(i) => {
                let (d, r) = cps[i];
                s.raw_start + r as usize + (rel - d as usize)
            }
        }
    }
}
