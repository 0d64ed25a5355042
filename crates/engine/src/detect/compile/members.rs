//! Keyed rules on JSON members. A rule such as "a Datadog key is 32 hex digits named
//! with `datadog` or `dd_api_key`" reads `DD_API_KEY=…` in text; in a JSON record the
//! name is a member's key and the value a separate string. Rules with `member_names`
//! also run on `name=value` of every member whose name holds one of those words.
//!
//! The same index, built over `near` rules' provider words, finds the members whose
//! value labels their record (`"provider": "dropbox-token"`, see `detect::labels`).

use super::ruleset::Rule;
use crate::error::{Error, Result};
use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

pub struct MemberIndex {
    /// Every member name word of every rule, ASCII case-insensitive.
    names: AhoCorasick,
    /// Pattern id → the member rules that own that keyword.
    owners: Vec<Vec<usize>>,
}

impl MemberIndex {
    /// Over every rule's member names.
    pub fn new(rules: &[Rule]) -> Result<Option<MemberIndex>> {
        Self::over(rules, |r| &r.member_names)
    }

    /// Over `near` rules' provider words only: a generic credential word (`token`,
    /// `password`) labelling a record says nothing about which value is one.
    pub fn labels(rules: &[Rule]) -> Result<Option<MemberIndex>> {
        Self::over(rules, |r| &r.near)
    }

    fn over(rules: &[Rule], words_of: impl Fn(&Rule) -> &[String]) -> Result<Option<MemberIndex>> {
        let mut words: Vec<String> = Vec::new();
        let mut owners: Vec<Vec<usize>> = Vec::new();
        for (i, rule) in rules.iter().enumerate() {
            for kw in words_of(rule) {
                let kw = kw.to_ascii_lowercase();
                match words.iter().position(|w| *w == kw) {
                    Some(p) => owners[p].push(i),
                    None => {
                        words.push(kw);
                        owners.push(vec![i]);
                    }
                }
            }
        }
        if words.is_empty() {
            return Ok(None);
        }
        let names = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&words)
            .map_err(|e| Error::rules("member keywords", e.to_string()))?;
        Ok(Some(MemberIndex { names, owners }))
    }

    /// The member rules whose keyword `name` holds, each once, in rule order.
    pub fn rules_for(&self, name: &[u8], out: &mut Vec<usize>) {
        out.clear();
        for m in self.names.find_overlapping_iter(name) {
            out.extend_from_slice(&self.owners[m.pattern().as_usize()]);
        }
        out.sort_unstable();
        out.dedup();
    }
}
