//! `privacy-audit baseline [PATH...]`: today's findings, by shared fingerprint and path,
//! written to the baseline file; `--check` lists what no longer matches.

use super::{BaselineArgs, Cli, Exit};
use crate::acceptance::{Baseline, BaselineChoice, RunPolicy};
use crate::config::Config;
use crate::scan::Scanner;
use anyhow::Context;
use std::io::Write;
use std::path::{Path, PathBuf};

pub fn run(cli: &Cli, config: Config, args: &BaselineArgs) -> anyhow::Result<Exit> {
    let target = match &args.output {
        Some(p) if p.as_os_str() == "-" => None,
        Some(p) => Some(p.clone()),
        None => Some(config.resolve(&config.scan.baseline)),
    };
    let key = super::load_key(cli)?;
    let scanner = Scanner::from_config(config, key)?;
    // A baseline records what is there, at every confidence, less what an `[[allow]]`
    // entry already accepts (it needs no second acceptance). `--check` weighs every
    // entry against everything there.
    let policy = match args.check {
        true => RunPolicy::everything(scanner.key())?,
        false => RunPolicy::for_run(
            &scanner.config,
            scanner.key(),
            &BaselineChoice::Without,
            Some(crate::finding::Confidence::Low),
        )?,
    };
    let source = crate::run::Walk { roots: &args.paths };
    let report = crate::run::run(&scanner, &source, &policy, None)?;
    if report.incomplete() {
        super::scan_cmd::exit_for(&report, crate::finding::Severity::Low);
        anyhow::bail!("the scan was incomplete; no baseline written");
    }
    if args.check {
        return check(&scanner, &report, target.as_deref());
    }
    let mut report = report;
    let allowed = report.suppressed.len();
    if allowed > 0 {
        eprintln!(
            "privacy-audit: {allowed} finding{} already accepted by [[allow]] entries left out",
            if allowed == 1 { "" } else { "s" }
        );
    }
    let ignored = drop_git_ignored(&mut report, &args.paths);
    if ignored > 0 {
        eprintln!(
            "privacy-audit: {ignored} finding{} in files git ignores left out: they are never \
             committed, and the baseline is",
            if ignored == 1 { "" } else { "s" }
        );
    }
    let own = target.as_deref().and_then(|t| shown_path(&args.paths, t));
    let baseline = Baseline::from_report(&report, scanner.key(), own.as_deref());
    let mut text = serde_json::to_string_pretty(&baseline)?;
    text.push('\n');
    let n = baseline.findings.len();
    let plural = if n == 1 { "" } else { "s" };
    match &target {
        Some(path) => {
            write_atomically(path, text.as_bytes())
                .with_context(|| format!("{}: cannot write the baseline", path.display()))?;
            eprintln!(
                "privacy-audit: baseline of {n} finding{plural} written to {}",
                path.display()
            );
        }
        None => {
            print!("{text}");
            eprintln!("privacy-audit: baseline of {n} finding{plural}");
        }
    }
    if !scanner.key().has_team() {
        eprintln!(
            "privacy-audit: warning: made with this machine's key, so it holds on this machine \
             only; `privacy-audit init` adds a [team] key that every clone and CI share"
        );
    }
    Ok(Exit::Clean)
}

/// `baseline --check`: the baseline and `[[allow]]` entries that accept nothing today.
fn check(
    scanner: &Scanner,
    report: &crate::report::Report,
    path: Option<&Path>,
) -> anyhow::Result<Exit> {
    let choice = match path {
        Some(p) if p.exists() => BaselineChoice::File(p.to_path_buf()),
        _ => BaselineChoice::Without,
    };
    let acceptance = RunPolicy::for_run(&scanner.config, scanner.key(), &choice, None)?.acceptance;
    let (stale, unused) = acceptance.unmatched(report);
    for (_, path) in &stale {
        println!("stale baseline entry: {}", crate::guard::guard(path));
    }
    for n in &unused {
        println!("[[allow]] #{n} matches no finding");
    }
    if stale.is_empty() && unused.is_empty() {
        println!("baseline and [[allow]] entries all match a finding");
        Ok(Exit::Clean)
    } else {
        Ok(Exit::Findings)
    }
}

/// How the report names `target` when it lies inside one of the scanned `roots`.
fn shown_path(roots: &[PathBuf], target: &Path) -> Option<String> {
    let target = std::path::absolute(target).ok()?;
    roots.iter().find_map(|root| {
        let root = std::path::absolute(root).ok()?;
        let rel = target.strip_prefix(&root).ok()?;
        Some(rel.to_string_lossy().into_owned())
    })
}

/// A temporary file beside `path`, synced, then renamed over it: a reader (the hook
/// of a concurrent commit) sees the old baseline or the new one, never a part.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Drops the findings in files git ignores (`.env`, build output): the baseline is
/// committed, and what it lists must be what the repository holds, not fingerprints
/// of values that never leave this machine. Returns how many were dropped.
fn drop_git_ignored(report: &mut crate::report::Report, roots: &[PathBuf]) -> usize {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    // Report paths start at the one folder scanned, else at the current folder.
    let start = match roots {
        [one] if one.is_dir() => cwd.join(one),
        _ => cwd,
    };
    let Ok(repo) = git2::Repository::discover(&start) else {
        return 0;
    };
    let Some(workdir) = repo.workdir().map(|w| w.to_path_buf()) else {
        return 0;
    };
    let workdir = std::fs::canonicalize(&workdir).unwrap_or(workdir);
    let start = std::fs::canonicalize(&start).unwrap_or(start);
    let ignored = |path: &str| {
        let full = crate::provenance::normalize(&start.join(path));
        full.strip_prefix(&workdir)
            .ok()
            .is_some_and(|rel| repo.is_path_ignored(rel).unwrap_or(false))
    };
    let before = report.findings.len() + report.suppressed.len();
    report.findings.retain(|f| !ignored(&f.location.path));
    report
        .suppressed
        .retain(|s| !ignored(&s.finding.location.path));
    before - report.findings.len() - report.suppressed.len()
}
