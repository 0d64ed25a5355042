//! A file's name is data too: a key or an address in it is a finding, and the name is
//! reported with that value masked, everywhere it appears (report, baseline, daemon
//! index). Every component of the name is judged, in every decoded reading (full-width,
//! percent, entities…), by every rule, each value judged by the same confidence model
//! as in a file's text: a card number, a phone or a public IP in a name is as much a
//! leak as in the file; a date or a version in one is low, and hidden as in a file.

use super::{Scanner, layers};
use crate::detect::confidence::{self, Alone, Assessment, Context, Role};
use crate::detect::{self, RawMatch};
use crate::finding::redact::mask;
use crate::finding::{Category, Finding, Location};
use crate::formats::{Encoding, Unit};
use crate::guard::guard;

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
        self.name_check(rel, false)
    }

    /// [`Scanner::check_name`] for text that was masked once already (a shard's
    /// report, merged): a value that runs into a mask was masked when it was made, and
    /// masking it again would change an honest report. Never for a name read from
    /// disk or git, where a `*` is the attacker's to place.
    pub fn remask(&self, text: &str) -> String {
        self.name_check(text, true).shown
    }

    fn name_check(&self, rel: &str, masked_before: bool) -> NameCheck {
        // Plain matches as byte ranges of `rel`; values found only in a decoded
        // reading (which has no byte map back to the name).
        let mut spans: Vec<(usize, usize, usize)> = Vec::new();
        let mut decoded: Vec<(usize, Vec<u8>)> = Vec::new();
        // How sure each value is, judged as in a file's text (the name is the text).
        let mut sure: std::collections::HashMap<(usize, Vec<u8>), Assessment> =
            std::collections::HashMap::new();
        let mut scratch = self.rules.take_scratch();
        let once = cut_extension(rel.as_bytes());
        let twice = cut_extension(&once);
        // `call_702-383-0281.txt`, `srv_81.196.12.7.log`: an underscore is a word
        // character to the rules' boundaries but a separator in a name. One byte for one,
        // so spans still map back.
        // Each component on its own line (one byte for one): a folder a scan was
        // pointed at (`/tmp/x`) is no value, a component that holds one is.
        let spaced = |r: &[u8]| -> Vec<u8> {
            r.iter()
                .map(|&b| match b {
                    b'_' => b' ',
                    b'/' => b'\n',
                    b => b,
                })
                .collect()
        };
        let lines = |r: &[u8]| -> Vec<u8> {
            r.iter()
                .map(|&b| if b == b'/' { b'\n' } else { b })
                .collect()
        };
        // `order-4556…`: a hyphen joins words in a name; a value's own hyphens
        // (`702-383-0281`) are read in the other readings.
        let unhyphened = |r: &[u8]| -> Vec<u8> {
            r.iter()
                .map(|&b| match b {
                    b'_' | b'-' => b' ',
                    b'/' => b'\n',
                    b => b,
                })
                .collect()
        };
        let mut readings = vec![
            (unhyphened(&once), true),
            (spaced(rel.as_bytes()), true),
            (spaced(&once), true),
            (spaced(&twice), true),
            (lines(rel.as_bytes()), true),
            (lines(&once), true),
            (lines(&twice), true),
        ];
        // A report name spells a backslash `\\` (see `guard::path_text`): the name's own
        // escapes (`ion\x40gmail.com`) are read from it with one backslash again. Not
        // byte for byte, so what is found there counts as decoded.
        if memchr::memmem::find(rel.as_bytes(), b"\\\\").is_some() {
            let single = rel.replace("\\\\", "\\");
            readings.push((lines(&cut_extension(single.as_bytes())), false));
        }
        for (reading, aligned) in readings {
            let mut unit = Unit::default();
            unit.push_plain(&reading, 0, None);
            let mut budget = NAME_DECODE_BUDGET;
            layers::walk(&unit, &mut budget, &mut |layer| {
                let mut found: Vec<RawMatch> = Vec::new();
                detect::detect(&self.rules, layer, &mut scratch, &mut found);
                for m in &found {
                    let value = layer.text[m.start..m.end].to_vec();
                    // Already masked (a report's text judged again, as a merge does):
                    // masking it twice would only change an honest excerpt.
                    let touches_mask = layer.text.get(m.end) == Some(&b'*')
                        || m.start > 0 && layer.text.get(m.start - 1) == Some(&b'*');
                    if masked_before
                        && (touches_mask || memchr::memmem::find(&value, b"**").is_some())
                    {
                        continue;
                    }
                    let a = self.name_confidence(layer, m);
                    sure.entry((m.rule, value))
                        .and_modify(|old| {
                            if a.confidence > old.confidence {
                                *old = a;
                            }
                        })
                        .or_insert(a);
                    match layer.encoding {
                        None | Some(Encoding::Plain) if aligned => {
                            let base = layer.segments[m.seg].start;
                            spans.push((m.start - base, m.end - base, m.rule));
                        }
                        _ => decoded.push((m.rule, layer.text[m.start..m.end].to_vec())),
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
                let a = sure
                    .get(&(r, value.clone()))
                    .copied()
                    .unwrap_or_else(Assessment::high);
                Finding {
                    rule_id: rule.id.clone(),
                    category: rule.category,
                    severity: rule.severity,
                    confidence: a.confidence,
                    why: a.why,
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
                    value: None,
                }
            })
            .collect();
        NameCheck { shown, findings }
    }

    /// A value in a name, judged by the same model as in a file: the rest of the name
    /// is its context; nobody in particular wrote it.
    fn name_confidence(&self, layer: &Unit, m: &RawMatch) -> Assessment {
        let rule = &self.rules.rules[m.rule];
        let seg = &layer.segments[m.seg];
        let value = String::from_utf8_lossy(&layer.text[m.start..m.end]);
        let cx = Context {
            rule_id: &rule.id,
            category: rule.category,
            value: &value,
            before: &layer.text[m.start.saturating_sub(64).max(seg.start)..m.start],
            after: &layer.text[m.end..(m.end + 64).min(seg.end).max(m.end)],
            key: None,
            role: Role::Unknown,
            provider: rule.provider.is_some(),
        };
        confidence::assess(&cx, &self.rules.knowledge, &mut Alone)
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
