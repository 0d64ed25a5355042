//! Keyed rules on JSON members (see [`crate::detect::MemberIndex`]): `{"DD_API_KEY":
//! "…"}` is searched as `DD_API_KEY=…`, and a match is reported at the value.

use super::{Scratch, consider, engine};
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
        let Some(seg) = unit
            .segments
            .get(i + 1)
            .filter(|v| !v.is_key && v.node == Some(node))
        else {
            continue;
        };
        let Some(name) = unit.paths.last_key(node) else {
            continue;
        };
        index.rules_for(name, &mut scratch.member_rules);
        if scratch.member_rules.is_empty() {
            continue;
        }
        let buf = &mut scratch.member_text;
        buf.clear();
        buf.extend_from_slice(name.as_bytes());
        buf.push(b'=');
        let offset = buf.len();
        buf.extend_from_slice(&unit.text[seg.start..seg.end]);
        for &ri in &scratch.member_rules {
            let Matcher::Regex(p) = &rules.rules[ri].matcher else {
                continue;
            };
            let engine = engine(&mut scratch.engines[ri], p.regex());
            let mut input = Input::new(&buf[..]);
            loop {
                p.regex()
                    .search_captures_with(&mut engine.cache, &input, &mut engine.caps);
                let Some(m) = engine.caps.get_match() else {
                    break;
                };
                let span = p
                    .value_group
                    .and_then(|g| engine.caps.get_group(g))
                    .unwrap_or(m.span());
                // Only a value inside the member's value is the member's: the name is
                // context, never reported.
                if span.start >= offset {
                    let (start, end) = (
                        seg.start + span.start - offset,
                        seg.start + span.end - offset,
                    );
                    consider(rules, ri, start, end, unit, out);
                }
                let next = m.end().max(m.start() + 1);
                if next > buf.len() {
                    break;
                }
                input.set_start(next);
            }
        }
    }
}
