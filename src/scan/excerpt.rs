//! What a report shows of a match: the excerpt around it with every match masked, and
//! JSON Pointers with any key that is itself a leak masked.

use super::file::EXCERPT_CONTEXT;
use crate::detect::{self, RawMatch, Scratch};
use crate::formats::Unit;
use crate::report::redact::mask;
use crate::rules::RuleSet;

/// The text around `m` on its line, with every match on it masked.
pub(super) fn excerpt(unit: &Unit, m: &RawMatch, all: &[RawMatch], rules: &RuleSet) -> String {
    let seg = &unit.segments[m.seg];
    let text = &unit.text;
    let line_start =
        memchr::memrchr(b'\n', &text[seg.start..m.start]).map_or(seg.start, |i| seg.start + i + 1);
    let line_end = memchr::memchr(b'\n', &text[m.end..seg.end]).map_or(seg.end, |i| m.end + i);
    let mut from = floor_char(
        text,
        m.start.saturating_sub(EXCERPT_CONTEXT).max(line_start),
    );
    let mut to = ceil_char(text, (m.end + EXCERPT_CONTEXT).min(line_end));
    let mut spans: Vec<&RawMatch> = all
        .iter()
        .filter(|o| o.seg == m.seg && o.start < to && o.end > from)
        .collect();
    spans.sort_by_key(|o| o.start);
    for o in &spans {
        from = from.min(o.start);
        to = to.max(o.end);
    }
    let mut out = String::new();
    if from > line_start {
        out.push('…');
    }
    let mut pos = from;
    for o in spans {
        if o.start < pos {
            continue;
        }
        push_clean(&mut out, &text[pos..o.start]);
        let value = String::from_utf8_lossy(&text[o.start..o.end]);
        out.push_str(&mask(&value, rules.rules[o.rule].category));
        pos = o.end;
    }
    push_clean(&mut out, &text[pos.min(to)..to]);
    if to < line_end {
        out.push('…');
    }
    out.trim().to_string()
}

fn push_clean(out: &mut String, bytes: &[u8]) {
    for c in String::from_utf8_lossy(bytes).chars() {
        out.push(if c.is_control() { ' ' } else { c });
    }
}

fn floor_char(text: &[u8], mut i: usize) -> usize {
    while i > 0 && i < text.len() && (text[i] & 0xC0) == 0x80 {
        i -= 1;
    }
    i
}

fn ceil_char(text: &[u8], mut i: usize) -> usize {
    while i < text.len() && (text[i] & 0xC0) == 0x80 {
        i += 1;
    }
    i
}

/// Keys are data too: a key that is an e-mail or a token must not reach a report
/// through the pointer of a format or provenance finding. Each key is run through
/// detection on its own and what matches is masked, as in every excerpt.
pub(super) fn redact_pointer(rules: &RuleSet, scratch: &mut Scratch, pointer: String) -> String {
    if pointer.is_empty() {
        return pointer;
    }
    let mut out = String::with_capacity(pointer.len());
    for token in pointer.split('/').skip(1) {
        let key = token.replace("~1", "/").replace("~0", "~");
        let mut unit = Unit::default();
        unit.push_plain(key.as_bytes(), 0, None);
        let mut found = Vec::new();
        detect::detect(rules, &unit, scratch, &mut found);
        let mut shown = key.clone();
        for m in &found {
            let value = String::from_utf8_lossy(&unit.text[m.start..m.end]);
            shown = shown.replace(value.as_ref(), &mask(&value, rules.rules[m.rule].category));
        }
        out.push('/');
        out.push_str(&shown.replace('~', "~0").replace('/', "~1"));
    }
    out
}

/// A value used as an object key would otherwise appear in full in the pointer.
pub(super) fn mask_in_pointer(
    mut pointer: String,
    unit: &Unit,
    all: &[RawMatch],
    rules: &RuleSet,
) -> String {
    for o in all {
        let value = String::from_utf8_lossy(&unit.text[o.start..o.end]);
        if value.len() < 3 {
            continue;
        }
        let masked = mask(&value, rules.rules[o.rule].category);
        let escaped = value.replace('~', "~0").replace('/', "~1");
        pointer = pointer
            .replace(value.as_ref(), &masked)
            .replace(&escaped, &masked);
    }
    pointer
}
