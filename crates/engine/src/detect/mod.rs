//! Finding spans in decoded text. Detection sees a [`Unit`] and a [`RuleSet`] and returns
//! [`RawMatch`]es; it never prints, never formats a report, never reads a file.
//!
//! Per unit: one Aho-Corasick pass over the text finds every keyword, `memchr` finds the
//! one-byte keywords and trigger bytes, and one block scan finds digit runs. Each hit
//! opens a window for the rules it belongs to ([`window`]); a rule's regex then runs
//! only inside its windows. Field-limited rules run per JSON value whose pointer they
//! match.

pub mod compile;
pub mod confidence;
pub mod denylist;
pub mod domains;
mod email;
mod fallback;
mod hits;
mod hostname;
mod ip;
pub mod keywords;
mod labels;
mod local_path;
mod members;
pub(crate) mod names;
mod pii;
mod search;
pub mod secret;
mod things;
pub mod validators;
pub mod verdicts;
pub mod vocabulary;
mod window;

use crate::formats::Unit;
use compile::pattern::Pattern;
pub use compile::{Matcher, Rule, RuleSet, Settings};
use regex_automata::PatternSet;
use regex_automata::meta::Cache;
pub(crate) use search::accepts_in;
use search::{Slot, consider, run_regex};
use window::RuleWindows;

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
    windows: RuleWindows,
    /// The rules a unit opened windows for, as searched.
    searched: Vec<usize>,
    engines: Vec<Slot>,
    /// Ranges around digit runs, for the digit group's joint search.
    digit_ranges: Vec<hits::DigitRange>,
    digit_cache: Option<Cache>,
    digit_members: Option<PatternSet>,
    digit_which_cache: Option<Cache>,
    digit_start_cache: Option<regex_automata::hybrid::dfa::Cache>,
    lanes: keywords::LaneHits,
    seg_starts: Vec<usize>,
    /// Member rules for one JSON member, and its `name=value` text.
    member_rules: Vec<usize>,
    member_text: Vec<u8>,
    /// Provider labels of a unit's records (see [`labels`]).
    labels: Vec<labels::Label>,
    naming_keys: labels::NamingKeys,
    /// Object keys judged for leaving out of units, kept with the scratch so they
    /// outlive one file (see `scan::keys`).
    pub key_verdicts: verdicts::Verdicts,
    /// A unit's buffers, lent to the file scanner holding this scratch: a unit grown
    /// afresh for every file cost a percent or two of a scan in `realloc` copies.
    pub unit: Unit,
}

impl Scratch {
    fn reset(&mut self, rules: usize) {
        self.windows.reset(rules);
        self.engines.resize_with(rules, Slot::default);
        self.digit_ranges.clear();
    }
}

/// Whether anything in `text` would open a search window for some rule: a keyword
/// (whatever its owner's alphabet), a trigger byte, a digit when digit rules exist, a
/// denylist term. Stricter than detection itself, on purpose (see `scan::keys`).
pub fn has_hits(rules: &RuleSet, text: &[u8]) -> bool {
    let mut any = false;
    if let Some(keywords) = &rules.prefilter {
        keywords.for_each(text, &mut keywords::LaneHits::default(), |_, _, _| {
            any = true
        });
    }
    any || rules
        .byte_keywords
        .iter()
        .any(|(b, _)| memchr::memchr2(*b, b.to_ascii_uppercase(), text).is_some())
        || (rules.digits.is_some() && text.iter().any(u8::is_ascii_digit))
        || rules
            .denylist
            .as_ref()
            .is_some_and(|d| d.find(text).next().is_some())
}

pub fn detect(rules: &RuleSet, unit: &Unit, scratch: &mut Scratch, out: &mut Vec<RawMatch>) {
    let first = out.len();
    hits::collect_windows(rules, unit, scratch, None);
    let mut open = std::mem::take(&mut scratch.searched);
    scratch.windows.open_rules(&mut open);
    for &ri in &open {
        let rule = &rules.rules[ri];
        if rule.fields.is_none()
            && let Matcher::Regex(p) = &rule.matcher
        {
            search_windows(rules, ri, p, unit, scratch, out);
        }
    }
    scratch.searched = open;
    if !rules.field_rules.is_empty() {
        detect_fields(rules, unit, scratch, out, None);
    }
    members::detect_members(rules, unit, scratch, out);
    labels::detect_labelled(rules, unit, scratch, out);
    labels::detect_wrapped(rules, unit, scratch, out);
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

fn search_windows(
    rules: &RuleSet,
    ri: usize,
    p: &Pattern,
    unit: &Unit,
    scratch: &mut Scratch,
    out: &mut Vec<RawMatch>,
) {
    let Some(windows) = scratch.windows.get(ri) else {
        return;
    };
    let slot = &mut scratch.engines[ri];
    for &(lo, hi) in windows.finish() {
        run_regex(rules, ri, p, slot, &unit.text, (lo, hi), 0, unit, out);
    }
}

/// Field-limited rules (or only rule `only`), each on the values its globs select.
fn detect_fields(
    rules: &RuleSet,
    unit: &Unit,
    scratch: &mut Scratch,
    out: &mut Vec<RawMatch>,
    only: Option<usize>,
) {
    scratch.reset(rules.rules.len());
    for seg in &unit.segments {
        let Some(node) = seg.node.filter(|_| !seg.is_key) else {
            continue;
        };
        let key = unit.paths.last_key(node);
        if !rules.field_keys.may_match(key) {
            continue;
        }
        let mut pointer: Option<String> = None;
        for &ri in rules
            .field_rules
            .iter()
            .filter(|&&r| only.is_none_or(|o| o == r))
        {
            let rule = &rules.rules[ri];
            let (Some(filter), Matcher::Regex(p)) = (&rule.fields, &rule.matcher) else {
                continue;
            };
            if let Some((min, max)) = p.facts().whole_len
                && (seg.end - seg.start < min || max.is_some_and(|m| seg.end - seg.start > m))
            {
                continue;
            }
            if !filter.may_match_key(key) {
                continue;
            }
            let ptr = pointer.get_or_insert_with(|| unit.paths.pointer(node));
            if filter.matches(ptr) {
                // The value alone is the haystack: `^` and `$` mean the value's ends.
                let hay = &unit.text[seg.start..seg.end];
                run_regex(
                    rules,
                    ri,
                    p,
                    &mut scratch.engines[ri],
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

/// Within one category, keeps the longest of overlapping matches (`file:///home/x`
/// over `/home/x`; a connection string over the generic password rule), a provider's
/// own rule over a generic or provider-less one of the same span, and marks the rest with
/// `rule = usize::MAX`.
fn resolve_overlaps(rules: &RuleSet, matches: &mut [RawMatch]) {
    let generic = |m: &RawMatch| {
        let id = &rules.rules[m.rule].id;
        id.contains("generic") || id.ends_with("_assignment") || id.ends_with("_field")
    };
    matches.sort_by_key(|m| {
        (
            rules.rules[m.rule].category,
            m.start,
            std::cmp::Reverse(m.end),
            generic(m),
            rules.rules[m.rule].provider.is_none(),
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
            hits::collect_windows(rules, unit, &mut scratch, Some(ri));
            search_windows(rules, ri, p, unit, &mut scratch, out);
        }
        Some(_) => detect_fields(rules, unit, &mut scratch, out, Some(ri)),
    }
}

/// Whether `p` matches anywhere in `unit`, windows aside: lets `rules test` tell a
/// rule whose keyword lies outside its match from one whose regex does not match.
pub fn matches_anywhere(p: &Pattern, unit: &Unit) -> bool {
    p.regex().is_match(&unit.text[..])
}
