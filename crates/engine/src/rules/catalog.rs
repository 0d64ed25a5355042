//! What reports and provenance need to know of a rule: its data, never its matcher.
//! `detect::RuleSet` answers these questions; the modules that only describe or
//! attribute findings ask through [`Catalog`] and so depend on rules, not on detection.

use crate::finding::{Category, Severity};

/// A rule as a reader of findings sees it.
#[derive(Debug, Clone, Copy)]
pub struct RuleInfo<'a> {
    pub id: &'a str,
    pub category: Category,
    pub severity: Severity,
    pub description: &'a str,
    pub remedy: Option<&'a str>,
}

pub trait Catalog {
    /// The active rule with this id.
    fn rule(&self, id: &str) -> Option<RuleInfo<'_>>;
    /// The active rule running built-in check `name`; `None` when it is disabled.
    fn check(&self, name: &str) -> Option<RuleInfo<'_>>;
}
