//! `privacy-audit rules list` and `privacy-audit rules test`.

use super::{Exit, RulesCommand};
use crate::config::Config;
use crate::detect::validators::Validator;
use crate::rules::{RuleSet, selftest};
use std::io::Write;

pub fn run(config: Config, command: &RulesCommand) -> anyhow::Result<Exit> {
    let rules = RuleSet::load(&config)?;
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
                            "description": r.description, "validator": r.validator.map(Validator::name),
                            "origin": r.origin,
                        })
                    })
                    .collect();
                serde_json::to_writer_pretty(&mut out, &list)?;
                writeln!(out)?;
            } else {
                for r in &rules.rules {
                    writeln!(
                        out,
                        "{:<34} {:<11} {:<8} {}",
                        r.id, r.category, r.severity, r.description
                    )?;
                }
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
