//! Settings that come from the environment, resolved here once: the libraries read no
//! environment variable, they are handed these values.

use privacy_audit_engine::config::{Config, LOCAL_CONFIG_NAME};
use privacy_audit_engine::error::Result;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

fn var(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

/// An XDG base folder: the variable when it is absolute (the spec ignores relative
/// ones), else `~/<fallback>`.
fn xdg(name: &str, fallback: &str) -> Option<PathBuf> {
    var(name)
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(fallback)))
}

/// `$PRIVACY_AUDIT_KEY_FILE`, else `$XDG_DATA_HOME/privacy-audit/key`, else
/// `~/.local/share/privacy-audit/key`.
pub fn key_file() -> Option<PathBuf> {
    var("PRIVACY_AUDIT_KEY_FILE")
        .map(PathBuf::from)
        .or_else(|| Some(xdg("XDG_DATA_HOME", ".local/share")?.join("privacy-audit/key")))
}

/// `$PRIVACY_AUDIT_CACHE_DIR`, else `$XDG_CACHE_HOME/privacy-audit`, else
/// `~/.cache/privacy-audit`; the hash cache file in it.
pub fn cache_file() -> Option<PathBuf> {
    let dir = var("PRIVACY_AUDIT_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| Some(xdg("XDG_CACHE_HOME", ".cache")?.join("privacy-audit")))?;
    Some(dir.join("hashes-v3.jsonl"))
}

/// The user's git configuration files in git's order (the XDG file, then
/// `~/.gitconfig`), for the machine context.
pub fn git_user_configs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(x) = xdg("XDG_CONFIG_HOME", ".config") {
        out.push(x.join("git/config"));
    }
    if let Some(h) = var("HOME") {
        out.push(PathBuf::from(h).join(".gitconfig"));
    }
    out
}

/// `GIT_INDEX_FILE`, which git sets for a hook (`git commit -a` and `git commit <path>`
/// stage into a temporary index); the git door resolves a relative value as git does.
pub fn git_index_file() -> Option<PathBuf> {
    var("GIT_INDEX_FILE").map(PathBuf::from)
}

/// A loaded config with the environment's settings filled in.
pub fn resolved(mut config: Config) -> Config {
    config.git_user_configs = git_user_configs();
    config
}

/// The config a run uses, as ripgrep and pre-commit users expect to find it:
/// `--config FILE`; else the nearest `privacy-audit.toml` from the current folder up to
/// the repository root (the folder holding `.git`); else the user's
/// `$XDG_CONFIG_HOME/privacy-audit/config.toml`; else the built-in defaults.
pub fn config(explicit: Option<&Path>) -> Result<Config> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let found = match explicit {
        Some(path) => Some(std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())),
        None => nearest(&cwd).or_else(user_config),
    };
    let config = match found {
        Some(path) => Config::load(&path)?,
        None => Config::defaults_at(&cwd),
    };
    Ok(resolved(config))
}

/// The built-in defaults with the environment's settings, looking for no file.
pub fn defaults() -> Config {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    resolved(Config::defaults_at(&cwd))
}

/// The nearest `privacy-audit.toml` from `start` up to the repository root; outside a
/// repository only `start` itself is looked in, so a stray file higher up (a home
/// folder, `/`) never configures a scan by surprise.
fn nearest(start: &Path) -> Option<PathBuf> {
    let in_repo = start.ancestors().any(|d| d.join(".git").exists());
    for dir in start.ancestors() {
        let candidate = dir.join(LOCAL_CONFIG_NAME);
        if candidate.is_file() {
            return Some(candidate);
        }
        if !in_repo || dir.join(".git").exists() {
            return None;
        }
    }
    None
}

/// `$XDG_CONFIG_HOME/privacy-audit/config.toml` (else `~/.config/…`), when present.
fn user_config() -> Option<PathBuf> {
    let file = xdg("XDG_CONFIG_HOME", ".config")?.join("privacy-audit/config.toml");
    file.is_file().then_some(file)
}

/// How output looks, from the flags and the environment: resolved once.
#[derive(Debug, Clone, Copy)]
pub struct Ui {
    pub quiet: bool,
    /// `--no-color` and `NO_COLOR` both unset; colour still needs a terminal.
    pub color_allowed: bool,
}

impl Ui {
    pub fn of(cli: &super::Cli) -> Ui {
        Ui {
            quiet: cli.quiet,
            color_allowed: !cli.no_color && var("NO_COLOR").is_none(),
        }
    }

    /// Colour for a stream that is (or is not) a terminal.
    pub fn color(&self, terminal: bool) -> bool {
        self.color_allowed && terminal
    }
}
