//! Object keys come back on every record of a dataset: `record_type`, `case_id`,
//! `t_emitted_ms`. A key that holds nothing to report is judged once per worker and
//! then left out of the text detection reads (a tenth of a record's strings).

use super::layers;
use crate::detect::verdicts::MAX_KEY_LEN;
use crate::detect::{self, Scratch};
use crate::formats::Unit;
use crate::formats::json::KeyFilter;
use crate::rules::RuleSet;

/// New keys judged per file at most: a file of ever-new keys (generated, or hostile)
/// costs a judgement each, so past this its keys are scanned as they come.
pub(super) const PROBES_PER_FILE: u32 = 256;

/// Skips the keys known to be clean, judging new ones on first sight.
pub(super) struct KeyProbe<'a> {
    pub rules: &'a RuleSet,
    pub scratch: &'a mut Scratch,
    pub probes_left: &'a mut u32,
}

impl KeyFilter for KeyProbe<'_> {
    fn skip(&mut self, key: &[u8]) -> bool {
        if key.len() > MAX_KEY_LEN {
            return false;
        }
        if let Some(clean) = self.scratch.key_verdicts.get(key) {
            return clean;
        }
        if *self.probes_left == 0 {
            return false;
        }
        *self.probes_left -= 1;
        let clean = is_clean(self.rules, self.scratch, key);
        self.scratch.key_verdicts.insert(key, clean);
        clean
    }
}

/// Keeps every key: when the unit is never judged (provenance checks only), its text
/// is not needed.
pub(super) struct SkipAll;

impl KeyFilter for SkipAll {
    fn skip(&mut self, _: &[u8]) -> bool {
        true
    }
}

/// Whether `key`, read alone, holds nothing any rule reports, in any decoded layer.
/// Alone is how a record reads it: a key is its own segment, and no match spans two
/// segments. Validators read a member's name only to reject (an IP under a `version`
/// key), so judging the key without one is never more lenient.
fn is_clean(rules: &RuleSet, scratch: &mut Scratch, key: &[u8]) -> bool {
    let mut unit = Unit::default();
    unit.push_plain(key, 0, None);
    let mut out = Vec::new();
    // Keys are short: every layer of one fits far within any budget.
    let mut budget = usize::MAX;
    layers::walk(&unit, &mut budget, &mut |layer| {
        detect::detect(rules, layer, scratch, &mut out);
    });
    out.is_empty()
}
