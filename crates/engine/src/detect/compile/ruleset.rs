//! Compiles rule specs into matchers, once per run: regexes with size limits (so a
//! pathological pattern is rejected, not run), one Aho-Corasick prefilter over every
//! rule's keywords, the trigger bytes of rules without keywords, and the built-in
//! validators resolved by name.

use super::fields::FieldFilter;
use super::pattern::{DigitGroup, Pattern, Trigger};
use super::triggers::Triggers;
use crate::detect::Scratch;
use crate::detect::denylist::Denylist;
use crate::detect::domains::DomainPolicy;
use crate::detect::keywords::KeywordScan;
use crate::detect::validators::Validator;
use crate::error::{Error, Result};
use crate::finding::{Category, Severity};
use crate::rules::{Examples, Sourced};
use regex::bytes::Regex;
use sha2::{Digest, Sha256};
use std::sync::Mutex;

/// Built-in checks that are code rather than patterns (provenance, formats). A rule
/// names one with `validator = "..."` and no `regex`.
pub const CHECKS: &[&str] = &[
    "hash_mismatch",
    "text_hash_mismatch",
    "missing_file",
    "path_escape",
    "malformed_hash",
    "placeholder_hash",
    "empty_file_hash",
    "unlisted_file",
    "duplicated_provenance",
    "manifest_syntax",
    "invalid_json",
    "eval_case_schema",
    "qa_case_schema",
    "eval_dataset_schema",
    "evidence_pack",
    "exaid_run_log",
];

pub enum Matcher {
    Regex(Box<Pattern>),
    /// A built-in check from [`CHECKS`], run by the provenance and format code.
    Check(&'static str),
    /// Matches the operator's denylist terms (see [`Denylist`]).
    Denylist,
}

pub struct Rule {
    pub id: String,
    pub category: Category,
    pub severity: Severity,
    pub description: String,
    pub remedy: Option<String>,
    /// Whose credential the rule finds, for provider rules.
    pub provider: Option<String>,
    pub origin: String,
    pub matcher: Matcher,
    pub keywords: Vec<String>,
    /// What lets the regex run: the keywords, or a byte every match holds.
    pub trigger: Trigger,
    pub entropy: Option<f64>,
    pub allow: Vec<Regex>,
    pub fields: Option<FieldFilter>,
    pub validator: Option<Validator>,
    pub examples: Examples,
    /// The first `fields` glob with no wildcard: where `rules test` places examples.
    pub examples_field: Option<String>,
    /// Runs on `name=value` of JSON members whose name holds one of these (see
    /// [`super::MemberIndex`]).
    pub member_names: Vec<String>,
    /// A `near` rule's provider words (lower case): where one occurs inside a longer
    /// word, no window opens (see [`super::near::stands_as_name`]).
    pub near: Vec<String>,
    /// What follows a keyword of a rule that finds assigned values, checked before its
    /// window opens (see [`super::near::AssignedValue`]).
    pub assigned: Option<super::near::AssignedValue>,
}

impl Rule {
    /// A rule with no trigger, pattern options, examples or provider: the base the
    /// built-in checks and the configuration's rules fill in.
    pub fn plain(
        id: String,
        category: Category,
        severity: Severity,
        description: String,
        origin: String,
        matcher: Matcher,
    ) -> Rule {
        Rule {
            id,
            category,
            severity,
            description,
            remedy: None,
            provider: None,
            origin,
            matcher,
            keywords: Vec::new(),
            trigger: Trigger::Always,
            entropy: None,
            allow: Vec::new(),
            fields: None,
            validator: None,
            examples: Examples::default(),
            examples_field: None,
            member_names: Vec::new(),
            near: Vec::new(),
            assigned: None,
        }
    }
}

/// A rule that owns a keyword of the prefilter.
#[derive(Debug, Clone, Copy)]
pub struct KeywordOwner {
    pub rule: usize,
    /// The rule's matches cannot hold every spelling the case-insensitive pass reports
    /// (`SK` of `\bSK[0-9a-f]{32}`, never `sk`): an occurrence opens a window only when
    /// its bytes are in the rule's alphabet.
    pub check_bytes: bool,
    /// The keyword is a `near` rule's provider word: it opens a window only where it
    /// stands as a name's word.
    pub name_word: bool,
}

/// What rules are compiled with besides their specs, all plain values.
#[derive(Default)]
pub struct Settings {
    /// Documentation domains and the organisation's own.
    pub domains: DomainPolicy,
    /// The operator's denylist terms.
    pub denylist: Vec<String>,
    /// Placeholder words added to the built-in vocabulary.
    pub placeholders: Vec<String>,
    /// What this machine knows of its own people (empty: judged as anywhere).
    pub machine: crate::rules::machine::Machine,
}

/// Everything detection needs, compiled and immutable for the run.
pub struct RuleSet {
    pub rules: Vec<Rule>,
    pub domains: DomainPolicy,
    pub denylist: Option<Denylist>,
    pub prefilter: Option<KeywordScan>,
    /// Prefilter pattern id → rules that own that keyword.
    pub keyword_owners: Vec<Vec<KeywordOwner>>,
    /// One-byte keywords and trigger bytes (`@`, `+`, `:`): `memchr` finds them faster
    /// than the automaton, which would report a match every few bytes.
    pub byte_keywords: Vec<(u8, Vec<usize>)>,
    /// Rules every match of which holds an ASCII digit, and no keyword.
    pub digits: Option<DigitGroup>,
    /// Rules with nothing to trigger on: their regex runs over all text.
    pub always_rules: Vec<usize>,
    /// Rules limited by `fields`: they run per JSON value.
    pub field_rules: Vec<usize>,
    /// Whether any of them may take a value under a key.
    pub field_keys: super::AnyFieldKey,
    /// Keyed rules that also run on JSON members, by the keywords of their names.
    pub members: Option<super::MemberIndex>,
    /// `near` rules by their provider words, for records that label their values.
    pub labels: Option<super::MemberIndex>,
    /// The keywords of provider rules known by shape (`ghp_`, `xoxb-`, `AIza`), lower
    /// case: a value starting with one is that provider's to judge.
    provider_prefixes: Vec<Vec<u8>>,
    /// Object keys that open no search may be left out of units (see `scan::keys`):
    /// sound only while every window stays within its segment, which this says.
    pub key_gaps: bool,
    pub sha256: String,
    /// Built-in rules replaced by an operator's rule file: `(id, file)`, told on every
    /// run so a weakened rule is never silent.
    pub replaced: Vec<(String, String)>,
    /// What confidence is judged against: the placeholder vocabulary and this machine.
    pub knowledge: crate::detect::confidence::Knowledge,
    /// Search state handed from file to file, so regex caches warm up once per thread
    /// rather than once per file; taken and returned once per file, never per match.
    scratch: Mutex<Vec<Scratch>>,
}

impl RuleSet {
    /// Whether `value` starts with a keyword of a provider rule known by shape.
    pub fn has_provider_prefix(&self, value: &[u8]) -> bool {
        self.provider_prefixes.iter().any(|p| {
            value
                .get(..p.len())
                .is_some_and(|v| v.eq_ignore_ascii_case(p))
        })
    }

    /// The built-in rules alone, with no operator setting and nothing of this
    /// machine: what tests, benches and `rules test` without a config compile.
    pub fn builtin() -> Result<RuleSet> {
        RuleSet::compile(
            crate::rules::collect_specs(Vec::new(), &[])?,
            Settings::default(),
        )
    }

    /// Compiles `specs` with the run's settings. Reads no file: every input is a value
    /// the caller loaded (see [`crate::rules`]).
    pub fn compile(specs: Vec<Sourced>, settings: Settings) -> Result<RuleSet> {
        let operators: Vec<&Sourced> = specs
            .iter()
            .filter(|s| !s.origin.starts_with("built-in "))
            .collect();
        // Reading the built-in ids parses every built-in file again: only an
        // operator's rule can replace one.
        let replaced: Vec<(String, String)> = if operators.is_empty() {
            Vec::new()
        } else {
            let builtin = crate::rules::builtin_ids()?;
            operators
                .iter()
                .filter(|s| builtin.contains(&s.spec.id))
                .map(|s| (s.spec.id.clone(), s.origin.clone()))
                .collect()
        };
        let Settings {
            domains,
            denylist,
            placeholders,
            machine,
        } = settings;
        let denylist = Denylist::from_terms(denylist)?;
        let mut set = RuleSet::compile_specs(specs, domains, denylist)?;
        set.replaced = replaced;
        set.knowledge = crate::detect::confidence::Knowledge {
            vocabulary: crate::detect::confidence::Vocabulary::load(&placeholders),
            machine,
            roles: crate::detect::confidence::role::Roles::builtin(),
        };
        Ok(set)
    }

    fn compile_specs(
        specs: Vec<Sourced>,
        domains: DomainPolicy,
        denylist: Option<Denylist>,
    ) -> Result<RuleSet> {
        let mut hasher = Sha256::new();
        for s in &specs {
            let canonical = serde_json::to_vec(&s.spec).unwrap_or_default();
            hasher.update(&canonical);
            hasher.update([0u8]);
        }
        let mut rules = super::rule::compile_rules(specs)?;
        if let Some(rule) = super::config_rules::org_domain_rule(&domains)? {
            hasher.update(domains.org().join(",").as_bytes());
            rules.push(rule);
        }
        if let Some(d) = &denylist {
            hasher.update(d.digest());
            rules.push(super::config_rules::denylist_rule());
        }
        let Triggers {
            patterns,
            byte_keywords,
            keyword_owners,
            digit_rules,
            always_rules,
            field_rules,
        } = Triggers::of(&rules);
        let prefilter = if patterns.is_empty() {
            None
        } else {
            Some(KeywordScan::new(&patterns).map_err(|e| Error::rules("keywords", e))?)
        };
        let members: Vec<(usize, &Pattern)> = digit_rules
            .iter()
            .filter_map(|&i| match &rules[i].matcher {
                Matcher::Regex(p) => Some((i, &**p)),
                _ => None,
            })
            .collect();
        let digits = DigitGroup::new(&members)?;
        // Whole-unit rules and unbounded digit ranges search across segments; a
        // keyword holding the separator would hit across one.
        let key_gaps = always_rules.is_empty()
            && digits.as_ref().is_none_or(|g| g.lead.is_some())
            && !patterns.iter().any(|p| p.contains('\n'))
            && !byte_keywords.iter().any(|(b, _)| *b == b'\n');
        let members = super::MemberIndex::new(&rules)?;
        let labels = super::MemberIndex::labels(&rules)?;
        let mut provider_prefixes: Vec<Vec<u8>> = rules
            .iter()
            .filter(|r| r.provider.is_some() && r.near.is_empty())
            .flat_map(|r| &r.keywords)
            .filter(|k| k.len() >= 3)
            .map(|k| k.to_ascii_lowercase().into_bytes())
            .collect();
        provider_prefixes.sort_unstable();
        provider_prefixes.dedup();
        let field_keys =
            super::AnyFieldKey::of(field_rules.iter().filter_map(|&i| rules[i].fields.as_ref()));
        Ok(RuleSet {
            field_keys,
            members,
            labels,
            provider_prefixes,
            key_gaps,
            byte_keywords,
            digits,
            always_rules,
            rules,
            domains,
            denylist,
            prefilter,
            keyword_owners,
            field_rules,
            replaced: Vec::new(),
            knowledge: Default::default(),
            sha256: crate::hex::encode(&hasher.finalize()),
            scratch: Mutex::new(Vec::new()),
        })
    }

    /// Keeps every object key in the units: for tests that compare findings with and
    /// without key gaps, and to rule the shortcut out when a finding looks wrong.
    pub fn without_key_gaps(mut self) -> RuleSet {
        self.key_gaps = false;
        self
    }

    pub fn take_scratch(&self) -> Scratch {
        let mut pool = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
        pool.pop().unwrap_or_default()
    }

    pub fn return_scratch(&self, scratch: Scratch) {
        let mut pool = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
        pool.push(scratch);
    }

    pub fn get(&self, id: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.id == id)
    }

    /// The active rule running built-in check `name`; `None` when it is disabled.
    /// Whether rule `id` reports a built-in check's problems rather than a value.
    pub fn is_check(&self, id: &str) -> bool {
        self.rules
            .iter()
            .any(|r| r.id == id && matches!(r.matcher, Matcher::Check(_)))
    }

    pub fn check(&self, name: &str) -> Option<&Rule> {
        self.rules
            .iter()
            .find(|r| matches!(r.matcher, Matcher::Check(c) if c == name))
    }
}

impl Rule {
    fn info(&self) -> crate::rules::RuleInfo<'_> {
        crate::rules::RuleInfo {
            id: &self.id,
            category: self.category,
            severity: self.severity,
            description: &self.description,
            remedy: self.remedy.as_deref(),
        }
    }
}

impl crate::rules::Catalog for RuleSet {
    fn rule(&self, id: &str) -> Option<crate::rules::RuleInfo<'_>> {
        self.get(id).map(Rule::info)
    }

    fn check(&self, name: &str) -> Option<crate::rules::RuleInfo<'_>> {
        RuleSet::check(self, name).map(Rule::info)
    }
}
