//! `privacy-audit.toml`: parsed strictly (an unknown key or a wrong type is an error that
//! names the key and line), with every default built in. `config.toml` at the repository
//! root documents every key and must equal [`Config::default`]; a test keeps them equal.

use crate::error::{Error, Result};
use crate::finding::Severity;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The config file's name in a dataset or repository (found by the caller: the
/// nearest one up to the repository root).
pub const LOCAL_CONFIG_NAME: &str = "privacy-audit.toml";

#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub scan: ScanConfig,
    pub rules: RulesConfig,
    pub privacy: PrivacyConfig,
    pub provenance: ProvenanceConfig,
    pub daemon: DaemonConfig,
    pub hook: HookConfig,
    pub team: TeamConfig,
    /// Format overrides by path glob (`[[formats]]`).
    pub formats: Vec<FormatOverride>,
    /// Findings accepted on purpose, each with its reason (`[[allow]]`).
    pub allow: Vec<AllowEntry>,
    /// Folder relative paths in the config are resolved from; not a key.
    #[serde(skip)]
    pub base_dir: PathBuf,
    /// Where the values came from, for errors (`None`: the built-in defaults).
    #[serde(skip)]
    pub origin: Option<PathBuf>,
    /// The user's git configuration files, in the order git reads them (resolved by
    /// the caller from the environment; the engine reads none): where
    /// `[privacy] machine_context` finds the committer's own e-mail.
    #[serde(skip)]
    pub git_user_configs: Vec<PathBuf>,
    /// The operator's rule files, `(origin, text)`, when the caller took them from a
    /// snapshot it trusts (the committed tree) instead of `rules.dirs` on disk.
    #[serde(skip)]
    pub rule_snapshot: Option<Vec<(String, String)>>,
    /// The baseline, `(origin, text if present)`, when taken from the same snapshot.
    #[serde(skip)]
    pub baseline_snapshot: Option<(String, Option<String>)>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ScanConfig {
    pub exclude: Vec<String>,
    pub max_file_bytes: u64,
    pub fail_on: Severity,
    /// Accepted findings (`privacy-audit baseline`); a missing file is an empty baseline.
    pub baseline: PathBuf,
    /// Lowest confidence reported; lower findings are counted, not listed.
    pub min_confidence: crate::finding::Confidence,
    /// Kinds of file `scan` and the daemon could not fully judge that may still pass;
    /// any other fails the run (exit 2).
    pub allow_unjudged: Vec<Unjudged>,
}

/// A kind of file not fully judged that `allow_unjudged` may let pass. Corrupt and
/// unreadable files always fail; symbolic links and special files are not content
/// and never do, so neither is listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unjudged {
    Binary,
    TooLarge,
    Bomb,
}

impl Default for ScanConfig {
    fn default() -> Self {
        ScanConfig {
            exclude: vec!["**/.git/**".into(), "**/target/**".into()],
            max_file_bytes: 268_435_456,
            fail_on: Severity::Low,
            baseline: PathBuf::from(".privacy-audit-baseline.json"),
            min_confidence: crate::finding::Confidence::Medium,
            allow_unjudged: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct RulesConfig {
    pub dirs: Vec<PathBuf>,
    pub disable: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PrivacyConfig {
    pub org_domains: Vec<String>,
    pub allowed_domains: Vec<String>,
    pub denylist_files: Vec<PathBuf>,
    /// More placeholder user names and e-mail locals (findings on them are "low").
    pub placeholders: Vec<String>,
    /// Read this machine's accounts, host name and git e-mail: findings tied to them
    /// are "high" whatever the vocabulary says.
    pub machine_context: bool,
    /// What `files[]` in reports carry of each file's content: its `sha256`, or a
    /// `keyed_sha256` that only this installation's key can test a guess against.
    pub file_digest: FileDigest,
    /// What `fix` writes for a denylisted term; `{id}` stands for the term's keyed
    /// pseudonym (the default, `term-{id}`, keeps two terms apart).
    pub denylist_replacement: String,
}

/// See [`PrivacyConfig::file_digest`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileDigest {
    /// The plain sha256: what provenance manifests and `sha256sum -c` compare.
    #[default]
    Sha256,
    /// HMAC-SHA-256 of the sha256 under the fingerprint key: a one-value file's
    /// content cannot be guessed by hashing candidates.
    Keyed,
}

impl Default for PrivacyConfig {
    fn default() -> Self {
        PrivacyConfig {
            org_domains: Vec::new(),
            allowed_domains: Vec::new(),
            denylist_files: Vec::new(),
            placeholders: Vec::new(),
            machine_context: true,
            file_digest: FileDigest::Sha256,
            denylist_replacement: "term-{id}".into(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ProvenanceConfig {
    pub manifests: Vec<String>,
    pub bind: Vec<BindConfig>,
}

impl Default for ProvenanceConfig {
    fn default() -> Self {
        ProvenanceConfig {
            manifests: vec!["SHA256SUMS".into(), "*.sha256".into()],
            bind: Vec::new(),
        }
    }
}

/// `[[provenance.bind]]`: the hash at `pointer` (a JSON Pointer glob), in records of
/// `record_type` if given, describes `file` (relative to the record's file; `{field}`
/// is replaced by the record's top-level field).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BindConfig {
    pub pointer: String,
    #[serde(default)]
    pub record_type: Option<String>,
    pub file: String,
}

/// `[[allow]]`: a finding accepted by fingerprint, or by rule within a path glob. The
/// reason is mandatory and appears in every report that applies the entry.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllowEntry {
    #[serde(default)]
    pub fingerprint: Option<String>,
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub rule: Option<String>,
    /// With `path` and `rule`: only findings whose JSON Pointer fits this pattern
    /// (`*` for any one step: `/users/*/email`), so one entry accepts one table.
    #[serde(default)]
    pub pointer: Option<String>,
    pub reason: String,
}

/// `[[formats]]`: files matching `glob` (relative path) are read as `format`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FormatOverride {
    pub glob: String,
    pub format: crate::formats::SeedFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum OnViolation {
    #[default]
    Report,
    Quarantine,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DaemonConfig {
    pub watch: Vec<PathBuf>,
    /// Start even when a watched folder does not exist yet.
    pub wait_for_watch: bool,
    pub reports: PathBuf,
    pub state: PathBuf,
    pub debounce_ms: u64,
    /// A file still changing this long after it was first seen is judged as it is.
    pub max_settle_ms: u64,
    /// Seconds between full reconcile walks (events are hints; the walk is the truth,
    /// and catches a file changed through a hard link from outside the tree).
    pub reconcile_secs: u64,
    pub on_violation: OnViolation,
    pub quarantine: PathBuf,
}

impl Default for DaemonConfig {
    fn default() -> Self {
        DaemonConfig {
            watch: vec![PathBuf::from("/srv/datasets")],
            wait_for_watch: false,
            reports: PathBuf::from("/var/lib/privacy-audit/reports"),
            state: PathBuf::from("/var/lib/privacy-audit/state"),
            debounce_ms: 500,
            max_settle_ms: 60_000,
            reconcile_secs: 3600,
            on_violation: OnViolation::Report,
            quarantine: PathBuf::from("/var/lib/privacy-audit/quarantine"),
        }
    }
}

/// `[team]`: what a team shares through the repository.
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct TeamConfig {
    /// The key baselines and `[[allow]]` fingerprints are made with (64 hex digits),
    /// so that they match on every clone and in CI. Empty: this machine's key, and
    /// what it accepts holds on this machine only.
    pub key: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HookConfig {
    pub fail_on: Severity,
    /// The same as `scan.allow_unjudged`, for the git doors (`hook run`, `scan-git`).
    pub allow_unjudged: Vec<Unjudged>,
}

impl Default for HookConfig {
    fn default() -> Self {
        HookConfig {
            fail_on: Severity::Low,
            allow_unjudged: Vec::new(),
        }
    }
}

impl Config {
    /// The built-in defaults, with relative paths resolved from `dir`.
    pub fn defaults_at(dir: &Path) -> Config {
        Config {
            base_dir: dir.to_path_buf(),
            ..Config::default()
        }
    }

    /// Reads and checks a config file; relative paths in it resolve from its folder.
    pub fn load(path: &Path) -> Result<Config> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let mut config = Config::parse(&text).map_err(|message| Error::Config {
            path: path.to_path_buf(),
            message,
        })?;
        config.base_dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
            _ => PathBuf::from("."),
        };
        config.origin = Some(path.to_path_buf());
        Ok(config)
    }

    /// An error about a value of this config, naming where it came from; for checks
    /// made where the value is used rather than when it is parsed.
    pub fn invalid(&self, message: impl Into<String>) -> Error {
        Error::Config {
            path: self
                .origin
                .clone()
                .unwrap_or_else(|| PathBuf::from("(built-in defaults)")),
            message: message.into(),
        }
    }

    /// Parses TOML text; the error message names the line, column and problem but
    /// never quotes the line (it may hold a secret).
    pub fn parse(text: &str) -> std::result::Result<Config, String> {
        let config: Config =
            toml::from_str(text).map_err(|e| crate::guard::toml_error(text, &e))?;
        config.validate()?;
        Ok(config)
    }

    fn validate(&self) -> std::result::Result<(), String> {
        if self.scan.max_file_bytes == 0 {
            return Err("scan.max_file_bytes must be greater than 0".into());
        }
        if !self.team.key.is_empty()
            && (self.team.key.len() != 64 || !self.team.key.bytes().all(|b| b.is_ascii_hexdigit()))
        {
            return Err("team.key must be 64 hex digits (`privacy-audit init` writes one)".into());
        }
        for (i, a) in self.allow.iter().enumerate() {
            let n = i + 1;
            if a.reason.trim().is_empty() {
                return Err(format!("allow #{n}: `reason` must say why"));
            }
            if a.pointer.is_some() && (a.path.is_none() || a.rule.is_none()) {
                return Err(format!(
                    "allow #{n}: `pointer` limits a `path` and `rule` entry; give both"
                ));
            }
            if a.pointer
                .as_deref()
                .is_some_and(|p| !p.is_empty() && !p.starts_with('/'))
            {
                return Err(format!(
                    "allow #{n}: `pointer` is a JSON Pointer pattern starting with `/`"
                ));
            }
            match (&a.fingerprint, &a.path, &a.rule) {
                // A value anywhere, or (with `path`) only in the files the glob names:
                // `privacy-audit allow` writes the second.
                (Some(fp), glob, None) => {
                    if !(16..=64).contains(&fp.len()) || !fp.bytes().all(|b| b.is_ascii_hexdigit())
                    {
                        return Err(format!(
                            "allow #{n}: `fingerprint` must be 16 to 64 hex digits"
                        ));
                    }
                    if let Some(glob) = glob {
                        globset::Glob::new(glob)
                            .map_err(|e| format!("allow #{n}: invalid path glob `{glob}`: {e}"))?;
                    }
                }
                (None, Some(glob), Some(_)) => {
                    globset::Glob::new(glob)
                        .map_err(|e| format!("allow #{n}: invalid path glob `{glob}`: {e}"))?;
                }
                _ => {
                    return Err(format!(
                        "allow #{n}: give `fingerprint` (with `path` to limit it to those files), or `path` and `rule`"
                    ));
                }
            }
        }
        for f in &self.formats {
            globset::Glob::new(&f.glob)
                .map_err(|e| format!("formats: invalid glob `{}`: {e}", f.glob))?;
        }
        let globs = [
            ("scan.exclude", &self.scan.exclude),
            ("provenance.manifests", &self.provenance.manifests),
        ];
        for (key, list) in globs {
            for glob in list {
                globset::Glob::new(glob)
                    .map_err(|e| format!("{key}: invalid glob `{glob}`: {e}"))?;
            }
        }
        for d in self
            .privacy
            .org_domains
            .iter()
            .chain(&self.privacy.allowed_domains)
        {
            if d.is_empty() || d.contains(|c: char| c.is_whitespace() || c == '/' || c == '@') {
                return Err(format!("privacy: `{d}` is not a domain name"));
            }
        }
        Ok(())
    }

    /// Resolves a path from the config against the config file's folder.
    pub fn resolve(&self, path: &Path) -> PathBuf {
        if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.base_dir.join(path)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_key_names_key_and_line() {
        let err = Config::parse("[scan]\nfail_on = \"low\"\nexclued = []\n").unwrap_err();
        assert!(err.contains("exclued"), "{err}");
        assert!(err.contains("line 3"), "{err}");
    }

    #[test]
    fn wrong_type_is_an_error() {
        let err = Config::parse("[scan]\nmax_file_bytes = \"big\"\n").unwrap_err();
        assert!(
            err.contains("max_file_bytes") || err.contains("line 2"),
            "{err}"
        );
    }

    #[test]
    fn shipped_example_equals_defaults() {
        let text = include_str!("../../../config.toml");
        let parsed = Config::parse(text).expect("config.toml parses");
        assert_eq!(parsed, Config::default());
    }
}

#[cfg(test)]
mod error_tests {
    #[test]
    fn toml_errors_never_quote_the_value() {
        let token = "ghp_R4nd0mT0k3nV4lu3Th4tL00ksR34l012345";
        for text in [
            format!("[scan]\nfail_on = \"{token}\"\n"),
            format!("[scan]\n{token} = 1\n"),
            format!("[scan]\ntoken = {token}\n"),
        ] {
            let message = super::Config::parse(&text).expect_err("bad config");
            assert!(!message.contains(token), "{message}");
            assert!(!message.contains("R4nd0mT0k3n"), "{message}");
            assert!(message.starts_with("line "), "{message}");
        }
    }
}
