//! What a report shows of a match: the excerpt around it with every match masked, and
//! JSON Pointers with any key that is itself a leak masked. Both pass the last guard
//! ([`guard`]), which masks token-like and disguised runs no rule matched.
//!
//! Work is linear in the matches: a layer's matches are sorted once ([`Sorted`]), an
//! excerpt finds its neighbours by binary search, and a pointer looks its keys up in a
//! map built once per layer.

use super::file::EXCERPT_CONTEXT;
use crate::detect::RuleSet;
use crate::detect::{self, RawMatch, Scratch};
use crate::finding::redact::mask;
use crate::formats::Unit;
use crate::guard::{guard, guard_runs};
use std::collections::HashMap;

/// How far an excerpt's edge moves out to the end of a token cut by the context
/// window, so the guard judges the whole token, not the part that fits.
const TOKEN_REACH: usize = 256;

/// One layer's matches in (segment, start) order, and the masked spelling of every
/// object key holding a match.
pub(super) struct Sorted {
    pub all: Vec<RawMatch>,
    longest: usize,
    keys: HashMap<String, String>,
}

impl Sorted {
    pub(super) fn new(mut all: Vec<RawMatch>, unit: &Unit, rules: &RuleSet) -> Sorted {
        all.sort_unstable_by_key(|m| (m.seg, m.start, m.end));
        let longest = all.iter().map(|m| m.end - m.start).max().unwrap_or(0);
        let mut keys: HashMap<String, String> = HashMap::new();
        let mut i = 0;
        while i < all.len() {
            let seg = all[i].seg;
            let j = i + all[i..].iter().take_while(|m| m.seg == seg).count();
            let s = &unit.segments[seg];
            if s.is_key {
                let raw = String::from_utf8_lossy(&unit.text[s.start..s.end]).into_owned();
                let masked = masked_span(unit, s.start, s.end, &all[i..j], rules);
                keys.insert(raw, masked);
            }
            i = j;
        }
        Sorted { all, longest, keys }
    }

    /// The matches of segment `seg` that may overlap `from..to`.
    fn near(&self, seg: usize, from: usize, to: usize) -> &[RawMatch] {
        let lo = self
            .all
            .partition_point(|o| (o.seg, o.start) < (seg, from.saturating_sub(self.longest)));
        let hi = self.all.partition_point(|o| (o.seg, o.start) < (seg, to));
        &self.all[lo..hi.max(lo)]
    }
}

/// `text[from..to]` of `unit` with `spans` (sorted, inside or overlapping) masked and
/// the rest guarded.
fn masked_span(unit: &Unit, from: usize, to: usize, spans: &[RawMatch], rules: &RuleSet) -> String {
    let text = &unit.text;
    // What must be masked whole is judged on the whole span, matches and all: a URL's
    // password ends at an `@` that may sit inside a masked match.
    let forced: Vec<(usize, usize)> = std::str::from_utf8(&text[from..to])
        .map(crate::guard::forced)
        .unwrap_or_default()
        .into_iter()
        .map(|(s, e)| (from + s, from + e))
        .collect();
    let push_clean = |out: &mut String, a: usize, b: usize| push_context(out, text, a, b, &forced);
    let mut out = String::new();
    let mut pos = from;
    for o in spans {
        if o.end <= pos || o.end > to {
            continue;
        }
        // A match overlapping the one before it is masked from where that one ended,
        // so no part of either shows.
        let start = o.start.max(pos);
        let category = rules.rules[o.rule].category;
        // The value goes on where the rule stopped (`/home/jos` + `é.garcia`, a
        // combining mark, a local part in another script): that part is masked with it.
        // A credential is masked to its token's ends: a password read only up to a byte
        // outside the rule's alphabet (`h1x9Q2` of `h1x9Q2&Kv…`) must not show the rest.
        let secret = category == crate::finding::Category::Secret;
        let before = match secret {
            true => token_back(text, pos, start),
            false => continued_back(text, pos, start),
        };
        push_clean(&mut out, pos, before);
        let after = match secret {
            true => token_on(text, o.end, to),
            false => continued(text, o.end, to),
        };
        let value = String::from_utf8_lossy(&text[before..after]);
        out.push_str(&mask(&value, category));
        pos = after;
        // `user@host:password`, as a decoded Basic or Docker credential reads: what
        // follows the colon is the password, whatever its shape.
        let secret = colon_secret(text, pos, to);
        if secret > pos {
            out.push_str(&crate::guard::mask_token(&String::from_utf8_lossy(
                &text[pos..secret],
            )));
            pos = secret;
        }
    }
    push_clean(&mut out, pos.min(to), to);
    out
}

/// `text[from..to]` shown: what lies in a `forced` range masked whole, the rest guarded
/// run by run (its forced ranges are these).
fn push_context(out: &mut String, text: &[u8], from: usize, to: usize, forced: &[(usize, usize)]) {
    let push_clean = |out: &mut String, bytes: &[u8]| out.push_str(&guard_runs(&clean(bytes)));
    let mut at = from;
    for &(s, e) in forced.iter().filter(|&&(s, e)| s < to && e > from) {
        let (s, e) = (s.max(at), e.min(to));
        if s > at {
            push_clean(out, &text[at..s]);
        }
        if e > s {
            out.push_str(&crate::guard::mask_token(&String::from_utf8_lossy(
                &text[s..e],
            )));
        }
        at = at.max(e);
    }
    if at < to {
        push_clean(out, &text[at..to]);
    }
}

/// The end of `:password` right after a match at `at` (not past `limit`), or `at`: a
/// colon and a token of six bytes or more, up to a `/`, that is not all digits (a port).
fn colon_secret(text: &[u8], at: usize, limit: usize) -> usize {
    if text.get(at) != Some(&b':') {
        return at;
    }
    let mut end = at + 1;
    // A path after a port (`:5432/app`) is not part of it.
    while end < limit && is_token_byte(text[end]) && text[end] != b'/' {
        end += 1;
    }
    let token = &text[at + 1..end];
    match token.len() >= 6 && !token.iter().all(u8::is_ascii_digit) {
        true => end,
        false => at,
    }
}

/// A byte that carries a value on past a rule's match: a letter or digit, or any byte
/// of a character that is not ASCII.
fn goes_on(b: u8) -> bool {
    b.is_ascii_alphanumeric() || !b.is_ascii()
}

/// Where the run that `text[end..]` goes on with ends (at most `limit`): `end` when
/// the byte after the match does not carry the value on.
fn continued(text: &[u8], end: usize, limit: usize) -> usize {
    if end >= limit || !goes_on(text[end]) || !(end > 0 && goes_on(text[end - 1])) {
        return end;
    }
    let mut at = end;
    while at < limit && is_token_byte(text[at]) {
        at += 1;
    }
    at
}

/// Where the run that leads into a match at `start` begins (not before `floor`).
fn continued_back(text: &[u8], floor: usize, start: usize) -> usize {
    if start <= floor || !goes_on(text[start - 1]) || !goes_on(text[start]) {
        return start;
    }
    let mut at = start;
    while at > floor && is_token_byte(text[at - 1]) {
        at -= 1;
    }
    at
}

/// Where the token holding `text[..end]` ends (at most `limit`).
fn token_on(text: &[u8], end: usize, limit: usize) -> usize {
    let mut at = end;
    while at < limit && is_token_byte(text[at]) {
        at += 1;
    }
    at
}

/// Where the token holding `text[start]` begins (not before `floor`).
fn token_back(text: &[u8], floor: usize, start: usize) -> usize {
    let mut at = start;
    while at > floor && is_token_byte(text[at - 1]) {
        at -= 1;
    }
    at
}

fn is_token_byte(b: u8) -> bool {
    !(b.is_ascii_whitespace() || b"\"'`,;=|()[]{}<>".contains(&b))
}

/// The text around `m` on its line, with every match on it masked.
pub(super) fn excerpt(unit: &Unit, m: &RawMatch, sorted: &Sorted, rules: &RuleSet) -> String {
    let seg = &unit.segments[m.seg];
    let text = &unit.text;
    // The line's ends are looked for only as far as an excerpt can reach: on one line
    // of megabytes, searching to its ends for every match is quadratic.
    let reach = EXCERPT_CONTEXT + TOKEN_REACH;
    let lo = m.start.saturating_sub(reach).max(seg.start);
    let hi = (m.end + reach).min(seg.end).max(m.end);
    let (line_start, cut_before) = match memchr::memrchr(b'\n', &text[lo..m.start]) {
        Some(i) => (lo + i + 1, false),
        None => (lo, lo > seg.start),
    };
    let (line_end, cut_after) = match memchr::memchr(b'\n', &text[m.end..hi]) {
        Some(i) => (m.end + i, false),
        None => (hi, hi < seg.end),
    };
    let mut from = m.start.saturating_sub(EXCERPT_CONTEXT).max(line_start);
    let mut to = (m.end + EXCERPT_CONTEXT).min(line_end);
    // A token cut by the window is taken whole, so the guard sees all of it.
    let reach_from = from.saturating_sub(TOKEN_REACH).max(line_start);
    while from > reach_from && is_token_byte(text[from - 1]) && is_token_byte(text[from]) {
        from -= 1;
    }
    let reach_to = (to + TOKEN_REACH).min(line_end);
    while to < reach_to && is_token_byte(text[to - 1]) && is_token_byte(text[to]) {
        to += 1;
    }
    let (mut from, mut to) = (floor_char(text, from), ceil_char(text, to));
    let spans: Vec<RawMatch> = sorted
        .near(m.seg, from, to)
        .iter()
        .filter(|o| o.start < to && o.end > from)
        .cloned()
        .collect();
    for o in &spans {
        from = from.min(o.start);
        to = to.max(o.end);
    }
    let mut out = String::new();
    if from > line_start || cut_before {
        out.push('…');
    }
    out.push_str(&masked_span(unit, from, to, &spans, rules));
    if to < line_end || cut_after {
        out.push('…');
    }
    out.trim().to_string()
}

/// The text of `bytes` as shown: line breaks and tabs as blanks, any other control
/// character as one. A blank would cut the run it hides in (`ana\u{1}@gmail.com`) and
/// the guard would see neither half as an address.
fn clean(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .chars()
        .map(|c| match c {
            '\t' | '\n' | '\r' => ' ',
            c if c.is_control() => '\u{fffd}',
            c => c,
        })
        .collect()
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

/// Splits an RFC 6901 pointer into its keys, maps each through `shown` and spells
/// the pointer again.
fn map_tokens(pointer: &str, mut shown: impl FnMut(String) -> String) -> String {
    if pointer.is_empty() {
        return String::new();
    }
    let mut out = String::with_capacity(pointer.len());
    for token in pointer.split('/').skip(1) {
        let key = token.replace("~1", "/").replace("~0", "~");
        out.push('/');
        out.push_str(&shown(key).replace('~', "~0").replace('/', "~1"));
    }
    out
}

/// `text` (a key, or a message that quotes a value) with every match masked and the
/// rest guarded.
pub(super) fn redact_text(rules: &RuleSet, scratch: &mut Scratch, text: &str) -> String {
    let mut unit = Unit::default();
    unit.push_plain(text.as_bytes(), 0, None);
    let mut found = Vec::new();
    detect::detect(rules, &unit, scratch, &mut found);
    found.sort_unstable_by_key(|m| (m.start, m.end));
    let start = unit.segments.first().map_or(0, |s| s.start);
    let end = unit.segments.first().map_or(0, |s| s.end);
    masked_span(&unit, start, end, &found, rules)
}

/// Keys are data too: a key that is an e-mail or a token must not reach a report
/// through the pointer of a format or provenance finding. Each key is run through
/// detection on its own and what matches is masked, as in every excerpt.
pub(super) fn redact_pointer(rules: &RuleSet, scratch: &mut Scratch, pointer: String) -> String {
    map_tokens(&pointer, |key| redact_text(rules, scratch, &key))
}

/// A value used as an object key would otherwise appear in full in the pointer; keys
/// no rule matched still pass the guard.
pub(super) fn mask_in_pointer(pointer: &str, sorted: &Sorted) -> String {
    map_tokens(pointer, |key| match sorted.keys.get(&key) {
        Some(masked) => masked.clone(),
        None => guard(&key),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Schema messages quote record fields (an id built from them): what they quote is
    /// masked like any excerpt.
    #[test]
    fn messages_quoting_values_are_masked() {
        let rules = RuleSet::builtin().expect("built-in rules");
        let mut scratch = rules.take_scratch();
        let message = "`event_id` must be the deterministic id (here \
                       `ion.popescu@gmail.com-AKIAZ7QW3RT5YU2IOPLM-se-001`)";
        let shown = redact_text(&rules, &mut scratch, message);
        rules.return_scratch(scratch);
        assert!(!shown.contains("ion.popescu@gmail.com"), "{shown}");
        assert!(!shown.contains("AKIAZ7QW3RT5YU2IOPLM"), "{shown}");
        assert!(shown.starts_with("`event_id` must be"), "{shown}");
    }
}
