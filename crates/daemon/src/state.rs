//! What the daemon knows about each file it judged: size, mtime, sha256 and verdict,
//! persisted in the state folder so a restart judges only what changed while it was
//! down. The reports are the commit point: a report written just before a crash, whose
//! state update was lost, is replayed at start, so no file is judged twice.

use privacy_audit_engine::error::{Error, Result};
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
}

#[derive(Default, Serialize, Deserialize)]
pub struct State {
    /// The last report whose files are in `files`.
    pub last_sequence: u64,
    /// Keyed by the path's bytes in hex: any name (not UTF-8, or holding a value the
    /// reports mask) is kept exactly, and none is stored in clear.
    #[serde(with = "hex_keys")]
    pub files: HashMap<PathBuf, FileState>,
}

mod hex_keys {
    use super::FileState;
    use privacy_audit_engine::hex::path::{from_hex, to_hex};
    use serde::de::Error;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::collections::{BTreeMap, HashMap};
    use std::path::PathBuf;

    pub fn serialize<S: Serializer>(
        map: &HashMap<PathBuf, FileState>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let keyed: BTreeMap<String, &FileState> = map.iter().map(|(p, f)| (to_hex(p), f)).collect();
        keyed.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<HashMap<PathBuf, FileState>, D::Error> {
        let keyed: HashMap<String, FileState> = HashMap::deserialize(d)?;
        keyed
            .into_iter()
            .map(|(k, f)| {
                Ok((
                    from_hex(&k).ok_or_else(|| D::Error::custom("a file key is not hex"))?,
                    f,
                ))
            })
            .collect()
    }
}

const FILE: &str = "index-v2.json";

/// The stamp of a regular file; `None` for anything else or a vanished path.
pub fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    meta.is_file().then(|| Stamp::of(&meta))
}

impl State {
    pub fn load(dir: &Path) -> Result<State> {
        let path = dir.join(FILE);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).or_else(|e| {
                tracing::warn!(file = %path.display(), error = %e,
                    "daemon state is unreadable; every file will be judged again");
                Ok(State::default())
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(State::default()),
            Err(e) => Err(Error::io(&path, e)),
        }
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
        self.files.get(path).is_some_and(|f| f.stamp == now)
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
                let Some(recorded) = f["sha256"].as_str().map(str::to_string) else {
                    continue;
                };
                // Unreadable now: judged again later rather than stopping the start.
                let Ok(file) = std::fs::File::open(&disk) else {
                    continue;
                };
                let current = privacy_audit_engine::provenance::cache::hash_reader(
                    file,
                    &privacy_audit_engine::provenance::cache::Stats::default(),
                )
                .ok();
                if current.as_deref() != Some(recorded.as_str()) {
                    continue;
                }
                let verdict = if f["status"] == "skipped" {
                    "skipped"
                } else if with_findings.contains(rel) {
                    "findings"
                } else {
                    "clean"
                };
                self.files.insert(
                    disk,
                    FileState {
                        stamp: now,
                        sha256: Some(recorded),
                        verdict: verdict.into(),
                    },
                );
            }
            self.last_sequence = seq;
        }
        Ok(())
    }
}
