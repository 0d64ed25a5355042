//! A JSON tokenizer that keeps positions.
//!
//! `serde_json` would give values but lose where they were; we need the line, column and
//! pointer of every string. The tokenizer is iterative (an explicit stack), so nesting
//! depth costs heap, never call stack, and a 100,000-deep document cannot overflow.
//! It is lenient where leniency loses nothing (raw control characters inside strings)
//! and strict where it matters for knowing the file really is JSON.

use super::deep::{DeepLevels, TRACKED_DEPTH};
use super::tree::{Node, Object, TreeBuilder};
use super::{NodeId, PathArena, Unit};

/// Where and why a document stopped being JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    /// Offset in the file's text.
    pub offset: usize,
    pub message: &'static str,
}

#[path = "json_parser.rs"]
mod parser;
use parser::Parser;

/// Numbers shorter than this cannot be a phone, card or id number worth reporting.
const MIN_NUMBER_DIGITS: usize = 7;

enum Frame {
    Object { node: NodeId },
    Array { node: NodeId, index: u32 },
}

/// Says which object keys detection may leave out of the unit (see
/// [`Unit::push_key_gap`]). Asked only about keys without escapes that are UTF-8.
pub trait KeyFilter {
    fn skip(&mut self, key: &str) -> bool;
}

/// Tokenizes one JSON value starting at `doc[0]` (file offset `base`), appending every
/// string and long number to `unit`. Returns the offset just past the value (relative to
/// `doc`); trailing bytes are the caller's business.
pub fn tokenize(doc: &[u8], base: usize, unit: &mut Unit) -> Result<usize, JsonError> {
    tokenize_into(doc, base, unit, None, None)
}

/// [`tokenize`], also building the document's tree into `tree` (for the record audit).
pub fn tokenize_tree<'d>(
    doc: &'d [u8],
    base: usize,
    unit: &mut Unit,
    tree: &mut TreeBuilder<'d>,
) -> Result<usize, JsonError> {
    tokenize_into(doc, base, unit, Some(tree), None)
}

fn tokenize_into<'d>(
    doc: &'d [u8],
    base: usize,
    unit: &mut Unit,
    tree: Option<&mut TreeBuilder<'d>>,
    keys: Option<&mut dyn KeyFilter>,
) -> Result<usize, JsonError> {
    let mut tokenizer = Tokenizer::new(doc, base, tree.is_some());
    let progress = tokenizer.resume(unit, tree, keys, usize::MAX)?;
    tokenizer.whole(progress)
}

/// The unit size at which a tokenizer pauses between two elements `depth` containers
/// deep: `pause_at` in the outermost one, twice as much a level further in, so a
/// record is cut only when it is much larger than a piece (a document of one object
/// holding one long list of records still streams by its records).
fn pause_threshold(pause_at: usize, depth: usize) -> usize {
    match depth {
        0 => usize::MAX,
        d => pause_at.saturating_mul(1 << (d - 1).min(16)),
    }
}

/// What a piece holds, in bytes: its text, and its pointer nodes (a list of a million
/// short numbers adds no text, but a node each).
fn piece_weight(unit: &Unit) -> usize {
    unit.len_with_keys() + unit.paths.len() * PathArena::NODE_BYTES
}

/// How far [`Tokenizer::resume`] got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// The value ended just before this offset (relative to the document).
    Done(usize),
    /// The unit grew past the size asked for, between two elements (or members) of a
    /// container (see [`pause_threshold`]): detect in it, clear it with
    /// [`Unit::clear_piece`] and resume.
    Paused,
}

/// One JSON document tokenized a piece at a time, so a document of a million records
/// costs the memory of a piece, not of the document. A piece ends only between two
/// elements of a container, the outermost one when it can: records lie whole in one
/// piece unless one is many pieces large.
pub struct Tokenizer<'d> {
    doc: &'d [u8],
    /// `doc` as text, when a tree is built and `doc` is UTF-8.
    text: Option<&'d str>,
    base: usize,
    pos: usize,
    stack: Vec<Frame>,
    deep: DeepLevels,
    node: Option<NodeId>,
    /// Nodes of the unit's path arena that outlive a piece: those of the containers
    /// still open at the last pause, and every node made before them.
    keep: usize,
}

impl<'d> Tokenizer<'d> {
    /// A tokenizer of the value at `doc[0]` (file offset `base`); `tree` when a tree
    /// will be built, which needs the document to be UTF-8.
    pub fn new(doc: &'d [u8], base: usize, tree: bool) -> Tokenizer<'d> {
        // Checked once here rather than string by string: a tree borrows its strings from
        // the document. A document that is not UTF-8 gets no tree (as with `Node::parse`):
        // lossy strings would make its text hashes look wrong. `simdutf8` checks the
        // mostly-ASCII records several times faster than `std` (1% of a scan).
        let text = tree.then(|| simdutf8::basic::from_utf8(doc).ok()).flatten();
        Tokenizer {
            doc,
            text,
            base,
            pos: 0,
            stack: Vec::new(),
            deep: DeepLevels::default(),
            node: None,
            keep: 0,
        }
    }

    /// Where the part of the document not yet handed over in a piece starts (relative
    /// to the document).
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Nodes of the path arena a cleared piece must keep.
    pub fn keep(&self) -> usize {
        self.keep
    }

    /// The end of a document tokenized in one go: `progress` from a [`Self::resume`]
    /// asked never to pause.
    pub fn whole(&self, progress: Progress) -> Result<usize, JsonError> {
        match progress {
            Progress::Done(end) => Ok(end),
            Progress::Paused => Err(self.error("unexpected pause")),
        }
    }

    fn error(&self, message: &'static str) -> JsonError {
        JsonError {
            offset: self.base + self.pos.min(self.doc.len()),
            message,
        }
    }

    /// Tokenizes on into `unit` (and `tree`), appending every string and long number;
    /// pauses between two elements of a container when the piece weighs as much as
    /// [`pause_threshold`] says for its depth (never when the unit records value
    /// starts: their nodes must outlive the pieces).
    pub fn resume(
        &mut self,
        unit: &mut Unit,
        tree: Option<&mut TreeBuilder<'d>>,
        keys: Option<&mut dyn KeyFilter>,
        pause_at: usize,
    ) -> Result<Progress, JsonError> {
        let pause_at = match unit.value_starts {
            Some(_) => usize::MAX,
            None => pause_at,
        };
        let tree = tree.filter(|_| self.text.is_some());
        let mut p = Parser {
            doc: self.doc,
            text: self.text,
            base: self.base,
            pos: self.pos,
            tree,
            keys,
        };
        let stack = &mut self.stack;
        let deep = &mut self.deep;
        let mut node = match self.node {
            Some(node) => node,
            None => {
                let root = unit.paths.root();
                self.keep = unit.paths.len();
                p.skip_ws();
                root
            }
        };
        // A resumed tokenizer stands just after a value.
        let mut after_value = self.node.is_some();
        'value: loop {
            if !std::mem::take(&mut after_value) {
                // A value is expected at `p.pos`, to be recorded under `node`.
                if let Some(starts) = unit.value_starts.as_mut().filter(|_| deep.len == 0) {
                    starts.push((node, p.base + p.pos));
                }
                match p.peek() {
                    Some(b'{') => {
                        p.pos += 1;
                        p.skip_ws();
                        if p.peek() == Some(b'}') {
                            p.pos += 1;
                            p.emit(Node::Object(Object::default()));
                        } else {
                            if let Some(t) = p.tree.as_deref_mut() {
                                t.open_object();
                            }
                            if stack.len() < TRACKED_DEPTH {
                                stack.push(Frame::Object { node });
                            } else {
                                node = *deep.node.get_or_insert(node);
                                deep.push(true);
                            }
                            node = p.member_key(unit, node)?;
                            continue 'value;
                        }
                    }
                    Some(b'[') => {
                        p.pos += 1;
                        p.skip_ws();
                        if p.peek() == Some(b']') {
                            p.pos += 1;
                            p.emit(Node::Array(Vec::new()));
                        } else {
                            if let Some(t) = p.tree.as_deref_mut() {
                                t.open_array();
                            }
                            if stack.len() < TRACKED_DEPTH {
                                stack.push(Frame::Array { node, index: 0 });
                                node = unit.paths.index(node, 0);
                            } else {
                                node = *deep.node.get_or_insert(node);
                                deep.push(false);
                            }
                            continue 'value;
                        }
                    }
                    Some(b'"') => {
                        let seg = p.string(unit, Some(node), false)?;
                        if p.tree.is_some() {
                            let text = p.string_text(unit, seg);
                            p.emit(Node::String(text));
                        }
                    }
                    Some(b'-' | b'0'..=b'9') => p.number(unit, node)?,
                    Some(b't') => {
                        p.literal(b"true")?;
                        p.emit(Node::Bool(true));
                    }
                    Some(b'f') => {
                        p.literal(b"false")?;
                        p.emit(Node::Bool(false));
                    }
                    Some(b'n') => {
                        p.literal(b"null")?;
                        p.emit(Node::Null);
                    }
                    Some(_) => return Err(p.error("expected a JSON value")),
                    None => return Err(p.error("unexpected end of input, expected a value")),
                }
            }
            // After a value: close containers or move to the next member / element.
            loop {
                p.skip_ws();
                if let (Some(object), Some(shared)) = (deep.top(), deep.node) {
                    match (object, p.peek()) {
                        (true, Some(b',')) => {
                            p.pos += 1;
                            p.skip_ws();
                            node = p.member_key(unit, shared)?;
                            continue 'value;
                        }
                        (false, Some(b',')) => {
                            p.pos += 1;
                            p.skip_ws();
                            node = shared;
                            continue 'value;
                        }
                        (true, Some(b'}')) | (false, Some(b']')) => {
                            p.pos += 1;
                            deep.pop();
                            if let Some(t) = p.tree.as_deref_mut() {
                                t.close();
                            }
                            continue;
                        }
                        (true, _) => return Err(p.error("expected `,` or `}`")),
                        (false, _) => return Err(p.error("expected `,` or `]`")),
                    }
                }
                if p.peek() == Some(b',')
                    && piece_weight(unit) >= pause_threshold(pause_at, stack.len())
                {
                    self.pos = p.pos;
                    self.node = Some(node);
                    // The open containers' nodes (and so their ancestors, made before
                    // them) outlive the piece.
                    let open = stack.iter().map(|f| match *f {
                        Frame::Object { node } | Frame::Array { node, .. } => node.index(),
                    });
                    self.keep = open.max().map_or(self.keep, |n| n + 1);
                    return Ok(Progress::Paused);
                }
                let Some(frame) = stack.last_mut() else {
                    self.pos = p.pos;
                    return Ok(Progress::Done(p.pos));
                };
                match (frame, p.peek()) {
                    (Frame::Object { node: parent }, Some(b',')) => {
                        let parent = *parent;
                        p.pos += 1;
                        p.skip_ws();
                        node = p.member_key(unit, parent)?;
                        continue 'value;
                    }
                    (
                        Frame::Array {
                            node: parent,
                            index,
                        },
                        Some(b','),
                    ) => {
                        *index += 1;
                        let (parent, index) = (*parent, *index);
                        p.pos += 1;
                        p.skip_ws();
                        node = unit.paths.index(parent, index);
                        continue 'value;
                    }
                    (Frame::Object { .. }, Some(b'}')) | (Frame::Array { .. }, Some(b']')) => {
                        p.pos += 1;
                        stack.pop();
                        if let Some(t) = p.tree.as_deref_mut() {
                            t.close();
                        }
                    }
                    (Frame::Object { .. }, _) => return Err(p.error("expected `,` or `}`")),
                    (Frame::Array { .. }, _) => return Err(p.error("expected `,` or `]`")),
                }
            }
        }
    }
}

/// File offsets of every value in one JSON document, by pointer: built with one
/// tokenizer pass so a record with many findings is not re-read once per finding.
pub struct Locator {
    base: usize,
    offsets: std::collections::HashMap<String, usize>,
}

impl Locator {
    pub fn new(doc: &[u8], base: usize) -> Locator {
        let mut unit = Unit {
            value_starts: Some(Vec::new()),
            ..Unit::default()
        };
        // A document that fails part-way still places the values before the failure.
        let _ = tokenize(doc, base, &mut unit);
        let mut offsets = std::collections::HashMap::new();
        for (node, offset) in unit.value_starts.take().unwrap_or_default() {
            offsets.entry(unit.paths.pointer(node)).or_insert(offset);
        }
        Locator { base, offsets }
    }

    /// Offset of the value at `pointer`; the document's start when it is not there.
    pub fn at(&self, pointer: &str) -> usize {
        self.offsets.get(pointer).copied().unwrap_or(self.base)
    }
}

/// Offset of the value at `pointer` in `doc` (which starts at file offset `base`).
pub fn locate(doc: &[u8], base: usize, pointer: &str) -> usize {
    Locator::new(doc, base).at(pointer)
}

#[cfg(test)]
#[path = "json_tests.rs"]
mod tests;
