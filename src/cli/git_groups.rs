//! Pushed commits and what accepts findings for them. Everything that judges a push is
//! what the remote already holds (its tip, the server's `HEAD`, `A` of `A..B`), with one
//! thing a pushed commit lends the commit after it: its acceptance (baseline,
//! `[[allow]]` entries, `[team] key`), when it is pushed along with it and its
//! first-parent line through the push reaches the remote's tip. "The acceptance in a
//! commit of its own, then the data" goes through in one push, as through two commits;
//! a commit still cannot accept its own content, nor switch rules off for the next one.
//!
//! Commits that borrow the same acceptance form one group, judged by one scanner.
//! With `--config` (the operator's) every commit is judged by it: one group.

use super::{Cli, Exit};
use crate::git::changes;
use crate::git::{GitScan, trust};
use crate::report::Report;
use git2::{Oid, Repository};
use std::collections::HashSet;

/// Commits that share what judges them.
pub(super) struct Group {
    /// The config they are judged by (`None`: the one `source` holds, read when judged).
    pub config: Option<crate::config::Config>,
    /// Where the config is read from when `config` is `None`.
    pub source: Option<Oid>,
    pub commits: Vec<Oid>,
    /// The group that also judges the pushed tags and ref names: the one whose source
    /// reads like `base` (what the remote already has).
    pub base: bool,
}

/// Every commit judged by what `base` holds.
pub(super) fn one_group(commits: &[Oid], base: Option<Oid>) -> Vec<Group> {
    vec![Group {
        config: None,
        source: base,
        commits: commits.to_vec(),
        base: true,
    }]
}

/// What a commit accepts (its `[[allow]]` entries and baseline) under `base`'s config.
fn acceptance(
    repo: &Repository,
    source: Option<Oid>,
    base: &crate::config::Config,
) -> anyhow::Result<crate::config::Config> {
    Ok(trust::acceptance_at(
        repo,
        &trust::Source::at(repo, source),
        base,
    )?)
}

/// Whether `parent` may speak for the commit after it: it was pushed along with it and
/// the first-parent line from it through pushed commits ends at `base`. A line that
/// leaves the push elsewhere (an empty commit on top of an old commit) does not: what
/// that commit's tree holds came from outside the push.
fn speaks_for(repo: &Repository, parent: Oid, pushed: &HashSet<Oid>, base: Option<Oid>) -> bool {
    let mut at = parent;
    for _ in 0..=pushed.len() {
        if !pushed.contains(&at) {
            return Some(at) == base;
        }
        match repo.find_commit(at).ok().and_then(|c| c.parent_id(0).ok()) {
            Some(p) => at = p,
            None => return base.is_none(),
        }
    }
    false
}

/// `commits` grouped by what accepts findings for them: a parent pushed with them whose
/// line reaches `base` (see [`speaks_for`]), else `base` (the remote's tip, the
/// server's `HEAD`, `A` of `A..B`). Everything but acceptance is `base`'s.
pub(super) fn by_parent(
    cli: &Cli,
    repo: &Repository,
    commits: &[Oid],
    base: Option<Oid>,
) -> anyhow::Result<Vec<Group>> {
    if cli.config.is_some() {
        return Ok(one_group(commits, base));
    }
    let base_config = super::git_cmd::repo_config(cli, repo, base)?;
    let key_of = |config: &crate::config::Config| {
        format!(
            "{:?}",
            (&config.allow, &config.team, &config.baseline_snapshot)
        )
    };
    let base_key = key_of(&base_config);
    let pushed: HashSet<Oid> = commits.iter().copied().collect();
    let mut keys: Vec<String> = Vec::new();
    let mut groups: Vec<Group> = Vec::new();
    for &c in commits {
        let parent = repo
            .find_commit(c)
            .map_err(|e| anyhow::anyhow!("commit {c}: {}", e.message()))?
            .parent_id(0)
            .ok()
            .filter(|&p| speaks_for(repo, p, &pushed, base));
        let config = match parent {
            Some(p) => acceptance(repo, Some(p), &base_config)?,
            None => base_config.clone(),
        };
        let key = key_of(&config);
        match keys.iter().position(|k| *k == key) {
            Some(i) => groups[i].commits.push(c),
            None => {
                groups.push(Group {
                    base: key == base_key,
                    config: Some(config),
                    source: base,
                    commits: vec![c],
                });
                keys.push(key);
            }
        }
    }
    if !groups.iter().any(|g| g.base) {
        groups.push(Group {
            config: Some(base_config),
            source: base,
            commits: Vec::new(),
            base: true,
        });
    }
    Ok(groups)
}

/// What judging every group gave: one report for the person, one exit.
pub(super) struct Judged {
    pub report: Report,
    pub exit: Exit,
    /// The last group's rules, to print the report with.
    pub rules: crate::detect::RuleSet,
}

/// What is judged besides the commits, by the base group's config: tags, pushed ref
/// names, and (for a whole-history scan) what only tags reach.
pub(super) struct Extras<'a> {
    pub tags: &'a [Oid],
    pub refs: &'a [String],
    pub tagged: bool,
}

/// Judges each group with its own scanner; the extras with the base group's.
pub(super) fn judge(
    cli: &Cli,
    repo: &Repository,
    groups: Vec<Group>,
    extras: &Extras<'_>,
    accept: &super::AcceptArgs,
    fail_on: impl Fn(&crate::config::Config) -> crate::finding::Severity,
) -> anyhow::Result<Judged> {
    let mut reports: Vec<Report> = Vec::new();
    let mut exit = Exit::Clean;
    let mut last_rules = None;
    for g in groups {
        let scanner = match g.config {
            Some(config) => super::git_cmd::scanner_of(cli, config)?,
            None => super::git_cmd::scanner(cli, repo, g.source)?,
        };
        let door = GitScan {
            scanner: &scanner,
            repo,
            index_file: None,
        };
        let (tags, refs) = match g.base {
            true => (extras.tags, extras.refs.to_vec()),
            false => (&[][..], Vec::new()),
        };
        let mut changes = door.commits(&g.commits, tags)?;
        changes.refs = refs;
        changes.tagged = g.base && extras.tagged;
        let policy = super::policy(&scanner, accept)?;
        let report = crate::run::run(&scanner, &changes, &policy, None)?;
        exit = worse(
            exit,
            super::scan_cmd::exit_for(&report, fail_on(&scanner.config)),
        );
        reports.push(report);
        last_rules = Some(scanner.rules);
    }
    let rules = last_rules.ok_or_else(|| anyhow::anyhow!("no commits to judge"))?;
    Ok(Judged {
        report: combine(reports)?,
        exit,
        rules,
    })
}

fn worse(a: Exit, b: Exit) -> Exit {
    match (a, b) {
        (Exit::Trouble, _) | (_, Exit::Trouble) => Exit::Trouble,
        (Exit::Findings, _) | (_, Exit::Findings) => Exit::Findings,
        _ => Exit::Clean,
    }
}

/// The groups' reports as one: their files, findings and accepted findings, counted
/// again from the lists.
fn combine(reports: Vec<Report>) -> anyhow::Result<Report> {
    let mut iter = reports.into_iter();
    let mut all = iter
        .next()
        .ok_or_else(|| anyhow::anyhow!("no commits to judge"))?;
    for r in iter {
        all.files.extend(r.files);
        all.findings.extend(r.findings);
        all.suppressed.extend(r.suppressed);
        all.finished_at = r.finished_at;
        let s = &mut all.summary;
        s.files_scanned += r.summary.files_scanned;
        s.files_skipped += r.summary.files_skipped;
        s.duration_ms += r.summary.duration_ms;
        s.baselined += r.summary.baselined;
        s.allowed += r.summary.allowed;
        s.below_min_confidence += r.summary.below_min_confidence;
    }
    all.summary.findings = all.findings.len();
    all.summary.by_category.clear();
    for f in &all.findings {
        *all.summary
            .by_category
            .entry(f.category.as_str().to_string())
            .or_default() += 1;
    }
    Ok(all)
}

/// The commits of every range, each once, in order.
pub(super) fn commits_of(repo: &Repository, ranges: &[changes::Range]) -> anyhow::Result<Vec<Oid>> {
    let (mut commits, mut seen) = (Vec::new(), std::collections::HashSet::new());
    for r in ranges {
        for c in changes::commits(repo, r)? {
            if seen.insert(c) {
                commits.push(c);
            }
        }
    }
    Ok(commits)
}
