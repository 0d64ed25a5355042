//! What a credential is not: a digest, a UUID, a placeholder, a variable reference.
//! Generic keyword rules call this so that `token: sha256:…` or `password: <PASSWORD>`
//! never reaches a report.

const PLACEHOLDER_WORDS: &[&str] = &[
    "xxxx",
    "****",
    "....",
    "…",
    "example",
    "placeholder",
    "changeme",
    "change_me",
    "redacted",
    "dummy",
    "sample",
    "your_",
    "your-",
    "yourpass",
    "insert",
    "_here",
    "-here",
    "replace",
    "secret123",
    "password123",
    "notasecret",
    "not_a_secret",
    "fake",
    "mock",
    "todo",
    "tbd",
    "null",
    "none",
    "undefined",
    "masked",
    "hidden",
    "omitted",
    "<",
    ">",
    "${",
    "{{",
    "%(",
];

pub fn is_credential_like(value: &[u8]) -> bool {
    // Byte-mode rules may end a bounded value inside a multi-byte character: judge the
    // whole characters before it.
    let v = match std::str::from_utf8(value) {
        Ok(v) => v,
        Err(e) => std::str::from_utf8(&value[..e.valid_up_to()]).unwrap_or_default(),
    };
    let v = v.trim_matches(|c| c == '"' || c == '\'');
    if v.len() < 6 {
        return false;
    }
    let lower = v.to_ascii_lowercase();
    if is_digest(&lower) || is_uuid(&lower) {
        return false;
    }
    if PLACEHOLDER_WORDS.iter().any(|w| lower.contains(w)) {
        return false;
    }
    // `$DB_PASSWORD`, `%PASSWORD%`, `env:TOKEN`, `os.environ[...]`, `process.env.X`.
    if lower.starts_with('$')
        || (lower.starts_with('%') && lower.ends_with('%'))
        || lower.starts_with("env:")
        || lower.contains("environ")
        || lower.contains("process.env")
        || lower.contains("getenv")
    {
        return false;
    }
    if is_filler(v.as_bytes()) {
        return false;
    }
    // A bare word (`password: required`, `token: bearer`) is prose, not a credential.
    let has_digit = v.bytes().any(|b| b.is_ascii_digit());
    let has_upper = v.bytes().any(|b| b.is_ascii_uppercase());
    let has_symbol = v.bytes().any(|b| !b.is_ascii_alphanumeric());
    has_digit || (has_upper && v.bytes().any(|b| b.is_ascii_lowercase())) || has_symbol
}

/// A placeholder's filler rather than random characters: one character repeated over
/// much of the value (`sntryu_000…`, `AKIA` + `XXXX…`), or a run of ten or more
/// consecutive ones (`0123456789`, `abcdefghijkl`). Random keys have neither: a run of
/// eight equal characters in 64 random hex digits has odds below one in a million.
pub fn is_filler(v: &[u8]) -> bool {
    let (mut longest, mut run, mut ascending, mut up) = (0usize, 0usize, 0usize, 0usize);
    for (i, &b) in v.iter().enumerate() {
        run = if i > 0 && v[i - 1] == b { run + 1 } else { 1 };
        up = if i > 0 && b.is_ascii_alphanumeric() && v[i - 1].wrapping_add(1) == b {
            up + 1
        } else {
            1
        };
        longest = longest.max(run);
        ascending = ascending.max(up);
    }
    (longest >= 8 && longest * 5 >= v.len() * 2) || longest == v.len() || ascending >= 10
}

/// Hex digests (md5, sha1/git, sha256, sha512), optionally `algo:`-prefixed.
pub fn is_digest(lower: &str) -> bool {
    let hex = lower
        .split_once(':')
        .filter(|(algo, _)| algo.starts_with("sha") || *algo == "md5" || *algo == "blake3")
        .map_or(lower, |(_, h)| h);
    matches!(hex.len(), 32 | 40 | 56 | 64 | 96 | 128) && hex.bytes().all(|b| b.is_ascii_hexdigit())
}

pub fn is_uuid(lower: &str) -> bool {
    let b = lower.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, &c)| match i {
            8 | 13 | 18 | 23 => c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_non_credentials() {
        for v in [
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "550e8400-e29b-41d4-a716-446655440000",
            "<API_KEY>",
            "${DB_PASSWORD}",
            "xxxxxxxxxxxx",
            "your_api_key_here",
            "required",
        ] {
            assert!(!is_credential_like(v.as_bytes()), "{v}");
        }
        assert!(is_credential_like(b"Tr0ub4dor&3x"));
        assert!(is_credential_like(b"s3cr3t-v4lue-91"));
    }
}
