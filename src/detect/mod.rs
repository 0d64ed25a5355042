//! Finding spans in decoded text. Detection sees a [`Unit`] and a [`RuleSet`] and returns
//! [`RawMatch`]es; it never prints, never formats a report, never reads a file.
//!
//! Per unit: one Aho-Corasick pass over the text marks which rules have a keyword
//! present; only those rules (and the few without keywords) run their regex, once over
//! the whole unit. Field-limited rules run per JSON value whose pointer they match.

pub mod denylist;
pub mod domains;
mod email;
mod hostname;
mod ip;
mod local_path;
mod pii;
pub mod secret;
pub mod validators;

use crate::formats::Unit;
use crate::rules::{Matcher, RuleSet};
use regex::bytes::Regex;
use validators::{Candidate, entropy};

/// A rule hit: `start..end` is the sensitive value's span in [`Unit::text`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawMatch {
    pub rule: usize,
    pub seg: usize,
    pub start: usize,
    pub end: usize,
}

/// Reusable per-thread buffers.
#[derive(Default)]
pub struct Scratch {
    hit: Vec<bool>,
}

pub fn detect(rules: &RuleSet, unit: &Unit, scratch: &mut Scratch, out: &mut Vec<RawMatch>) {
    let first = out.len();
    let text = &unit.text;
    scratch.hit.clear();
    scratch.hit.resize(rules.rules.len(), false);
    if let Some(ac) = &rules.prefilter {
        for m in ac.find_overlapping_iter(text) {
            for &r in &rules.keyword_owners[m.pattern().as_usize()] {
                scratch.hit[r] = true;
            }
        }
    }
    for (byte, owners) in &rules.byte_keywords {
        let found = if byte.is_ascii_alphabetic() {
            memchr::memchr2(*byte, byte.to_ascii_uppercase(), text).is_some()
        } else {
            memchr::memchr(*byte, text).is_some()
        };
        if found {
            for &r in owners {
                scratch.hit[r] = true;
            }
        }
    }
    match &rules.unfiltered_set {
        Some(set) => {
            for i in set.matches(text).iter() {
                scratch.hit[rules.unfiltered[i]] = true;
            }
        }
        None => {
            for &r in &rules.unfiltered {
                scratch.hit[r] = true;
            }
        }
    }
    for (ri, rule) in rules.rules.iter().enumerate() {
        if !scratch.hit[ri] || rule.fields.is_some() {
            continue;
        }
        if let Matcher::Regex(re) = &rule.matcher {
            run_regex(rules, ri, re, text, 0, unit, out);
        }
    }
    if !rules.field_rules.is_empty() {
        detect_fields(rules, unit, out);
    }
    if let Some(deny) = &rules.denylist
        && let Some(ri) = rules
            .rules
            .iter()
            .position(|r| matches!(r.matcher, Matcher::Denylist))
    {
        for (start, end) in deny.find(text) {
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

fn detect_fields(rules: &RuleSet, unit: &Unit, out: &mut Vec<RawMatch>) {
    for seg in &unit.segments {
        let Some(node) = seg.node.filter(|_| !seg.is_key) else {
            continue;
        };
        let key = unit.paths.last_key(node);
        let mut pointer: Option<String> = None;
        for &ri in &rules.field_rules {
            let rule = &rules.rules[ri];
            let (Some(filter), Matcher::Regex(re)) = (&rule.fields, &rule.matcher) else {
                continue;
            };
            if !filter.may_match_key(key) {
                continue;
            }
            let p = pointer.get_or_insert_with(|| unit.paths.pointer(node));
            if filter.matches(p) {
                let hay = &unit.text[seg.start..seg.end];
                run_regex(rules, ri, re, hay, seg.start, unit, out);
            }
        }
    }
}

fn run_regex(
    rules: &RuleSet,
    ri: usize,
    re: &Regex,
    hay: &[u8],
    base: usize,
    unit: &Unit,
    out: &mut Vec<RawMatch>,
) {
    match rules.rules[ri].value_group {
        Some(g) => {
            for caps in re.captures_iter(hay) {
                if let Some(m) = caps.get(g).or_else(|| caps.get(0)) {
                    consider(rules, ri, base + m.start(), base + m.end(), unit, out);
                }
            }
        }
        None => {
            for m in re.find_iter(hay) {
                consider(rules, ri, base + m.start(), base + m.end(), unit, out);
            }
        }
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

/// Runs one rule alone, without overlap resolution: what `rules test` needs to ask
/// "does this rule fire on this example".
pub fn detect_rule(rules: &RuleSet, ri: usize, unit: &Unit, out: &mut Vec<RawMatch>) {
    let rule = &rules.rules[ri];
    let Matcher::Regex(re) = &rule.matcher else {
        return;
    };
    match &rule.fields {
        None => run_regex(rules, ri, re, &unit.text, 0, unit, out),
        Some(filter) => {
            for seg in unit.segments.iter().filter(|s| !s.is_key) {
                let Some(node) = seg.node else { continue };
                if filter.may_match_key(unit.paths.last_key(node))
                    && filter.matches(&unit.paths.pointer(node))
                {
                    let hay = &unit.text[seg.start..seg.end];
                    run_regex(rules, ri, re, hay, seg.start, unit, out);
                }
            }
        }
    }
}
