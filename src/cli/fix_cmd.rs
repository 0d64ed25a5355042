//! `privacy-audit fix PATH...`: shows (dry run) or applies (`--write`) the rewrite of
//! what a scan finds, and the hashes re-recorded with it.

use super::{Cli, Exit, FixArgs, FixFormat};
use crate::config::Config;
use crate::fix::{self, Plan};
use crate::scan::Scanner;
use std::collections::{BTreeMap, HashSet};
use std::io::Write;

pub fn run(cli: &Cli, config: Config, args: &FixArgs) -> anyhow::Result<Exit> {
    let key = super::load_key(cli)?;
    let scanner = Scanner::from_config(config, key)?.keeping_values();
    let policy = super::policy(&scanner, &args.accept)?;
    let staged = match args.staged {
        true => Some(staged(args.write)?),
        false => None,
    };
    let roots = match &staged {
        Some((_, workdir, _)) => vec![workdir.clone()],
        None => args.paths.clone(),
    };
    if let Some(list) = &args.replacements {
        refuse_inside(list, &roots, "--replacements")?;
    }
    if let Some(dir) = &args.backup {
        refuse_inside(dir, &roots, "--backup")?;
    }
    let options = fix::Options {
        only: staged.as_ref().map(|(_, _, files)| files),
        drop_capture: args.drop_capture,
    };
    let plan = fix::plan_within(&scanner, &roots, &policy, &options)?;
    if let Some(list) = &args.replacements {
        let n = fix::replacements::write(list, &plan.replacements)?;
        eprintln!(
            "privacy-audit: {n} replacement line(s) written to {}: it holds the values in \
             full; use it with `git filter-repo --replace-text`, then delete it",
            super::log::guarded_text(&list.display().to_string())
        );
    }
    if args.write {
        for file in &plan.files {
            fix::write::check(file)?;
        }
        // A manifest staged again with its new hashes must not take unstaged edits along.
        if let Some((repo, _, names)) = &staged {
            for file in plan.files.iter().filter(|f| !names.contains(&f.shown)) {
                if !crate::git::staged_fix::is_clean(repo, &file.shown)? {
                    anyhow::bail!(
                        "{}: its hashes change with the fix, and it has changes not staged; \
                         stage or stash them first",
                        super::log::guarded_text(&file.shown)
                    );
                }
            }
        }
        for file in &plan.files {
            fix::write::apply(file, args.backup.as_deref())?;
        }
        if let Some((repo, _, _)) = &staged {
            let changed: Vec<String> = plan.files.iter().map(|f| f.shown.clone()).collect();
            crate::git::staged_fix::restage(repo, &changed)?;
        }
    }
    let mut out = std::io::stdout().lock();
    match args.format.unwrap_or(FixFormat::Human) {
        FixFormat::Human => human(&plan, args.write, &mut out)?,
        FixFormat::Json => json(&plan, args.write, &mut out)?,
    }
    Ok(if plan.report.incomplete() {
        Exit::Trouble
    } else if !plan.unfixed.is_empty() || !args.write && !plan.files.is_empty() {
        Exit::Findings
    } else {
        Exit::Clean
    })
}

/// One rewrite decision: rule, masked value, placeholder.
type Decision<'a> = (&'a str, &'a str, &'a str);

/// The repository around the current folder, its work tree and the staged files; an
/// error when one of them has unstaged changes and the fix would be written.
fn staged(write: bool) -> anyhow::Result<(git2::Repository, std::path::PathBuf, HashSet<String>)> {
    use crate::git::staged_fix;
    let repo = crate::git::open(Some(std::path::Path::new(".")))?;
    let workdir = staged_fix::workdir(&repo)?;
    let files = staged_fix::staged_files(&repo)?;
    if write && let Some(dirty) = files.iter().find(|f| !f.clean) {
        anyhow::bail!(
            "{}: staged, with more changes not staged; stage or stash them first, so the \
             index and the work tree can be fixed together",
            super::log::guarded_text(&dirty.path)
        );
    }
    let names = files.into_iter().map(|f| f.path).collect();
    Ok((repo, workdir, names))
}

/// The list of values and the backups may not land where they would be scanned,
/// committed or shipped: inside a fixed folder (a file's own folder) or the repository
/// around one, links followed.
fn refuse_inside(
    list: &std::path::Path,
    roots: &[std::path::PathBuf],
    what: &str,
) -> anyhow::Result<()> {
    // Where a path leads: its nearest existing ancestor resolved through links.
    let resolve = |p: &std::path::Path| {
        let abs = crate::provenance::normalize(
            &std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()),
        );
        let mut base = abs.as_path();
        let mut rest = Vec::new();
        while std::fs::canonicalize(base).is_err() {
            let (Some(parent), Some(name)) = (base.parent(), base.file_name()) else {
                break;
            };
            rest.push(name.to_os_string());
            base = parent;
        }
        let mut real = std::fs::canonicalize(base).unwrap_or_else(|_| base.to_path_buf());
        real.extend(rest.iter().rev());
        real
    };
    let list_at = resolve(list);
    for root in roots {
        let root = resolve(root);
        let root = match root.is_file() {
            true => root
                .parent()
                .map(std::path::Path::to_path_buf)
                .unwrap_or(root),
            false => root,
        };
        let repo = root.ancestors().find(|d| d.join(".git").exists());
        for inside in std::iter::once(root.as_path()).chain(repo) {
            if list_at.starts_with(inside) {
                anyhow::bail!(
                    "{what} {}: inside {} (a fixed folder or its repository); it would hold \
                     the values where they are being removed from: put it elsewhere",
                    list.display(),
                    inside.display()
                );
            }
        }
    }
    Ok(())
}

fn human(plan: &Plan, written: bool, out: &mut dyn Write) -> anyhow::Result<()> {
    // Per file, one line per (rule, value, placeholder): a home folder on every step
    // of a trajectory is one decision, not six hundred.
    let mut by_file: BTreeMap<&str, BTreeMap<Decision<'_>, (usize, Option<u32>)>> = BTreeMap::new();
    for c in &plan.changes {
        let entry = by_file
            .entry(&c.path)
            .or_default()
            .entry((&c.rule_id, &c.was, &c.placeholder))
            .or_insert((0, c.line));
        entry.0 += 1;
    }
    for (path, lines) in &by_file {
        writeln!(out, "{path}")?;
        for ((rule, was, placeholder), (n, line)) in lines {
            let at = line.map(|l| format!(":{l}")).unwrap_or_default();
            let times = if *n > 1 {
                format!(" ({n}×)")
            } else {
                String::new()
            };
            writeln!(out, "  {at:<6} {rule}  {was} → {placeholder}{times}")?;
        }
    }
    if !plan.rehashed.is_empty() {
        writeln!(out, "\nhashes recorded anew")?;
        for r in &plan.rehashed {
            writeln!(out, "  {}: the sha256 of {}", r.path, r.names)?;
        }
    }
    if !plan.unfixed.is_empty() {
        writeln!(out, "\nneeds a person")?;
        for u in &plan.unfixed {
            let f = &u.finding;
            let at = f.location.line.map(|l| format!(":{l}")).unwrap_or_default();
            writeln!(out, "  {}{at}  {}  {}", f.location.path, f.rule_id, u.why)?;
        }
    }
    let unjudged = plan.report.files.iter().filter(|f| f.error).count();
    writeln!(
        out,
        "\n{} value{} in {} file{} {}, {} hash{} re-recorded; {} finding{} need{} a person{}",
        plan.changes.len(),
        plural(plan.changes.len()),
        plan.files.len(),
        plural(plan.files.len()),
        if written { "replaced" } else { "to replace" },
        plan.rehashed.len(),
        if plan.rehashed.len() == 1 { "" } else { "es" },
        plan.unfixed.len(),
        plural(plan.unfixed.len()),
        if plan.unfixed.len() == 1 { "s" } else { "" },
        if unjudged > 0 {
            format!("; {unjudged} file(s) could not be judged")
        } else {
            String::new()
        }
    )?;
    if !written && !plan.files.is_empty() {
        writeln!(out, "dry run: nothing was written; --write applies it")?;
    }
    Ok(())
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn json(plan: &Plan, written: bool, out: &mut dyn Write) -> anyhow::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &plan.log(written))?;
    writeln!(out)?;
    Ok(())
}
