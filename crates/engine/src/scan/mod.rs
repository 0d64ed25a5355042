//! Judging one unit: read/decode → detect and audit → masked, fingerprinted findings
//! and the hash claims it makes.
//!
//! A [`Scanner`] is built once per run (config, compiled rules, fingerprint key, hash
//! cache) and is shared by every worker thread. It judges one unit at a time — a file
//! on disk ([`Scanner::scan_path`]), bytes a door obtained ([`Scanner::scan_blob`]), a
//! name ([`Scanner::check_name`]); [`crate::run`] drives it over a whole source.

pub mod audit;
mod baseline_file;
mod continued;
pub mod decode;
mod defang;
pub mod disguise;
mod entities;
mod escaped;
mod escapes;
mod excerpt;
pub mod file;
mod keys;
mod layers;
mod name;
mod one;
mod path_forms;
mod quoted;
mod setting;
pub mod sniff;
mod stream;
mod token_layer;

use crate::config::Config;
use crate::detect::RuleSet;
use crate::detect::domains::DomainPolicy;
use crate::error::{Error, Result};
use crate::finding::Finding;
use crate::finding::fingerprint::FingerprintKey;
use crate::provenance::Claim;
use crate::provenance::cache::HashCache;
use crate::report::{FileRecord, Report};
use crate::rules::machine::Machine;
use crate::source::walk::{Entry, Excludes};
use audit::AuditConfig;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;

/// Counters a progress display may read while a scan runs.
#[derive(Default)]
pub struct Progress {
    pub files: AtomicU64,
    pub bytes: AtomicU64,
}

/// What scanning one file produced.
pub struct FileOutcome {
    pub record: FileRecord,
    pub findings: Vec<Finding>,
    pub claims: Vec<Claim>,
    /// Findings of the content less sure than the run lists, counted, not built
    /// (see [`Scanner::scan_path_below`]).
    pub below_floor: usize,
}

/// What a run looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Everything: privacy, formats, provenance.
    Full,
    /// Provenance only (`privacy-audit verify`): files are read only when they can hold
    /// hashes (JSON, JSONL, manifests) or are named by one.
    Provenance,
}

pub struct Scanner {
    pub config: Config,
    pub rules: RuleSet,
    key: FingerprintKey,
    excludes: Excludes,
    audit: AuditConfig,
    pub cache: HashCache,
    threads: usize,
    mode: Mode,
    strict: bool,
    /// Read buffers lent to one file at a time: as many as workers, each kept as large
    /// as the files it has read (see [`read::ReadBuffers`]). Taken once per file.
    buffers: std::sync::Mutex<Vec<crate::source::read::ReadBuffers>>,
    /// Findings keep their matched bytes (`fix`).
    keep_values: bool,
}

/// The rules `config` asks for: the built-in ones, its rule folders (or the committed
/// snapshot a git door read), its denylists and, unless `privacy.machine_context` is
/// off, what this machine knows of its own people; read here, then compiled.
pub fn load_rules(config: &Config) -> Result<RuleSet> {
    let operator_files = match &config.rule_snapshot {
        Some(files) => files.clone(),
        None => {
            let dirs: Vec<_> = config
                .rules
                .dirs
                .iter()
                .map(|d| config.resolve(d))
                .collect();
            crate::rules::read_rule_dirs(&dirs)?
        }
    };
    let specs = crate::rules::collect_specs(operator_files, &config.rules.disable)?;
    let privacy = &config.privacy;
    let denylists: Vec<_> = privacy
        .denylist_files
        .iter()
        .map(|p| config.resolve(p))
        .collect();
    let settings = crate::detect::Settings {
        domains: DomainPolicy::new(&privacy.allowed_domains, &privacy.org_domains),
        denylist: crate::rules::read_denylists(&denylists)?,
        placeholders: privacy.placeholders.clone(),
        machine: match privacy.machine_context {
            true => Machine::discover(&config.git_user_configs),
            false => Machine::default(),
        },
    };
    let rules = RuleSet::compile(specs, settings)?;
    for (id, file) in &rules.replaced {
        tracing::warn!(rule = %id, file = %file, "a built-in rule is replaced by an operator's rule");
    }
    Ok(rules)
}

impl Scanner {
    /// The one way a run is assembled from resolved settings: the config's rules
    /// (built-in, its folders, its denylists) compiled, then the scanner.
    pub fn from_config(config: Config, key: FingerprintKey) -> Result<Scanner> {
        let rules = load_rules(&config)?;
        let key = match config.team.key.as_str() {
            "" => key,
            team => key
                .with_team(team)
                .ok_or_else(|| config.invalid("team.key must be 64 hex digits"))?,
        };
        Scanner::new(config, rules, key)
    }

    pub fn new(config: Config, rules: RuleSet, key: FingerprintKey) -> Result<Scanner> {
        let excludes = Excludes::new(&config.scan.exclude)?;
        let audit = AuditConfig::new(&config)?;
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        Ok(Scanner {
            config,
            rules,
            key,
            excludes,
            audit,
            cache: HashCache::in_memory(),
            threads,
            mode: Mode::Full,
            strict: false,
            buffers: std::sync::Mutex::new(Vec::new()),
            keep_values: false,
        })
    }

    pub fn key(&self) -> &FingerprintKey {
        &self.key
    }

    /// Manifest names without wildcards (`SHA256SUMS`): ones that can be looked up.
    pub fn literal_manifest_names(&self) -> impl Iterator<Item = &str> {
        self.config
            .provenance
            .manifests
            .iter()
            .map(String::as_str)
            .filter(|g| !g.contains(['*', '?', '[', '{', '/']))
    }

    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// Remembers hashes in `cache`, its paths keyed under this scanner's key.
    pub fn with_cache(mut self, cache: HashCache) -> Self {
        self.cache = cache.keyed(self.key.clone());
        self
    }

    /// Findings keep their matched bytes in memory (see `Finding::value`): what `fix`
    /// rewrites. Never for a scan whose findings are only reported.
    pub fn keeping_values(mut self) -> Self {
        self.keep_values = true;
        self
    }

    pub fn with_mode(mut self, mode: Mode, strict: bool) -> Self {
        self.mode = mode;
        self.strict = strict;
        self
    }

    /// The files a scan of folder `root` reads, relative to it and as the file system
    /// names them (so they open again exactly), in order: what a pipeline splits into
    /// shards for [`Scanner::scan_files`]. A folder the walk could not read is an error,
    /// not a shorter list: a shard plan that silently left files out would pass them.
    pub fn list_files(&self, root: &Path) -> Result<Vec<PathBuf>> {
        let meta = std::fs::metadata(root).map_err(|e| Error::io(root, e))?;
        if !meta.is_dir() {
            return Err(Error::invalid(
                crate::guard::path_text(root.as_os_str().as_encoded_bytes()),
                "not a folder",
            ));
        }
        let found = std::sync::Mutex::new((Vec::new(), None));
        crate::source::walk::walk(&[root.to_path_buf()], &self.excludes, self.threads, &|e| {
            let mut found = found.lock().unwrap_or_else(|p| p.into_inner());
            match e {
                Entry::File { path, .. } => {
                    if let Ok(rel) = path.strip_prefix(root) {
                        found.0.push(rel.to_path_buf());
                    }
                }
                Entry::Skip { rel, reason } if reason.is_error() => {
                    found.1.get_or_insert(format!("{rel}: {reason}"));
                }
                Entry::Skip { .. } => {}
            }
        });
        let (mut files, failed) = found.into_inner().unwrap_or_else(|p| p.into_inner());
        if let Some(why) = failed {
            return Err(Error::invalid(
                why,
                "could not be listed; no shard plan made",
            ));
        }
        files.sort();
        Ok(files)
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Whether `--strict` manifest completeness is checked.
    pub fn strict(&self) -> bool {
        self.strict
    }

    pub(crate) fn threads(&self) -> usize {
        self.threads
    }

    /// What auditing reads from the config (manifest names, bind rules).
    pub fn audit(&self) -> &AuditConfig {
        &self.audit
    }

    pub(crate) fn excludes(&self) -> &Excludes {
        &self.excludes
    }

    /// Applies `[privacy] file_digest` to a report this scanner's run produced.
    pub fn seal_file_digests(&self, report: &mut Report) {
        if self.config.privacy.file_digest == crate::config::FileDigest::Keyed {
            report.key_file_digests(&self.key);
        }
    }

    /// In provenance mode only files that can hold hashes are read; the rest are read
    /// (hashed) only if a claim names them.
    pub(crate) fn wants(&self, path: &Path) -> bool {
        if self.mode == Mode::Full {
            return true;
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let base = name.strip_suffix(".gz").unwrap_or(&name);
        self.audit.is_manifest(&name)
            || base.ends_with(".json")
            || base.ends_with(".jsonl")
            || base.ends_with(".ndjson")
    }
}
