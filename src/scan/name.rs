//! A file's name is data too: a key or an address in it is a finding, and the name is
//! reported with that value masked, everywhere it appears (report, baseline, daemon
//! index). Only the last component is judged, and only for values that are leaks
//! wherever they stand (secrets, e-mail addresses, denylisted terms): folder names and
//! the absolute roots the daemon reports are places, not content.

use super::Scanner;
use crate::detect;
use crate::finding::{Category, Finding, Location};
use crate::formats::Unit;
use crate::report::redact::mask;

/// A report name with what it leaks masked, and the findings for it.
pub struct NameCheck {
    pub shown: String,
    pub findings: Vec<Finding>,
}

impl Scanner {
    /// Judges the last component of report name `rel`.
    pub fn check_name(&self, rel: &str) -> NameCheck {
        let start = rel.rfind('/').map_or(0, |i| i + 1);
        let name = &rel[start..];
        let mut unit = Unit::default();
        unit.push_plain(&cut_extensions(name), 0, None);
        let mut found = Vec::new();
        let mut scratch = self.rules.take_scratch();
        detect::detect(&self.rules, &unit, &mut scratch, &mut found);
        self.rules.return_scratch(scratch);
        found.retain(|m| {
            matches!(
                self.rules.rules[m.rule].category,
                Category::Secret | Category::Email | Category::Denylist
            )
        });
        if found.is_empty() {
            return NameCheck {
                shown: rel.to_string(),
                findings: Vec::new(),
            };
        }
        found.sort_unstable_by_key(|m| (m.start, m.end));
        let seg_start = unit.segments.first().map_or(0, |s| s.start);
        let mut shown = rel[..start].to_string();
        let mut pos = seg_start;
        for m in &found {
            if m.start < pos {
                continue;
            }
            let (a, b) = (start + pos - seg_start, start + m.start - seg_start);
            shown.push_str(rel.get(a..b).unwrap_or_default());
            let value = String::from_utf8_lossy(&unit.text[m.start..m.end]);
            shown.push_str(&mask(&value, self.rules.rules[m.rule].category));
            pos = m.end;
        }
        let end = unit.segments.first().map_or(pos, |s| s.end);
        // The name itself, not the cut copy, past the last match.
        let tail = start + (pos - seg_start);
        shown.push_str(rel.get(tail..start + (end - seg_start)).unwrap_or_default());
        let findings = found
            .iter()
            .map(|m| {
                let rule = &self.rules.rules[m.rule];
                Finding {
                    rule_id: rule.id.clone(),
                    category: rule.category,
                    severity: rule.severity,
                    confidence: crate::finding::Confidence::High,
                    location: Location {
                        path: shown.clone(),
                        line: None,
                        column: None,
                        json_pointer: None,
                    },
                    excerpt: shown[start..].to_string(),
                    fingerprint: self.key.fingerprint(&rule.id, &unit.text[m.start..m.end]),
                    message: format!("{} (in the file name)", rule.description),
                    commit: None,
                }
            })
            .collect();
        NameCheck { shown, findings }
    }
}

/// Extensions of data files: their dots are cut (one byte for one, so places hold) so
/// that `a.b@gmail.com.json` reads as an address followed by an extension.
const EXTENSIONS: &[&str] = &[
    "json", "jsonl", "ndjson", "gz", "txt", "md", "csv", "tsv", "traj", "log", "yaml", "yml",
    "toml", "bin", "dat", "html", "xml",
];

fn cut_extensions(name: &str) -> Vec<u8> {
    let mut bytes = name.as_bytes().to_vec();
    let mut end = bytes.len();
    while let Some(dot) = memchr::memrchr(b'.', &bytes[..end]) {
        let ext = &name[dot + 1..end];
        if dot == 0 || !EXTENSIONS.iter().any(|e| e.eq_ignore_ascii_case(ext)) {
            break;
        }
        bytes[dot] = b'\n';
        end = dot;
    }
    bytes
}
