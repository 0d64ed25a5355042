//! Finding spans in decoded text. Detection sees a [`Unit`] and a [`RuleSet`] and returns
//! [`RawMatch`]es; it never prints, never formats a report, never reads a file.
//!
//! Per unit: one Aho-Corasick pass over the text finds every keyword, `memchr` finds the
//! one-byte keywords and trigger bytes, and one block scan finds digit runs. Each hit
//! opens a window for the rules it belongs to ([`window`]); a rule's regex then runs
//! only inside its windows. Field-limited rules run per JSON value whose pointer they
//! match.

pub mod denylist;
pub mod domains;
mod email;
mod hostname;
mod ip;
pub mod keywords;
mod local_path;
mod pii;
pub mod secret;
pub mod validators;
mod window;

use crate::formats::Unit;
use crate::rules::pattern::Pattern;
use crate::rules::{Matcher, RuleSet};
use regex_automata::meta::{Cache, Regex};
use regex_automata::util::captures::Captures;
use regex_automata::{Input, PatternSet};
use validators::{Candidate, entropy};
use window::{Cursor, Windows, digit_runs};

/// A rule hit: `start..end` is the sensitive value's span in [`Unit::text`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawMatch {
    pub rule: usize,
    pub seg: usize,
    pub start: usize,
    pub end: usize,
}

/// Reusable per-thread state: windows per rule and each regex's search cache, so the
/// hot path allocates nothing and shares no lock between threads.
#[derive(Default)]
pub struct Scratch {
    windows: Vec<Windows>,
    engines: Vec<Option<Engine>>,
    digit_windows: Windows,
    digit_cache: Option<Cache>,
    digit_members: Option<PatternSet>,
    digit_which_cache: Option<Cache>,
    lanes: keywords::LaneHits,
}

struct Engine {
    cache: Cache,
    caps: Captures,
}

impl Scratch {
    fn reset(&mut self, rules: usize) {
        self.windows.resize_with(rules, Windows::default);
        self.engines.resize_with(rules, || None);
        self.windows.iter_mut().for_each(Windows::clear);
        self.digit_windows.clear();
    }
}

pub fn detect(rules: &RuleSet, unit: &Unit, scratch: &mut Scratch, out: &mut Vec<RawMatch>) {
    let first = out.len();
    collect_windows(rules, unit, scratch, None);
    for (ri, rule) in rules.rules.iter().enumerate() {
        if rule.fields.is_none()
            && let Matcher::Regex(p) = &rule.matcher
        {
            search_windows(rules, ri, p, unit, scratch, out);
        }
    }
    if !rules.field_rules.is_empty() {
        detect_fields(rules, unit, scratch, out);
    }
    if let Some(deny) = &rules.denylist
        && let Some(ri) = rules
            .rules
            .iter()
            .position(|r| matches!(r.matcher, Matcher::Denylist))
    {
        for (start, end) in deny.find(&unit.text) {
            if let Some(seg) = unit.segment_at(start)
                && end <= unit.segments[seg].end
            {
                out.push(RawMatch {
                    rule: ri,
                    seg,
                    start,
                    end,
                });
            }
        }
    }
    resolve_overlaps(rules, &mut out[first..]);
    let mut kept = first;
    for i in first..out.len() {
        if out[i].rule != usize::MAX {
            out[kept] = out[i];
            kept += 1;
        }
    }
    out.truncate(kept);
}

/// Opens the windows of every rule (or of `only`) from the hits in `unit`.
fn collect_windows(rules: &RuleSet, unit: &Unit, scratch: &mut Scratch, only: Option<usize>) {
    let text = &unit.text;
    scratch.reset(rules.rules.len());
    let wanted = |r: usize| only.is_none_or(|o| o == r);
    let windows = &mut scratch.windows;
    let mut at = Cursor::new(unit);
    let mut hit = |r: usize, hs: usize, he: usize| {
        if wanted(r)
            && let Matcher::Regex(p) = &rules.rules[r].matcher
        {
            windows[r].add(&mut at, hs, he, p.reach, true);
        }
    };
    if let Some(keywords) = &rules.prefilter {
        keywords.for_each(text, &mut scratch.lanes, |pattern, start, end| {
            for &r in &rules.keyword_owners[pattern] {
                hit(r, start, end);
            }
        });
    }
    for (byte, owners) in &rules.byte_keywords {
        let upper = byte.to_ascii_uppercase();
        for pos in memchr::memchr2_iter(*byte, upper, text) {
            for &r in owners {
                hit(r, pos, pos + 1);
            }
        }
    }
    for &r in &rules.always_rules {
        if wanted(r) {
            windows[r].push_all(text.len());
        }
    }
    if let Some(group) = &rules.digits
        && group.rules.iter().any(|&r| wanted(r))
    {
        let mut at = Cursor::new(unit);
        for (start, end) in digit_runs(text) {
            scratch
                .digit_windows
                .add(&mut at, start, end, group.reach, false);
        }
        digit_candidates(rules, unit, scratch, &wanted);
    }
}

/// Runs the digit rules' joint regex over the digit windows; each rule then gets a
/// window around every joint match (a rule's own match may overlap another's).
fn digit_candidates(
    rules: &RuleSet,
    unit: &Unit,
    scratch: &mut Scratch,
    wanted: &dyn Fn(usize) -> bool,
) {
    let Some(group) = &rules.digits else {
        return;
    };
    if scratch.digit_windows.is_empty() {
        return;
    }
    let Scratch {
        windows,
        digit_windows,
        digit_cache,
        digit_members,
        digit_which_cache,
        ..
    } = scratch;
    let cache = digit_cache.get_or_insert_with(|| group.any.create_cache());
    let which_cache = digit_which_cache.get_or_insert_with(|| group.which.create_cache());
    let members = digit_members.get_or_insert_with(|| PatternSet::new(group.any.pattern_len()));
    let mut at = Cursor::new(unit);
    for &(lo, hi) in digit_windows.finish() {
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
                    windows[r].add(&mut at, m.start(), m.end(), p.reach, false);
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

fn search_windows(
    rules: &RuleSet,
    ri: usize,
    p: &Pattern,
    unit: &Unit,
    scratch: &mut Scratch,
    out: &mut Vec<RawMatch>,
) {
    if scratch.windows[ri].is_empty() {
        return;
    }
    let engine = engine(&mut scratch.engines[ri], &p.regex);
    for &(lo, hi) in scratch.windows[ri].finish() {
        run_regex(rules, ri, p, engine, &unit.text, (lo, hi), 0, unit, out);
    }
}

fn engine<'a>(slot: &'a mut Option<Engine>, re: &Regex) -> &'a mut Engine {
    slot.get_or_insert_with(|| Engine {
        cache: re.create_cache(),
        caps: re.create_captures(),
    })
}

fn detect_fields(rules: &RuleSet, unit: &Unit, scratch: &mut Scratch, out: &mut Vec<RawMatch>) {
    scratch.reset(rules.rules.len());
    for seg in &unit.segments {
        let Some(node) = seg.node.filter(|_| !seg.is_key) else {
            continue;
        };
        let key = unit.paths.last_key(node);
        let mut pointer: Option<String> = None;
        for &ri in &rules.field_rules {
            let rule = &rules.rules[ri];
            let (Some(filter), Matcher::Regex(p)) = (&rule.fields, &rule.matcher) else {
                continue;
            };
            if !filter.may_match_key(key) {
                continue;
            }
            let ptr = pointer.get_or_insert_with(|| unit.paths.pointer(node));
            if filter.matches(ptr) {
                // The value alone is the haystack: `^` and `$` mean the value's ends.
                let hay = &unit.text[seg.start..seg.end];
                let engine = engine(&mut scratch.engines[ri], &p.regex);
                run_regex(
                    rules,
                    ri,
                    p,
                    engine,
                    hay,
                    (0, hay.len()),
                    seg.start,
                    unit,
                    out,
                );
            }
        }
    }
}

/// Every match of `p` inside `window` of `hay`; look-around sees the bytes around it.
#[allow(clippy::too_many_arguments)]
fn run_regex(
    rules: &RuleSet,
    ri: usize,
    p: &Pattern,
    engine: &mut Engine,
    hay: &[u8],
    window: (usize, usize),
    base: usize,
    unit: &Unit,
    out: &mut Vec<RawMatch>,
) {
    let (lo, hi) = window;
    let mut input = Input::new(hay).range(lo..hi);
    loop {
        p.regex
            .search_captures_with(&mut engine.cache, &input, &mut engine.caps);
        let Some(m) = engine.caps.get_match() else {
            break;
        };
        let span = p
            .value_group
            .and_then(|g| engine.caps.get_group(g))
            .unwrap_or(m.span());
        consider(rules, ri, base + span.start, base + span.end, unit, out);
        let next = if m.is_empty() { m.end() + 1 } else { m.end() };
        if next > hi {
            break;
        }
        input.set_start(next);
    }
}

/// Applies a rule's entropy floor, allow list and validator to one candidate span.
fn consider(
    rules: &RuleSet,
    ri: usize,
    start: usize,
    end: usize,
    unit: &Unit,
    out: &mut Vec<RawMatch>,
) {
    if start >= end {
        return;
    }
    let Some(seg) = unit.segment_at(start) else {
        return;
    };
    let s = &unit.segments[seg];
    if end > s.end {
        return; // spans two JSON values: not one value
    }
    let rule = &rules.rules[ri];
    let value = &unit.text[start..end];
    if rule.entropy.is_some_and(|floor| entropy(value) < floor) {
        return;
    }
    if rule.allow.iter().any(|a| a.is_match(value)) {
        return;
    }
    if let Some(v) = rule.validator {
        let candidate = Candidate {
            value,
            before: &unit.text[s.start..start],
            after: &unit.text[end..s.end],
            key: s.node.and_then(|n| unit.paths.last_key(n)),
        };
        if !v.check(&candidate, &rules.domains) {
            return;
        }
    }
    out.push(RawMatch {
        rule: ri,
        seg,
        start,
        end,
    });
}

/// Within one category, keeps the longest of overlapping matches (`file:///home/x`
/// over `/home/x`; a connection string over the generic password rule) and marks the
/// rest with `rule = usize::MAX`.
fn resolve_overlaps(rules: &RuleSet, matches: &mut [RawMatch]) {
    matches.sort_by_key(|m| {
        (
            rules.rules[m.rule].category,
            m.start,
            std::cmp::Reverse(m.end),
        )
    });
    let mut last: Option<(crate::finding::Category, usize)> = None;
    for m in matches.iter_mut() {
        let cat = rules.rules[m.rule].category;
        match last {
            Some((c, end)) if c == cat && m.start < end => m.rule = usize::MAX,
            _ => last = Some((cat, m.end)),
        }
    }
}

/// Runs one rule alone, through the same windows a scan uses, without overlap
/// resolution: what `rules test` needs to ask "does this rule fire on this example".
pub fn detect_rule(rules: &RuleSet, ri: usize, unit: &Unit, out: &mut Vec<RawMatch>) {
    let rule = &rules.rules[ri];
    let Matcher::Regex(p) = &rule.matcher else {
        return;
    };
    let mut scratch = Scratch::default();
    match &rule.fields {
        None => {
            collect_windows(rules, unit, &mut scratch, Some(ri));
            search_windows(rules, ri, p, unit, &mut scratch, out);
        }
        Some(filter) => {
            scratch.reset(rules.rules.len());
            for seg in unit.segments.iter().filter(|s| !s.is_key) {
                let Some(node) = seg.node else { continue };
                if filter.may_match_key(unit.paths.last_key(node))
                    && filter.matches(&unit.paths.pointer(node))
                {
                    let hay = &unit.text[seg.start..seg.end];
                    let engine = engine(&mut scratch.engines[ri], &p.regex);
                    run_regex(
                        rules,
                        ri,
                        p,
                        engine,
                        hay,
                        (0, hay.len()),
                        seg.start,
                        unit,
                        out,
                    );
                }
            }
        }
    }
}

/// Whether `p` matches anywhere in `unit`, windows aside: lets `rules test` tell a
/// rule whose keyword lies outside its match from one whose regex does not match.
pub fn matches_anywhere(p: &Pattern, unit: &Unit) -> bool {
    p.regex.is_match(&unit.text[..])
}
