//! A file's name is data too: a key or an address in it is a finding, and the name is
//! reported with that value masked, everywhere it appears (report, baseline, daemon
//! index). Every component of the name is judged, in every decoded reading (full-width,
//! percent, entities…), for values that are leaks wherever they stand (secrets, e-mail
//! addresses, denylisted terms): other categories would flag the places datasets live.

use super::{Scanner, layers};
use crate::detect::{self, RawMatch};
use crate::finding::guard::guard;
use crate::finding::redact::mask;
use crate::finding::{Category, Confidence, Finding, Location};
use crate::formats::{Encoding, Unit};

/// A report name with what it leaks masked, and the findings for it.
pub struct NameCheck {
    pub shown: String,
    pub findings: Vec<Finding>,
}

/// Decoded bytes the name's layers may produce (a name is short; this bounds a hostile
/// one).
const NAME_DECODE_BUDGET: usize = 1 << 16;

impl Scanner {
    /// Judges report name `rel`.
    pub fn check_name(&self, rel: &str) -> NameCheck {
        // Plain matches as byte ranges of `rel`; values found only in a decoded
        // reading (which has no byte map back to the name).
        let mut spans: Vec<(usize, usize, usize)> = Vec::new();
        let mut decoded: Vec<(usize, Vec<u8>)> = Vec::new();
        let mut scratch = self.rules.take_scratch();
        let once = cut_extension(rel.as_bytes());
        let twice = cut_extension(&once);
        for reading in [rel.as_bytes().to_vec(), once, twice] {
            let mut unit = Unit::default();
            unit.push_plain(&reading, 0, None);
            let mut budget = NAME_DECODE_BUDGET;
            layers::walk(&unit, &mut budget, &mut |layer| {
                let mut found: Vec<RawMatch> = Vec::new();
                detect::detect(&self.rules, layer, &mut scratch, &mut found);
                for m in found.iter().filter(|m| self.leaks_anywhere(m.rule)) {
                    match layer.encoding {
                        None | Some(Encoding::Plain) => {
                            let base = layer.segments[m.seg].start;
                            spans.push((m.start - base, m.end - base, m.rule));
                        }
                        Some(_) => decoded.push((m.rule, layer.text[m.start..m.end].to_vec())),
                    }
                }
            });
        }
        self.rules.return_scratch(scratch);
        if spans.is_empty() && decoded.is_empty() {
            return NameCheck {
                shown: rel.to_string(),
                findings: Vec::new(),
            };
        }
        let shown = masked_name(rel, spans.clone(), !decoded.is_empty(), |r| {
            self.rules.rules[r].category
        });
        let values = spans
            .iter()
            .map(|&(s, e, r)| (r, rel.as_bytes()[s..e].to_vec()))
            .chain(decoded);
        let mut seen = std::collections::HashSet::new();
        let findings = values
            .filter(|(r, v)| seen.insert((*r, v.clone())))
            .map(|(r, value)| {
                let rule = &self.rules.rules[r];
                Finding {
                    rule_id: rule.id.clone(),
                    category: rule.category,
                    severity: rule.severity,
                    confidence: Confidence::High,
                    why: Default::default(),
                    location: Location {
                        path: shown.clone(),
                        line: None,
                        column: None,
                        json_pointer: None,
                    },
                    excerpt: shown.rsplit('/').next().unwrap_or_default().to_string(),
                    fingerprint: self.key.fingerprint(&rule.id, &value),
                    shared: self.key.shared_fingerprint(&rule.id, &value),
                    message: format!("{} (in the file name)", rule.description),
                    group: None,
                    commit: None,
                }
            })
            .collect();
        NameCheck { shown, findings }
    }

    fn leaks_anywhere(&self, rule: usize) -> bool {
        matches!(
            self.rules.rules[rule].category,
            Category::Secret | Category::Email | Category::Denylist
        )
    }
}

/// `rel` with each span masked; with `disguised`, every component is also guarded
/// (its disguised runs masked whole), since a decoded value has no place in it.
fn masked_name(
    rel: &str,
    mut spans: Vec<(usize, usize, usize)>,
    disguised: bool,
    category: impl Fn(usize) -> Category,
) -> String {
    spans.sort_unstable();
    let mut out = String::with_capacity(rel.len());
    let mut pos = 0;
    for (start, end, rule) in spans {
        if end <= pos || !rel.is_char_boundary(start.max(pos)) || !rel.is_char_boundary(end) {
            continue;
        }
        let start = start.max(pos);
        out.push_str(&rel[pos..start]);
        out.push_str(&mask(&rel[start..end], category(rule)));
        pos = end;
    }
    out.push_str(&rel[pos..]);
    if disguised {
        out = out.split('/').map(guard).collect::<Vec<_>>().join("/");
    }
    out
}

/// The name with the dot before its last extension (1–5 letters or digits) turned
/// into a line break, one byte for one: `a.b@gmail.com.png` then reads as an address
/// and an extension (cut twice for `.json.bak`). The name as it is is judged too
/// (`a.b@gmail.com` has no extension to cut).
fn cut_extension(name: &[u8]) -> Vec<u8> {
    let mut bytes = name.to_vec();
    let start = memchr::memrchr(b'/', name).map_or(0, |i| i + 1);
    let end = memchr::memchr(b'\n', &name[start..]).map_or(name.len(), |i| start + i);
    if let Some(dot) = memchr::memrchr(b'.', &name[start..end]).map(|d| start + d) {
        let ext = &name[dot + 1..end];
        if dot > start && (1..=5).contains(&ext.len()) && ext.iter().all(u8::is_ascii_alphanumeric)
        {
            bytes[dot] = b'\n';
        }
    }
    bytes
}
