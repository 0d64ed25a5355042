//! One file's text, from format choice to finished findings: JSON and JSONL are read as
//! data (a bad JSONL line is reported and still scanned as text), anything else as text;
//! each unit is detected, its encoded runs peeled and detected again, and every match
//! turned into a masked, fingerprinted [`Finding`].

use super::audit::FileAudit;
use super::excerpt::{excerpt, mask_in_pointer, redact_pointer};
use super::keys::{KeyProbe, SkipAll};
use super::{keys, layers};
use crate::detect::{self, RawMatch, Scratch};
use crate::finding::{Finding, Location};
use crate::formats::tree::{Node, TreeBuilder};
use crate::formats::{Encoding, LineIndex, Unit, json};
use crate::provenance::Claim;
use crate::report::fingerprint::FingerprintKey;
use crate::rules::RuleSet;
use std::collections::HashSet;

/// Units are flushed to detection at about this size: big enough to amortise the
/// per-unit prefilter, small enough to keep memory flat on huge JSONL files.
const UNIT_TARGET_BYTES: usize = 1 << 20;
/// Text files are cut into chunks this large, overlapping so a match on the cut is seen.
const TEXT_CHUNK: usize = 4 << 20;
const TEXT_OVERLAP: usize = 4096;
/// Bytes of context shown on each side of a match in an excerpt.
pub(super) const EXCERPT_CONTEXT: usize = 48;
/// Decoded (base64, percent) bytes allowed per file.
const DECODE_BUDGET: usize = 64 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Jsonl,
    Text,
}

impl Format {
    /// By name (`.gz` stripped), else by the first non-blank byte.
    pub fn detect(name: &str, text: &[u8]) -> Format {
        let name = name
            .strip_suffix(".gz")
            .unwrap_or(name)
            .to_ascii_lowercase();
        if name.ends_with(".jsonl") || name.ends_with(".ndjson") {
            return Format::Jsonl;
        }
        if name.ends_with(".json") {
            return Format::Json;
        }
        match text.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{' | b'[') => Format::Json,
            _ => Format::Text,
        }
    }
}

pub struct FileScanner<'a> {
    rules: &'a RuleSet,
    key: &'a FingerprintKey,
    rel: &'a str,
    text: &'a [u8],
    lines: Option<LineIndex>,
    scratch: Scratch,
    matches: Vec<RawMatch>,
    budget: usize,
    seen: HashSet<(usize, u32, u32, String)>,
    /// (rule, line, column) of every finding so far.
    placed: HashSet<(usize, u32, u32)>,
    pub findings: Vec<Finding>,
    audit: Option<FileAudit<'a>>,
    /// Privacy detection runs; off for `verify` (provenance only).
    content: bool,
    /// New object keys this file may still have judged (see [`keys`]).
    key_probes: u32,
}

impl<'a> FileScanner<'a> {
    pub fn new(rules: &'a RuleSet, key: &'a FingerprintKey, rel: &'a str, text: &'a [u8]) -> Self {
        FileScanner {
            rules,
            key,
            rel,
            text,
            lines: None,
            scratch: rules.take_scratch(),
            matches: Vec::new(),
            budget: DECODE_BUDGET,
            seen: HashSet::new(),
            placed: HashSet::new(),
            findings: Vec::new(),
            audit: None,
            content: true,
            key_probes: keys::PROBES_PER_FILE,
        }
    }

    /// Adds provenance and format auditing; `content: false` leaves privacy detection out.
    pub fn with_audit(mut self, audit: Option<FileAudit<'a>>, content: bool) -> Self {
        self.audit = audit;
        self.content = content;
        self
    }

    /// Scans the file; returns its findings and the file-hash claims it makes.
    pub fn run(mut self, name: &str) -> (Vec<Finding>, Vec<Claim>) {
        let text = self.text;
        if self.audit.as_ref().is_some_and(|a| a.is_manifest(name)) {
            let index = LineIndex::new(text);
            if let Some(a) = self.audit.as_mut() {
                a.manifest(text, name, |line| index.line_start(line, text.len()));
            }
            self.lines = Some(index);
            self.scan_text(0, text.len());
        } else {
            match Format::detect(name, text) {
                Format::Json => self.scan_json(name),
                Format::Jsonl => self.scan_jsonl(0, true),
                Format::Text => self.scan_text(0, text.len()),
            }
        }
        let Some(mut audit) = self.audit.take() else {
            return (std::mem::take(&mut self.findings), Vec::new());
        };
        audit.finish();
        for p in std::mem::take(&mut audit.problems) {
            let pointer = p
                .pointer
                .map(|ptr| redact_pointer(self.rules, &mut self.scratch, ptr));
            self.problem(p.check, p.offset, pointer, &p.message);
        }
        let claims = std::mem::take(&mut audit.claims)
            .into_iter()
            .map(|c| {
                let (line, column) = self.locate(c.offset);
                Claim {
                    claimant: self.rel.to_string(),
                    line: Some(line),
                    column: Some(column),
                    pointer: c
                        .pointer
                        .map(|ptr| redact_pointer(self.rules, &mut self.scratch, ptr)),
                    expected: c.expected,
                    target: c.target,
                    from_manifest: c.from_manifest,
                }
            })
            .collect();
        (std::mem::take(&mut self.findings), claims)
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

    /// Tokenizes one document into `unit`, leaving out keys known to be clean.
    fn tokenize<'d>(
        &mut self,
        doc: &'d [u8],
        base: usize,
        unit: &mut Unit,
        tree: Option<&mut TreeBuilder<'d>>,
    ) -> Result<usize, json::JsonError> {
        if !self.content {
            return json::tokenize_with(doc, base, unit, tree, &mut SkipAll);
        }
        let mut probe = KeyProbe {
            rules: self.rules,
            scratch: &mut self.scratch,
            probes_left: &mut self.key_probes,
        };
        json::tokenize_with(doc, base, unit, tree, &mut probe)
    }

    fn scan_json(&mut self, name: &str) {
        let named_json = name.strip_suffix(".gz").unwrap_or(name).ends_with(".json");
        let text = self.text;
        let mut unit = Unit::default();
        let mut tree = TreeBuilder::default();
        // The size limit is the document's, not the trailing whitespace's.
        let wants_tree = self.wants_tree(text.trim_ascii_end());
        let outcome = self.tokenize(text, 0, &mut unit, wants_tree.then_some(&mut tree));
        match outcome {
            Ok(end) if text[end..].iter().all(u8::is_ascii_whitespace) => {
                if self.content {
                    self.judge(&unit);
                }
                self.audit_record(tree.finish(), &text[..end], 0);
            }
            // Several documents one after another: JSON Lines under another name.
            Ok(_) => self.scan_jsonl(0, named_json),
            Err(err) => {
                if named_json {
                    self.format_finding(err.offset, err.message);
                }
                self.scan_text(0, self.text.len());
            }
        }
    }

    fn scan_jsonl(&mut self, from: usize, report_errors: bool) {
        let text = self.text;
        let mut unit = Unit::default();
        let mut pos = from;
        while pos < text.len() {
            let end = memchr::memchr(b'\n', &text[pos..]).map_or(text.len(), |i| pos + i);
            let line = &text[pos..end];
            if !line.iter().all(u8::is_ascii_whitespace) {
                let mark = (unit.text.len(), unit.segments.len(), unit.checkpoints.len());
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
                        unit.text.truncate(mark.0);
                        unit.segments.truncate(mark.1);
                        unit.checkpoints.truncate(mark.2);
                        if report_errors {
                            self.format_finding(err.offset, err.message);
                        }
                        unit.push_plain(line, pos, None);
                    }
                }
            }
            if unit.text.len() >= UNIT_TARGET_BYTES {
                if self.content {
                    self.judge(&unit);
                }
                unit.clear();
            }
            pos = end + 1;
        }
        if !unit.segments.is_empty() && self.content {
            self.judge(&unit);
        }
    }

    fn scan_text(&mut self, from: usize, to: usize) {
        if !self.content {
            return;
        }
        let mut start = from;
        let mut unit = Unit::default();
        while start < to {
            let mut end = (start + TEXT_CHUNK).min(to);
            if end < to
                && let Some(nl) = memchr::memrchr(b'\n', &self.text[start..end])
                && nl > TEXT_CHUNK / 2
            {
                end = start + nl + 1;
            }
            unit.clear();
            unit.push_plain(&self.text[start..end], start, None);
            self.judge(&unit);
            if end >= to {
                break;
            }
            start = if self.text[end - 1] == b'\n' {
                end
            } else {
                end - TEXT_OVERLAP
            };
        }
    }

    /// Detects in `unit` and in every layer peeled from it, and records findings.
    fn judge(&mut self, unit: &Unit) {
        let mut budget = self.budget;
        layers::walk(unit, &mut budget, &mut |layer| {
            self.matches.clear();
            detect::detect(self.rules, layer, &mut self.scratch, &mut self.matches);
            let matches = std::mem::take(&mut self.matches);
            for m in &matches {
                self.record(layer, m, &matches);
            }
            self.matches = matches;
        });
        self.budget = budget;
    }

    fn locate(&mut self, raw: usize) -> (u32, u32) {
        let text = self.text;
        self.lines
            .get_or_insert_with(|| LineIndex::new(text))
            .locate(text, raw)
    }

    fn record(&mut self, unit: &Unit, m: &RawMatch, all: &[RawMatch]) {
        let rule = &self.rules.rules[m.rule];
        let value = &unit.text[m.start..m.end];
        let raw = unit.raw_offset(m.seg, m.start);
        let (line, column) = self.locate(raw);
        // A token joined across lines starts where the line's own tail does: when that
        // tail was already reported by the same rule, the joined reading (the path
        // plus the next line's first word) is the same finding again, not a new one.
        if unit.encoding == Some(Encoding::Unwrapped)
            && self.placed.contains(&(m.rule, line, column))
        {
            return;
        }
        let fingerprint = self.key.fingerprint(&rule.id, value);
        if !self
            .seen
            .insert((m.rule, line, column, fingerprint.0.clone()))
        {
            return;
        }
        self.placed.insert((m.rule, line, column));
        let pointer = unit.segments[m.seg]
            .node
            .map(|n| mask_in_pointer(unit.paths.pointer(n), unit, all, self.rules));
        let message = match unit.encoding {
            Some(Encoding::Base64) => format!("{} (inside base64)", rule.description),
            Some(Encoding::Percent) => format!("{} (inside percent-encoding)", rule.description),
            Some(Encoding::Unwrapped) => format!("{} (wrapped across lines)", rule.description),
            Some(Encoding::Folded) => format!(
                "{} (disguised with full-width or invisible characters)",
                rule.description
            ),
            _ => rule.description.clone(),
        };
        self.findings.push(Finding {
            rule_id: rule.id.clone(),
            category: rule.category,
            severity: rule.severity,
            location: Location {
                path: self.rel.to_string(),
                line: Some(line),
                column: Some(column),
                json_pointer: pointer,
            },
            excerpt: excerpt(unit, m, all, self.rules),
            fingerprint,
            message,
            commit: None,
        });
    }

    fn format_finding(&mut self, offset: usize, message: &str) {
        self.problem(
            "invalid_json",
            offset,
            None,
            &format!("{message}; the line was scanned as text"),
        );
    }

    /// A finding from a built-in check (format, provenance); it names no value, so the
    /// fingerprint covers the place and the problem.
    fn problem(&mut self, check: &str, offset: usize, pointer: Option<String>, what: &str) {
        let Some(rule) = self.rules.check(check) else {
            return;
        };
        let (line, column) = self.locate(offset);
        let value = format!("{}\0{}\0{what}", self.rel, pointer.as_deref().unwrap_or(""));
        self.findings.push(Finding {
            rule_id: rule.id.clone(),
            category: rule.category,
            severity: rule.severity,
            location: Location {
                path: self.rel.to_string(),
                line: Some(line),
                column: Some(column),
                json_pointer: pointer,
            },
            excerpt: what.to_string(),
            fingerprint: self.key.fingerprint(&rule.id, value.as_bytes()),
            message: rule.description.clone(),
            commit: None,
        });
    }
}

impl Drop for FileScanner<'_> {
    fn drop(&mut self) {
        self.rules.return_scratch(std::mem::take(&mut self.scratch));
    }
}
