//! Keyed fingerprints: HMAC-SHA-256 over (rule id, matched value) with a key local to the
//! installation. Keyed so that a fingerprint of a low-entropy value (an e-mail, a phone)
//! cannot be reversed by hashing guesses; over the value, not the line, so it survives
//! edits that move the value and changes when the value changes.

use crate::error::{Error, Result};
use crate::finding::Fingerprint;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use std::io::Write;
use std::path::Path;

const KEY_BYTES: usize = 32;

/// This installation's key, and the team's when the config names one.
///
/// Reports that leave the machine carry fingerprints under the machine key. What a team
/// commits and shares (baseline entries, `[[allow]]` fingerprints, SARIF
/// `partialFingerprints`) is matched under the team key (`[team] key`), kept in the
/// repository with the data: every clone and CI agree on it with nothing to distribute,
/// and it reveals nothing the repository does not already hold.
#[derive(Clone)]
pub struct FingerprintKey {
    key: [u8; KEY_BYTES],
    team: Option<[u8; KEY_BYTES]>,
}

impl std::fmt::Debug for FingerprintKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FingerprintKey(..)")
    }
}

impl FingerprintKey {
    pub fn from_bytes(key: [u8; KEY_BYTES]) -> Self {
        FingerprintKey { key, team: None }
    }

    /// This key with the team's key (64 hex digits) for what teams share.
    pub fn with_team(mut self, team_hex: &str) -> Option<Self> {
        self.team = Some(Self::parse(team_hex)?.key);
        Some(self)
    }

    /// Whether shared fingerprints use a team key (else the machine's).
    pub fn has_team(&self) -> bool {
        self.team.is_some()
    }

    /// A new random key as 64 hex digits (`privacy-audit init` writes one).
    pub fn random_hex() -> Result<String> {
        let mut key = [0u8; KEY_BYTES];
        getrandom::fill(&mut key).map_err(|e| Error::Runtime(format!("no randomness: {e}")))?;
        Ok(crate::hex::encode(&key))
    }

    /// Reads an existing key; never creates one (checking with a fresh key would say
    /// nothing).
    pub fn load(path: &Path) -> Result<FingerprintKey> {
        let err = |message: String| Error::Key {
            path: path.to_path_buf(),
            message,
        };
        let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
        Self::parse(text.trim()).ok_or_else(|| err("not 64 hex digits".into()))
    }

    /// Reads the key, creating it (mode 0600, folder 0700) on first use.
    pub fn load_or_create(path: &Path) -> Result<FingerprintKey> {
        let err = |message: String| Error::Key {
            path: path.to_path_buf(),
            message,
        };
        match std::fs::read_to_string(path) {
            Ok(text) => {
                return Self::parse(text.trim()).ok_or_else(|| err("not 64 hex digits".into()));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(err(e.to_string())),
        }
        let mut key = [0u8; KEY_BYTES];
        getrandom::fill(&mut key).map_err(|e| err(format!("no randomness: {e}")))?;
        if let Some(dir) = path.parent() {
            create_private_dir(dir).map_err(|e| err(format!("cannot create folder: {e}")))?;
        }
        match create_private_file(path) {
            Ok(mut f) => {
                f.write_all(crate::hex::encode(&key).as_bytes())
                    .and_then(|()| f.sync_all())
                    .map_err(|e| err(e.to_string()))?;
                Ok(FingerprintKey { key, team: None })
            }
            // Another process created it first: use theirs.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
                Self::parse(text.trim()).ok_or_else(|| err("not 64 hex digits".into()))
            }
            Err(e) => Err(err(e.to_string())),
        }
    }

    fn parse(text: &str) -> Option<FingerprintKey> {
        let bytes = crate::hex::decode(text)?;
        Some(FingerprintKey {
            key: bytes.try_into().ok()?,
            team: None,
        })
    }

    /// A public name for the key (the first 16 hex digits of a keyed hash of a fixed
    /// label): baselines record it so a key mismatch is reported, not silently missed.
    pub fn id(&self) -> String {
        let full = self.fingerprint("privacy-audit.key-id", b"");
        full.0.chars().take(16).collect()
    }

    /// The public name of the key shared fingerprints use.
    pub fn shared_id(&self) -> String {
        let full = self.shared_fingerprint("privacy-audit.key-id", b"");
        full.0.chars().take(16).collect()
    }

    /// Under the machine key: what reports carry.
    pub fn fingerprint(&self, rule_id: &str, value: &[u8]) -> Fingerprint {
        mac(&self.key, rule_id, value)
    }

    /// The report's fingerprint and the shared one (the same when there is no team key).
    pub fn pair(&self, rule_id: &str, value: &[u8]) -> (Fingerprint, Fingerprint) {
        let own = self.fingerprint(rule_id, value);
        let shared = match &self.team {
            Some(team) => mac(team, rule_id, value),
            None => own.clone(),
        };
        (own, shared)
    }

    /// Under the team key when there is one: what baselines and `[[allow]]` match.
    pub fn shared_fingerprint(&self, rule_id: &str, value: &[u8]) -> Fingerprint {
        mac(self.team.as_ref().unwrap_or(&self.key), rule_id, value)
    }
}

impl FingerprintKey {
    /// `data` XORed with a keystream of HMAC-SHA-256 blocks over (`nonce`, counter)
    /// under the machine key: sealing and opening are the same call. For names kept in
    /// state files, readable only with the key; `nonce` must differ for different data.
    pub fn xor_stream(&self, nonce: &[u8], data: &mut [u8]) {
        for (counter, chunk) in (0u64..).zip(data.chunks_mut(32)) {
            let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.key)
                .expect("HMAC accepts keys of any length");
            mac.update(b"privacy-audit.stream\0");
            mac.update(nonce);
            mac.update(&counter.to_le_bytes());
            let block = mac.finalize().into_bytes();
            chunk.iter_mut().zip(block).for_each(|(b, k)| *b ^= k);
        }
    }
}

fn mac(key: &[u8; KEY_BYTES], rule_id: &str, value: &[u8]) -> Fingerprint {
    let mut mac =
        <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("HMAC accepts keys of any length");
    mac.update(rule_id.as_bytes());
    mac.update(&[0]);
    mac.update(value);
    Fingerprint(crate::hex::encode(&mac.finalize().into_bytes()))
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

#[cfg(unix)]
fn create_private_file(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
}

#[cfg(not(unix))]
fn create_private_file(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyed_and_value_bound() {
        let a = FingerprintKey::from_bytes([1; 32]);
        let b = FingerprintKey::from_bytes([2; 32]);
        let v = b"ion.popescu@gmail.com";
        assert_eq!(
            a.fingerprint("email.address", v),
            a.fingerprint("email.address", v)
        );
        assert_ne!(
            a.fingerprint("email.address", v),
            b.fingerprint("email.address", v)
        );
        assert_ne!(
            a.fingerprint("email.address", v),
            a.fingerprint("email.address", b"x@y.io")
        );
        assert_ne!(a.fingerprint("email.address", v), a.fingerprint("other", v));
    }

    #[cfg(unix)]
    #[test]
    fn created_private_and_reused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("sub/key");
        let k1 = FingerprintKey::load_or_create(&path).expect("create");
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let k2 = FingerprintKey::load_or_create(&path).expect("reuse");
        assert_eq!(k1.fingerprint("r", b"v"), k2.fingerprint("r", b"v"));
    }
}
