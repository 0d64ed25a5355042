//! One file's text, from format choice to finished findings: JSON and JSONL are read as
//! data (a bad JSONL line is reported and still scanned as text), anything else as text;
//! each unit is detected, its encoded runs peeled and detected again, and every match
//! turned into a masked, fingerprinted [`Finding`].

mod facts;
mod record;

use super::audit::FileAudit;
use super::excerpt::Sorted;
use super::keys::{self, KeyProbe};
use super::layers;
use crate::detect::RuleSet;
use crate::detect::{self, RawMatch, Scratch};
use crate::finding::fingerprint::FingerprintKey;
use crate::finding::{Confidence, Finding};
use crate::formats::tree::{Node, TreeBuilder};
use crate::formats::{LineIndex, Unit, json};
use crate::provenance::Claim;
use std::collections::HashSet;

/// Units are flushed to detection at about this size: big enough to amortise the
/// per-unit prefilter, small enough to keep memory flat on huge JSONL files.
const UNIT_TARGET_BYTES: usize = 512 << 10;
/// Text files are cut into chunks this large, overlapping so a match on the cut is seen.
const TEXT_CHUNK: usize = 1 << 20;
pub(super) const TEXT_OVERLAP: usize = 4096;
/// Bytes of context shown on each side of a match in an excerpt.
pub(super) const EXCERPT_CONTEXT: usize = 48;
/// Decoded (base64, percent) bytes allowed per file.
const DECODE_BUDGET: usize = 64 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextFormat {
    Json,
    Jsonl,
    Text,
}

impl TextFormat {
    /// By name (`.gz` stripped), else by the first non-blank byte.
    pub fn detect(name: &str, text: &[u8]) -> TextFormat {
        let name = name
            .strip_suffix(".gz")
            .unwrap_or(name)
            .to_ascii_lowercase();
        if name.ends_with(".jsonl") || name.ends_with(".ndjson") {
            return TextFormat::Jsonl;
        }
        if name.ends_with(".json") {
            return TextFormat::Json;
        }
        match text.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{' | b'[') => TextFormat::Json,
            _ => TextFormat::Text,
        }
    }
}

pub struct FileScanner<'a> {
    rules: &'a RuleSet,
    key: &'a FingerprintKey,
    rel: &'a str,
    /// Line index of the text being scanned (the whole file, or the current piece of
    /// a stream), built when a finding needs placing.
    lines: Option<LineIndex>,
    /// Where the current piece of a stream starts: lines before it, and characters
    /// of its first line that came in earlier pieces.
    lines_before: u32,
    columns_before: u32,
    scratch: Scratch,
    matches: Vec<RawMatch>,
    budget: usize,
    seen: HashSet<(usize, u32, u32, String)>,
    /// (rule, line, column) of every finding so far.
    placed: HashSet<(usize, u32, u32)>,
    /// (rule, line, JSON pointer) of every finding read from the text as written.
    written: HashSet<(usize, u32, Option<String>)>,
    pub findings: Vec<Finding>,
    audit: Option<FileAudit<'a>>,
    /// Privacy detection runs; off for `verify` (provenance only).
    content: bool,
    claims: Vec<Claim>,
    /// New object keys this file may still have judged (see [`keys`]).
    key_probes: u32,
    /// What the confidence model learnt of the unit in hand and of the file.
    unit_facts: facts::UnitFacts,
    file_facts: facts::FileFacts,
    /// Whether findings keep their matched bytes (for `fix`; see `Finding::value`).
    keep_values: bool,
    /// The lowest confidence the run lists: a finding less sure is counted by its
    /// place (rule, line, column), never built.
    floor: Confidence,
    below: HashSet<(usize, u32, u32)>,
}

/// What a file scan gave: its findings, the hash claims it makes, and how many findings
/// it left out as less sure than the run's floor.
pub struct Scanned {
    pub findings: Vec<Finding>,
    pub claims: Vec<Claim>,
    pub below_floor: usize,
}

impl<'a> FileScanner<'a> {
    pub fn new(rules: &'a RuleSet, key: &'a FingerprintKey, rel: &'a str) -> Self {
        FileScanner {
            rules,
            key,
            rel,
            lines: None,
            lines_before: 0,
            columns_before: 0,
            scratch: rules.take_scratch(),
            matches: Vec::new(),
            budget: DECODE_BUDGET,
            seen: HashSet::new(),
            placed: HashSet::new(),
            written: HashSet::new(),
            findings: Vec::new(),
            audit: None,
            content: true,
            claims: Vec::new(),
            key_probes: keys::PROBES_PER_FILE,
            unit_facts: facts::UnitFacts::default(),
            file_facts: facts::FileFacts::default(),
            keep_values: false,
            floor: Confidence::Low,
            below: HashSet::new(),
        }
    }

    /// Findings less sure than `floor` are counted, not kept: a file can hold tens of
    /// thousands of them (a log of shell sessions), each an excerpt and a pointer the
    /// run would drop.
    pub fn counting_below(mut self, floor: Confidence) -> Self {
        self.floor = floor;
        self
    }

    /// Findings keep their matched bytes, for `fix`.
    pub fn keeping_values(mut self, keep: bool) -> Self {
        self.keep_values = keep;
        self
    }

    /// The report name of the file this scanner judges.
    pub fn rel(&self) -> &'a str {
        self.rel
    }

    /// A scanner of the same file with privacy detection only (no audit): for a second
    /// reading of the same bytes.
    pub fn plain_copy(&self) -> FileScanner<'a> {
        FileScanner::new(self.rules, self.key, self.rel)
            .with_audit(None, self.content)
            .keeping_values(self.keep_values)
            .counting_below(self.floor)
    }

    /// Adds provenance and format auditing; `content: false` leaves privacy detection out.
    pub fn with_audit(mut self, audit: Option<FileAudit<'a>>, content: bool) -> Self {
        self.audit = audit;
        self.content = content;
        self
    }

    /// How a file opening with `first` can be scanned in pieces; `None` when it must be
    /// read whole (one JSON document, a manifest).
    pub fn stream_format(&self, name: &str, first: &[u8]) -> Option<TextFormat> {
        if self.audit.as_ref().is_some_and(|a| a.is_manifest(name)) {
            return None;
        }
        match TextFormat::detect(name, first) {
            TextFormat::Json => None,
            format => Some(format),
        }
    }

    /// Scans a file's whole text; returns its findings and the file-hash claims it makes.
    pub fn run(mut self, name: &str, text: &[u8]) -> Scanned {
        if self.audit.as_ref().is_some_and(|a| a.is_manifest(name)) {
            let index = LineIndex::new(text);
            if let Some(a) = self.audit.as_mut() {
                a.manifest(text, name, |line| index.line_start(line, text.len()));
            }
            self.lines = Some(index);
            self.scan_text(text, 0, text.len());
        } else {
            match TextFormat::detect(name, text) {
                TextFormat::Json => self.scan_json(name, text),
                TextFormat::Jsonl => self.scan_jsonl(text, 0, true),
                TextFormat::Text => self.scan_text(text, 0, text.len()),
            }
        }
        self.settle(text);
        self.finish()
    }

    /// Scans `text` as plain text whatever its name says (the printable view of a
    /// binary file).
    pub fn run_text(mut self, text: &[u8]) -> Scanned {
        self.scan_text(text, 0, text.len());
        self.settle(text);
        self.finish()
    }

    /// Scans the next piece of a streamed file, JSON Lines or text, in file order: the
    /// next piece starts `done` bytes in (JSON Lines pieces hold whole lines; a text
    /// piece cut inside a long line is read again from a little before the cut).
    /// Findings are placed (line, column) before the piece is let go.
    pub fn feed(&mut self, piece: &[u8], format: TextFormat, done: usize) {
        match format {
            TextFormat::Jsonl => self.scan_jsonl(piece, 0, true),
            TextFormat::Json | TextFormat::Text => self.scan_text(piece, 0, piece.len()),
        }
        self.settle(piece);
        let done = &piece[..done.min(piece.len())];
        let chars = |b: &[u8]| b.iter().filter(|&&c| (c & 0xC0) != 0x80).count();
        let saturate = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        match memchr::memrchr(b'\n', done) {
            Some(last) => {
                let lines = memchr::memchr_iter(b'\n', done).count();
                self.lines_before = self.lines_before.saturating_add(saturate(lines));
                self.columns_before = saturate(chars(&done[last + 1..]));
            }
            None => {
                self.columns_before = self.columns_before.saturating_add(saturate(chars(done)));
            }
        }
        self.lines = None;
    }

    /// File-level checks after the last record; returns the findings and claims.
    pub fn finish(mut self) -> Scanned {
        if let Some(audit) = self.audit.as_mut() {
            audit.finish();
        }
        // File-level problems sit at the file's start, whatever piece is in hand.
        (self.lines_before, self.columns_before, self.lines) = (0, 0, None);
        self.settle(&[]);
        self.file_facts.settle(&mut self.findings);
        let rules = self.rules;
        record::one_per_place(&mut self.findings, |id| rules.is_check(id));
        Scanned {
            below_floor: record::places_left(rules, &self.below, &self.findings),
            findings: std::mem::take(&mut self.findings),
            claims: std::mem::take(&mut self.claims),
        }
    }

    /// Whether the audit wants the tree of record `doc`.
    fn wants_tree(&self, doc: &[u8]) -> bool {
        self.audit.as_ref().is_some_and(|a| a.wants_tree(doc))
    }

    fn audit_record(&mut self, tree: Option<Node>, doc: &[u8], base: usize) {
        if let Some(a) = self.audit.as_mut() {
            a.record(tree, doc, base);
        }
    }

    /// Tokenizes one document into `unit`, and into `tree` when the audit wants one.
    /// Keys that open no search are left out of `unit` (see [`keys`]).
    fn tokenize<'d>(
        &mut self,
        doc: &'d [u8],
        base: usize,
        unit: &mut Unit,
        tree: Option<&mut TreeBuilder<'d>>,
    ) -> Result<usize, json::JsonError> {
        let mut tokenizer = json::Tokenizer::new(doc, base, tree.is_some());
        let progress = self.tokenize_piece(&mut tokenizer, unit, tree, usize::MAX)?;
        tokenizer.whole(progress)
    }

    /// Tokenizes on through one document (see [`json::Tokenizer::resume`]), leaving
    /// out the keys that open no search.
    fn tokenize_piece<'d>(
        &mut self,
        tokenizer: &mut json::Tokenizer<'d>,
        unit: &mut Unit,
        tree: Option<&mut TreeBuilder<'d>>,
        pause_at: usize,
    ) -> Result<json::Progress, json::JsonError> {
        if !(self.content && self.rules.key_gaps) {
            return tokenizer.resume(unit, tree, None, pause_at);
        }
        let mut probe = KeyProbe {
            rules: self.rules,
            scratch: &mut self.scratch,
            probes_left: &mut self.key_probes,
        };
        tokenizer.resume(unit, tree, Some(&mut probe), pause_at)
    }

    /// An empty unit with the buffers of the last one this worker used.
    fn take_unit(&mut self) -> Unit {
        let mut unit = std::mem::take(&mut self.scratch.unit);
        unit.clear();
        unit
    }

    /// Keeps `unit`'s buffers for the next file, unless one huge document grew them.
    fn keep_unit(&mut self, unit: Unit) {
        if unit.text.capacity() <= 2 * UNIT_TARGET_BYTES.max(TEXT_CHUNK) {
            self.scratch.unit = unit;
        }
    }

    /// One JSON document, detected a piece at a time (a piece holds whole elements of
    /// the outermost container); the audit still sees the whole document's tree.
    fn scan_json(&mut self, name: &str, text: &[u8]) {
        let named_json = name.strip_suffix(".gz").unwrap_or(name).ends_with(".json");
        let mut unit = self.take_unit();
        let mut tree = TreeBuilder::default();
        // The size limit is the document's, not the trailing whitespace's.
        let wants_tree = self.wants_tree(text.trim_ascii_end());
        let mut tokenizer = json::Tokenizer::new(text, 0, wants_tree);
        // Whether pieces before the one in hand were detected in already.
        let mut detected = false;
        let outcome = loop {
            let tree = wants_tree.then_some(&mut tree);
            match self.tokenize_piece(&mut tokenizer, &mut unit, tree, UNIT_TARGET_BYTES) {
                Ok(json::Progress::Paused) => {
                    if self.content {
                        self.scan_unit(text, &unit);
                    }
                    unit.clear_piece(tokenizer.keep());
                    detected = true;
                }
                Ok(json::Progress::Done(end)) => break Ok(end),
                Err(err) => break Err(err),
            }
        };
        // What pieces already detected in is not read again.
        let rest = if detected { tokenizer.pos() } else { 0 };
        match outcome {
            Ok(end) if text[end..].iter().all(u8::is_ascii_whitespace) => {
                if self.content {
                    self.scan_unit(text, &unit);
                }
                self.audit_record(tree.finish(), &text[..end], 0);
                self.keep_unit(unit);
            }
            // Several documents one after another: JSON Lines under another name.
            // The first one detected in already is not read again.
            Ok(end) if detected => {
                if self.content {
                    self.scan_unit(text, &unit);
                }
                self.keep_unit(unit);
                self.scan_jsonl(text, end, named_json)
            }
            Ok(_) => {
                self.keep_unit(unit);
                self.scan_jsonl(text, 0, named_json)
            }
            Err(err) => {
                self.keep_unit(unit);
                if named_json {
                    self.format_finding(text, err.offset, err.message);
                }
                self.scan_text(text, rest, text.len());
            }
        }
    }

    fn scan_jsonl(&mut self, text: &[u8], from: usize, report_errors: bool) {
        let mut unit = self.take_unit();
        let mut pos = from;
        while pos < text.len() {
            let end = memchr::memchr(b'\n', &text[pos..]).map_or(text.len(), |i| pos + i);
            let line = &text[pos..end];
            if !line.iter().all(u8::is_ascii_whitespace) {
                let mark = unit.mark();
                let mut tree = TreeBuilder::default();
                let wants_tree = self.wants_tree(line);
                let tokens = self.tokenize(line, pos, &mut unit, wants_tree.then_some(&mut tree));
                let outcome = tokens.and_then(|used| {
                    match line[used..].iter().all(u8::is_ascii_whitespace) {
                        true => Ok(()),
                        false => Err(json::JsonError {
                            offset: pos + used,
                            message: "trailing characters after the JSON value",
                        }),
                    }
                });
                match outcome {
                    Ok(()) => self.audit_record(tree.finish(), line, pos),
                    Err(err) => {
                        // Keep scanning: the bad line is reported and read as plain text.
                        unit.truncate(mark);
                        if report_errors {
                            self.format_finding(text, err.offset, err.message);
                        }
                        unit.push_plain(line, pos, None);
                    }
                }
            }
            if unit.len_with_keys() >= UNIT_TARGET_BYTES {
                if self.content {
                    self.scan_unit(text, &unit);
                }
                unit.clear();
            }
            pos = end + 1;
        }
        if !unit.segments.is_empty() && self.content {
            self.scan_unit(text, &unit);
        }
        self.keep_unit(unit);
    }

    fn scan_text(&mut self, text: &[u8], from: usize, to: usize) {
        if !self.content {
            return;
        }
        let mut start = from;
        let mut unit = self.take_unit();
        while start < to {
            let mut end = (start + TEXT_CHUNK).min(to);
            if end < to
                && let Some(nl) = memchr::memrchr(b'\n', &text[start..end])
                && nl > TEXT_CHUNK / 2
            {
                end = start + nl + 1;
            }
            unit.clear();
            unit.push_plain(&text[start..end], start, None);
            self.scan_unit(text, &unit);
            if end >= to {
                break;
            }
            // The next chunk starts a little before this one ended, at a line start
            // when one is near: a match across the cut (a key block's lines, a long
            // line's token) is seen whole there; one seen twice is reported once.
            let back = end - TEXT_OVERLAP;
            start = memchr::memchr(b'\n', &text[back..end - 1]).map_or(back, |i| back + i + 1);
        }
        self.keep_unit(unit);
    }

    /// Detects in `unit` and in every layer peeled from it, and records findings.
    fn scan_unit(&mut self, text: &[u8], unit: &Unit) {
        let mut budget = self.budget;
        layers::walk(unit, &mut budget, &mut |layer| {
            self.unit_facts.reset();
            self.matches.clear();
            detect::detect(self.rules, layer, &mut self.scratch, &mut self.matches);
            let sorted = Sorted::new(std::mem::take(&mut self.matches), layer, self.rules);
            for m in &sorted.all {
                self.record(text, layer, m, &sorted);
            }
            self.matches = sorted.all;
        });
        self.budget = budget;
    }
}

impl Drop for FileScanner<'_> {
    fn drop(&mut self) {
        self.rules.return_scratch(std::mem::take(&mut self.scratch));
    }
}
