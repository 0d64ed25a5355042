//! Rules made from the configuration rather than from rule files: hosts under the
//! organisation's domains, and the operator's denylist terms.

use super::pattern::{self, Trigger};
use super::ruleset::{Matcher, Rule};
use crate::detect::domains::DomainPolicy;
use crate::detect::validators::Validator;
use crate::error::Result;
use crate::finding::{Category, Severity};
use crate::rules::Examples;

/// Any host under a configured organisation domain.
pub(super) fn org_domain_rule(domains: &DomainPolicy) -> Result<Option<Rule>> {
    if domains.org().is_empty() {
        return Ok(None);
    }
    let alts: Vec<String> = domains.org().iter().map(|d| regex::escape(d)).collect();
    let pattern = format!(
        r"(?i)(?:^|[^A-Za-z0-9.@_-])(?P<value>(?:[a-z0-9](?:[a-z0-9-]{{0,61}}[a-z0-9])?\.)*(?:{}))(?:[^A-Za-z0-9_-]|$)",
        alts.join("|")
    );
    let compiled = pattern::compile("privacy.org_domains", "hostname.org_domain", &pattern, &[])?;
    Ok(Some(Rule {
        id: "hostname.org_domain".into(),
        category: Category::Hostname,
        severity: Severity::High,
        description: "host name under a configured organisation domain".into(),
        remedy: Some(
            "replace the host with a logical surface name or a reserved example domain".into(),
        ),
        provider: None,
        origin: "config privacy.org_domains".into(),
        matcher: Matcher::Regex(Box::new(compiled)),
        keywords: domains.org().to_vec(),
        trigger: Trigger::Keywords,
        entropy: None,
        allow: Vec::new(),
        fields: None,
        validator: Some(Validator::OrgHost),
        examples: Examples::default(),
        examples_field: None,
        member_names: Vec::new(),
    }))
}

pub(super) fn denylist_rule() -> Rule {
    Rule {
        id: "denylist.term".into(),
        category: Category::Denylist,
        severity: Severity::High,
        description: "a term from the operator's denylist".into(),
        remedy: Some("remove or pseudonymise the listed name".into()),
        provider: None,
        origin: "config privacy.denylist_files".into(),
        matcher: Matcher::Denylist,
        keywords: Vec::new(),
        trigger: Trigger::Always,
        entropy: None,
        allow: Vec::new(),
        fields: None,
        validator: None,
        examples: Examples::default(),
        examples_field: None,
        member_names: Vec::new(),
    }
}
