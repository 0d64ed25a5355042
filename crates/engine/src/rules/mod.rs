//! Rules are data: `rules/*.toml` (compiled in) plus the operator's rule folders, read
//! and merged here, with the other inputs detection is compiled from, read into plain
//! values: denylist terms ([`read_denylists`]) and what this machine knows of its own
//! people ([`machine::Machine`]). `detect::compile` turns them once per run into the
//! matchers detection reads; it reads no file. This module holds no matcher.

pub mod builtin;
mod catalog;
pub mod machine;
pub mod model;

pub use catalog::{Catalog, RuleInfo};
pub use model::{Examples, RuleFile, RuleSpec};

use crate::error::{Error, Result};
use std::collections::HashMap;

/// A rule spec and the file it came from.
#[derive(Debug, Clone)]
pub struct Sourced {
    pub origin: String,
    pub spec: RuleSpec,
}

pub fn parse_rule_file(origin: &str, text: &str) -> Result<Vec<Sourced>> {
    let file: RuleFile = toml::from_str(text)
        .map_err(|e| Error::rules(origin, crate::guard::toml_error(text, &e)))?;
    Ok(file
        .rules
        .into_iter()
        .map(|spec| Sourced {
            origin: origin.to_string(),
            spec,
        })
        .collect())
}

/// Whether `text` declares rules (a `rule` key or `[[rule]]` table). TOML that does
/// not parse at all counts as a rule file when a line starts a rule, so its error is
/// reported rather than skipped.
fn is_rule_file(text: &str) -> bool {
    match toml::from_str::<toml::Table>(text) {
        Ok(table) => table.contains_key("rule"),
        Err(_) => text.lines().any(|l| l.trim_start().starts_with("[[rule]]")),
    }
}

/// The ids of the built-in rules.
pub fn builtin_ids() -> Result<std::collections::HashSet<String>> {
    let mut ids = std::collections::HashSet::new();
    for (name, text) in builtin::BUILTIN_RULES {
        ids.extend(parse_rule_file(name, text)?.into_iter().map(|s| s.spec.id));
    }
    Ok(ids)
}

/// The operator's rule files on disk, `(origin, text)`: every `*.toml` of each folder
/// (already resolved against the config's folder), in name order.
pub fn read_rule_dirs(dirs: &[std::path::PathBuf]) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for (i, dir) in dirs.iter().enumerate() {
        // A missing folder would run the scan without the operator's rules: a gate
        // weaker than configured, reported clean. Named by its place in the list (the
        // path is the operator's value).
        if !dir.is_dir() {
            return Err(Error::invalid(
                format!("rules.dirs[{i}]"),
                "is not a folder: its rules would not run",
            ));
        }
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .map_err(|e| Error::io(dir, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        files.sort();
        for file in files {
            let text = std::fs::read_to_string(&file).map_err(|e| Error::io(&file, e))?;
            out.push((file.display().to_string(), text));
        }
    }
    Ok(out)
}

/// The terms of the operator's denylist files: one a line, `#` starts a comment,
/// blank lines ignored.
pub fn read_denylists(paths: &[std::path::PathBuf]) -> Result<Vec<String>> {
    let mut terms = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        // Named by its place in the list: the path is the operator's value and may
        // name an account or a client.
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::invalid(
                format!("privacy.denylist_files[{i}]"),
                format!("cannot be read: {}", e.kind()),
            )
        })?;
        for line in text.lines() {
            let term = line.split('#').next().unwrap_or("").trim();
            if !term.is_empty() {
                terms.push(term.to_string());
            }
        }
    }
    Ok(terms)
}

/// Built-in rules, then the operator's rule files (a same-id rule replaces the
/// built-in one), minus the `disable`d ids (an unknown id there is an error).
pub fn collect_specs(
    operator_files: Vec<(String, String)>,
    disable: &[String],
) -> Result<Vec<Sourced>> {
    let mut specs: Vec<Sourced> = Vec::new();
    for (name, text) in builtin::BUILTIN_RULES {
        specs.extend(parse_rule_file(&format!("built-in {name}"), text)?);
    }
    check_unique(&specs)?;
    let builtin_count = specs.len();
    let mut index: HashMap<String, usize> = specs
        .iter()
        .enumerate()
        .map(|(i, s)| (s.spec.id.clone(), i))
        .collect();
    let mut replaced_from: HashMap<String, String> = HashMap::new();
    for (origin, text) in operator_files {
        // Another tool's TOML in the same folder (no `[[rule]]` at all) is not ours to
        // refuse: skipped, and said. A file that has rules must parse whole.
        if !is_rule_file(&text) {
            tracing::warn!(file = %origin, "not a rule file (no [[rule]] table); skipped");
            continue;
        }
        for sourced in parse_rule_file(&origin, &text)? {
            let id = sourced.spec.id.clone();
            match index.get(&id) {
                Some(&i) if i < builtin_count && !replaced_from.contains_key(&id) => {
                    replaced_from.insert(id, origin.clone());
                    specs[i] = sourced;
                }
                Some(_) => {
                    let first = replaced_from.get(&id).cloned().unwrap_or_default();
                    return Err(Error::rules(
                        &origin,
                        format!("rule id `{id}` is defined twice (also in {first})"),
                    ));
                }
                None => {
                    index.insert(id.clone(), specs.len());
                    replaced_from.insert(id, origin.clone());
                    specs.push(sourced);
                }
            }
        }
    }
    // Named by its place: what was written there is not a known id, so it may be
    // anything (a value pasted in the wrong place).
    if let Some(i) = disable.iter().position(|id| !index.contains_key(id)) {
        return Err(Error::rules(
            format!("(config) rules.disable[{i}]"),
            "is not the id of a rule (`privacy-audit rules list` lists them)",
        ));
    }
    specs.retain(|s| !disable.contains(&s.spec.id));
    Ok(specs)
}

fn check_unique(specs: &[Sourced]) -> Result<()> {
    let mut seen: HashMap<&str, &str> = HashMap::new();
    for s in specs {
        if let Some(prev) = seen.insert(&s.spec.id, &s.origin) {
            return Err(Error::rules(
                &s.origin,
                format!("rule id `{}` is defined twice (also in {prev})", s.spec.id),
            ));
        }
    }
    Ok(())
}
