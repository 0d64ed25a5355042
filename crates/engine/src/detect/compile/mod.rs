//! Rule specs (data, from [`crate::rules`]) compiled once per run into what detection
//! runs: regexes with their triggers and windows, the keyword automaton, field and
//! member filters, validators; and `rules test`, which runs each rule on its examples.

pub mod alphabet;
mod assigned;
mod config_rules;
pub mod digit_start;
mod fields;
mod follow;
mod gaps;
mod lead;
mod members;
mod named_before;
mod near;
pub mod pattern;
mod required;
mod rule;
mod ruleset;
pub mod selftest;
mod triggers;

pub use fields::{AnyFieldKey, FieldFilter};
pub use members::MemberIndex;
pub use near::stands_as_name;
pub use ruleset::{KeywordOwner, Matcher, Rule, RuleSet, Settings};
