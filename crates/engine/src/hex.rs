//! Lower-case hex encoding (sha2 0.11 digests no longer implement `LowerHex`).

pub fn encode(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(DIGITS[(b >> 4) as usize] as char);
        out.push(DIGITS[(b & 0x0f) as usize] as char);
    }
    out
}

pub fn decode(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_trips() {
        assert_eq!(super::encode(&[0x00, 0xab, 0xff]), "00abff");
        assert_eq!(super::decode("00abff"), Some(vec![0x00, 0xab, 0xff]));
        assert_eq!(super::decode("0g"), None);
    }
}

/// A path stored as the hex of its bytes (serde `with`): exact for any name, and no
/// name is written to disk in clear.
pub mod path {
    use serde::de::Error;
    use serde::{Deserialize, Deserializer, Serializer};
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    use std::path::{Path, PathBuf};

    pub fn to_hex(path: &Path) -> String {
        super::encode(path.as_os_str().as_bytes())
    }

    pub fn from_hex(text: &str) -> Option<PathBuf> {
        super::decode(text).map(|b| PathBuf::from(std::ffi::OsString::from_vec(b)))
    }

    pub fn serialize<S: Serializer>(path: &Path, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&to_hex(path))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<PathBuf, D::Error> {
        let text = String::deserialize(d)?;
        from_hex(&text).ok_or_else(|| D::Error::custom("a path is not hex"))
    }
}
