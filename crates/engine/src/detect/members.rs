//! Keyed rules on JSON members (see [`crate::detect::MemberIndex`]): `{"DD_API_KEY":
//! "…"}` is searched as `DD_API_KEY=…`, and a match is reported at the value.

use super::{Scratch, consider};
use crate::detect::{Matcher, RuleSet};
use crate::formats::Unit;
use regex_automata::Input;

pub(super) fn detect_members(
    rules: &RuleSet,
    unit: &Unit,
    scratch: &mut Scratch,
    out: &mut Vec<super::RawMatch>,
) {
    let Some(index) = &rules.members else {
        return;
    };
    // From each key in the text to the string value after it. A key left out of the
    // text (see `scan::keys`) holds no keyword of any rule: a credential's name holds
    // one (`key`, `token`, `secret`, `pass`, or the provider's), so most keys of a
    // dataset are never looked at here.
    for (i, key) in unit.segments.iter().enumerate() {
        let Some(node) = key.node.filter(|_| key.is_key) else {
            continue;
        };
        let Some(value) = unit
            .segments
            .get(i + 1)
            .filter(|v| !v.is_key && v.node == Some(node))
        else {
            continue;
        };
        let Some(name) = unit.paths.last_key(node) else {
            continue;
        };
        index.rules_for(name.as_bytes(), &mut scratch.member_rules);
        if scratch.member_rules.is_empty() {
            continue;
        }
        let name = name.as_bytes();
        search_member_rules(
            rules,
            name,
            (value.start, value.end),
            false,
            unit,
            scratch,
            out,
        );
    }
}

/// Writes `name=value` into `buf`; returns where the value starts.
pub(super) fn name_value(buf: &mut Vec<u8>, name: &[u8], value: &[u8]) -> usize {
    buf.clear();
    buf.extend_from_slice(name);
    buf.push(b'=');
    let offset = buf.len();
    buf.extend_from_slice(value);
    offset
}

/// Reads `unit.text[start..end]` as `name=value` with each rule of
/// `scratch.member_rules` (see [`search_named`]).
pub(super) fn search_member_rules(
    rules: &RuleSet,
    name: &[u8],
    (start, end): (usize, usize),
    whole: bool,
    unit: &Unit,
    scratch: &mut Scratch,
    out: &mut Vec<super::RawMatch>,
) {
    let offset = name_value(&mut scratch.member_text, name, &unit.text[start..end]);
    for &ri in &scratch.member_rules {
        let buf = (&scratch.member_text[..], offset);
        search_named(
            rules,
            ri,
            buf,
            start,
            whole,
            unit,
            &mut scratch.engines,
            out,
        );
    }
}

/// Runs rule `ri` over `buf`, a name, `=` and, from `offset`, the text of the value that
/// starts at `value_start` in the unit; reports each match inside the value there (with
/// `whole`, only a match that is all of it). The name is context, never reported.
#[allow(clippy::too_many_arguments)]
pub(super) fn search_named(
    rules: &RuleSet,
    ri: usize,
    (buf, offset): (&[u8], usize),
    value_start: usize,
    whole: bool,
    unit: &Unit,
    engines: &mut [super::Slot],
    out: &mut Vec<super::RawMatch>,
) {
    let Matcher::Regex(p) = &rules.rules[ri].matcher else {
        return;
    };
    let engine = engines[ri].engine(p.regex());
    let mut input = Input::new(buf);
    loop {
        p.regex()
            .search_captures_with(&mut engine.cache, &input, &mut engine.caps);
        let Some(m) = engine.caps.get_match() else {
            break;
        };
        let span = p
            .facts()
            .value_group
            .and_then(|g| engine.caps.get_group(g))
            .unwrap_or(m.span());
        if span.start >= offset && (!whole || (span.start == offset && span.end == buf.len())) {
            let start = value_start + span.start - offset;
            consider(rules, ri, start, value_start + span.end - offset, unit, out);
        }
        let next = m.end().max(m.start() + 1);
        if next > buf.len() {
            break;
        }
        input.set_start(next);
    }
}
