//! The engine's front door: walk → read/decode → detect and audit → verify claims →
//! report.
//!
//! A [`Scanner`] is built once per run (config, compiled rules, fingerprint key, hash
//! cache) and is shared by every worker thread. Provenance claims are collected while
//! files are read and verified once the walk is over, because a manifest may name a
//! file the walk has not reached yet. Other doors (git, daemon) call
//! [`Scanner::scan_blob`] with bytes they obtained themselves.

pub mod audit;
mod baseline_file;
pub mod decode;
mod defang;
pub mod disguise;
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
pub mod sniff;
mod stream;

use crate::config::Config;
use crate::detect::RuleSet;
use crate::error::{Error, Result};
use crate::finding::fingerprint::FingerprintKey;
use crate::finding::{Category, Finding};
use crate::provenance::cache::HashCache;
use crate::provenance::{Claim, ClaimSite, SeenFile, Verifier};
use crate::report::{FileRecord, Report};
use crate::source::read::Skipped;
use crate::source::walk::{Entry, Excludes};
use audit::AuditConfig;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Instant, SystemTime};

/// What the walk hands back for one entry.
enum Visited {
    Read(FileOutcome, Option<(PathBuf, ClaimSite)>),
    /// Provenance mode passes over files that cannot hold hashes; they still count for
    /// `--strict` manifest completeness.
    Unread(SeenFile),
}

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
}

impl Scanner {
    /// The one way a run is assembled from resolved settings: the config's rules
    /// (built-in, its folders, its denylists) compiled, then the scanner.
    pub fn from_config(config: Config, key: FingerprintKey) -> Result<Scanner> {
        let rules = RuleSet::load(&config)?;
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

    pub fn with_mode(mut self, mode: Mode, strict: bool) -> Self {
        self.mode = mode;
        self.strict = strict;
        self
    }

    /// Scans files and folders. A path that does not exist is an error (exit 2); a file
    /// that cannot be read is listed as skipped and marks the report incomplete.
    pub fn scan_paths(&self, roots: &[PathBuf], progress: Option<&Progress>) -> Result<Report> {
        for root in roots {
            std::fs::symlink_metadata(root).map_err(|e| Error::io(root, e))?;
        }
        let started = SystemTime::now();
        let clock = Instant::now();
        let (tx, rx) = mpsc::channel::<Visited>();
        let visit = |entry: Entry| {
            let visited = match entry {
                Entry::File { path, rel, root } => {
                    let site = ClaimSite {
                        dir: path.parent().map(Path::to_path_buf).unwrap_or_default(),
                        root,
                    };
                    if self.wants(&path) {
                        Visited::Read(self.scan_path(&path, rel), Some((path, site)))
                    } else {
                        Visited::Unread(SeenFile { disk: path, rel })
                    }
                }
                Entry::Skip { rel, reason } => {
                    let skip = Skipped {
                        reason,
                        sha256: None,
                        bytes: 0,
                        stamp: None,
                    };
                    // A link's or a FIFO's name is a name like any other: judged,
                    // and shown masked.
                    let named = self.check_name(&rel);
                    let mut outcome = self.skipped(named.shown, skip);
                    outcome.findings.extend(named.findings);
                    Visited::Read(outcome, None)
                }
            };
            if let (Some(p), Visited::Read(outcome, _)) = (progress, &visited) {
                p.files.fetch_add(1, Ordering::Relaxed);
                p.bytes.fetch_add(outcome.record.bytes, Ordering::Relaxed);
            }
            // The receiver outlives the walk; a send cannot fail before it ends.
            let _ = tx.send(visited);
        };
        crate::source::walk::walk(roots, &self.excludes, self.threads, &visit);
        drop(tx);
        Ok(self.assemble(rx, started, clock))
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

    /// One shard of a scan of `root`: `rels` as [`Scanner::list_files`] gives them.
    /// Each must be a plain relative path to something that is not a folder: `..`, an
    /// absolute path or a folder would read outside the plan or judge nothing.
    pub fn scan_shard(&self, root: &Path, rels: &[PathBuf]) -> Result<Report> {
        let mut items = Vec::with_capacity(rels.len());
        for rel in rels {
            let shown = crate::guard::path_text(rel.as_os_str().as_encoded_bytes());
            let plain = rel
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)));
            if !plain || rel.as_os_str().is_empty() {
                return Err(Error::invalid(
                    shown,
                    "not a plain path relative to the root",
                ));
            }
            let disk = root.join(rel);
            let meta = std::fs::symlink_metadata(&disk).map_err(|e| Error::io(&shown, e))?;
            if meta.is_dir() {
                return Err(Error::invalid(
                    shown,
                    "a folder, not a file: list it with list_files",
                ));
            }
            items.push((disk, shown, root.to_path_buf()));
        }
        Ok(self.scan_files(&items))
    }

    /// Scans the given files (disk path, report path, the root claims may not leave), in
    /// parallel, with the same verification as [`Scanner::scan_paths`]: the daemon's
    /// batches.
    pub fn scan_files(&self, items: &[(PathBuf, String, PathBuf)]) -> Report {
        let started = SystemTime::now();
        let clock = Instant::now();
        let (tx, rx) = mpsc::channel::<Visited>();
        let next = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..self.threads.min(items.len()).max(1) {
                let tx = tx.clone();
                let next = &next;
                s.spawn(move || {
                    while let Some((disk, rel, root)) =
                        items.get(next.fetch_add(1, Ordering::Relaxed))
                    {
                        let site = ClaimSite {
                            dir: disk.parent().map(Path::to_path_buf).unwrap_or_default(),
                            root: root.clone(),
                        };
                        let outcome = self.scan_path(disk, rel.clone());
                        let _ = tx.send(Visited::Read(outcome, Some((disk.clone(), site))));
                    }
                });
            }
        });
        drop(tx);
        self.assemble(rx, started, clock)
    }

    /// Verifies the claims the files made, once every file is in, and builds the report.
    fn assemble(&self, rx: mpsc::Receiver<Visited>, started: SystemTime, clock: Instant) -> Report {
        let (mut files, mut findings, mut claims, mut seen) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for visited in rx {
            let (outcome, site) = match visited {
                Visited::Read(outcome, site) => (outcome, site),
                Visited::Unread(file) => {
                    seen.push(file);
                    continue;
                }
            };
            if let Some((disk, site)) = site {
                claims.extend(outcome.claims.into_iter().map(|c| (c, site.clone())));
                seen.push(SeenFile {
                    disk,
                    rel: outcome.record.path.clone(),
                });
            }
            files.push(outcome.record);
            findings.extend(outcome.findings);
        }
        claims.sort_by(|a, b| (&a.0.claimant, a.0.line).cmp(&(&b.0.claimant, b.0.line)));
        let verifier = Verifier {
            rules: &self.rules,
            key: &self.key,
            cache: &self.cache,
            strict: self.strict,
        };
        findings.extend(verifier.verify(&claims, &seen));
        if self.mode == Mode::Provenance {
            findings.retain(|f| f.category == Category::Provenance);
        }
        if let Err(e) = self.cache.save() {
            tracing::warn!(error = %e, "could not save the hash cache; the next run will rehash");
        }
        let mut report = Report::new(
            self.rules.sha256.clone(),
            started,
            clock.elapsed(),
            files,
            findings,
        );
        self.seal_file_digests(&mut report);
        report
    }

    /// Applies `[privacy] file_digest` to a report this scanner's run produced.
    pub fn seal_file_digests(&self, report: &mut Report) {
        if self.config.privacy.file_digest == crate::config::FileDigest::Keyed {
            report.key_file_digests(&self.key);
        }
    }

    /// In provenance mode only files that can hold hashes are read; the rest are read
    /// (hashed) only if a claim names them.
    fn wants(&self, path: &Path) -> bool {
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
