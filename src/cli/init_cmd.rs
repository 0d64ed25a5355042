//! `privacy-audit init`: the three-step setup of a repository in one command.

use super::{BaselineArgs, Cli, Exit, InitArgs};
use crate::config::{Config, LOCAL_CONFIG_NAME};
use crate::finding::fingerprint::FingerprintKey;
use anyhow::Context;
use std::path::{Path, PathBuf};

/// The config `init` writes: the keys a team sets first, each explained; every other key
/// and its default is what `privacy-audit config --defaults` prints.
fn template(team_key: &str) -> String {
    format!(
        r#"# privacy-audit configuration. Commit it: the git hook judges each commit with the
# config as committed before it. Every key, its default and what it does:
# `privacy-audit config --defaults`.

[team]
# Baselines and [[allow]] fingerprints are made with this key, so what one person
# accepts holds on every clone and in CI. It is not a secret, and so it is only ever
# used for values being accepted into this repository (`privacy-audit baseline`,
# `privacy-audit allow`); reports and hook output use each machine's own key.
key = "{team_key}"

[scan]
# Globs (relative to the scanned folder) that are not scanned.
exclude = ["**/.git/**", "**/target/**"]
# Lowest severity that fails a scan or a commit: low, medium, high or critical.
fail_on = "low"

[privacy]
# Your organisation's domains: host names and e-mail addresses under them are findings.
org_domains = []
# Files of client names, code names and user names (one a line) that must not appear.
denylist_files = []

# Accept one finding on purpose: `privacy-audit allow FILE:LINE --rule RULE --reason WHY`
# appends an [[allow]] entry here. By hand, a rule within a path glob:
# [[allow]]
# path = "fixtures/**"
# rule = "email.address"
# reason = "public test fixtures"
"#
    )
}

pub fn run(cli: &Cli, args: &InitArgs) -> anyhow::Result<Exit> {
    let start = args.repo.clone().unwrap_or_else(|| PathBuf::from("."));
    let repo = crate::git::open(Some(&start)).ok();
    let root = match &repo {
        Some(r) => r.workdir().unwrap_or_else(|| r.path()).to_path_buf(),
        None => start.clone(),
    };
    let config_path = root.join(LOCAL_CONFIG_NAME);
    if config_path.exists() {
        let existing = Config::load(&config_path)?;
        if existing.team.key.is_empty() {
            eprintln!(
                "privacy-audit: {} exists and is left as it is; it has no [team] key, so \
                 baselines made with it hold on one machine only. Add:\n\n[team]\nkey = \"{}\"\n",
                config_path.display(),
                FingerprintKey::random_hex()?
            );
        } else {
            eprintln!(
                "privacy-audit: {} exists; left as it is",
                config_path.display()
            );
        }
    } else {
        let text = template(&FingerprintKey::random_hex()?);
        // The template must stay a config this binary accepts.
        Config::parse(&text).map_err(|e| anyhow::anyhow!("built-in template: {e}"))?;
        std::fs::write(&config_path, text)
            .with_context(|| format!("{}: cannot write", config_path.display()))?;
        eprintln!("privacy-audit: wrote {}", config_path.display());
    }
    match (&repo, args.no_hook) {
        (_, true) => {}
        (None, false) => eprintln!(
            "privacy-audit: {} is not in a git repository; no hook installed",
            root.display()
        ),
        (Some(repo), false) => super::git_cmd::install_hook(repo, args.hook.into())?,
    }
    if args.baseline {
        let config = Config::load(&config_path)?;
        let baseline = BaselineArgs {
            paths: vec![root.clone()],
            output: None,
            check: false,
        };
        super::baseline_cmd::run(cli, config, &baseline)?;
    }
    let committed = repo.as_ref().is_some_and(config_committed);
    eprintln!(
        "privacy-audit: next: {}",
        next_step(&root, args.baseline, committed)
    );
    if repo.is_some() && !args.no_hook {
        eprintln!(
            "privacy-audit: git does not clone hooks: each teammate runs `privacy-audit init` \
             (or `privacy-audit hook install`) in their own clone, once"
        );
    }
    Ok(Exit::Clean)
}

/// Whether `HEAD` already holds the repository's config: a teammate's clone.
fn config_committed(repo: &git2::Repository) -> bool {
    repo.head()
        .and_then(|h| h.peel_to_tree())
        .is_ok_and(|t| t.get_path(Path::new(LOCAL_CONFIG_NAME)).is_ok())
}

fn next_step(root: &Path, baseline: bool, committed: bool) -> String {
    if committed && !baseline {
        return format!(
            "nothing to commit: {LOCAL_CONFIG_NAME} is already committed (in {}); this \
             clone's commits are judged from now on",
            root.display()
        );
    }
    let files = if baseline {
        format!("{LOCAL_CONFIG_NAME} .privacy-audit-baseline.json")
    } else {
        LOCAL_CONFIG_NAME.to_string()
    };
    format!(
        "commit {files} (in {}) on its own: `git commit {files} -m \"privacy-audit\"`; \
         from then on every commit is judged",
        root.display()
    )
}
