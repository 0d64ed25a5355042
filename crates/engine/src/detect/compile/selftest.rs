//! `privacy-audit rules test`: every rule's own `match` examples must fire and its
//! `no_match` examples must not. Examples of a field-limited rule are placed at the
//! rule's first literal field.

use super::RuleSet;
use crate::detect;
use crate::formats::Unit;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExampleFailure {
    pub rule_id: String,
    pub index: usize,
    pub expected_match: bool,
    /// The regex matches the example, but no keyword lies inside the match, so a scan
    /// never runs the regex there.
    pub keyword_outside: bool,
}

impl std::fmt::Display for ExampleFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (list, what) = if self.expected_match {
            ("match", "did not match")
        } else {
            ("no_match", "matched")
        };
        write!(
            f,
            "rule `{}`: examples.{list}[{}] {what}",
            self.rule_id, self.index
        )?;
        if self.keyword_outside {
            f.write_str(" (the regex matches, but none of the rule's keywords is inside the match; a scan runs a rule's regex only around its keywords)")?;
        }
        Ok(())
    }
}

pub struct SelfTest {
    pub rules: usize,
    pub examples: usize,
    pub failures: Vec<ExampleFailure>,
}

pub fn run(rules: &RuleSet) -> SelfTest {
    let mut summary = SelfTest {
        rules: 0,
        examples: 0,
        failures: Vec::new(),
    };
    for (ri, rule) in rules.rules.iter().enumerate() {
        let ex = &rule.examples;
        if ex.matches.is_empty() && ex.no_match.is_empty() {
            continue;
        }
        summary.rules += 1;
        let field = rule.fields.as_ref().map(|_| first_literal_field(rules, ri));
        for (expected, list) in [(true, &ex.matches), (false, &ex.no_match)] {
            for (index, example) in list.iter().enumerate() {
                summary.examples += 1;
                let unit = example_unit(example, field.as_deref());
                let mut out = Vec::new();
                detect::detect_rule(rules, ri, &unit, &mut out);
                if out.is_empty() == expected {
                    let keyword_outside = expected
                        && match &rule.matcher {
                            crate::detect::Matcher::Regex(p) => detect::matches_anywhere(p, &unit),
                            _ => false,
                        };
                    summary.failures.push(ExampleFailure {
                        rule_id: rule.id.clone(),
                        index,
                        expected_match: expected,
                        keyword_outside,
                    });
                }
            }
        }
    }
    summary
}

fn first_literal_field(rules: &RuleSet, ri: usize) -> String {
    rules.rules[ri].examples_field.clone().unwrap_or_default()
}

fn example_unit(example: &str, field: Option<&str>) -> Unit {
    let mut unit = Unit::default();
    let node = field.map(|pointer| {
        let mut node = unit.paths.root();
        for step in pointer.split('/').skip(1) {
            let key = step.replace("~1", "/").replace("~0", "~");
            node = unit.paths.key(node, &key);
        }
        node
    });
    unit.push_plain(example.as_bytes(), 0, node);
    unit
}
