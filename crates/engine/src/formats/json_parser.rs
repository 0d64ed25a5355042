//! The JSON tokenizer's reading of one token at a time: strings and their escapes,
//! keys, numbers and literals, each appended to the unit as the tokenizer walks on.

use super::{JsonError, KeyFilter, MIN_NUMBER_DIGITS};
use crate::formats::tree::{Node, TreeBuilder};
use crate::formats::{NodeId, Segment, Unit};
use std::borrow::Cow;

pub(super) struct Parser<'d, 't, 'k> {
    pub(super) doc: &'d [u8],
    /// `doc` as text, when a tree is built and `doc` is UTF-8.
    pub(super) text: Option<&'d str>,
    pub(super) base: usize,
    pub(super) pos: usize,
    pub(super) tree: Option<&'t mut TreeBuilder<'d>>,
    pub(super) keys: Option<&'k mut dyn KeyFilter>,
}

impl<'d> Parser<'d, '_, '_> {
    pub(super) fn emit(&mut self, node: Node<'d>) {
        if let Some(t) = self.tree.as_deref_mut() {
            t.value(node);
        }
    }

    /// The text of string segment `seg`, just read: borrowed from the document when it
    /// held no escape (and is UTF-8), else the decoded copy.
    pub(super) fn string_text(&self, unit: &Unit, seg: usize) -> Cow<'d, str> {
        let s = &unit.segments[seg];
        if s.checkpoints.0 == s.checkpoints.1
            && let Some(text) = self.text
            && let Some(raw) = text.get(s.raw_start - self.base..self.pos - 1)
        {
            return Cow::Borrowed(raw);
        }
        // The decoded text is UTF-8 whenever the document is: checked the fast way
        // first, the lossy way only for a document that is not.
        let decoded = &unit.text[s.start..s.end];
        match std::str::from_utf8(decoded) {
            Ok(text) => Cow::Owned(text.to_owned()),
            Err(_) => Cow::Owned(String::from_utf8_lossy(decoded).into_owned()),
        }
    }

    pub(super) fn peek(&self) -> Option<u8> {
        self.doc.get(self.pos).copied()
    }

    pub(super) fn error(&self, message: &'static str) -> JsonError {
        JsonError {
            offset: self.base + self.pos.min(self.doc.len()),
            message,
        }
    }

    pub(super) fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    /// Reads `"key"` `:` and returns the member's node; the key is scanned too.
    pub(super) fn member_key(
        &mut self,
        unit: &mut Unit,
        parent: NodeId,
    ) -> Result<NodeId, JsonError> {
        if self.peek() != Some(b'"') {
            return Err(self.error("expected a string key"));
        }
        if let Some(node) = self.skipped_key(unit, parent) {
            return self.after_key(node);
        }
        let seg = self.string(unit, None, true)?;
        let node = if self.tree.is_some() {
            // The tree's key is checked UTF-8 already (with the whole document).
            let key = self.string_text(unit, seg);
            let node = unit.paths.key(parent, &key);
            if let Some(t) = self.tree.as_deref_mut() {
                t.key(key);
            }
            node
        } else {
            let name = &unit.text[unit.segments[seg].start..];
            match std::str::from_utf8(name) {
                Ok(key) => unit.paths.key(parent, key),
                Err(_) => unit.paths.key(parent, &String::from_utf8_lossy(name)),
            }
        };
        unit.segments[seg].node = Some(node);
        self.after_key(node)
    }

    /// A key at `self.pos` the filter skips: consumed, named in pointers and the tree,
    /// and left in the unit as a gap. Only keys without escapes are asked about, so
    /// their text is their bytes.
    fn skipped_key(&mut self, unit: &mut Unit, parent: NodeId) -> Option<NodeId> {
        let keys = self.keys.as_deref_mut()?;
        let start = self.pos + 1;
        let end = start + memchr::memchr2(b'"', b'\\', self.doc.get(start..)?)?;
        if self.doc[end] != b'"' {
            return None;
        }
        // With a tree the document is UTF-8 already, and quotes are char boundaries.
        let key = match self.text {
            Some(text) => &text[start..end],
            None => std::str::from_utf8(&self.doc[start..end]).ok()?,
        };
        if !keys.skip(key) {
            return None;
        }
        self.pos = end + 1;
        if let Some(t) = self.tree.as_deref_mut() {
            t.key(Cow::Borrowed(key));
        }
        unit.push_key_gap(key);
        Some(unit.paths.key(parent, key))
    }

    /// The `:` after a key, and the whitespace around it.
    fn after_key(&mut self, node: NodeId) -> Result<NodeId, JsonError> {
        self.skip_ws();
        if self.peek() != Some(b':') {
            return Err(self.error("expected `:` after a key"));
        }
        self.pos += 1;
        self.skip_ws();
        Ok(node)
    }

    pub(super) fn literal(&mut self, word: &[u8]) -> Result<(), JsonError> {
        if self.doc[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(self.error("invalid literal"))
        }
    }

    pub(super) fn number(&mut self, unit: &mut Unit, node: NodeId) -> Result<(), JsonError> {
        let start = self.pos;
        while let Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        let token = &self.doc[start..self.pos];
        if !token.iter().any(u8::is_ascii_digit) {
            return Err(self.error("invalid number"));
        }
        if token.iter().filter(|b| b.is_ascii_digit()).count() >= MIN_NUMBER_DIGITS {
            unit.push_plain(token, self.base + start, Some(node));
        }
        if self.tree.is_some() {
            // Only ASCII digits and signs: always UTF-8.
            let text = String::from_utf8_lossy(token);
            self.emit(Node::Number(text));
        }
        Ok(())
    }

    /// Decodes the string at `self.pos` into a new segment and returns its index.
    pub(super) fn string(
        &mut self,
        unit: &mut Unit,
        node: Option<NodeId>,
        is_key: bool,
    ) -> Result<usize, JsonError> {
        self.pos += 1; // opening quote
        let content_start = self.pos;
        let seg_start = unit.begin_segment();
        let cp_start = unit.checkpoints.len() as u32;
        loop {
            let rest = &self.doc[self.pos..];
            let Some(i) = memchr::memchr2(b'"', b'\\', rest) else {
                self.pos = self.doc.len();
                return Err(self.error("unterminated string"));
            };
            unit.text.extend_from_slice(&rest[..i]);
            self.pos += i;
            if rest[i] == b'"' {
                self.pos += 1;
                break;
            }
            self.escape(unit)?;
            let decoded = unit.text.len() - seg_start;
            let raw = self.pos - content_start;
            unit.checkpoints.push((clamp(decoded), clamp(raw)));
        }
        let cp_end = unit.checkpoints.len() as u32;
        unit.finish_segment(Segment {
            start: seg_start,
            end: unit.text.len(),
            raw_start: self.base + content_start,
            checkpoints: (cp_start, cp_end),
            node,
            is_key,
            pinned: false,
        });
        Ok(unit.segments.len() - 1)
    }

    /// Decodes one escape sequence at `self.pos` (which points at the backslash).
    fn escape(&mut self, unit: &mut Unit) -> Result<(), JsonError> {
        let Some(&c) = self.doc.get(self.pos + 1) else {
            return Err(self.error("unterminated escape"));
        };
        let simple = match c {
            b'"' => Some(b'"'),
            b'\\' => Some(b'\\'),
            b'/' => Some(b'/'),
            b'b' => Some(0x08),
            b'f' => Some(0x0c),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'u' => None,
            _ => return Err(self.error("invalid escape")),
        };
        if let Some(b) = simple {
            unit.controls |= b == 0x08;
            unit.text.push(b);
            self.pos += 2;
            return Ok(());
        }
        let hi = self.hex4(self.pos + 2)?;
        self.pos += 6;
        let ch = if (0xD800..0xDC00).contains(&hi) {
            // A high surrogate pairs with a following `\uDC00`–`\uDFFF`.
            let pair = self.doc.get(self.pos..self.pos + 2) == Some(b"\\u".as_slice());
            match pair.then(|| self.hex4(self.pos + 2)) {
                Some(Ok(lo)) if (0xDC00..0xE000).contains(&lo) => {
                    self.pos += 6;
                    char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                }
                _ => None,
            }
        } else {
            char::from_u32(hi)
        };
        let ch = ch.unwrap_or(char::REPLACEMENT_CHARACTER);
        unit.controls |= matches!(u32::from(ch), 0x00..=0x08 | 0x0E..=0x1F | 0x7F);
        let mut buf = [0u8; 4];
        unit.text
            .extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
        Ok(())
    }

    fn hex4(&self, at: usize) -> Result<u32, JsonError> {
        let digits = self
            .doc
            .get(at..at + 4)
            .ok_or_else(|| self.error("truncated \\u escape"))?;
        let mut v = 0u32;
        for &d in digits {
            let n = (d as char)
                .to_digit(16)
                .ok_or_else(|| self.error("invalid \\u escape"))?;
            v = v * 16 + n;
        }
        Ok(v)
    }
}

fn clamp(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
