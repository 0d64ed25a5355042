//! The on-disk rule format of docs/reference.md §6, as serde types. Compilation lives in `compile.rs`.

use crate::finding::{Category, Severity};
use serde::{Deserialize, Serialize};

/// One `rules/*.toml` file: a list of `[[rule]]` tables.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleFile {
    #[serde(default, rename = "rule")]
    pub rules: Vec<RuleSpec>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RuleSpec {
    pub id: String,
    pub category: Category,
    pub severity: Severity,
    pub description: String,
    /// Whose credential this is (`Stripe`, `GitLab`): `rules list` groups by it.
    #[serde(default)]
    pub provider: Option<String>,
    /// The pattern. A named group `value` marks the part that is sensitive; without it
    /// the whole match is the value.
    #[serde(default)]
    pub regex: Option<String>,
    /// Literals (ASCII case-insensitive) of which at least one must occur in the text
    /// before the regex runs. Without `regex`, the keywords themselves are the pattern.
    #[serde(default)]
    pub keywords: Vec<String>,
    /// A provider's names (`dropbox`, `dd_api_key`). With `near`, `regex` is the shape
    /// of the value alone, and the rule finds it assigned to a name holding one of these
    /// words in any of the forms a credential takes (see `detect::compile::near`). The
    /// words are also the rule's keywords and member names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub near: Vec<String>,
    /// The rule finds a value assigned to a name holding a keyword: every match has,
    /// after the keyword, only name characters, quotes and blanks up to an operator
    /// (`=`, `:`, `>`, `,`, `?`) within 128 bytes, and its `value` group starts within
    /// 32 bytes after it. A keyword without them opens no window (`rules test` runs the
    /// examples through that check). `near` rules have it built in.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub assignment: bool,
    /// Minimum Shannon entropy (bits per byte) of the value.
    #[serde(default)]
    pub entropy: Option<f64>,
    /// Regexes; a value matching any of them is not a finding.
    #[serde(default)]
    pub allow: Vec<String>,
    /// JSON Pointer globs the rule is limited to (`*` one step, `**` any number).
    #[serde(default)]
    pub fields: Vec<String>,
    /// Words (ASCII case-insensitive) of which a JSON member's name must hold one for
    /// the rule to also run on that member as `name=value`: the keyed form of a rule
    /// written for `NAME=value` text.
    #[serde(default)]
    pub member_names: Vec<String>,
    /// Name of a built-in check the value must also pass (see `rules list`).
    #[serde(default)]
    pub validator: Option<String>,
    /// How to fix it, shown by the human report.
    #[serde(default)]
    pub remedy: Option<String>,
    #[serde(default)]
    pub examples: Examples,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Examples {
    #[serde(default, rename = "match")]
    pub matches: Vec<String>,
    #[serde(default)]
    pub no_match: Vec<String>,
}
