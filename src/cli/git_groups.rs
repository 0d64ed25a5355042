//! Pushed commits judged each by the config and baseline of its own parent when that
//! parent is pushed with it (else by the remote's tip), as the pre-commit hook judges a
//! commit by `HEAD`'s. A commit still cannot accept its own
//! content (its parent's baseline knows nothing of it), and "baseline commit, then the
//! data commit" goes through in one push, as it did through two commits.
//!
//! Commits whose parents hold the same config, rule files and baseline form one group,
//! judged by one scanner; a push that touches none of them is one group, as before.
//! With `--config` (the operator's) every commit is judged by it: one group.

use super::{Cli, Exit};
use crate::git::changes;
use crate::git::{GitScan, trust};
use crate::report::Report;
use git2::{Oid, Repository};

/// Commits that share what judges them: the commit their files are read from.
pub(super) struct Group {
    pub source: Option<Oid>,
    pub commits: Vec<Oid>,
    /// The group that also judges the pushed tags and ref names: the one whose source
    /// reads like `base` (what the remote already has).
    pub base: bool,
}

/// What a door reads from a commit: the config (its values and where it came from),
/// each rule file and the baseline, as the door would load them. Equal: judged alike.
fn inputs(repo: &Repository, source: Option<Oid>) -> anyhow::Result<String> {
    let config = trust::repo_config(repo, &trust::Source::at(repo, source))?;
    Ok(format!("{config:?}"))
}

/// Every commit judged by what `base` holds.
pub(super) fn one_group(commits: &[Oid], base: Option<Oid>) -> Vec<Group> {
    vec![Group {
        source: base,
        commits: commits.to_vec(),
        base: true,
    }]
}

/// `commits` grouped by what their parents hold: a parent pushed with them, else `base`
/// (the remote's tip, the server's `HEAD`, `A` of `A..B`).
pub(super) fn by_parent(
    cli: &Cli,
    repo: &Repository,
    commits: &[Oid],
    base: Option<Oid>,
) -> anyhow::Result<Vec<Group>> {
    if cli.config.is_some() {
        return Ok(one_group(commits, base));
    }
    let base_key = inputs(repo, base)?;
    let pushed: std::collections::HashSet<Oid> = commits.iter().copied().collect();
    let mut keys: Vec<String> = Vec::new();
    let mut groups: Vec<Group> = Vec::new();
    for &c in commits {
        // Only a parent pushed along with it speaks for a commit. One the remote
        // already has (or none) leaves it to `base`: branching off an old commit
        // whose config was laxer must not bring that config back.
        let parent = repo
            .find_commit(c)
            .map_err(|e| anyhow::anyhow!("commit {c}: {}", e.message()))?
            .parent_id(0)
            .ok()
            .filter(|p| pushed.contains(p))
            .or(base);
        let key = inputs(repo, parent)?;
        match keys.iter().position(|k| *k == key) {
            Some(i) => groups[i].commits.push(c),
            None => {
                groups.push(Group {
                    source: parent,
                    commits: vec![c],
                    base: key == base_key,
                });
                keys.push(key);
            }
        }
    }
    if !groups.iter().any(|g| g.base) {
        groups.push(Group {
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
        let scanner = super::git_cmd::scanner(cli, repo, g.source)?;
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
