//! Settings that come from the environment, resolved here once: the libraries read no
//! environment variable, they are handed these values.

use privacy_audit_engine::config::Config;
use std::ffi::OsString;
use std::path::PathBuf;

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
    Some(dir.join("hashes-v2.jsonl"))
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

/// A loaded config with the environment's settings filled in.
pub fn resolved(mut config: Config) -> Config {
    config.git_user_configs = git_user_configs();
    config
}
