//! Values that name or carry a thing rather than unlock anything: a file's path or a
//! repository's or model's slug (`./config/sa.json`, `OpenAssistant/reward-model-v2`),
//! a file encoded in base64 (a PNG icon), a token's header or claims alone. Each is told
//! by the value's own shape, so it holds under any name: `content_key =
//! "datasets/…/shard.parquet"` is a cache key's path however the key is named.

use base64::Engine;

/// Whether `v` (quotes already trimmed) is one of these things.
pub(super) fn is_thing(v: &str) -> bool {
    is_path_or_slug(v) || is_encoded_file(v) || is_token_part(v)
}

/// A relative path, or a value with a `/` whose last step has a file extension or
/// whose every step is made of words joined by `-`, `_` or `.` (`org/model-name-v2`).
/// Random keys mix letters and digits inside their pieces, and base64's `/` comes with
/// none of those joiners and no extension after it.
fn is_path_or_slug(v: &str) -> bool {
    if v.starts_with("./") || v.starts_with("../") || v.starts_with("~/") {
        return true;
    }
    if !v.contains('/') {
        return false;
    }
    let steps = || v.split('/').filter(|s| !s.is_empty());
    let extension = steps()
        .next_back()
        .and_then(|s| s.rsplit_once('.'))
        .is_some_and(|(stem, ext)| {
            !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.as_bytes()[0].is_ascii_alphabetic()
                && ext.bytes().all(|b| b.is_ascii_alphanumeric())
        });
    extension
        || (v.contains(['-', '_', '.'])
            && steps().all(|step| super::names::joined_words(step.as_bytes())))
}

/// Base64 of a file that is no secret by its kind: an image or a PDF, told by the
/// encoding of its signature.
fn is_encoded_file(v: &str) -> bool {
    const SIGNATURES: [&str; 4] = ["iVBORw0KGgo", "/9j/", "R0lGOD", "JVBERi0"];
    SIGNATURES.iter().any(|s| v.starts_with(s))
}

/// A JSON Web Token's header or claims on their own (`eyJhbGciOi…`, no `.` and no
/// signature): what a token says, not the token. Only the names the JWT and OpenID
/// specifications register count: a base64 JSON object with other members (`auths`, a
/// service account's `private_key`) may well be a credential.
fn is_token_part(v: &str) -> bool {
    const NAMES: [&str; 22] = [
        "alg",
        "typ",
        "kid",
        "cty",
        "jku",
        "x5t",
        "x5u",
        "crit",
        "iss",
        "sub",
        "aud",
        "exp",
        "nbf",
        "iat",
        "jti",
        "name",
        "given_name",
        "family_name",
        "nickname",
        "email",
        "email_verified",
        "scope",
    ];
    if !v.starts_with("eyJ") || v.contains('.') {
        return false;
    }
    let Ok(bytes) = crate::formats::base64::URL_SAFE.decode(v) else {
        return false;
    };
    let Ok(serde_json::Value::Object(members)) = serde_json::from_slice(&bytes) else {
        return false;
    };
    !members.is_empty() && members.keys().all(|k| NAMES.contains(&k.as_str()))
}

#[cfg(test)]
mod tests {
    use super::is_thing;

    #[test]
    fn paths_slugs_files_and_headers_are_things_keys_are_not() {
        for thing in [
            "./config/service-account.json",
            "datasets/eval/v3/shard-00017-of-00128.parquet",
            "OpenAssistant/reward-model-deberta-v3-large-v2",
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
            "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkphbmUgRG9lIn0",
        ] {
            assert!(is_thing(thing), "{thing}");
        }
        for key in [
            "Qm7vT2kX9pL4wZ8rN3cF6hJ1yB5dS0aG",
            "k3J/9aB+xyzQ2mP7vT4nR8sW1cY6uH0e",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJl",
            "eyJhdXRocyI6eyJnaGNyLmlvIjp7ImF1dGgiOiJ4In19fQ",
        ] {
            assert!(!is_thing(key), "{key}");
        }
    }
}
