//! Hits: where each rule may match. One keyword pass (eight lanes), `memchr` for the
//! one-byte keywords and trigger bytes, and digit runs for the digit group; every hit
//! opens a window ([`super::window`]) for the rules it belongs to.

use super::window::{Cursor, digit_runs, segment_starts};
use super::{Scratch, accepts_in};
use crate::detect::compile::alphabet::is_word_byte;
use crate::detect::compile::stands_as_name;
use crate::detect::{Matcher, RuleSet};
use crate::formats::Unit;
use regex_automata::{Input, PatternSet};

/// Opens the windows of every rule (or of `only`) from the hits in `unit`.
pub(super) fn collect_windows(
    rules: &RuleSet,
    unit: &Unit,
    scratch: &mut Scratch,
    only: Option<usize>,
) {
    let text = &unit.text;
    scratch.reset(rules.rules.len());
    segment_starts(unit, &mut scratch.seg_starts);
    let wanted = |r: usize| only.is_none_or(|o| o == r);
    let windows = &mut scratch.windows;
    let starts = &scratch.seg_starts;
    let mut at = Cursor::new(unit, starts);
    let mut hit = |r: usize, hs: usize, he: usize, check_bytes: bool| {
        if wanted(r)
            && let Matcher::Regex(p) = &rules.rules[r].matcher
            && (!check_bytes || p.facts().alphabet.contains_all(&text[hs..he]))
        {
            windows.at(r).add(&mut at, hs, he, p.facts().reach, true);
        }
    };
    if let Some(keywords) = &rules.prefilter {
        keywords.for_each(text, &mut scratch.lanes, |pattern, start, end| {
            // A provider's word inside a longer one (`coherence`, `rookTable`) cannot
            // start a `near` rule's match, nor can a keyword with no operator and value
            // after it start an assigned value's (`work together`, `the key idea`):
            // decided here, before any window opens.
            let mut as_name = None;
            for owner in &rules.keyword_owners[pattern] {
                if owner.name_word
                    && !*as_name.get_or_insert_with(|| stands_as_name(text, start, end))
                {
                    continue;
                }
                let rule = &rules.rules[owner.rule];
                // A `near` rule promises it of its provider words only.
                if let Some(a) = &rule.assigned
                    && (owner.name_word || rule.near.is_empty())
                    && !a.can_follow(text, start, end)
                {
                    continue;
                }
                hit(owner.rule, start, end, owner.check_bytes);
            }
        });
    }
    for (byte, owners) in &rules.byte_keywords {
        let upper = byte.to_ascii_uppercase();
        for pos in memchr::memchr2_iter(*byte, upper, text) {
            let next = text.get(pos + 1).copied();
            for &r in owners {
                // Most `:` in text start no path or address: what follows says so.
                if let Matcher::Regex(p) = &rules.rules[r].matcher
                    && !p.facts().wakes_at(text[pos], next)
                {
                    continue;
                }
                hit(r, pos, pos + 1, false);
            }
        }
    }
    for &r in &rules.always_rules {
        if wanted(r) {
            windows.at(r).push_all(text.len());
        }
    }
    if let Some(group) = &rules.digits
        && group.rules.iter().any(|&r| wanted(r))
    {
        // Plain ranges, not windows: the group's search only decides which members get
        // windows (see `digit_candidates`), so it needs no per-run line bookkeeping (it
        // cost 2.6% of a scan's instructions).
        let n = group.reach.span();
        let ranges = &mut scratch.digit_ranges;
        ranges.clear();
        // Ranges of neighbouring values share only the separator between them; merged,
        // each value's range would grow to hold the other.
        let mut push = |lo: usize, hi: usize, digits_only: Option<usize>| match ranges.last_mut() {
            Some(last) if lo + 1 < last.hi => {
                last.hi = last.hi.max(hi);
                last.digits_only = None;
            }
            _ => ranges.push(DigitRange {
                lo,
                hi,
                digits_only,
            }),
        };
        match group.lead {
            // Every match starts at a word boundary at most `k` bytes before its first
            // digit: only runs with such a boundary can begin one, and the match lies
            // between that boundary's byte and `n` bytes on.
            Some(k) => {
                let mut at = Cursor::new(unit, &scratch.seg_starts);
                let filter = group.starts.as_ref();
                let cache = &mut scratch.digit_start_cache;
                for (start, end) in digit_runs(text).filter(|&(s, _)| opens_at_boundary(text, s, k))
                {
                    let (mut lo, mut hi) = (start.saturating_sub(k + 1), start + n);
                    if let Some(f) = filter {
                        let cache = cache.get_or_insert_with(|| f.create_cache());
                        if !f.may_start(cache, text, start, (start + n).min(text.len())) {
                            continue;
                        }
                    }
                    let mut digits_only = None;
                    // A match lies in its segment, boundary bytes aside: a JSON number's
                    // range is the number and its two separators.
                    if let Some(seg) = at.segment(start) {
                        let s = &unit.segments[seg];
                        lo = lo.max(s.start.saturating_sub(1));
                        hi = hi.min(s.end + 1);
                        digits_only = (s.start == start && s.end == end).then_some(seg);
                    }
                    push(lo, hi.min(text.len()), digits_only);
                }
            }
            None => {
                for (start, end) in digit_runs(text) {
                    push(start.saturating_sub(n), (end + n).min(text.len()), None);
                }
            }
        }
        digit_candidates(rules, unit, scratch, &wanted);
    }
}

/// Where the digit group searches: `lo..hi` of the unit's text.
#[derive(Debug, Clone, Copy)]
pub(super) struct DigitRange {
    lo: usize,
    hi: usize,
    /// The range's segment when it is one run of digits and nothing else.
    digits_only: Option<usize>,
}

/// Whether the digit run starting at `start` can hold a match's first digit: a
/// non-word byte (or the text's start) at most `k` bytes before it, with no digit in
/// between.
fn opens_at_boundary(text: &[u8], start: usize, k: usize) -> bool {
    for back in 1..=k + 1 {
        let Some(at) = start.checked_sub(back) else {
            return true;
        };
        let b = text[at];
        if b.is_ascii_digit() {
            return false;
        }
        if !is_word_byte(b) {
            return true;
        }
    }
    false
}

/// Decides which digit rules run where. Ranges around boundary runs (`group.lead`):
/// one overlapping pass per range names the members that match in it, and the range is
/// their window. Otherwise the ranges can be long (every run, merged): a leftmost joint
/// search finds each place, and `which` names the members around it.
fn digit_candidates(
    rules: &RuleSet,
    unit: &Unit,
    scratch: &mut Scratch,
    wanted: &dyn Fn(usize) -> bool,
) {
    let Some(group) = &rules.digits else {
        return;
    };
    if scratch.digit_ranges.is_empty() {
        return;
    }
    let Scratch {
        windows,
        digit_ranges,
        digit_cache,
        digit_members,
        digit_which_cache,
        seg_starts,
        ..
    } = scratch;
    let cache = digit_cache.get_or_insert_with(|| group.any.create_cache());
    let which_cache = digit_which_cache.get_or_insert_with(|| group.which.create_cache());
    let members = digit_members.get_or_insert_with(|| PatternSet::new(group.any.pattern_len()));
    if group.lead.is_some() {
        // Each range holds every match through its run (see `collect_windows`): one
        // overlapping pass says which members match there, and the range is their
        // window.
        for &DigitRange {
            lo,
            hi,
            digits_only,
        } in digit_ranges.iter()
        {
            // In a segment of digits alone (a JSON number, a timestamp), a value flanked
            // by boundaries can only be the whole segment: when every member's checks
            // reject it, nothing here can be reported and the pass is not needed.
            let rejected = |r: usize| {
                let (Some(seg), Matcher::Regex(p)) = (digits_only, &rules.rules[r].matcher) else {
                    return false;
                };
                let Some((min, max)) = p.facts().bounded_value else {
                    return false;
                };
                let (s, e) = (unit.segments[seg].start, unit.segments[seg].end);
                let fits = e - s >= min && max.is_none_or(|m| e - s <= m);
                !fits || !accepts_in(rules, r, seg, s, e, unit)
            };
            if digits_only.is_some() && group.rules.iter().all(|&r| !wanted(r) || rejected(r)) {
                continue;
            }
            members.clear();
            let input = Input::new(&unit.text[..]).range(lo..hi);
            group
                .which
                .which_overlapping_matches_with(which_cache, &input, members);
            for pid in members.iter() {
                let r = group.rules[pid.as_usize()];
                if wanted(r) && !rejected(r) {
                    windows.at(r).push_span(lo, hi);
                }
            }
        }
        return;
    }
    let mut at = Cursor::new(unit, seg_starts);
    for &DigitRange { lo, hi, .. } in digit_ranges.iter() {
        let mut input = Input::new(&unit.text[..]).range(lo..hi);
        while let Some(m) = group.any.search_with(cache, &input) {
            // Which members match around here at all: usually one, so the other
            // rules' regexes never run on an epoch timestamp that looked like a CNP.
            let n = group.reach.span();
            let near = Input::new(&unit.text[..])
                .range(m.start().saturating_sub(n)..(m.end() + n).min(unit.text.len()));
            members.clear();
            group
                .which
                .which_overlapping_matches_with(which_cache, &near, members);
            for pid in members.iter() {
                let r = group.rules[pid.as_usize()];
                if wanted(r)
                    && let Matcher::Regex(p) = &rules.rules[r].matcher
                {
                    windows
                        .at(r)
                        .add(&mut at, m.start(), m.end(), p.facts().reach, false);
                }
            }
            let next = if m.is_empty() { m.end() + 1 } else { m.end() };
            if next > hi {
                break;
            }
            input.set_start(next);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::{RawMatch, detect};

    fn found(rules: &RuleSet, text: &str) -> Vec<(String, String)> {
        let mut unit = Unit::default();
        for line in text.split('\n') {
            unit.push_plain(line.as_bytes(), 0, None);
        }
        let mut out: Vec<RawMatch> = Vec::new();
        detect(rules, &unit, &mut rules.take_scratch(), &mut out);
        let mut got: Vec<(String, String)> = out
            .iter()
            .map(|m| {
                let value = String::from_utf8_lossy(&unit.text[m.start..m.end]).into_owned();
                (rules.rules[m.rule].id.clone(), value)
            })
            .collect();
        got.sort();
        got
    }

    /// A value alone in its segment (a JSON number) is judged without a search: a valid
    /// card or CNP is still reported, a timestamp is not.
    #[test]
    fn numbers_alone_in_their_segment() {
        let rules = RuleSet::builtin().expect("built-in rules");
        let ids = |text: &str| -> Vec<String> {
            found(&rules, text).into_iter().map(|(id, _)| id).collect()
        };
        assert_eq!(ids("4111111111111111"), ["pii.payment_card"]);
        assert_eq!(ids("x\n1800101221144\ny"), ["pii.ro_cnp"]);
        assert!(ids("1700000000137\n1734567890120").is_empty());
    }

    /// Searching only around runs that open at a boundary must find what searching
    /// around every run finds: every digit rule's own examples, set among hex digests,
    /// ids and timestamps whose runs continue words.
    #[test]
    fn boundary_runs_find_what_every_run_finds() {
        let anchored = RuleSet::builtin().expect("built-in rules");
        assert!(
            anchored.digits.as_ref().is_some_and(|g| g.lead.is_some()),
            "the built-in digit rules all start at a boundary"
        );
        let mut every_run = RuleSet::builtin().expect("built-in rules");
        if let Some(group) = every_run.digits.as_mut() {
            group.lead = None;
        }
        let members = anchored
            .digits
            .as_ref()
            .map(|g| g.rules.clone())
            .unwrap_or_default();
        let contexts = [
            ("", ""),
            (
                "sha256:5feceb66ffc86f38d952786c6d ",
                " 3fa85f64-5717-4562-b3fc-2c963f66afa6",
            ),
            ("case-00000050-V0-se-000 ", " t_emitted_ms 1700000000137"),
            ("(", ")"),
            ("x=", ";"),
            ("a7f3e9", "b2c4"),
        ];
        let mut seen = 0;
        for &r in &members {
            for example in &anchored.rules[r].examples.matches {
                for (c, (before, after)) in contexts.iter().enumerate() {
                    let text = format!("{before}{example}{after}\nnext {example} line");
                    let want = found(&every_run, &text);
                    // Named by rule and context: a failure prints no example value.
                    let id = &anchored.rules[r].id;
                    assert!(found(&anchored, &text) == want, "{id}, context {c}");
                    seen += usize::from(want.iter().any(|(id, _)| *id == anchored.rules[r].id));
                }
            }
        }
        assert!(
            seen >= members.len() * 2,
            "the examples were found ({seen})"
        );
    }
}
