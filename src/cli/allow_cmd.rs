//! `privacy-audit allow FILE[:LINE[:COL]] --rule RULE --reason WHY`: accepts the findings
//! of one rule at one place by appending an `[[allow]]` entry to the config. The entry
//! names the value by its fingerprint under the team key, which is written only here,
//! for a value being accepted into the repository, never in a report.

use super::{AllowArgs, Cli, Exit};
use crate::config::Config;
use crate::guard::guard;
use crate::report::groups;
use crate::scan::Scanner;
use anyhow::Context;
use std::path::PathBuf;

pub fn run(cli: &Cli, config: Config, args: &AllowArgs) -> anyhow::Result<Exit> {
    // Only a repository's own config: an entry in the user's config would accept the
    // value in every folder this machine scans.
    let config_path = match config.origin.clone() {
        Some(p)
            if p.file_name()
                .is_some_and(|n| n == crate::config::LOCAL_CONFIG_NAME) =>
        {
            p
        }
        _ => anyhow::bail!(
            "no privacy-audit.toml here or up to the repository root to add the entry to: \
             run `privacy-audit init` first"
        ),
    };
    let base = crate::provenance::normalize(
        &std::path::absolute(&config.base_dir).unwrap_or_else(|_| config.base_dir.clone()),
    );
    let (file, line, column) = parse_location(&args.location);
    // The entry holds for this file only, named as the hook names it: from the config's
    // folder (the repository root).
    let within = std::path::absolute(&file)
        .ok()
        .map(|abs| crate::provenance::normalize(&abs))
        .and_then(|abs| abs.strip_prefix(&base).ok().map(|r| r.to_path_buf()))
        .map(|rel| glob_literal(&crate::guard::path_text(rel.as_os_str().as_encoded_bytes())))
        .ok_or_else(|| {
            anyhow::anyhow!(
                "{} is not under {} (the config's folder)",
                guard(&file.to_string_lossy()),
                base.display()
            )
        })?;
    let key = super::load_key(cli)?;
    let scanner = Scanner::from_config(config, key)?;
    let everything = crate::acceptance::RunPolicy::everything(scanner.key())?;
    let roots = std::slice::from_ref(&file);
    let report = crate::run::run(&scanner, &crate::run::Walk { roots }, &everything, None)?;
    let at_place = |f: &&crate::finding::Finding| {
        (line.is_none() || f.location.line == line)
            && (column.is_none() || f.location.column == column)
    };
    // The rules that did find something there: named when `--rule` matches none (a
    // category such as `email` for `email.address`).
    let mut there: Vec<String> = report
        .findings
        .iter()
        .filter(at_place)
        .map(|f| f.rule_id.clone())
        .collect();
    there.sort();
    there.dedup();
    let here = report
        .findings
        .iter()
        .filter(|f| f.rule_id == args.rule)
        .filter(at_place);
    if args.group {
        let patterns: std::collections::BTreeSet<String> = here
            .map(|f| groups::pattern(f.location.json_pointer.as_deref().unwrap_or("")))
            .collect();
        return write_entries(
            &config_path,
            &args.reason,
            patterns.iter().map(|p| {
                let pointer = toml::Value::String(p.clone()).to_string();
                format!(
                    "path = {}\nrule = {}\npointer = {pointer}\n",
                    toml::Value::String(within.clone()),
                    toml::Value::String(args.rule.clone())
                )
            }),
            &scanner,
            args,
            &there,
        );
    }
    let mut prints: Vec<(String, String)> = here
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
    let path = toml::Value::String(within.clone()).to_string();
    write_entries(
        &config_path,
        &args.reason,
        prints.iter().map(|(fingerprint, at)| {
            format!(
                "# accepted at {}\nfingerprint = \"{fingerprint}\"\npath = {path}\n",
                guard(at)
            )
        }),
        &scanner,
        args,
        &there,
    )
}

/// Appends one `[[allow]]` entry per body (its keys but the reason) to the config,
/// atomically, once the whole config still parses.
fn write_entries(
    config_path: &std::path::Path,
    reason: &str,
    bodies: impl Iterator<Item = String>,
    scanner: &Scanner,
    args: &AllowArgs,
    there: &[String],
) -> anyhow::Result<Exit> {
    let bodies: Vec<String> = bodies.collect();
    if bodies.is_empty() && !there.is_empty() {
        anyhow::bail!(
            "no `{}` finding at {}; found there: {} (give one as --rule)",
            guard(&args.rule),
            guard(&args.location),
            there.join(", ")
        );
    }
    if bodies.is_empty() {
        anyhow::bail!(
            "no `{}` finding at {} (see `privacy-audit scan`)",
            guard(&args.rule),
            guard(&args.location),
        );
    }
    let mut text = std::fs::read_to_string(config_path)
        .with_context(|| format!("{}: cannot read", config_path.display()))?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    let reason = toml::Value::String(reason.to_string()).to_string();
    for body in &bodies {
        text.push_str(&format!("\n[[allow]]\n{body}reason = {reason}\n"));
    }
    Config::parse(&text).map_err(|e| anyhow::anyhow!("the new entry would not parse: {e}"))?;
    super::baseline_cmd::write_atomically(config_path, text.as_bytes())
        .with_context(|| format!("{}: cannot write", config_path.display()))?;
    let n = bodies.len();
    eprintln!(
        "privacy-audit: {n} [[allow]] entr{} added to {}; commit it on its own (the hook reads \
         the config as committed before the change it judges)",
        if n == 1 { "y" } else { "ies" },
        config_path.display()
    );
    if !args.group && !scanner.key().has_team() {
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

/// `path` as a glob that matches only itself.
fn glob_literal(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        match c {
            '*' | '?' | '[' | ']' | '{' | '}' => {
                out.push('[');
                out.push(c);
                out.push(']');
            }
            c => out.push(c),
        }
    }
    out
}
