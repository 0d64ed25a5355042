//! Which rules a unit's bytes wake: each rule's trigger, gathered once per run.

use super::pattern::Trigger;
use super::ruleset::{KeywordOwner, Matcher, Rule};

/// What opens a search for each rule: its keywords (shared in one automaton), one
/// byte, a digit, nothing (the whole unit) or a JSON field.
pub(super) struct Triggers {
    pub(super) patterns: Vec<String>,
    pub(super) byte_keywords: Vec<(u8, Vec<usize>)>,
    pub(super) keyword_owners: Vec<Vec<KeywordOwner>>,
    pub(super) digit_rules: Vec<usize>,
    pub(super) always_rules: Vec<usize>,
    pub(super) field_rules: Vec<usize>,
}

impl Triggers {
    pub(super) fn of(rules: &[Rule]) -> Triggers {
        let mut patterns: Vec<String> = Vec::new();
        let mut byte_keywords: Vec<(u8, Vec<usize>)> = Vec::new();
        let mut keyword_owners: Vec<Vec<KeywordOwner>> = Vec::new();
        let (mut digit_rules, mut always_rules, mut field_rules) = (vec![], vec![], vec![]);
        let mut add_byte = |b: u8, i: usize| match byte_keywords.iter_mut().find(|(x, _)| *x == b) {
            Some((_, owners)) => owners.push(i),
            None => byte_keywords.push((b, vec![i])),
        };
        for (i, rule) in rules.iter().enumerate() {
            if rule.fields.is_some() {
                field_rules.push(i);
                continue;
            }
            if matches!(rule.matcher, Matcher::Denylist | Matcher::Check(_)) {
                continue;
            }
            match rule.trigger {
                Trigger::Keywords => {}
                Trigger::Digit => digit_rules.push(i),
                Trigger::Byte(b) => add_byte(b, i),
                Trigger::Always => always_rules.push(i),
            }
            for kw in &rule.keywords {
                let kw = kw.to_ascii_lowercase();
                if let [b] = kw.as_bytes() {
                    add_byte(*b, i);
                    continue;
                }
                let owner = KeywordOwner {
                    rule: i,
                    check_bytes: match &rule.matcher {
                        // A deferred pattern's facts are not worked out for this:
                        // the check is made at its first hit instead.
                        Matcher::Regex(p) if p.is_deferred() => true,
                        Matcher::Regex(p) => !p.facts().alphabet.holds_every_case_of(kw.as_bytes()),
                        _ => false,
                    },
                    name_word: rule.near.contains(&kw),
                };
                match patterns.iter().position(|p| *p == kw) {
                    Some(p) => keyword_owners[p].push(owner),
                    None => {
                        patterns.push(kw);
                        keyword_owners.push(vec![owner]);
                    }
                }
            }
        }
        Triggers {
            patterns,
            byte_keywords,
            keyword_owners,
            digit_rules,
            always_rules,
            field_rules,
        }
    }
}
