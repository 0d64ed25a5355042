//! What the daemon knows about each file it judged: size, mtime, sha256 and verdict,
//! persisted in the state folder so a restart judges only what changed while it was
//! down. The reports are the commit point: a report written just before a crash, whose
//! state update was lost, is replayed at start, so no file is judged twice.

use privacy_audit_engine::error::{Error, Result};
use privacy_audit_engine::finding::fingerprint::FingerprintKey;
use privacy_audit_engine::source::Stamp;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileState {
    /// (device, inode, size, mtime, ctime): ctime catches a same-size edit whose mtime
    /// was put back (`touch -r`).
    pub stamp: Stamp,
    pub sha256: Option<String>,
    /// `clean`, `findings` or `skipped`.
    pub verdict: String,
    /// The name as reports show it (masked where it holds a value), sealed under the
    /// daemon's key (hex): what a removal record says.
    pub shown: String,
    /// The keyed digest of the folder holding the file.
    pub folder: String,
}

/// What the daemon judged, by the keyed digest of each path (HMAC under the daemon's
/// key): the state file names no file, not even reversibly. Folders are kept as
/// digest → parent digest, so a removed folder still finds the files under it.
#[derive(Default, Serialize, Deserialize)]
pub struct State {
    /// The last report whose files are in `files`.
    pub last_sequence: u64,
    files: HashMap<String, FileState>,
    folders: HashMap<String, String>,
    #[serde(skip)]
    key: Option<FingerprintKey>,
}

/// The digest a path is kept under.
fn digest(key: &FingerprintKey, path: &Path) -> String {
    key.fingerprint(
        "privacy-audit.daemon-state",
        path.as_os_str().as_encoded_bytes(),
    )
    .0
    .chars()
    .take(32)
    .collect()
}

/// What a sealed name's keystream is drawn for: the entry and the judgement.
fn nonce(digest: &str, stamp: &Stamp) -> Vec<u8> {
    let mut n = digest.as_bytes().to_vec();
    n.extend_from_slice(&serde_json::to_vec(stamp).unwrap_or_default());
    n
}

const FILE: &str = "index-v3.json";

/// The stamp of a regular file; `None` for anything else or a vanished path.
pub fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    meta.is_file().then(|| Stamp::of(&meta))
}

impl State {
    /// The state in `dir`, its paths keyed under `key`.
    pub fn load(dir: &Path, key: FingerprintKey) -> Result<State> {
        let path = dir.join(FILE);
        let mut state = match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                tracing::warn!(file = %path.display(), error = %e,
                    "daemon state is unreadable; every file will be judged again");
                State::default()
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => State::default(),
            Err(e) => return Err(Error::io(&path, e)),
        };
        // A state from before paths were keyed named every file (hex-encoded): gone.
        let _ = std::fs::remove_file(dir.join("index-v2.json"));
        state.key = Some(key);
        Ok(state)
    }

    /// The last report the state in `dir` has taken in (0 for none), for checks that
    /// need no paths.
    pub fn last_sequence(dir: &Path) -> Result<u64> {
        Ok(State::load(dir, FingerprintKey::from_bytes([0; 32]))?.last_sequence)
    }

    fn digest(&self, path: &Path) -> String {
        match &self.key {
            Some(key) => digest(key, path),
            None => digest(&FingerprintKey::from_bytes([0; 32]), path),
        }
    }

    /// Records the verdict on `path` as it was judged.
    pub fn record(
        &mut self,
        path: &Path,
        stamp: Stamp,
        sha256: Option<String>,
        verdict: &str,
        shown: String,
    ) {
        let mut folder = path.parent().map(|p| (self.digest(p), p));
        let folder_digest = folder.as_ref().map(|(d, _)| d.clone()).unwrap_or_default();
        // The chain of folders up to one already known (or the root).
        while let Some((d, p)) = folder {
            if self.folders.contains_key(&d) {
                break;
            }
            let parent = p.parent().map(|pp| (self.digest(pp), pp));
            self.folders.insert(
                d,
                parent
                    .as_ref()
                    .map(|(pd, _)| pd.clone())
                    .unwrap_or_default(),
            );
            folder = parent;
        }
        let digest = self.digest(path);
        let state = FileState {
            shown: self.seal(&digest, &stamp, shown.into_bytes()),
            stamp,
            sha256,
            verdict: verdict.into(),
            folder: folder_digest,
        };
        self.files.insert(digest, state);
    }

    /// `name` sealed for the entry `digest` judged at `stamp` (each judgement its own
    /// nonce), as hex; [`State::open`] undoes it.
    fn seal(&self, digest: &str, stamp: &Stamp, mut name: Vec<u8>) -> String {
        if let Some(key) = &self.key {
            key.xor_stream(&nonce(digest, stamp), &mut name);
        }
        privacy_audit_engine::hex::encode(&name)
    }

    fn open(&self, digest: &str, file: &FileState) -> String {
        let mut name = privacy_audit_engine::hex::decode(&file.shown).unwrap_or_default();
        if let Some(key) = &self.key {
            key.xor_stream(&nonce(digest, &file.stamp), &mut name);
        }
        String::from_utf8_lossy(&name).into_owned()
    }

    /// Whether the file kept under `digest` lies in the folder kept under `folder`.
    fn within(&self, file: &FileState, folder: &str) -> bool {
        let mut at = file.folder.as_str();
        // Bounded: a corrupt state with a cycle cannot hang the daemon.
        for _ in 0..4096 {
            if at == folder {
                return true;
            }
            match self.folders.get(at) {
                Some(parent) if !parent.is_empty() => at = parent,
                _ => return false,
            }
        }
        false
    }

    /// Forgets `path` — or, for a folder, everything judged under it — and returns the
    /// names the reports show for what was forgotten.
    pub fn forget(&mut self, path: &Path) -> Vec<String> {
        let d = self.digest(path);
        if let Some(f) = self.files.remove(&d) {
            return vec![self.open(&d, &f)];
        }
        let under: Vec<String> = self
            .files
            .iter()
            .filter(|(_, f)| self.within(f, &d))
            .map(|(k, _)| k.clone())
            .collect();
        self.take(under)
    }

    fn take(&mut self, digests: Vec<String>) -> Vec<String> {
        let mut shown: Vec<String> = digests
            .into_iter()
            .filter_map(|k| self.files.remove(&k).map(|f| self.open(&k, &f)))
            .collect();
        shown.sort();
        shown
    }

    /// Forgets what was judged under one of `roots` and is not among `present`; returns
    /// the names the reports show for it.
    pub fn forget_missing(&mut self, roots: &[&PathBuf], present: &[PathBuf]) -> Vec<String> {
        let roots: Vec<String> = roots.iter().map(|r| self.digest(r)).collect();
        let present: std::collections::HashSet<String> =
            present.iter().map(|p| self.digest(p)).collect();
        let gone: Vec<String> = self
            .files
            .iter()
            .filter(|(k, f)| !present.contains(*k) && roots.iter().any(|r| self.within(f, r)))
            .map(|(k, _)| k.clone())
            .collect();
        self.take(gone)
    }

    pub fn save(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let path = dir.join(FILE);
        let bytes = serde_json::to_vec(self)
            .map_err(|e| Error::Runtime(format!("state cannot be serialised: {e}")))?;
        let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| Error::io(dir, e))?;
        tmp.write_all(&bytes)
            .and_then(|()| tmp.as_file().sync_all())
            .map_err(|e| Error::io(&path, e))?;
        tmp.persist(&path).map_err(|e| Error::io(&path, e.error))?;
        std::fs::File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| Error::io(dir, e))
    }

    /// Is `path` as it is now already judged?
    pub fn is_current(&self, path: &Path, now: Stamp) -> bool {
        self.files
            .get(&self.digest(path))
            .is_some_and(|f| f.stamp == now)
    }

    /// Applies reports newer than `last_sequence` (written, but their state update lost).
    pub fn replay(
        &mut self,
        reports: &Path,
        disk_of: impl Fn(&str) -> Option<PathBuf>,
    ) -> Result<()> {
        for (seq, path) in super::trail::list(reports)? {
            if seq <= self.last_sequence {
                continue;
            }
            let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
            let Ok(doc) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
                continue;
            };
            let with_findings: std::collections::HashSet<&str> = doc["findings"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|f| f["path"].as_str())
                .collect();
            for f in doc["files"].as_array().into_iter().flatten() {
                let (Some(rel), Some(disk)) =
                    (f["path"].as_str(), f["path"].as_str().and_then(&disk_of))
                else {
                    continue;
                };
                // The file may have changed since; its stamp now would hide that change.
                // Recording the report's hash with the current stamp only when the
                // content still has that hash keeps "judged once" honest.
                let Some(now) = stamp(&disk) else { continue };
                let (plain, keyed) = (f["sha256"].as_str(), f["keyed_sha256"].as_str());
                if plain.is_none() && keyed.is_none() {
                    continue;
                }
                // Unreadable now: judged again later rather than stopping the start.
                let Ok(file) = std::fs::File::open(&disk) else {
                    continue;
                };
                let current = privacy_audit_engine::provenance::cache::hash_reader(
                    file,
                    &privacy_audit_engine::provenance::cache::Stats::default(),
                )
                .ok();
                let Some(current) = current else { continue };
                let same = match (plain, keyed, &self.key) {
                    (Some(recorded), _, _) => current == recorded,
                    (None, Some(recorded), Some(key)) => {
                        privacy_audit_engine::report::keyed_file_digest(key, &current) == recorded
                    }
                    _ => false,
                };
                if !same {
                    continue;
                }
                let verdict = if f["status"] == "skipped" {
                    "skipped"
                } else if with_findings.contains(rel) {
                    "findings"
                } else {
                    "clean"
                };
                self.record(&disk, now, Some(current), verdict, rel.to_string());
            }
            self.last_sequence = seq;
        }
        Ok(())
    }
}
