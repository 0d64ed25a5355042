//! Placing what a file scan found: lines and columns (also across the pieces of a
//! streamed file), masked pointers and excerpts, fingerprints, and the findings of the
//! built-in format and provenance checks.

use super::FileScanner;
use super::facts::Around;
use crate::detect::RawMatch;
use crate::detect::Rule;
use crate::detect::confidence::{self, Assessment, Context};
use crate::finding::{Category, Confidence, Finding, Fingerprint, Location, MatchedValue, Reason};
use crate::formats::{Encoding, LineIndex, Unit};
use crate::provenance::Claim;
use crate::scan::excerpt::{Sorted, excerpt, mask_in_pointer, redact_pointer, redact_text};

impl FileScanner<'_> {
    /// Turns the audit's problems and claims so far, placed by offsets in `text`, into
    /// findings and claims with lines and columns.
    pub(super) fn settle(&mut self, text: &[u8]) {
        let Some(audit) = self.audit.as_mut() else {
            return;
        };
        let (problems, claims) = (
            std::mem::take(&mut audit.problems),
            std::mem::take(&mut audit.claims),
        );
        for p in problems {
            let pointer = p
                .pointer
                .map(|ptr| redact_pointer(self.rules, &mut self.scratch, ptr));
            let how = Assessment::high();
            self.problem(text, p.check, p.offset, pointer, &p.message, how);
        }
        for c in claims {
            let (line, column) = self.locate(text, c.offset);
            let pointer = c
                .pointer
                .map(|ptr| redact_pointer(self.rules, &mut self.scratch, ptr));
            self.claims.push(Claim {
                claimant: self.rel.to_string(),
                line: Some(line),
                column: Some(column),
                pointer,
                expected: c.expected,
                target: c.target,
                from_manifest: c.from_manifest,
            });
        }
    }

    /// Line and column in the file of offset `raw` of `text` (the file, or the piece of
    /// it in hand).
    pub(super) fn locate(&mut self, text: &[u8], raw: usize) -> (u32, u32) {
        let (line, column) = self
            .lines
            .get_or_insert_with(|| LineIndex::new(text))
            .locate(text, raw);
        let column = match line {
            1 => column.saturating_add(self.columns_before),
            _ => column,
        };
        (line.saturating_add(self.lines_before), column)
    }

    pub(super) fn record(&mut self, text: &[u8], unit: &Unit, m: &RawMatch, sorted: &Sorted) {
        let rule = &self.rules.rules[m.rule];
        let value = &unit.text[m.start..m.end];
        let raw = unit.raw_offset(m.seg, m.start);
        let (line, column) = self.locate(text, raw);
        // A token joined across lines starts where the line's own tail does: when that
        // tail was already reported by the same rule, the joined reading (the path
        // plus the next line's first word) is the same finding again, not a new one.
        if unit.encoding == Some(Encoding::Unwrapped)
            && self.placed.contains(&(m.rule, line, column))
        {
            return;
        }
        // A value with an escape in it (`%81`, `\u00e9`, `&amp;`) is decoded for another
        // look; when the rule already found it on this line as written, the decoded
        // reading is the same secret again. (A second, encoded secret in a value its
        // rule already flags is not lost to the gate: the value is reported.)
        let written = matches!(unit.encoding, None | Some(Encoding::Plain));
        let decoded = matches!(
            unit.encoding,
            Some(
                Encoding::Percent
                    | Encoding::Escapes
                    | Encoding::Entities
                    | Encoding::QuotedPrintable
            )
        );
        let raw_pointer = unit.segments[m.seg].node.map(|n| unit.paths.pointer(n));
        if decoded && self.written.contains(&(m.rule, line, raw_pointer.clone())) {
            return;
        }
        let fingerprints = self.key.pair(&rule.id, value);
        if !self
            .seen
            .insert((m.rule, line, column, fingerprints.0.0.clone()))
        {
            return;
        }
        self.placed.insert((m.rule, line, column));
        if written {
            self.written.insert((m.rule, line, raw_pointer.clone()));
        }
        let assessment = self.confidence(unit, m, raw_pointer.as_deref());
        // Less sure than the run lists: final, since a file's later facts only ever
        // lower a finding.
        if assessment.confidence < self.floor {
            self.below.insert((m.rule, line, column));
            return;
        }
        // A user not yet known as the data's own may turn out to be, further on.
        if rule.category == Category::LocalPath
            && assessment.confidence == Confidence::Medium
            && assessment.why.has(Reason::UserSegment)
            && let Some(user) = confidence::user_of(&String::from_utf8_lossy(value))
        {
            self.file_facts.wait(self.findings.len(), user);
        }
        // A decoded layer's pointer is its parent value's, whose keys were matched in
        // another layer: each key is judged on its own there.
        let pointer = raw_pointer.map(|p| match unit.encoding {
            None | Some(Encoding::Plain) => mask_in_pointer(&p, sorted),
            Some(_) => redact_pointer(self.rules, &mut self.scratch, p),
        });
        let message = match unit.encoding {
            Some(Encoding::Base64) => format!("{} (inside base64)", rule.description),
            Some(Encoding::Percent) => format!("{} (inside percent-encoding)", rule.description),
            Some(Encoding::Unwrapped) => format!("{} (wrapped across lines)", rule.description),
            Some(Encoding::Entities) => {
                format!("{} (inside HTML character references)", rule.description)
            }
            Some(Encoding::Escapes) => format!("{} (inside backslash escapes)", rule.description),
            Some(Encoding::QuotedPrintable) => {
                format!("{} (inside quoted-printable)", rule.description)
            }
            Some(Encoding::Defanged) => format!("{} (written defanged)", rule.description),
            Some(Encoding::PathForm) => format!(
                "{} (spelled in a form that names the same place)",
                rule.description
            ),
            Some(Encoding::Folded) => format!(
                "{} (disguised with full-width, invisible or look-alike characters)",
                rule.description
            ),
            _ => rule.description.clone(),
        };
        let excerpt = excerpt(unit, m, sorted, self.rules);
        let place = (line, column, assessment);
        self.push(rule, place, pointer, excerpt, fingerprints, message);
        if self.keep_values
            && let Some(f) = self.findings.last_mut()
        {
            f.value = Some(MatchedValue(value.to_vec()));
        }
    }

    /// How sure this match is (see [`crate::detect::confidence`]): its value, up to 64
    /// bytes on each side within its segment, the key it sits under, who wrote it,
    /// and what its record says when a signal asks.
    fn confidence(&mut self, unit: &Unit, m: &RawMatch, pointer: Option<&str>) -> Assessment {
        let rule = &self.rules.rules[m.rule];
        let seg = &unit.segments[m.seg];
        let before = &unit.text[m.start.saturating_sub(64).max(seg.start)..m.start];
        let after = &unit.text[m.end..(m.end + 64).min(seg.end).max(m.end)];
        let value = String::from_utf8_lossy(&unit.text[m.start..m.end]);
        let key = pointer.and_then(|p| p.rsplit('/').next());
        let roles = &self.rules.knowledge.roles;
        // Who wrote it matters to what a person or a model may make up; a provider's
        // token, a denylisted term or a format check is as sure as its rule.
        let needs_role = match rule.category {
            Category::Secret => rule.provider.is_none(),
            Category::Denylist | Category::Provenance | Category::Schema => false,
            _ => true,
        };
        let role = if needs_role {
            self.unit_facts.role(unit, roles, m.seg)
        } else {
            confidence::Role::Unknown
        };
        let role = match role {
            // A conversation kept whole in one string: its own turns say who.
            confidence::Role::Model => {
                confidence::role::turn_before(&unit.text[seg.start..m.start])
                    .unwrap_or(confidence::Role::Model)
            }
            role => role,
        };
        let cx = Context {
            rule_id: &rule.id,
            category: rule.category,
            value: &value,
            before,
            after,
            key,
            role,
            provider: rule.provider.is_some(),
        };
        let mut around = Around {
            unit,
            m,
            roles,
            facts: &mut self.unit_facts,
            file: &mut self.file_facts,
        };
        confidence::assess(&cx, &self.rules.knowledge, &mut around)
    }

    /// A finding of `rule` at `place` (line, column) of this file.
    fn push(
        &mut self,
        rule: &Rule,
        place: (u32, u32, Assessment),
        json_pointer: Option<String>,
        excerpt: String,
        (fingerprint, shared): (Fingerprint, Fingerprint),
        message: String,
    ) {
        self.findings.push(Finding {
            rule_id: rule.id.clone(),
            category: rule.category,
            severity: rule.severity,
            confidence: place.2.confidence,
            why: place.2.why,
            location: Location {
                path: self.rel.to_string(),
                line: Some(place.0),
                column: Some(place.1),
                json_pointer,
            },
            excerpt,
            fingerprint,
            shared,
            message,
            group: None,
            commit: None,
            value: None,
        });
    }

    pub(super) fn format_finding(&mut self, text: &[u8], offset: usize, message: &str) {
        let what = format!("{message}; the line was scanned as text");
        // JSON with comments (tsconfig, VS Code settings) is a dialect, not damage:
        // the finding stays, at low confidence.
        let how = match starts_a_comment(text, offset) {
            true => Assessment::low(Reason::JsonComments),
            false => Assessment::high(),
        };
        self.problem(text, "invalid_json", offset, None, &what, how);
    }

    /// A finding from a built-in check (format, provenance), as sure as `how` says; it
    /// names no value, so the fingerprint covers the place and the problem.
    pub(super) fn problem(
        &mut self,
        text: &[u8],
        check: &str,
        offset: usize,
        pointer: Option<String>,
        what: &str,
        how: Assessment,
    ) {
        let Some(rule) = self.rules.check(check) else {
            return;
        };
        let (line, column) = self.locate(text, offset);
        let place = (line, column, how);
        let value = format!("{}\0{}\0{what}", self.rel, pointer.as_deref().unwrap_or(""));
        let fingerprints = self.key.pair(&rule.id, value.as_bytes());
        let message = rule.description.clone();
        // Messages quote record fields (an id, a key): masked like any excerpt.
        let shown = redact_text(self.rules, &mut self.scratch, what);
        self.push(rule, place, pointer, shown, fingerprints, message);
    }
}

/// Whether the JSON error at `offset` is a `//` or `/*` comment.
fn starts_a_comment(text: &[u8], offset: usize) -> bool {
    let rest = text.get(offset..).unwrap_or_default();
    rest.starts_with(b"//") || rest.starts_with(b"/*")
}

/// How many of the places where a finding was left out as less sure than the floor
/// hold no kept finding of the same rule: [`one_per_place`] would have kept one
/// finding there, below the floor.
pub(super) fn places_left(
    rules: &crate::detect::RuleSet,
    below: &std::collections::HashSet<(usize, u32, u32)>,
    findings: &[Finding],
) -> usize {
    if below.is_empty() {
        return 0;
    }
    let kept: std::collections::HashSet<(&str, Option<u32>, Option<u32>)> = findings
        .iter()
        .map(|f| (f.rule_id.as_str(), f.location.line, f.location.column))
        .collect();
    below
        .iter()
        .filter(|&&(rule, line, column)| {
            !kept.contains(&(rules.rules[rule].id.as_str(), Some(line), Some(column)))
        })
        .count()
}

/// One finding per rule and place: a value found both as written and in a decoded
/// reading that starts at the same spot (`/home/./ana` and `/home/ana`) is one
/// decision. The most confident reading stays, the first of equals. Built-in checks'
/// problems are each their own, wherever they sit.
pub(super) fn one_per_place(findings: &mut Vec<Finding>, is_check: impl Fn(&str) -> bool) {
    use std::collections::{HashMap, HashSet};
    // Most files have no two findings of one rule at one place: said without asking
    // which rules are checks.
    let mut places = HashSet::with_capacity(findings.len());
    if findings
        .iter()
        .all(|f| places.insert((f.rule_id.as_str(), f.location.line, f.location.column)))
    {
        return;
    }
    let mut best: HashMap<(&str, Option<u32>, Option<u32>), usize> = HashMap::new();
    let mut checks = 0;
    for (i, f) in findings.iter().enumerate() {
        if is_check(&f.rule_id) {
            checks += 1;
            continue;
        }
        let place = (f.rule_id.as_str(), f.location.line, f.location.column);
        let kept = best.entry(place).or_insert(i);
        if findings[*kept].confidence < f.confidence {
            *kept = i;
        }
    }
    if best.len() + checks == findings.len() {
        return;
    }
    let mut keep: Vec<bool> = findings.iter().map(|f| is_check(&f.rule_id)).collect();
    best.values().for_each(|&i| keep[i] = true);
    let mut i = 0;
    findings.retain(|_| {
        i += 1;
        keep[i - 1]
    });
}
