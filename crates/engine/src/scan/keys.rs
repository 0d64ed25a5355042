//! Object keys come back on every record of a dataset: `record_type`, `case_id`,
//! `t_emitted_ms`. A key in which no rule can start a search is judged so once per
//! worker and then left out of the text detection reads (a seventh of a record's
//! strings), with a two-character stand-in in its place ([`Unit::push_key_gap`]).
//!
//! Why leaving it out changes no finding: every search window lies within one segment
//! and the separators around it (`detect::window`), so a key that opens no window is
//! read only by its neighbours' look-around, one character across a separator, which
//! the stand-in keeps. "Opens no window" is judged on the key and on the stand-in alone,
//! strictly: no keyword, trigger byte or digit at all, no denylist term, no decoded
//! layer, no finding. The rule set must allow it too (`RuleSet::key_gaps`): no rule
//! searching whole units, digit ranges bounded by their segment, no keyword holding a
//! separator. `tests/it/keys.rs` checks findings are the same with and without gaps.

use super::layers;
use crate::detect::RuleSet;
use crate::detect::verdicts::MAX_KEY_LEN;
use crate::detect::{self, Scratch};
use crate::formats::json::KeyFilter;
use crate::formats::{Unit, key_stand_in};

/// New keys judged per file at most: a file of ever-new keys (generated, or hostile)
/// costs a judgement each, so past this its keys are kept as they come.
pub(super) const PROBES_PER_FILE: u32 = 256;

/// Skips the keys known to open nothing, judging new ones on first sight.
pub(super) struct KeyProbe<'a> {
    pub rules: &'a RuleSet,
    pub scratch: &'a mut Scratch,
    pub probes_left: &'a mut u32,
}

impl KeyFilter for KeyProbe<'_> {
    fn skip(&mut self, key: &str) -> bool {
        if key.len() > MAX_KEY_LEN {
            return false;
        }
        if let Some(skip) = self.scratch.key_verdicts.get(key.as_bytes()) {
            return skip;
        }
        // A verdict the table cannot keep would be paid for on every sighting, and
        // one on a key never seen again buys nothing.
        if *self.probes_left == 0
            || self.scratch.key_verdicts.is_full()
            || !self.scratch.key_verdicts.sighted_again(key.as_bytes())
        {
            return false;
        }
        *self.probes_left -= 1;
        let skip = opens_nothing(self.rules, self.scratch, key);
        self.scratch.key_verdicts.insert(key.as_bytes(), skip);
        skip
    }
}

/// Whether `key` can be left out: shorter as its stand-in, and neither opens anything.
fn opens_nothing(rules: &RuleSet, scratch: &mut Scratch, key: &str) -> bool {
    let (first, last) = key_stand_in(key);
    if first.len() + last.len() >= key.len() {
        return false;
    }
    let stand_in = format!("{first}{last}");
    quiet(rules, scratch, key) && quiet(rules, scratch, &stand_in)
}

/// `text` alone: nothing any rule starts from, no decoded layer, no finding.
fn quiet(rules: &RuleSet, scratch: &mut Scratch, text: &str) -> bool {
    if detect::has_hits(rules, text.as_bytes()) {
        return false;
    }
    let mut unit = Unit::default();
    unit.push_plain(text.as_bytes(), 0, None);
    let (mut layers_seen, mut found) = (0, Vec::new());
    // Keys are short: every layer of one fits far within any budget.
    let mut budget = usize::MAX;
    layers::walk(&unit, &mut budget, &mut |layer| {
        layers_seen += 1;
        detect::detect(rules, layer, scratch, &mut found);
    });
    layers_seen == 1 && found.is_empty()
}
