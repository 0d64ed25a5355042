//! One rule's regex over a window of a unit, and the checks each candidate span passes
//! (entropy floor, allow list, validator) before it is a match. A worker keeps each
//! rule's search state in a [`Slot`], made on first use.

use super::compile::pattern::Pattern;
use super::validators::{Candidate, entropy};
use super::{RawMatch, RuleSet, fallback};
use crate::formats::Unit;
use regex_automata::Input;
use regex_automata::meta::{Cache, Regex};
use regex_automata::util::captures::Captures;

pub(super) struct Engine {
    pub(super) cache: Cache,
    pub(super) caps: Captures,
}

/// One rule's search state in a worker, each part made on first use: most rules never
/// run in a given worker, and a gated rule's own regex seldom does. Boxed: a regex
/// cache is 1.4 KB before it holds anything, and a worker has a slot for every rule.
#[derive(Default)]
pub(super) struct Slot {
    engine: Option<Box<Engine>>,
    /// For the rule's gate ([`Pattern::gate`]).
    gate: Option<Box<Cache>>,
}

impl Slot {
    pub(super) fn engine(&mut self, re: &Regex) -> &mut Engine {
        self.engine.get_or_insert_with(|| {
            Box::new(Engine {
                cache: re.create_cache(),
                caps: re.create_captures(),
            })
        })
    }

    /// Whether `input` may hold a match of `p`: its gate matches there, or it has none.
    fn passes(&mut self, p: &Pattern, input: Input<'_>) -> bool {
        let Some(gate) = p.gate() else {
            return true;
        };
        let cache = self
            .gate
            .get_or_insert_with(|| Box::new(gate.create_cache()));
        gate.search_half_with(cache, &input.earliest(true))
            .is_some()
    }
}

/// Every match of `p` inside `window` of `hay`; look-around sees the bytes around it.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_regex(
    rules: &RuleSet,
    ri: usize,
    p: &Pattern,
    slot: &mut Slot,
    hay: &[u8],
    window: (usize, usize),
    base: usize,
    unit: &Unit,
    out: &mut Vec<RawMatch>,
) {
    let (lo, hi) = window;
    if p.facts()
        .required
        .is_some_and(|r| !r.found_in(&hay[lo..hi]))
    {
        return;
    }
    if !slot.passes(p, Input::new(hay).range(lo..hi)) {
        return;
    }
    let engine = slot.engine(p.regex());
    let mut input = Input::new(hay).range(lo..hi);
    // Where the last fallback searched from inside a rejected value ended: once per
    // fallback, so a run of names before one (`token=token=…token= ||`) stays linear.
    let mut fallback_at = None;
    loop {
        p.regex()
            .search_captures_with(&mut engine.cache, &input, &mut engine.caps);
        let Some(m) = engine.caps.get_match() else {
            break;
        };
        let mut next = if m.is_empty() { m.end() + 1 } else { m.end() };
        // Windows of neighbouring values can merge; a greedy match may then run on
        // into the next value, which `consider` rejects. Search again within the value
        // it started in, and go on from that value's end, so neither value loses its
        // own match.
        let value = p
            .facts()
            .value_group
            .and_then(|g| engine.caps.get_group(g))
            .unwrap_or(m.span());
        let seg_end = (base == 0)
            .then(|| unit.segment_at(value.start))
            .flatten()
            .map(|s| unit.segments[s].end)
            .filter(|&end| value.end > end);
        if let Some(end) = seg_end {
            let within = Input::new(hay).range(m.start()..(end + 1).min(hi));
            p.regex()
                .search_captures_with(&mut engine.cache, &within, &mut engine.caps);
            next = end.max(m.start() + 1);
        }
        if let Some(m) = engine.caps.get_match() {
            let span = p
                .facts()
                .value_group
                .and_then(|g| engine.caps.get_group(g))
                .unwrap_or(m.span());
            let found = out.len();
            consider(rules, ri, base + span.start, base + span.end, unit, out);
            // The byte a match consumed after its value (`(?:[^\w-]|$)`) may be the one
            // the next match must consume before its own: two values one space (or one
            // separator) apart. Go on from the value's end, not the match's.
            if seg_end.is_none() {
                next = next.min(span.end.max(m.start() + 1));
                // A rejected value that is a setting's name with a fallback after it
                // holds the name of the value that follows.
                if out.len() == found
                    && fallback_at != Some(span.end)
                    && !at_longest(p, span.len())
                    && fallback::follows(hay, span.end)
                {
                    fallback_at = Some(span.end);
                    next = next.min(span.start.max(m.start()) + 1);
                }
            }
        }
        if next > hi {
            break;
        }
        input.set_start(next);
    }
}

/// Whether a value of `len` bytes is as long as `p`'s value may be: cut there by the
/// rule, not ended by its text, so what follows it is no operator after a name (a
/// password rule's value may hold `|`).
fn at_longest(p: &Pattern, len: usize) -> bool {
    p.facts().value_max.is_some_and(|max| len >= max)
}

/// Applies a rule's entropy floor, allow list and validator to one candidate span.
pub(super) fn consider(
    rules: &RuleSet,
    ri: usize,
    start: usize,
    end: usize,
    unit: &Unit,
    out: &mut Vec<RawMatch>,
) {
    if let Some(seg) = accepts(rules, ri, start, end, unit) {
        out.push(RawMatch {
            rule: ri,
            seg,
            start,
            end,
        });
    }
}

/// The segment of `start..end` if rule `ri` would report that span as its value: it
/// lies in one segment and passes the entropy floor, allow list and validator.
fn accepts(rules: &RuleSet, ri: usize, start: usize, end: usize, unit: &Unit) -> Option<usize> {
    if start >= end {
        return None;
    }
    let seg = unit.segment_at(start)?;
    // Past the segment's end, the span holds two JSON values: not one value.
    (end <= unit.segments[seg].end && accepts_in(rules, ri, seg, start, end, unit)).then_some(seg)
}

/// [`accepts`] for a span known to lie in segment `seg`.
pub(crate) fn accepts_in(
    rules: &RuleSet,
    ri: usize,
    seg: usize,
    start: usize,
    end: usize,
    unit: &Unit,
) -> bool {
    let s = &unit.segments[seg];
    let rule = &rules.rules[ri];
    let value = &unit.text[start..end];
    if rule.entropy.is_some_and(|floor| entropy(value) < floor) {
        return false;
    }
    if let Some(v) = rule.validator {
        let candidate = Candidate {
            value,
            before: &unit.text[s.start..start],
            after: &unit.text[end..s.end],
            key: s.node.and_then(|n| unit.paths.last_key(n)),
        };
        if !v.check(&candidate, &rules.domains) {
            return false;
        }
    }
    // Last: an allow list is a set of regexes, dearer than most validators.
    !rule.allow.iter().any(|a| a.is_match(value))
}
