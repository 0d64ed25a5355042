//! Which configuration and rules a git door trusts. Not the work tree: an untracked
//! `rules/` folder or an edited config there would let anyone who can write a file
//! switch the gate off. Nor what is being judged: a commit that stages a config
//! disabling a rule must not be judged by that config. Changes are judged with the
//! config, baseline and rule files committed where they start: `HEAD` for a commit
//! (and the server's `HEAD` for pre-receive), the remote's tip for a push, `A` for
//! `scan-git --range A..B`. Rule folders are read only when that config
//! names them; a folder outside the repository (an absolute path) is the machine's,
//! put there by its operator, and is read from disk.

use super::changes::repo_path;
use git2::{ObjectType, Oid, Repository, Tree};
use privacy_audit_engine::config::{Config, LOCAL_CONFIG_NAME};
use privacy_audit_engine::error::{Error, Result};
use privacy_audit_engine::guard::{guard, path_text};

/// Where the repository's own files are read from: the tree of the commit the
/// changes being judged start from (none: the built-in defaults).
pub struct Source<'r>(Option<Tree<'r>>);

impl<'r> Source<'r> {
    pub fn at(repo: &'r Repository, commit: Option<Oid>) -> Source<'r> {
        Source(
            commit
                .and_then(|id| repo.find_commit(id).ok())
                .and_then(|c| c.tree().ok()),
        )
    }

    fn label(&self) -> &'static str {
        "committed"
    }

    /// The blob at `path`.
    fn blob(&self, path: &[u8]) -> Option<Oid> {
        self.0
            .as_ref()?
            .get_path(repo_path(path))
            .ok()
            .filter(regular_file)
            .map(|e| e.id())
    }

    /// The `*.toml` blobs directly in folder `dir`, by name.
    fn toml_files(&self, repo: &Repository, dir: &[u8]) -> Vec<(Vec<u8>, Oid)> {
        let mut out: Vec<(Vec<u8>, Oid)> = self
            .0
            .as_ref()
            .and_then(|t| t.get_path(repo_path(dir)).ok())
            .and_then(|e| e.to_object(repo).ok())
            .and_then(|o| o.into_tree().ok())
            .map(|t| {
                t.iter()
                    .filter(regular_file)
                    .map(|e| (e.name_bytes().to_vec(), e.id()))
                    .collect()
            })
            .unwrap_or_default();
        out.retain(|(name, _)| name.ends_with(b".toml"));
        out.sort();
        out
    }
}

/// A file git stores as content: never a symbolic link, whose blob is its target's
/// name (which could be spelled as a whole config or baseline) rather than a file.
fn regular_file(e: &git2::TreeEntry<'_>) -> bool {
    e.kind() == Some(ObjectType::Blob) && matches!(e.filemode(), 0o100644 | 0o100755)
}

fn text_of(repo: &Repository, id: Oid, origin: &str) -> Result<String> {
    let blob = repo.find_blob(id).map_err(crate::git_err)?;
    String::from_utf8(blob.content().to_vec()).map_err(|_| Error::Config {
        path: origin.into(),
        message: "not UTF-8".into(),
    })
}

/// The repository's `privacy-audit.toml` from `source`, with the rule files it names
/// read from the same source; the defaults when there is none.
pub fn repo_config(repo: &Repository, source: &Source<'_>) -> Result<Config> {
    let root = repo.workdir().unwrap_or_else(|| repo.path()).to_path_buf();
    let Some(id) = source.blob(LOCAL_CONFIG_NAME.as_bytes()) else {
        let mut config = Config {
            base_dir: root,
            ..Config::default()
        };
        config.baseline_snapshot = Some(baseline(repo, source, &config)?);
        return Ok(config);
    };
    let origin = format!("{}:{LOCAL_CONFIG_NAME}", source.label());
    let text = text_of(repo, id, &origin)?;
    let mut config = Config::parse(&text).map_err(|message| Error::Config {
        path: origin.clone().into(),
        message,
    })?;
    config.base_dir = root;
    config.origin = Some(origin.into());
    let mut files = Vec::new();
    for dir in &config.rules.dirs {
        if dir.is_absolute() {
            files.extend(privacy_audit_engine::rules::read_rule_dirs(
                std::slice::from_ref(dir),
            )?);
            continue;
        }
        use std::os::unix::ffi::OsStrExt;
        let dir_bytes = dir.as_os_str().as_bytes();
        let dir_bytes = dir_bytes.strip_prefix(b"./").unwrap_or(dir_bytes);
        let dir_bytes = dir_bytes.strip_suffix(b"/").unwrap_or(dir_bytes);
        let found = source.toml_files(repo, dir_bytes);
        if found.is_empty() {
            tracing::warn!(folder = %dir.display(), from = source.label(), "no rule files in this folder; none loaded");
        }
        for (name, id) in found {
            let origin = format!(
                "{}:{}/{}",
                source.label(),
                guard(&path_text(dir_bytes)),
                guard(&path_text(&name))
            );
            let text = text_of(repo, id, &origin)?;
            files.push((origin, text));
        }
    }
    config.rule_snapshot = Some(files);
    config.baseline_snapshot = Some(baseline(repo, source, &config)?);
    Ok(config)
}

/// The baseline the config names, from the same source as the config: an untracked
/// baseline file accepts nothing.
fn baseline(
    repo: &Repository,
    source: &Source<'_>,
    config: &Config,
) -> Result<(String, Option<String>)> {
    use std::os::unix::ffi::OsStrExt;
    let path = config.scan.baseline.as_os_str().as_bytes();
    let origin = format!("{}:{}", source.label(), path_text(path));
    if config.scan.baseline.is_absolute() {
        // The machine's own file, named by the operator's config.
        return Ok((origin, std::fs::read_to_string(&config.scan.baseline).ok()));
    }
    let path = path.strip_prefix(b"./").unwrap_or(path);
    let text = match source.blob(path) {
        Some(id) => Some(text_of(repo, id, &origin)?),
        None => None,
    };
    Ok((origin, text))
}

/// What a commit accepts: its `[[allow]]` entries and the baseline at the path `base`'s
/// config names, read from its tree. Nothing else of its config is taken (rules,
/// severities, paths on disk stay `base`'s), so a pushed commit can accept findings
/// for the commit after it, as a committed baseline does, but cannot switch the gate
/// off for it.
pub fn acceptance_at(repo: &Repository, source: &Source<'_>, base: &Config) -> Result<Config> {
    let mut config = base.clone();
    // The `[team] key` too: it only decides which fingerprints the entries match.
    (config.allow, config.team) = match source.blob(LOCAL_CONFIG_NAME.as_bytes()) {
        Some(id) => {
            let origin = format!("{}:{LOCAL_CONFIG_NAME}", source.label());
            let text = text_of(repo, id, &origin)?;
            let own = Config::parse(&text).map_err(|message| Error::Config {
                path: origin.into(),
                message,
            })?;
            (own.allow, own.team)
        }
        None => (Vec::new(), base.team.clone()),
    };
    config.baseline_snapshot = Some(if base.scan.baseline.is_absolute() {
        // The machine's own file: `base`'s, read once already.
        base.baseline_snapshot.clone().unwrap_or_default()
    } else {
        baseline(repo, source, base)?
    });
    Ok(config)
}
