//! `privacy-audit.toml`: parsed strictly (an unknown key or a wrong type is an error that
//! names the key and line), with every default built in. `config.toml` at the repository
//! root documents every key and must equal [`Config::default`]; a test keeps them equal.

use crate::error::{Error, Result};
use crate::finding::Severity;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The name looked up in the current folder when no `--config` is given.
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
    /// Format overrides by path glob (`[[formats]]`).
    pub formats: Vec<FormatOverride>,
    /// Findings accepted on purpose, each with its reason (`[[allow]]`).
    pub allow: Vec<AllowEntry>,
    /// Folder relative paths in the config are resolved from; not a key.
    #[serde(skip)]
    pub base_dir: PathBuf,
    /// True when the values came from a file rather than the built-in defaults.
    #[serde(skip)]
    pub from_file: bool,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ScanConfig {
    pub exclude: Vec<String>,
    pub max_file_bytes: u64,
    pub fail_on: Severity,
    /// Accepted findings (`privacy-audit baseline`); a missing file is an empty baseline.
    pub baseline: PathBuf,
}

impl Default for ScanConfig {
    fn default() -> Self {
        ScanConfig {
            exclude: vec!["**/.git/**".into(), "**/target/**".into()],
            max_file_bytes: 268_435_456,
            fail_on: Severity::Low,
            baseline: PathBuf::from(".privacy-audit-baseline.json"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RulesConfig {
    pub dirs: Vec<PathBuf>,
    pub disable: Vec<String>,
}

impl Default for RulesConfig {
    fn default() -> Self {
        RulesConfig {
            dirs: vec![PathBuf::from("rules")],
            disable: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct PrivacyConfig {
    pub org_domains: Vec<String>,
    pub allowed_domains: Vec<String>,
    pub denylist_files: Vec<PathBuf>,
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
    pub reason: String,
}

/// `[[formats]]`: files matching `glob` (relative path) are read as `format`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FormatOverride {
    pub glob: String,
    pub format: crate::schema::SeedFormat,
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
    pub reports: PathBuf,
    pub state: PathBuf,
    pub debounce_ms: u64,
    pub on_violation: OnViolation,
    pub quarantine: PathBuf,
}

impl Default for DaemonConfig {
    fn default() -> Self {
        DaemonConfig {
            watch: vec![PathBuf::from("/srv/datasets")],
            reports: PathBuf::from("/var/lib/privacy-audit/reports"),
            state: PathBuf::from("/var/lib/privacy-audit/state"),
            debounce_ms: 500,
            on_violation: OnViolation::Report,
            quarantine: PathBuf::from("/var/lib/privacy-audit/quarantine"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HookConfig {
    pub fail_on: Severity,
}

impl Default for HookConfig {
    fn default() -> Self {
        HookConfig {
            fail_on: Severity::Low,
        }
    }
}

impl Config {
    /// `--config FILE`, else `./privacy-audit.toml`, else the built-in defaults.
    pub fn discover(explicit: Option<&Path>) -> Result<Config> {
        if let Some(path) = explicit {
            return Config::load(path);
        }
        let local = Path::new(LOCAL_CONFIG_NAME);
        if local.is_file() {
            return Config::load(local);
        }
        Ok(Config {
            base_dir: std::env::current_dir().unwrap_or_default(),
            ..Config::default()
        })
    }

    pub fn load(path: &Path) -> Result<Config> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let mut config = Config::parse(&text).map_err(|message| Error::Config {
            path: path.to_path_buf(),
            message,
        })?;
        let dir = path.parent().unwrap_or(Path::new("."));
        config.base_dir = if dir.as_os_str().is_empty() {
            std::env::current_dir().unwrap_or_default()
        } else {
            dir.to_path_buf()
        };
        config.from_file = true;
        Ok(config)
    }

    /// Parses TOML text; the error message carries toml's line and column.
    pub fn parse(text: &str) -> std::result::Result<Config, String> {
        let config: Config = toml::from_str(text).map_err(|e| e.to_string())?;
        config.validate()?;
        Ok(config)
    }

    fn validate(&self) -> std::result::Result<(), String> {
        if self.scan.max_file_bytes == 0 {
            return Err("scan.max_file_bytes must be greater than 0".into());
        }
        for (i, a) in self.allow.iter().enumerate() {
            let n = i + 1;
            if a.reason.trim().is_empty() {
                return Err(format!("allow #{n}: `reason` must say why"));
            }
            match (&a.fingerprint, &a.path, &a.rule) {
                (Some(fp), None, None) => {
                    if fp.len() != 64 || !fp.bytes().all(|b| b.is_ascii_hexdigit()) {
                        return Err(format!("allow #{n}: `fingerprint` must be 64 hex digits"));
                    }
                }
                (None, Some(glob), Some(_)) => {
                    globset::Glob::new(glob)
                        .map_err(|e| format!("allow #{n}: invalid path glob `{glob}`: {e}"))?;
                }
                _ => {
                    return Err(format!(
                        "allow #{n}: give either `fingerprint`, or `path` and `rule`"
                    ));
                }
            }
        }
        for b in &self.provenance.bind {
            crate::provenance::bind::BindRule::new(
                &b.pointer,
                b.record_type.clone(),
                b.file.clone(),
            )?;
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
        let text = include_str!("../config.toml");
        let parsed = Config::parse(text).expect("config.toml parses");
        assert_eq!(parsed, Config::default());
    }
}
