//! What the name a value is assigned to says about it: `DD_API_KEY=` holds a key,
//! `GITHUB_SHA=` a commit, `NextToken` a pagination cursor. The name is the one just
//! before `=`/`:` in the text, else the JSON member's key.

/// Words that call a value a digest: a name ending in one, or prose holding one, names
/// no key (`GITHUB_SHA=`, `checksum - …`).
const DIGEST_WORDS: &[&str] = &[
    "sha", "sha1", "sha256", "sha512", "md5", "hash", "digest", "checksum", "commit", "etag",
];

/// Last words of a name that holds an identifier, a digest or a setting, never a key:
/// the commit in `GITHUB_SHA=`, the id in `"datadog_app_id":`, the branch in
/// `TRAVIS_BRANCH=`, the team in `HEROKU_TEAM=`.
const IDENTIFIER_WORDS: &[&str] = &[
    "id",
    "ids",
    "uuid",
    "guid",
    "rev",
    "revision",
    "version",
    "fingerprint",
    "nonce",
    "build",
    "run",
    "ref",
    "oid",
    "org",
    "organization",
    "team",
    "project",
    "workspace",
    "tenant",
    "account",
    "environment",
    "env",
    "head",
    "base",
    "before",
    "after",
    "tree",
    "parent",
    "tag",
    "branch",
    "region",
    "zone",
    "user",
    "username",
    "name",
    "email",
    "handle",
    "url",
    "uri",
    "host",
    "path",
    "file",
    "dir",
    "template",
    "policy",
    "channel",
    "endpoint",
    "model",
    "checkpoint",
    "dataset",
    // What a run, a trace or a deployment is called: a service's own object, named by
    // its id, never its credential (`--heroku-release <uuid>`, `DD_TRACE <hex>`).
    "trace",
    "span",
    "release",
    "job",
    "index",
    "experiment",
    "event",
    "message",
    "pipeline",
    "workflow",
    "step",
    "artifact",
    "snapshot",
    "issue",
    "item",
    "order",
    "customer",
    "table",
    "bucket",
    "query",
    "image",
    "container",
    "pod",
    "node",
    "cluster",
    "instance",
    "deployment",
    "service",
    "monitor",
    "incident",
    "site",
    "domain",
    "app",
    "request",
    "number",
];

/// Words anywhere in a name that say its value is no credential: pagination cursors
/// (`NextToken`, `pageToken`), idempotency ids, public keys, cache keys, the WebSocket
/// handshake key.
const NOT_SECRET_WORDS: &[&str] = &[
    "next",
    "page",
    "pagination",
    "continuation",
    "cursor",
    "resume",
    // A token range's bounds (Cassandra), a workflow's callback id (`taskToken`), an
    // identity flow's state handle (`stateToken`): positions and handles, no credential.
    "start",
    "end",
    "task",
    "state",
    "sync",
    "idempotency",
    "change",
    "cancel",
    "cancellation",
    "lock",
    "public",
    "publishable",
    "websocket",
    "socket",
    "cache",
    "sort",
    "partition",
    "primary",
    "foreign",
    "lookup",
    // What a key is for, when it is no credential: deduplication, locking, rows and
    // ranges of a table, verifying (a public key), translation strings. (`pub` is left
    // out: `flutterwavePubKey` names a provider's key, public or not, that scanners
    // report.)
    "dedup",
    "lock",
    "row",
    "range",
    "verify",
    "verification",
    "i18n",
    "translation",
    "csrf",
    "xsrf",
    // Rails' name for its CSRF token.
    "authenticity",
];

/// Names whose last two words say no credential: a GPG key's fingerprint (official
/// images set `GPG_KEY`), a storage object's path, a push notification device id, a
/// paging cursor (OAI-PMH's `resumptionToken`).
const NOT_SECRET_ENDINGS: &[(&str, &str)] = &[
    ("gpg", "key"),
    ("pgp", "key"),
    ("object", "key"),
    ("device", "token"),
    ("resumption", "token"),
];

/// Words joined by `_`, `.` or `-`, each letters with maybe a number after them (`v2`,
/// `password2`, `shard-00017`): how people write names. A random token's pieces mix
/// letters and digits (`W4Hk9`).
pub fn joined_words(text: &[u8]) -> bool {
    text.split(|b| matches!(b, b'_' | b'.' | b'-'))
        .all(|piece| {
            let letters = piece.iter().take_while(|b| b.is_ascii_alphabetic()).count();
            piece[letters..].iter().all(u8::is_ascii_digit)
        })
}

/// The words of a name (`SecretKeyRef` → `secret`, `key`, `ref`).
pub fn name_words(name: &str) -> Vec<String> {
    words(name.as_bytes(), None)
}

/// The words of the name, split at `_`, `.`, `-` and lower-to-upper steps (`appId` →
/// `app`, `id`), lowercased.
fn words(before: &[u8], key: Option<&str>) -> Vec<String> {
    let trimmed = before
        .iter()
        // An argument list's `,` and a call's `(` stand between a name and its value
        // too (`set('STRIPE_PUBLISHABLE_KEY', '…')`), as do an escaped quote and a
        // subscript's `]` (`ids["heroku_app_id"] = …`).
        .rposition(|b| {
            !matches!(
                b,
                b' ' | b'\t' | b'"' | b'\'' | b':' | b'=' | b'>' | b',' | b'(' | b'\\' | b']'
            )
        })
        .map_or(&before[..0], |i| &before[..=i]);
    let start = trimmed
        .iter()
        .rposition(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')))
        .map_or(0, |i| i + 1);
    let name: &[u8] = match (&trimmed[start..], key) {
        ([], Some(k)) => k.as_bytes(),
        (text, _) => text,
    };
    let mut out = Vec::new();
    let mut word = String::new();
    for (i, &b) in name.iter().enumerate() {
        let step = i > 0 && name[i - 1].is_ascii_lowercase() && b.is_ascii_uppercase();
        if (matches!(b, b'_' | b'.' | b'-') || step) && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        if b.is_ascii_alphanumeric() {
            word.push(char::from(b.to_ascii_lowercase()));
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// Words of a name that say its value was made not to work: a test's stand-in
/// (`fakeToken`, `dummy_password`, `mockApiKey`) or a negative case
/// (`invalidToken`, `wrong_password`, `nonMatchingSecret`). `test` is not one of them:
/// `TEST_API_KEY` is a test-mode key, and those are real.
const NOT_REAL_WORDS: &[&str] = &[
    "fake",
    "dummy",
    "mock",
    "mocked",
    "bogus",
    "invalid",
    "wrong",
    "bad",
    "incorrect",
    "nonmatching",
    "unmatched",
    "mismatched",
    "example",
    "sample",
    "placeholder",
];

/// Whether the credential's name says the value is not a real one ([`NOT_REAL_WORDS`];
/// `non` + the next word counts as one word).
pub fn named_as_not_real(before: &[u8], key: Option<&str>) -> bool {
    let words = words(before, key);
    words.iter().enumerate().any(|(i, w)| {
        NOT_REAL_WORDS.contains(&w.as_str())
            || (w == "non"
                && words
                    .get(i + 1)
                    .is_some_and(|n| NOT_REAL_WORDS.contains(&format!("non{n}").as_str())))
    })
}

/// Whether the name is a bare `pass` (`pass`, `test_pass`, `second_pass`): in an
/// evaluation record that is a verdict or a round as often as a password.
pub fn named_pass(before: &[u8], key: Option<&str>) -> bool {
    words(before, key).last().is_some_and(|w| w == "pass")
}

/// Whether the name says the value is no credential: an identifier's or digest's
/// name, a word of [`NOT_SECRET_WORDS`], or a bare client's or request's token (AWS's
/// `ClientToken` and `RequestToken` are idempotency ids; a `client_access_token`, and a
/// product's `VAULT_CLIENT_TOKEN`, are credentials).
pub fn named_as_not_secret(before: &[u8], key: Option<&str>) -> bool {
    let words = words(before, key);
    let last = words.last().map(String::as_str);
    // Rails' `secret_key_base` is the key itself, whatever `GITHUB_BASE` holds.
    let key_base = last == Some("base") && words.len() >= 2 && words[words.len() - 2] == "key";
    // An access id (`SUMO_ACCESS_ID`, `accessKeyId`) is the named half of a key pair,
    // read together with its secret, not a row's or request's id.
    let access_id = last == Some("id") && words.iter().rev().skip(1).take(2).any(|w| w == "access");
    (!key_base
        && !access_id
        && last.is_some_and(|w| IDENTIFIER_WORDS.contains(&w) || DIGEST_WORDS.contains(&w)))
        || words.iter().any(|w| NOT_SECRET_WORDS.contains(&w.as_str()))
        || (last == Some("token")
            && words.len() >= 2
            && (words[words.len() - 2] == "request" || (words.len() == 2 && words[0] == "client")))
        || (words.len() >= 2
            && NOT_SECRET_ENDINGS.contains(&(
                words[words.len() - 2].as_str(),
                words[words.len() - 1].as_str(),
            )))
}

/// Words that, in the prose naming a value, say what kind of value it is when that is
/// no credential (besides [`DIGEST_WORDS`] and [`NOT_SECRET_WORDS`]): a signature's key
/// id, a cache's or an integrity check's, an attachment.
const PROSE_NOT_SECRET_WORDS: &[&str] = &[
    "sha384",
    "fingerprint",
    "nonce",
    "integrity",
    "challenge",
    "chunk",
    "kid",
    "attachment",
    "item",
];

/// How a value is named when prose names it rather than an operator: by a dash binder
/// (`Client Secret - …`), or by a blank after words (`using api key …`, an XML
/// element's words). `is` and `was` count as operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProseName {
    Dash,
    Blank,
}

/// Whether, and how, prose names the value after `before` (see [`ProseName`]). Such a
/// name is weaker: a dash pairs a list's checksum or a commit with its label as often
/// as a key (`access-token - <sha256>  file`), and a word of the prose may say what
/// the value is (`cache key`, `public key`, `code challenge`).
pub fn named_by_prose(before: &[u8]) -> Option<ProseName> {
    let unquoted = before
        .strip_suffix(b"\"")
        .or_else(|| before.strip_suffix(b"'"))
        .or_else(|| before.strip_suffix(b"`"))
        .unwrap_or(before);
    if !unquoted.last().is_some_and(|b| matches!(b, b' ' | b'\t')) {
        return None;
    }
    let text = unquoted.trim_ascii_end();
    if text.ends_with(b"-") {
        Some(ProseName::Dash)
    } else if text.last().is_some_and(u8::is_ascii_alphanumeric)
        && !(text.ends_with(b" is") || text.ends_with(b" was"))
    {
        Some(ProseName::Blank)
    } else {
        None
    }
}

/// Whether the prose before a value, back to the line's or the element's start, holds
/// a word that says the value is no credential (see [`named_by_prose`]).
pub fn prose_says_not_secret(before: &[u8]) -> bool {
    let from = before.len().saturating_sub(64);
    let tail = &before[from..];
    let start = tail
        .iter()
        .rposition(|&b| matches!(b, b'\n' | b'>'))
        .map_or(0, |i| i + 1);
    tail[start..]
        .split(|b| !b.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .any(|w| {
            let w = w.to_ascii_lowercase();
            let w = String::from_utf8_lossy(&w);
            let w = w.as_ref();
            [PROSE_NOT_SECRET_WORDS, DIGEST_WORDS, NOT_SECRET_WORDS]
                .iter()
                .any(|list| list.contains(&w))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_pass_is_named_so() {
        assert!(named_pass(b"test_pass: ", None));
        assert!(named_pass(b"", Some("pass")));
        assert!(named_pass(b"SMTP_PASS=", None));
        assert!(!named_pass(b"password: ", None));
        assert!(!named_pass(b"passphrase = '", None));
    }

    #[test]
    fn names_that_say_the_value_is_made_not_to_work() {
        for (before, key) in [
            ("nonMatchingToken := \"", None),
            ("FAKE_API_KEY=", None),
            ("", Some("invalid_token")),
            ("const mockSecret = '", None),
        ] {
            assert!(
                named_as_not_real(before.as_bytes(), key),
                "{before:?} {key:?}"
            );
        }
        for (before, key) in [
            ("TEST_API_KEY=", None),
            ("", Some("sinbadToken")),
            ("badge_token: ", None),
            ("non_token = ", None),
        ] {
            assert!(
                !named_as_not_real(before.as_bytes(), key),
                "{before:?} {key:?}"
            );
        }
    }

    #[test]
    fn names_of_ids_digests_and_settings() {
        for (before, key) in [
            ("GITHUB_SHA=", None),
            ("\"datadog_app_id\": \"", None),
            ("", Some("clientId")),
            ("", Some("request_uuid")),
            ("etag: ", Some("note")),
            ("TRAVIS_BRANCH=", None),
        ] {
            assert!(
                named_as_not_secret(before.as_bytes(), key),
                "{before:?} {key:?}"
            );
        }
        for (before, key) in [
            ("DD_API_KEY=", None),
            ("", Some("wandbApiKey")),
            ("SUMO_ACCESS_ID=", None),
            ("VAULT_CLIENT_TOKEN=", None),
            ("", Some("awsAccessKeyId")),
            ("facebook_client_access_token: ", None),
            ("token: ", Some("id")),
        ] {
            assert!(
                !named_as_not_secret(before.as_bytes(), key),
                "{before:?} {key:?}"
            );
        }
    }

    #[test]
    fn names_that_say_no_credential() {
        for (before, key) in [
            ("\"NextToken\": \"", None),
            ("", Some("nextPageToken")),
            ("\"ClientToken\": \"", None),
            ("", Some("ClientRequestToken")),
            ("PublicKey = ", None),
            ("Sec-WebSocket-Key: ", None),
            ("const cacheKey = \"", None),
        ] {
            assert!(
                named_as_not_secret(before.as_bytes(), key),
                "{before:?} {key:?}"
            );
        }
        for (before, key) in [
            ("client_secret=", None),
            ("SECRET_KEY_BASE=", None),
            ("", Some("SecretAccessKey")),
            ("Authorization: Bearer ", None),
        ] {
            assert!(
                !named_as_not_secret(before.as_bytes(), key),
                "{before:?} {key:?}"
            );
        }
    }
}
