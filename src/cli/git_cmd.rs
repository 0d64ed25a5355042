//! `privacy-audit scan-git`, `hook install|uninstall|run`.

use super::{Cli, Exit, HookCommand, HookRunArgs, ScanGitArgs};
use crate::config::Config;
use crate::detect::RuleSet;
use crate::git::changes::{self, Range};
use crate::git::hook::{self, Installed, Uninstalled};
use crate::git::{self as gitdoor, GitScan, trust};
use crate::report::{Format, Report};
use crate::scan::Scanner;
use anyhow::Context;
use git2::{Oid, Repository};
use std::io::{IsTerminal, Read};

/// `--config` (the operator's), else the repository's own config as committed in
/// `base` — the commit the changes being judged start from (see [`trust`]), never
/// what those changes bring: a commit cannot switch the gate off for itself.
pub(super) fn repo_config(
    cli: &Cli,
    repo: &Repository,
    base: Option<Oid>,
) -> anyhow::Result<Config> {
    if let Some(path) = &cli.config {
        return Ok(super::settings::config(Some(path))?);
    }
    let source = trust::Source::at(repo, base);
    Ok(super::settings::resolved(trust::repo_config(
        repo, &source,
    )?))
}

/// The commit `HEAD` names, if any.
fn head_commit(repo: &Repository) -> Option<Oid> {
    repo.head().ok()?.peel_to_commit().ok().map(|c| c.id())
}

pub(super) fn scanner(cli: &Cli, repo: &Repository, base: Option<Oid>) -> anyhow::Result<Scanner> {
    scanner_of(cli, repo_config(cli, repo, base)?)
}

/// The git doors' scanner under `config`.
pub(super) fn scanner_of(cli: &Cli, mut config: Config) -> anyhow::Result<Scanner> {
    // The git doors let pass what `[hook] allow_unjudged` names.
    config.scan.allow_unjudged = config.hook.allow_unjudged.clone();
    let key = super::load_key(cli)?;
    Ok(Scanner::from_config(config, key)?)
}

pub fn scan_git(cli: &Cli, args: &ScanGitArgs) -> anyhow::Result<Exit> {
    let repo = gitdoor::open(Some(
        args.repo.as_deref().unwrap_or(std::path::Path::new(".")),
    ))?;
    // A range is judged with the config of where it starts.
    let base = match args.range.as_deref().and_then(|r| r.split_once("..")) {
        Some((from, _)) => Some(
            repo.revparse_single(from.trim_end_matches('.'))
                .and_then(|o| o.peel_to_commit())
                .map_err(|e| anyhow::anyhow!("range start `{from}`: {}", e.message()))?
                .id(),
        ),
        None => head_commit(&repo),
    };
    let range = match &args.range {
        Some(spec) => Range::Spec(spec),
        None => Range::All,
    };
    let commits = changes::commits(&repo, &range)?;
    let tags = match range {
        Range::All => changes::all_tags(&repo)?,
        _ => Vec::new(),
    };
    // Each commit of a range is judged by what its parent holds (see `git_groups`); the
    // whole history by what HEAD holds now, so what a team accepted since stays accepted.
    let groups = match range {
        Range::All => super::git_groups::one_group(&commits, base),
        _ => super::git_groups::by_parent(cli, &repo, &commits, base)?,
    };
    let extras = super::git_groups::Extras {
        tags: &tags,
        refs: &[],
        tagged: matches!(range, Range::All),
    };
    let judged = super::git_groups::judge(cli, &repo, groups, &extras, &args.accept, |c| {
        args.out.fail_on.unwrap_or(c.scan.fail_on)
    })?;
    super::scan_cmd::emit(
        &judged.report,
        args.out.format,
        &judged.rules,
        args.out.output.as_deref(),
        super::settings::Ui::of(cli),
        repo_style(&repo),
    )?;
    Ok(judged.exit)
}

pub fn hook(cli: &Cli, command: &HookCommand) -> anyhow::Result<Exit> {
    match command {
        HookCommand::Install { repo, hook: kind } => {
            let repo = gitdoor::open(Some(repo.as_deref().unwrap_or(std::path::Path::new("."))))?;
            install_hook(&repo, crate::git::hook::HookKind::from(*kind))?;
            Ok(Exit::Clean)
        }
        HookCommand::Uninstall { repo, hook: kind } => {
            let kind = crate::git::hook::HookKind::from(*kind);
            let repo = gitdoor::open(Some(repo.as_deref().unwrap_or(std::path::Path::new("."))))?;
            match hook::uninstall(&repo, kind)? {
                Uninstalled::Removed(p) => eprintln!("privacy-audit: removed {}", p.display()),
                Uninstalled::Restored(p) => eprintln!(
                    "privacy-audit: removed ours; the previous hook is back at {}",
                    p.display()
                ),
                Uninstalled::NotOurs(p) => {
                    eprintln!("privacy-audit: {} is not ours; left alone", p.display())
                }
                Uninstalled::NotInstalled(p) => {
                    eprintln!("privacy-audit: nothing installed at {}", p.display())
                }
            }
            Ok(Exit::Clean)
        }
        HookCommand::Run(args) => hook_run(cli, args),
    }
}

fn hook_run(cli: &Cli, args: &HookRunArgs) -> anyhow::Result<Exit> {
    let repo = gitdoor::open(None)?;
    let mut stdin = String::new();
    if args.pre_push || args.pre_receive {
        std::io::stdin()
            .read_to_string(&mut stdin)
            .context("cannot read the refs git sends on stdin")?;
    }
    let remote = args.git_args.first().map_or("origin", String::as_str);
    // The config the changes start from: HEAD for a commit (the server's HEAD for
    // pre-receive), what the remote already has for a push.
    let base = match args.pre_push {
        true => changes::push_base(&repo, &stdin, remote),
        false => head_commit(&repo),
    };
    let ui = super::settings::Ui::of(cli);
    let (report, rules, exit, action) = if args.pre_push || args.pre_receive {
        let ranges = if args.pre_push {
            changes::pre_push_ranges(&stdin, remote)?
        } else {
            changes::pre_receive_ranges(&stdin)?
        };
        let commits = super::git_groups::commits_of(&repo, &ranges)?;
        let tags = changes::tags_among(&repo, &changes::pushed_ids(&stdin));
        let refs = changes::pushed_ref_names(&stdin, args.pre_push);
        // Each pushed commit is judged by what its parent holds (see `git_groups`).
        let groups = super::git_groups::by_parent(cli, &repo, &commits, base)?;
        let extras = super::git_groups::Extras {
            tags: &tags,
            refs: &refs,
            tagged: false,
        };
        let judged = super::git_groups::judge(cli, &repo, groups, &extras, &args.accept, |c| {
            c.hook.fail_on
        })?;
        let action = if args.pre_push { "push" } else { "update" };
        (judged.report, judged.rules, judged.exit, action)
    } else {
        let scanner = scanner(cli, &repo, base)?;
        let door = GitScan {
            scanner: &scanner,
            repo: &repo,
            index_file: super::settings::git_index_file(),
        };
        let policy = super::policy(&scanner, &args.accept)?;
        let report = crate::run::run(&scanner, &door.staged()?, &policy, None)?;
        let exit = super::scan_cmd::exit_for(&report, scanner.config.hook.fail_on);
        (report, scanner.rules, exit, "commit")
    };
    if let Some(format) = args.format {
        super::scan_cmd::write_report(&report, format, &rules, &repo_style(&repo), None)?;
    }
    if exit == Exit::Findings && !ui.quiet {
        explain_block(&report, &rules, action, ui)?;
    }
    Ok(exit)
}

/// The block git shows the person whose commit or push was refused.
fn explain_block(
    report: &Report,
    rules: &RuleSet,
    action: &str,
    ui: super::settings::Ui,
) -> anyhow::Result<()> {
    let color = ui.color(std::io::stderr().is_terminal());
    let mut err = std::io::stderr().lock();
    let style = crate::report::Style {
        color,
        ..Default::default()
    };
    crate::report::render(report, Format::Human, rules, &style, &mut err)?;
    let rewritable = report
        .findings
        .iter()
        .filter(|f| crate::fix::placeholder::rewritable(f.category, &f.rule_id))
        .count();
    if rewritable > 0 && action == "commit" {
        eprintln!(
            "\nprivacy-audit: `privacy-audit fix --staged --write` can rewrite {rewritable} of these \
             as placeholders, in the index and the work tree (and re-hash their manifests)."
        );
    }
    eprintln!(
        "\nprivacy-audit: this {action} is blocked. Fix each finding above, or accept it on purpose:\n  \
         - `privacy-audit allow FILE:LINE --rule RULE --reason WHY` for one finding\n  \
         - `privacy-audit baseline` to accept every current finding (.privacy-audit-baseline.json)\n\
         Either is read from the commit the changes start from: commit it on its own first."
    );
    if action == "commit" {
        // The files with findings stay staged: `git add privacy-audit.toml && git
        // commit` would carry them again. A commit of named paths leaves them out.
        let mut staged: Vec<&str> = report
            .findings
            .iter()
            .map(|f| f.location.path.as_str())
            .collect();
        staged.sort_unstable();
        staged.dedup();
        // Git runs hooks at the top of the work tree: the names are relative to it.
        let mut accepting: Vec<&str> = ["privacy-audit.toml", ".privacy-audit-baseline.json"]
            .into_iter()
            .filter(|p| std::path::Path::new(p).exists())
            .collect();
        if accepting.is_empty() {
            accepting.push("privacy-audit.toml");
        }
        eprintln!(
            "Then: git commit {} -m 'privacy-audit: accept known findings'\n\
             commits only those, leaving staged (and in the way of a plain `git commit`): {}",
            accepting.join(" "),
            staged.join(", ")
        );
    } else {
        eprintln!(
            "Pushed commits are each judged by what their parent holds: a commit of the \
             acceptance alone, then the data, go through in one push."
        );
    }
    Ok(())
}

/// The git doors' paths are already repository-relative.
fn repo_style(repo: &Repository) -> crate::report::Style {
    crate::report::Style {
        color: false,
        uri_prefix: String::new(),
        root_uri: Some(super::scan_cmd::file_uri(
            repo.workdir().unwrap_or_else(|| repo.path()),
        )),
        accept_hint: true,
    }
}

/// Installs this binary as `kind` and says what happened (`hook install`, `init`).
pub(super) fn install_hook(
    repo: &Repository,
    kind: crate::git::hook::HookKind,
) -> anyhow::Result<()> {
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .context("cannot tell where this binary is")?;
    match hook::install(repo, kind, &exe)? {
        Installed::Fresh(p) => eprintln!("privacy-audit: installed {}", p.display()),
        Installed::Chained { hook, legacy } => eprintln!(
            "privacy-audit: installed {}; the hook that was there is kept as {} and runs first",
            hook.display(),
            legacy.display()
        ),
        Installed::AlreadyInstalled(p) => {
            eprintln!("privacy-audit: already installed at {}", p.display())
        }
    }
    Ok(())
}
