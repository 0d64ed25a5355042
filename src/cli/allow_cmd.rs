//! `privacy-audit allow FILE[:LINE[:COL]] --rule RULE --reason WHY`: accepts the findings
//! of one rule at one place by appending an `[[allow]]` entry to the config. The entry
//! names the value by its fingerprint under the team key, which is written only here,
//! for a value being accepted into the repository, never in a report.

use super::{AllowArgs, Cli, Exit};
use crate::config::Config;
use crate::finding::guard::guard;
use crate::scan::Scanner;
use anyhow::Context;
use std::path::PathBuf;

pub fn run(cli: &Cli, config: Config, args: &AllowArgs) -> anyhow::Result<Exit> {
    let Some(config_path) = config.origin.clone() else {
        anyhow::bail!("no privacy-audit.toml to add the entry to: run `privacy-audit init` first");
    };
    let (file, line, column) = parse_location(&args.location);
    let key = super::load_key(cli)?;
    let scanner = Scanner::from_config(config, key)?;
    let report = scanner.scan_paths(std::slice::from_ref(&file), None)?;
    let mut prints: Vec<(String, String)> = report
        .findings
        .iter()
        .filter(|f| f.rule_id == args.rule)
        .filter(|f| line.is_none() || f.location.line == line)
        .filter(|f| column.is_none() || f.location.column == column)
        .map(|f| {
            let at = match f.location.line {
                Some(l) => format!("{}:{l}", f.location.path),
                None => f.location.path.clone(),
            };
            (f.shared.0.get(..16).unwrap_or(&f.shared.0).to_string(), at)
        })
        .collect();
    prints.sort();
    prints.dedup_by(|a, b| a.0 == b.0);
    if prints.is_empty() {
        anyhow::bail!(
            "no `{}` finding at {} (see `privacy-audit scan {}`)",
            guard(&args.rule),
            guard(&args.location),
            guard(&file.to_string_lossy())
        );
    }
    let mut text = std::fs::read_to_string(&config_path)
        .with_context(|| format!("{}: cannot read", config_path.display()))?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    let reason = toml::Value::String(args.reason.clone()).to_string();
    for (fingerprint, at) in &prints {
        text.push_str(&format!(
            "\n[[allow]]\n# {} at {}\nfingerprint = \"{fingerprint}\"\nreason = {reason}\n",
            args.rule,
            guard(at)
        ));
    }
    Config::parse(&text).map_err(|e| anyhow::anyhow!("the new entry would not parse: {e}"))?;
    super::baseline_cmd::write_atomically(&config_path, text.as_bytes())
        .with_context(|| format!("{}: cannot write", config_path.display()))?;
    let n = prints.len();
    eprintln!(
        "privacy-audit: {n} [[allow]] entr{} added to {}; commit it on its own (the hook reads \
         the config as committed before the change it judges)",
        if n == 1 { "y" } else { "ies" },
        config_path.display()
    );
    if !scanner.key().has_team() {
        eprintln!(
            "privacy-audit: warning: the config has no [team] key, so the entry holds on this \
             machine only (`privacy-audit init` in a fresh repository writes one)"
        );
    }
    Ok(Exit::Clean)
}

/// `FILE`, `FILE:LINE` or `FILE:LINE:COL` as the human report prints them.
fn parse_location(location: &str) -> (PathBuf, Option<u32>, Option<u32>) {
    let mut parts: Vec<&str> = location.rsplitn(3, ':').collect();
    parts.reverse();
    let num = |s: &str| s.parse::<u32>().ok();
    match parts.as_slice() {
        [file, l, c] if num(l).is_some() && num(c).is_some() => {
            (PathBuf::from(file), num(l), num(c))
        }
        [rest @ .., l] if num(l).is_some() && !rest.is_empty() => {
            (PathBuf::from(rest.join(":")), num(l), None)
        }
        _ => (PathBuf::from(location), None, None),
    }
}
