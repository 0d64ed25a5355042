//! File hashes, computed at most once per run and remembered across runs.
//!
//! A hash is reused while the file's (device, inode, size, mtime, ctime) stamp is
//! unchanged — git's index trade-off: a same-size rewrite within one timestamp tick
//! escapes it, which is why the daemon also hashes every file it scans for content. Files the
//! scan already read are recorded as they are read, so verifying a manifest over them
//! costs no second read.

use crate::finding::fingerprint::FingerprintKey;
use crate::source::Stamp;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// Entries kept on disk at most; the least recently seen go first.
const MAX_ENTRIES: usize = 1_000_000;

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    /// A keyed digest of the path (see [`HashCache::keyed`]): the cache names no file.
    path: String,
    #[serde(flatten)]
    stamp: Stamp,
    sha256: String,
    #[serde(skip)]
    seen: bool,
}

/// How the run obtained its hashes; `--stats` prints them.
#[derive(Debug, Default)]
pub struct Stats {
    /// Files read only to hash them.
    pub hashed_files: AtomicU64,
    pub hashed_bytes: AtomicU64,
    /// Hashes taken from files the scan read anyway.
    pub from_scan: AtomicU64,
    /// Hashes taken from the persisted cache.
    pub from_cache: AtomicU64,
}

pub struct HashCache {
    file: Option<PathBuf>,
    /// Read from `file` on first use: a scan that hashes nothing (an empty folder, a
    /// hook with nothing staged) does not pay for parsing a cache of every file seen.
    entries: OnceLock<Mutex<HashMap<String, Entry>>>,
    key: FingerprintKey,
    pub stats: Stats,
    /// A hash was recorded since the cache was read: only then is it written back (a
    /// scan of unchanged or no files costs no rewrite and no fsync).
    changed: std::sync::atomic::AtomicBool,
}

impl HashCache {
    /// An empty cache that persists nothing.
    pub fn in_memory() -> HashCache {
        HashCache {
            file: None,
            entries: OnceLock::from(Mutex::new(HashMap::new())),
            key: FingerprintKey::from_bytes([0; 32]),
            stats: Stats::default(),
            changed: Default::default(),
        }
    }

    /// This cache with its paths kept under `key`'s digest: a copied cache file says
    /// nothing about the names, and entries written under another key are never found.
    pub fn keyed(mut self, key: FingerprintKey) -> HashCache {
        self.key = key;
        self
    }

    fn digest(&self, path: &Path) -> String {
        let path = absolute(path);
        let full = self.key.fingerprint(
            "privacy-audit.hash-cache",
            path.as_os_str().as_encoded_bytes(),
        );
        full.0.chars().take(32).collect()
    }

    /// The cache at `file`, read when first asked; an unreadable or corrupt cache
    /// starts empty (it is only an optimisation) with a warning.
    pub fn open(file: PathBuf) -> HashCache {
        HashCache {
            file: Some(file),
            entries: OnceLock::new(),
            key: FingerprintKey::from_bytes([0; 32]),
            stats: Stats::default(),
            changed: Default::default(),
        }
    }

    fn load(file: &Path) -> HashMap<String, Entry> {
        // An older cache beside it kept names (hex-encoded): gone.
        if let Some(dir) = file.parent() {
            let _ = std::fs::remove_file(dir.join("hashes-v2.jsonl"));
        }
        let mut entries = HashMap::new();
        match std::fs::read_to_string(file) {
            Ok(text) => {
                for line in text.lines() {
                    match serde_json::from_str::<Entry>(line) {
                        Ok(e) => {
                            entries.insert(e.path.clone(), e);
                        }
                        Err(_) => {
                            tracing::warn!(cache = %file.display(), "hash cache is corrupt; starting empty");
                            entries.clear();
                            break;
                        }
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                tracing::warn!(cache = %file.display(), error = %e, "hash cache unreadable; starting empty")
            }
        }
        entries
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        let entries = self
            .entries
            .get_or_init(|| Mutex::new(self.file.as_deref().map(Self::load).unwrap_or_default()));
        // A panic elsewhere cannot leave an entry half-written: keep going with the data.
        entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records the hash of a file the scan has just read.
    pub fn record(&self, path: &Path, stamp: Stamp, sha256: &str) {
        let key = self.digest(path);
        self.changed.store(true, Ordering::Relaxed);
        self.lock().insert(
            key.clone(),
            Entry {
                path: key,
                stamp,
                sha256: sha256.to_string(),
                seen: true,
            },
        );
    }

    /// The sha256 of `path`: this run's, the cache's if the stamp still holds, else read
    /// (streaming) and remembered. `scanned` says the scan itself recorded it.
    pub fn sha256(&self, path: &Path, file: std::fs::File) -> std::io::Result<String> {
        let key = self.digest(path);
        let stamp = Stamp::of(&file.metadata()?);
        if let Some(e) = self.lock().get_mut(&key)
            && e.stamp == stamp
        {
            let counter = if e.seen {
                &self.stats.from_scan
            } else {
                &self.stats.from_cache
            };
            counter.fetch_add(1, Ordering::Relaxed);
            e.seen = true;
            return Ok(e.sha256.clone());
        }
        let sha256 = hash_reader(file, &self.stats)?;
        self.record(path, stamp, &sha256);
        Ok(sha256)
    }

    /// Writes the cache atomically: temp file, fsync, rename, fsync of the folder.
    pub fn save(&self) -> std::io::Result<()> {
        let Some(file) = &self.file else {
            return Ok(());
        };
        if !self.changed.load(Ordering::Relaxed) {
            return Ok(());
        }
        let dir = file.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let mut entries: Vec<Entry> = self.lock().values().cloned().collect();
        if entries.len() > MAX_ENTRIES {
            entries.sort_by_key(|e| !e.seen);
            entries.truncate(MAX_ENTRIES);
        }
        let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
        {
            let mut w = std::io::BufWriter::new(tmp.as_file_mut());
            for e in &entries {
                serde_json::to_writer(&mut w, e)?;
                w.write_all(b"\n")?;
            }
            w.flush()?;
        }
        tmp.as_file().sync_all()?;
        tmp.persist(file).map_err(|e| e.error)?;
        std::fs::File::open(dir)?.sync_all()
    }
}

/// Lexically normalised, like the verifier's paths: `a/../b` and `b` are one entry.
fn absolute(path: &Path) -> PathBuf {
    super::normalize(path)
}

/// Streams `reader` through sha256 with a fixed buffer.
pub fn hash_reader(mut reader: impl Read, stats: &Stats) -> std::io::Result<String> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 256 * 1024];
    let mut total = 0u64;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&buf[..n]);
        total += n as u64;
    }
    stats.hashed_files.fetch_add(1, Ordering::Relaxed);
    stats.hashed_bytes.fetch_add(total, Ordering::Relaxed);
    Ok(crate::hex::encode(&hasher.finalize()))
}
