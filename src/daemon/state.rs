//! What the daemon knows about each file it judged: size, mtime, sha256 and verdict,
//! persisted in the state folder so a restart judges only what changed while it was
//! down. The reports are the commit point: a report written just before a crash, whose
//! state update was lost, is replayed at start, so no file is judged twice.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileState {
    pub size: u64,
    pub mtime_ns: i64,
    pub sha256: Option<String>,
    /// `clean`, `findings` or `skipped`.
    pub verdict: String,
}

#[derive(Default, Serialize, Deserialize)]
pub struct State {
    /// The last report whose files are in `files`.
    pub last_sequence: u64,
    pub files: HashMap<PathBuf, FileState>,
}

const FILE: &str = "index.json";

/// (size, mtime in ns) of a regular file; `None` for anything else or a vanished path.
pub fn stamp(path: &Path) -> Option<(u64, i64)> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let s = crate::provenance::cache::Stamp::of(&meta);
    Some((s.size, s.mtime_ns))
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
            .map_err(|e| Error::Usage(format!("state cannot be serialised: {e}")))?;
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
    pub fn is_current(&self, path: &Path, now: (u64, i64)) -> bool {
        self.files
            .get(path)
            .is_some_and(|f| (f.size, f.mtime_ns) == now)
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
                let recorded = f["sha256"].as_str().map(str::to_string);
                let current = crate::provenance::cache::hash_reader(
                    std::fs::File::open(&disk).map_err(|e| Error::io(&disk, e))?,
                    &crate::provenance::cache::Stats::default(),
                )
                .ok();
                if recorded.is_none() || recorded != current {
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
                        size: now.0,
                        mtime_ns: now.1,
                        sha256: recorded,
                        verdict: verdict.into(),
                    },
                );
            }
            self.last_sequence = seq;
        }
        Ok(())
    }
}
