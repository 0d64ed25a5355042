//! `privacy-audit rules list` and `privacy-audit rules test`.

use super::{Exit, RulesCommand};
use crate::config::Config;
use crate::detect::RuleSet;
use crate::detect::compile::selftest;
use crate::detect::validators::Validator;
use std::io::Write;

pub fn run(config: Config, command: &RulesCommand) -> anyhow::Result<Exit> {
    let rules = crate::scan::load_rules(&config)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match command {
        RulesCommand::List { json } => {
            if *json {
                let list: Vec<_> = rules
                    .rules
                    .iter()
                    .map(|r| {
                        serde_json::json!({
                            "id": r.id, "category": r.category, "severity": r.severity,
                            "description": r.description, "provider": r.provider,
                            "validator": r.validator.map(Validator::name),
                            "origin": r.origin,
                        })
                    })
                    .collect();
                serde_json::to_writer_pretty(&mut out, &list)?;
                writeln!(out)?;
            } else {
                list_grouped(&mut out, &rules)?;
                writeln!(
                    out,
                    "\n{} rules · ruleset sha256 {}",
                    rules.rules.len(),
                    rules.sha256
                )?;
                writeln!(
                    out,
                    "\nvalidators (rules name them with `validator = \"...\"`):"
                )?;
                for v in Validator::ALL {
                    writeln!(out, "  {:<14} {}", v.name(), v.describe())?;
                }
            }
            Ok(Exit::Clean)
        }
        RulesCommand::Test => {
            let summary = selftest::run(&rules);
            for f in &summary.failures {
                writeln!(out, "FAIL {f}")?;
            }
            writeln!(
                out,
                "{} rules, {} examples, {} failed",
                summary.rules,
                summary.examples,
                summary.failures.len()
            )?;
            Ok(if summary.failures.is_empty() {
                Exit::Clean
            } else {
                Exit::Findings
            })
        }
    }
}

/// Rules without a provider in one table, then provider credentials under each
/// provider's name, providers in alphabetical order.
fn list_grouped(out: &mut impl Write, rules: &RuleSet) -> std::io::Result<()> {
    let row = |out: &mut dyn Write, r: &crate::detect::Rule| {
        writeln!(
            out,
            "{:<40} {:<11} {:<8} {}",
            r.id, r.category, r.severity, r.description
        )
    };
    for r in rules.rules.iter().filter(|r| r.provider.is_none()) {
        row(out, r)?;
    }
    let mut by_provider: std::collections::BTreeMap<String, Vec<&crate::detect::Rule>> =
        std::collections::BTreeMap::new();
    for r in &rules.rules {
        if let Some(p) = &r.provider {
            by_provider.entry(p.to_lowercase()).or_default().push(r);
        }
    }
    let count: usize = by_provider.values().map(Vec::len).sum();
    writeln!(
        out,
        "\nprovider credentials: {count} rules for {} providers",
        by_provider.len()
    )?;
    for group in by_provider.values() {
        let name = group[0].provider.as_deref().unwrap_or_default();
        writeln!(out, "\n{name}")?;
        for r in group {
            write!(out, "  ")?;
            row(out, r)?;
        }
    }
    Ok(())
}
