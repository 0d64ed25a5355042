//! Rules made from the configuration rather than from rule files: hosts under the
//! organisation's domains, and the operator's denylist terms.

use super::pattern::{self, Trigger};
use super::ruleset::{Matcher, Rule};
use crate::detect::domains::DomainPolicy;
use crate::detect::validators::Validator;
use crate::error::Result;
use crate::finding::{Category, Severity};

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
        remedy: Some(
            "replace the host with a logical surface name or a reserved example domain".into(),
        ),
        keywords: domains.org().to_vec(),
        trigger: Trigger::Keywords,
        validator: Some(Validator::OrgHost),
        ..Rule::plain(
            "hostname.org_domain".into(),
            Category::Hostname,
            Severity::High,
            "host name under a configured organisation domain".into(),
            "config privacy.org_domains".into(),
            Matcher::Regex(Box::new(compiled)),
        )
    }))
}

pub(super) fn denylist_rule() -> Rule {
    Rule {
        remedy: Some("remove or pseudonymise the listed name".into()),
        ..Rule::plain(
            "denylist.term".into(),
            Category::Denylist,
            Severity::High,
            "a term from the operator's denylist".into(),
            "config privacy.denylist_files".into(),
            Matcher::Denylist,
        )
    }
}
