//! What a credential is not: a digest, a UUID, a placeholder, a variable reference.
//! Generic keyword rules call this so that `token: sha256:…` or `password: <PASSWORD>`
//! never reaches a report.

use super::names::named_as_not_secret;
use super::validators::Candidate;
use aho_corasick::AhoCorasick;
use base64::Engine;
use base64::engine::DecodePaddingMode;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use std::sync::LazyLock;

/// The words that make a value a placeholder (`your_api_key_here`, `<TOKEN>`, `${DB}`):
/// `secret_words` of the placeholder vocabulary, shared by every rule, in one automaton
/// (every candidate of every secret rule is asked).
static PLACEHOLDER_WORDS: LazyLock<Option<(AhoCorasick, Vec<String>)>> = LazyLock::new(|| {
    let words = super::vocabulary::secret_words();
    let ac = AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(&words)
        .ok()?;
    Some((ac, words))
});

fn whole_chars(value: &[u8]) -> &str {
    // Byte-mode rules may end a bounded value inside a multi-byte character: judge the
    // whole characters before it.
    match std::str::from_utf8(value) {
        Ok(v) => v,
        Err(e) => std::str::from_utf8(&value[..e.valid_up_to()]).unwrap_or_default(),
    }
}

/// A placeholder word anywhere in the value, or one that ends in `here`
/// (`AccessTokenHere`, `YOUR_KEY_HERE`).
pub fn is_placeholder(lower: &str) -> bool {
    let Some((ac, words)) = PLACEHOLDER_WORDS.as_ref() else {
        return lower.ends_with("here") || is_bracketed(lower);
    };
    lower.ends_with("here")
        || is_bracketed(lower)
        || ac
            .find_overlapping_iter(lower)
            .any(|m| holds_word(lower, &words[m.pattern().as_usize()]))
}

/// A bracketed stand-in (`<PASSWORD>`, `<%= ENV["KEY"] %>`, `key-<redacted>`): a value
/// that opens or closes a pair of angle brackets. A lone `>` among a random secret's
/// punctuation (`bQ7;kn>L2w…`) is one of its characters.
///
/// A word in square brackets (`[password]`, `[api_key]`) stands in the same way.
fn is_bracketed(lower: &str) -> bool {
    lower.starts_with('<')
        || lower.ends_with('>')
        || lower.find('<').is_some_and(|i| lower[i..].contains('>'))
        || lower.match_indices('[').any(|(i, _)| {
            lower[i + 1..].split_once(']').is_some_and(|(word, _)| {
                word.len() >= 2
                    && word.bytes().any(|b| b.is_ascii_alphabetic())
                    && word
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b' '))
            })
        })
}

/// A short plain word (`none`, `tbd`, `mock`) counts only standing apart from letters
/// and digits: inside 160 random characters such words turn up by chance about one
/// time in a hundred. Longer words, and those with a symbol, count anywhere.
fn holds_word(lower: &str, word: &str) -> bool {
    if word.len() >= 5 || !word.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return lower.contains(word);
    }
    let bytes = lower.as_bytes();
    lower.match_indices(word).any(|(i, _)| {
        let end = i + word.len();
        (i == 0 || !bytes[i - 1].is_ascii_alphanumeric())
            && (end == bytes.len() || !bytes[end].is_ascii_alphanumeric())
    })
}

/// `$DB_PASSWORD`, `%PASSWORD%`, `env:TOKEN`, `os.environ[...]`, `process.env.X`.
fn is_reference(lower: &str) -> bool {
    lower.starts_with('$')
        || (lower.starts_with('%') && lower.ends_with('%'))
        || lower.starts_with("env:")
        || lower.contains("environ")
        || lower.contains("process.env")
        || lower.contains("getenv")
}

pub fn is_credential_like(value: &[u8]) -> bool {
    let v = whole_chars(value).trim_matches(|c| c == '"' || c == '\'');
    if v.len() < 6 {
        return false;
    }
    let lower = v.to_ascii_lowercase();
    if is_digest(&lower) || is_uuid(&lower) || is_eth_address(&lower) {
        return false;
    }
    if is_placeholder(&lower) || is_reference(&lower) || is_filler(v.as_bytes()) {
        return false;
    }
    if is_next_assignment(v) || super::things::is_thing(v) {
        return false;
    }
    // A bare word (`password: required`, `token: bearer`) is prose, not a credential.
    let has_digit = v.bytes().any(|b| b.is_ascii_digit());
    let has_upper = v.bytes().any(|b| b.is_ascii_uppercase());
    let has_symbol = v.bytes().any(|b| !b.is_ascii_alphanumeric());
    has_digit || (has_upper && v.bytes().any(|b| b.is_ascii_lowercase())) || has_symbol
}

/// The name of the next line's assignment, read as a value when the line before is
/// empty after its `=` (`snowflake.password=` then `jdbc.url=`): dotted words and one
/// `=` at the end, which base64 (no dots) never is.
fn is_next_assignment(v: &str) -> bool {
    v.strip_suffix('=').is_some_and(|name| {
        name.contains('.')
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    })
}

/// A value whose rule already says it is a key (a provider's prefix, or a credential
/// name before it): hex and UUID shapes count, since that is what many keys look like;
/// placeholders, filler and variable references do not.
pub fn is_key_material(value: &[u8]) -> bool {
    let v = whole_chars(value).trim_matches(|c| c == '"' || c == '\'');
    let lower = v.to_ascii_lowercase();
    v.len() >= 8
        && !is_placeholder(&lower)
        && !is_reference(&lower)
        && !is_filler(v.as_bytes())
        && !is_timed_uuid(&lower)
}

/// A version-1 UUID whose clock reads a date in this era: a timestamp and a network
/// node, made to name a thing (a device, a row) and guessable, never a key. A random
/// UUID-shaped key reads as one by chance about once in four thousand.
fn is_timed_uuid(lower: &str) -> bool {
    if !is_uuid(lower)
        || lower.as_bytes()[14] != b'1'
        || !matches!(lower.as_bytes()[19], b'8' | b'9' | b'a' | b'b')
    {
        return false;
    }
    let hex = |r: std::ops::Range<usize>| u64::from_str_radix(&lower[r], 16).ok();
    let (Some(low), Some(mid), Some(high)) = (hex(0..8), hex(9..13), hex(15..18)) else {
        return false;
    };
    // 100-nanosecond ticks since 1582-10-15; 1995 to 2045 in Unix seconds.
    let ticks = (high << 48) | (mid << 32) | low;
    let unix = (ticks / 10_000_000).checked_sub(12_219_292_800);
    unix.is_some_and(|t| (788_918_400..2_366_841_600).contains(&t))
}

/// 32 to 128 hex digits, or a UUID: what a key looks like that `secret_value` would take
/// for a digest.
fn hex_or_uuid(v: &str) -> bool {
    ((32..=128).contains(&v.len()) && v.bytes().all(|b| b.is_ascii_hexdigit())) || is_uuid(v)
}

/// 16 to 24 decimal digits, seven or more of them different: a numeric key or client
/// id (a snowflake, a 16-digit app id) under a credential's name. Decimal digits hold
/// at most 3.3 bits each, so the entropy floor would turn every such value away; a
/// count or a round stamp (`1700000000000000`) repeats too few digits to pass.
fn is_long_random_number(v: &str) -> bool {
    let mut seen = [false; 10];
    (16..=24).contains(&v.len())
        && v.bytes().all(|b| {
            let digit = b.is_ascii_digit();
            if digit {
                seen[usize::from(b - b'0')] = true;
            }
            digit
        })
        && seen.iter().filter(|&&s| s).count() >= 7
}

/// `secret_value` in a credential's place (a password, a connection string, a
/// header): also a hex or UUID value (`openssl rand -hex 16`) under a name that does
/// not say id, digest or cursor.
pub fn is_secret_value(value: &[u8], before: &[u8], key: Option<&str>) -> bool {
    let v = whole_chars(value).trim_matches(|c| c == '"' || c == '\'');
    if hex_or_uuid(v) {
        return is_key_material(value) && !named_as_not_secret(before, key);
    }
    // `pass: skipped-test`, `test_pass = "all_green"`: under a bare `pass`, lower-case
    // words joined up are a verdict, not a password.
    if is_label(v) && super::names::named_pass(before, key) {
        return false;
    }
    is_credential_like(value)
}

/// Two or more lower-case words joined by `-` or `_`, nothing else: a label
/// (`all-checks-green`).
fn is_label(v: &str) -> bool {
    let mut pieces = v.split(['-', '_']);
    let words = pieces.clone().count();
    words >= 2 && pieces.all(|p| p.len() >= 2 && p.bytes().all(|b| b.is_ascii_lowercase()))
}

/// What a generic keyword rule (`api_key = …`, `SECRET=…`) reports: a random-looking
/// credential (`secret_value` and at least 3.5 bits per byte), or a hex or UUID key,
/// under a name that does not say id, digest or cursor (`DD_API_KEY=<32 hex>`, never
/// `token_sha=`, `NextToken:` or `request_id:`). Random hex is judged by its shape, not
/// its entropy: one 32-digit key in five falls below 3.5 bits.
pub fn is_assigned_secret(c: &Candidate<'_>) -> bool {
    let (value, before, key) = (c.value, c.before, c.key);
    if named_as_not_secret(before, key) {
        return false;
    }
    let v = whole_chars(value).trim_matches(|c| c == '"' || c == '\'');
    // A number that goes on past a `:` (`68593489828273842:Adj…`) is the first half of
    // an `id:secret` pair, judged as a pair by the rules that know that provider.
    let pair = c.after.first() == Some(&b':');
    if hex_or_uuid(v) || (is_long_random_number(v) && !pair) {
        return is_key_material(value);
    }
    // The entropy floor first: it turns most values away without a copy.
    super::validators::entropy(value) >= 3.5 && is_credential_like(value)
}

/// Whether a value named by prose (see [`super::names::named_by_prose`]) is ruled out:
/// after a dash, hex or a UUID is a list's checksum or a commit as often as a key; and
/// the prose may say what the value is (`cache key`, `public key`), or the value is a
/// path or an image reference (`ghcr.io/acme/broker`), not a key.
pub fn prose_rules_out(c: &Candidate<'_>) -> bool {
    use super::names::{ProseName, named_by_prose, prose_says_not_secret};
    let v = whole_chars(c.value).trim_matches(|c| c == '"' || c == '\'');
    let path = v.contains('/') && v.contains('.');
    match named_by_prose(c.before) {
        None => false,
        Some(how) => {
            (how == ProseName::Dash && hex_or_uuid(v)) || path || prose_says_not_secret(c.before)
        }
    }
}

/// Passwords that stand for one in documentation: `user:password`, `admin:admin`.
const STAND_IN_PASSWORDS: &[&str] = &[
    "password",
    "passwd",
    "pass",
    "pwd",
    "secret",
    "test",
    "admin",
    "user",
    "username",
    "root",
    "guest",
    "token",
    "x-oauth-basic",
    "open sesame",
    "opensesame",
];

/// `Authorization: Basic`, Docker `auths`: base64 of `user:password` whose password is
/// a real one (not a stand-in word, a placeholder or the user name again).
pub fn is_basic_credential(value: &[u8]) -> bool {
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    let Ok(decoded) = LENIENT.decode(value) else {
        return false;
    };
    // A byte or two mistyped in the base64 leaves the rest of the pair readable: judged
    // on what decodes, with the user whole and most of the password intact.
    let text = String::from_utf8_lossy(&decoded);
    let Some((user, password)) = text.split_once(':') else {
        return false;
    };
    let damaged = password
        .chars()
        .filter(|&c| c == char::REPLACEMENT_CHARACTER)
        .count();
    if user.contains(char::REPLACEMENT_CHARACTER) || damaged * 8 > password.chars().count() {
        return false;
    }
    let lower = password.to_ascii_lowercase();
    !user.is_empty()
        && !user.chars().any(char::is_control)
        && password.len() >= 4
        && !password.chars().any(char::is_control)
        && !STAND_IN_PASSWORDS.contains(&lower.as_str())
        && !password.eq_ignore_ascii_case(user)
        && !password
            .trim_end_matches(|c: char| c.is_ascii_digit())
            .eq_ignore_ascii_case(user)
        && !is_placeholder(&lower)
        && !is_reference(&lower)
        && !is_run_filler(password.as_bytes())
}

/// A placeholder's filler rather than random characters: one character repeated over
/// much of the value (`sntryu_000…`, `AKIA` + `XXXX…`), or a run of ten or more
/// consecutive ones (`0123456789`, `abcdefghijkl`), or a short unit repeated
/// (`…123123123123`, `1234-1234-1234`). Random keys have none: a run of eight equal
/// characters in 64 random hex digits has odds below one in a million.
pub fn is_filler(v: &[u8]) -> bool {
    is_run_filler(v)
        || repeated_unit(v)
        || mixed_case_hex(v)
        || counted_in_pairs(v)
        || counted_in_runs(v)
}

/// Counted out in short runs (`ABCD1234EFGH5678…`, `abc123def456ghi789…`): half the
/// value's places or more, twelve at least, hold the character before plus one, in
/// either case (`9` goes on to `0`). Random hex does so at one place in sixteen; twelve
/// such places in 32 characters have odds near one in ten million.
fn counted_in_runs(v: &[u8]) -> bool {
    let (mut prev, mut places, mut counted) = (None::<u8>, 0usize, 0usize);
    for &b in v {
        if !b.is_ascii_alphanumeric() {
            prev = None;
            continue;
        }
        let b = b.to_ascii_lowercase();
        if let Some(a) = prev {
            places += 1;
            counted += usize::from(a.wrapping_add(1) == b || (a == b'9' && b == b'0'));
        }
        prev = Some(b);
    }
    counted >= 12 && counted * 2 >= places
}

/// Two sequences counted side by side (`a1b2c3d4e5f6…`, `px-api-a1b2c3d4-e5f6-g7h8…`):
/// each character is the one two places before it, plus one. Separators are skipped,
/// and `9` goes on to `0`. Random base62 does so at one place in sixty; this is half
/// the value's places or more, ten at least.
fn counted_in_pairs(v: &[u8]) -> bool {
    let next = |a: u8, b: u8| a.wrapping_add(1) == b || (a == b'9' && b == b'0');
    // The two characters before this one, separators skipped: no copy of the value, as
    // every candidate passes here.
    let (mut two_back, mut one_back) = (None, None);
    let (mut chars, mut counted) = (0usize, 0usize);
    for b in v.iter().copied().filter(u8::is_ascii_alphanumeric) {
        chars += 1;
        counted += usize::from(two_back.is_some_and(|a| next(a, b)));
        (two_back, one_back) = (one_back, Some(b));
    }
    counted >= 10 && counted * 2 >= chars
}

/// Hex digits in both cases (`acdeFf05b1a6…`): a hex encoder writes one case, so a
/// person typed this. Random base62 of twenty characters or more keeps to the hex
/// letters with odds below one in a billion. The first four characters may be a
/// provider's upper-case tag on lower-case hex (Twilio's `AC…`), so the cases must mix
/// after them.
fn mixed_case_hex(v: &[u8]) -> bool {
    let tail = v.get(4..).unwrap_or_default();
    v.len() >= 20
        && v.iter().all(u8::is_ascii_hexdigit)
        && tail.iter().any(u8::is_ascii_uppercase)
        && tail.iter().any(u8::is_ascii_lowercase)
}

/// [`is_filler`] less the repeated unit: a password of one (`asdfasdfasdf`) is weak,
/// but it is a password someone uses.
fn is_run_filler(v: &[u8]) -> bool {
    let (mut longest, mut run, mut ascending, mut up) = (0usize, 0usize, 0usize, 0usize);
    // Characters standing in runs of four or more: typed by a hand holding a key down
    // (`5555555dAAAAA7777777Cccc…`). Random text has odds near 1 in 62^3 per place.
    let mut in_runs = 0usize;
    for (i, &b) in v.iter().enumerate() {
        run = if i > 0 && v[i - 1] == b { run + 1 } else { 1 };
        in_runs += match run {
            4 => 4,
            5.. => 1,
            _ => 0,
        };
        up = if i > 0 && b.is_ascii_alphanumeric() && v[i - 1].wrapping_add(1) == b {
            up + 1
        } else {
            1
        };
        longest = longest.max(run);
        ascending = ascending.max(up);
    }
    (longest >= 8 && longest * 5 >= v.len() * 2)
        || longest == v.len()
        || ascending >= 10
        || (v.len() >= 16 && in_runs * 2 >= v.len())
        || mostly_one_character(v)
}

/// A unit of two to eight characters, not all one, repeated over twelve characters or
/// more (and at least twice whole) and a quarter of the value at least: `GR1348941` +
/// `123123123123…`, `xoxp-1234-1234-1234-…`, `deadbeefdeadbeef…`, `q1W2e3R4q1W2e3R4`.
/// In random hex the least such stretch (eight characters repeating at eight) has odds
/// near 16^-8 per place; a single repeated character is [`is_filler`]'s own case.
fn repeated_unit(v: &[u8]) -> bool {
    (2..=8).any(|p| {
        let (mut stretch, mut mixed) = (0usize, false);
        for i in p..v.len() {
            if v[i] == v[i - p] {
                stretch += 1;
                mixed |= v[i] != v[i - 1];
                let len = stretch + p;
                if mixed && len >= 12.max(2 * p) && len * 4 >= v.len() {
                    return true;
                }
            } else {
                (stretch, mixed) = (0, false);
            }
        }
        false
    })
}

/// One letter or digit is most of the value's letters and digits, whatever separates
/// them: `00000000-0000-0000-0000-000000000000`, `sk-lf-aaaa-aaaa-…`.
fn mostly_one_character(v: &[u8]) -> bool {
    let mut counts = [0u32; 128];
    let mut total = 0u32;
    for &b in v.iter().filter(|b| b.is_ascii_alphanumeric()) {
        counts[usize::from(b)] += 1;
        total = total.saturating_add(1);
    }
    let top = counts.iter().copied().max().unwrap_or(0);
    top >= 12 && top * 5 >= total * 3
}

/// Hex digests (md5, sha1/git, sha256, sha512), optionally `algo:`-prefixed.
pub fn is_digest(lower: &str) -> bool {
    let hex = lower
        .split_once(':')
        .filter(|(algo, _)| algo.starts_with("sha") || *algo == "md5" || *algo == "blake3")
        .map_or(lower, |(_, h)| h);
    matches!(hex.len(), 32 | 40 | 56 | 64 | 96 | 128) && hex.bytes().all(|b| b.is_ascii_hexdigit())
}

/// `0x` and 40 hex digits: an Ethereum address (a token contract's in a `token`
/// field), public by design. Its private key is 64 hex digits.
fn is_eth_address(lower: &str) -> bool {
    lower
        .strip_prefix("0x")
        .is_some_and(|h| h.len() == 40 && h.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// A UUID in either case (`is_uuid` asks hex digits only).
pub fn is_uuid(lower: &str) -> bool {
    let b = lower.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, &c)| match i {
            8 | 13 | 18 | 23 => c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

#[cfg(test)]
#[path = "secret_tests.rs"]
mod tests;

/// A password's crypt hash (`$2y$10$…`, `$6$salt$digest`): what follows the scheme's
/// `$id$` must be neither a placeholder nor filler (`$2y$10$xxxx…`). The `$` that opens
/// it is the scheme's, not a variable's, so `key_material` cannot judge it.
pub fn is_crypt_hash(value: &[u8]) -> bool {
    let Some(body) = value.strip_prefix(b"$").and_then(|v| {
        let id = memchr::memchr(b'$', v)?;
        Some(&v[id + 1..])
    }) else {
        return false;
    };
    let lower = String::from_utf8_lossy(body).to_ascii_lowercase();
    body.len() >= 20
        && !is_filler(body)
        && !is_placeholder(&lower)
        && super::validators::entropy(body) >= 3.5
}
