//! One rule spec compiled: its id checked, its regex (or keywords) built with size
//! limits, its allow patterns, validator, fields and entropy bound resolved.

use super::fields::{example_field, field_filter};
use super::near::AssignedValue;
use super::pattern::{self, Trigger};
use super::ruleset::{CHECKS, Matcher, Rule};
use crate::detect::validators::Validator;
use crate::error::{Error, Result};
use crate::rules::{RuleSpec, Sourced};
use regex::bytes::{Regex, RegexBuilder};

/// `allow` patterns: judged against one candidate value, never searched through text.
fn build_allow(origin: &str, id: &str, source: &str) -> Result<Regex> {
    RegexBuilder::new(source)
        .unicode(false)
        .size_limit(pattern::REGEX_SIZE_LIMIT)
        .dfa_size_limit(pattern::REGEX_SIZE_LIMIT)
        .build()
        .map_err(|e| Error::rules(origin, format!("rule `{id}`: bad regex: {e}")))
}

/// A rule naming a built-in check (a `validator` and no `regex` or `keywords`).
fn check_rule(origin: String, spec: RuleSpec, name: &str) -> Result<Rule> {
    let id = spec.id;
    let check = CHECKS.iter().copied().find(|c| *c == name).ok_or_else(|| {
        Error::rules(
            &origin,
            format!("rule `{id}`: unknown built-in check `{name}`"),
        )
    })?;
    Ok(Rule {
        remedy: spec.remedy,
        provider: spec.provider,
        examples: spec.examples,
        ..Rule::plain(
            id,
            spec.category,
            spec.severity,
            spec.description,
            origin,
            Matcher::Check(check),
        )
    })
}

/// The regex a rule searches with: its own, else its keywords as whole words.
fn pattern_of(origin: &str, spec: &RuleSpec) -> Result<String> {
    match (&spec.regex, spec.keywords.is_empty()) {
        (Some(r), _) => Ok(r.clone()),
        (None, false) => {
            let alts: Vec<String> = spec.keywords.iter().map(|k| regex::escape(k)).collect();
            Ok(format!(r"(?i)\b(?:{})\b", alts.join("|")))
        }
        (None, true) => Err(Error::rules(
            origin,
            format!("rule `{}` needs `regex` or `keywords`", spec.id),
        )),
    }
}

fn compile_rule(s: Sourced) -> Result<Rule> {
    let Sourced { origin, spec } = s;
    let (spec, near) = super::near::expand(&origin, spec)?;
    let (near_tree, mut assigned) = near.unzip();
    let id = spec.id.clone();
    if id.is_empty()
        || !id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
    {
        return Err(Error::rules(
            &origin,
            format!("rule id `{id}` must be [A-Za-z0-9._-]+"),
        ));
    }
    if spec.regex.is_none()
        && spec.keywords.is_empty()
        && let Some(name) = spec.validator.clone()
    {
        return check_rule(origin, spec, &name);
    }
    let pattern = pattern_of(&origin, &spec)?;
    if spec.assignment && assigned.is_none() {
        let tree = pattern::parse(&pattern)
            .map_err(|e| Error::rules(&origin, format!("rule `{id}`: bad regex: {e}")))?;
        assigned = Some(AssignedValue::declared(&tree).ok_or_else(|| {
            Error::rules(
                &origin,
                format!("rule `{id}`: `assignment` needs a `(?P<value>…)` group"),
            )
        })?);
    }
    // Built-in regexes are built on first use (a test builds every one); an operator's
    // are built now, so a bad one stops the run at load.
    let builtin = origin.starts_with("built-in ");
    let compiled = if let (true, Some(tree)) = (builtin, near_tree) {
        pattern::Pattern::deferred(pattern.clone(), tree)
    } else if builtin && !spec.keywords.is_empty() && assigned.is_none() {
        // Its keywords, not its tree, say where it runs: the tree waits for a hit.
        pattern::deferred_parse(&origin, &id, &pattern, &spec.keywords)
    } else if builtin {
        pattern::compile_lazy(&origin, &id, &pattern, &spec.keywords)?
    } else {
        pattern::compile(&origin, &id, &pattern, &spec.keywords)?
    };
    let trigger = if spec.keywords.is_empty() {
        compiled.facts().implied_trigger
    } else {
        Trigger::Keywords
    };
    let allow = spec
        .allow
        .iter()
        .map(|a| build_allow(&origin, &id, a))
        .collect::<Result<Vec<_>>>()?;
    let validator = match &spec.validator {
        None => None,
        Some(name) => Some(Validator::from_name(name).ok_or_else(|| {
            Error::rules(
                &origin,
                format!("rule `{id}`: unknown validator `{name}` (see `privacy-audit rules list`)"),
            )
        })?),
    };
    let fields = if spec.fields.is_empty() {
        None
    } else {
        Some(field_filter(&origin, &id, &spec.fields)?)
    };
    if let Some(e) = spec.entropy
        && !(0.0..=8.0).contains(&e)
    {
        return Err(Error::rules(
            &origin,
            format!("rule `{id}`: entropy must be 0–8"),
        ));
    }
    Ok(Rule {
        id,
        category: spec.category,
        severity: spec.severity,
        description: spec.description,
        remedy: spec.remedy,
        provider: spec.provider,
        origin,
        matcher: Matcher::Regex(Box::new(compiled)),
        keywords: spec.keywords,
        trigger,
        entropy: spec.entropy,
        allow,
        fields,
        validator,
        examples_field: example_field(&spec.fields),
        examples: spec.examples,
        member_names: spec.member_names,
        near: spec.near.iter().map(|w| w.to_ascii_lowercase()).collect(),
        assigned,
    })
}

/// Compiles the rules in file order, half of them on a second thread: regex
/// compilation is most of start-up, and every scan pays it before its first file.
/// Errors come in file order whichever thread met them.
pub(super) fn compile_rules(mut specs: Vec<Sourced>) -> Result<Vec<Rule>> {
    let second = specs.split_off(specs.len() / 2);
    std::thread::scope(|scope| {
        let other = scope.spawn(|| {
            second
                .into_iter()
                .map(compile_rule)
                .collect::<Result<Vec<_>>>()
        });
        let first = specs
            .into_iter()
            .map(compile_rule)
            .collect::<Result<Vec<_>>>();
        let second = other
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        let mut rules = first?;
        rules.extend(second?);
        Ok(rules)
    })
}
