//! Credentials with no provider's shape (a password in an assignment, a token after a
//! keyword): code and templates rather than a literal, placeholder words, hashes.

use super::{Assessment, Context};
use crate::finding::Reason;

pub(super) fn credential(cx: &Context<'_>) -> Assessment {
    let raw = cx.value.trim_end_matches([')', ']', '}']);
    let v = raw.trim_matches(|c| c == '"' || c == '\'');
    // Rules whose value stands where a password goes: a literal there is one, whatever
    // its letters.
    let password = ["password_assignment", "credential_in_code", "dsl_password"]
        .iter()
        .any(|r| cx.rule_id.ends_with(r));
    if let Some(r) = not_a_literal(v, raw, cx.before, password) {
        return Assessment::low(r);
    }
    if hashed_name(cx.before) {
        return Assessment::low(Reason::HashedValue);
    }
    if joined_to_a_variable(cx.before, cx.after) {
        return Assessment::low(Reason::CodeReference);
    }
    // With no provider's shape, the name is all that says "credential": a name that
    // says the value was made not to work (`invalidToken`, `fake_password`) says the
    // opposite.
    if crate::detect::names::named_as_not_real(cx.before, cx.key) {
        return Assessment::low(Reason::ExampleContext);
    }
    // A password-shaped value is as sure as a pattern with no provider can be; other
    // keyword rules keep their own sureness.
    match password {
        true => Assessment::medium(),
        false => Assessment::high(),
    }
}

/// `password = db.Column(...)`, `password=hashed_password`, `--password=%X%`,
/// `sapConn.Password = sapPass`, `myPassword`, `P@ssw0rd1`, prose.
fn not_a_literal(v: &str, raw: &str, before: &[u8], password: bool) -> Option<Reason> {
    let quoted =
        before.last().is_some_and(|c| matches!(c, b'"' | b'\'')) || v.len() + 2 <= raw.len();
    let identifier_chars = v
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.'))
        && v.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    let snake_or_lower = !v.chars().any(|c| c.is_ascii_digit())
        && (v.contains('_') || v.contains('.') || v.chars().all(|c| c.is_ascii_lowercase()));
    // Unquoted camelCase (`sapPass`, `newPassword`) is a variable, not a value; a
    // token's mixed case comes with digits, length, or capitals side by side
    // (`yqDVtkqPECriaLRi`), which a camel-case name's humps never are.
    let camel = !quoted
        && v.len() <= 32
        && !v.chars().any(|c| c.is_ascii_digit())
        && v.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && v.chars().any(|c| c.is_ascii_uppercase())
        && !v
            .as_bytes()
            .windows(2)
            .any(|w| w[0].is_ascii_uppercase() && w[1].is_ascii_uppercase())
        // A URL's password (`mongodb://admin:kaLqIeQblzxG@…`) is a slot's name only
        // when it reads as one (`rootPassword`, `dbPass`): random letters' humps are
        // short (`Lq`, `Ie`), a name's are words.
        && (!in_url_userinfo(before) || reads_as_name(v));
    // A quoted password is a literal, whatever it looks like (`"correct.horse"`); a
    // token is never a run of lower-case words (`"telegram_api_token"`: a name).
    if (!quoted || !password) && identifier_chars && (snake_or_lower || camel) {
        return Some(Reason::CodeReference);
    }
    // Words joined (`key_not_found_in_config_v2`, `generated-at-deploy-time`): a name
    // or a phrase. A token's pieces are random; a passphrase is words on purpose.
    if !password && (worded(v) || camel_words(v)) {
        return Some(Reason::CodeReference);
    }
    // A call or a subscript (`sys.argv[2]`, `request.POST['password']`): a name, then
    // its bracket. A random secret's brackets stand anywhere (`(k)7nw(^+2…`).
    if v.find(['(', '[']).is_some_and(|i| {
        i > 0
            && v[..i]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.'))
    }) {
        return Some(Reason::CodeReference);
    }
    // `'password = '.$cfg['smtp']`: the string holding the name closes and a variable
    // is joined on (PHP's and Perl's `.`): the value is the variable's, not this text.
    if v.starts_with(".$") {
        return Some(Reason::CodeReference);
    }
    // A YAML tag opens a reference (`!Ref DbPassword`, `!secret db_password`, `!ENV`):
    // `!` and a word. `!%wxcO0g1Ib` is a password that opens with a symbol.
    let tag = v
        .strip_prefix('!')
        .is_some_and(|w| w.chars().all(|c| c.is_ascii_alphabetic() || c == '_'));
    if tag
        || (v.starts_with(['$', '%', '{', '<', '/', '~'])
            && !braced_random(v)
            && !crypt_hash(v)
            && !url_escaped(v, before))
        || v.contains("${")
        || v.contains("{{")
    {
        return Some(Reason::TemplateSlot);
    }
    // `YourBrowserStackAccessKey`, `your_token`: the slot, named.
    let lower = v.to_ascii_lowercase();
    if lower.starts_with("your")
        && v[4..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_uppercase() || c == '_' || c == '-')
    {
        return Some(Reason::TemplateSlot);
    }
    // "password: Create a strong one": an instruction, not a password.
    let prose = [
        "Create", "Choose", "Enter", "Use", "Set", "Change", "Make", "Type", "Provide", "Generate",
        "Pick", "Select", "Reset", "Remember",
    ]
    .contains(&v);
    if prose {
        return Some(Reason::Prose);
    }
    // `myPassword`, `the_secret`: a slot named in words.
    let slot_prefix = ["my", "some", "the"].iter().any(|p| {
        v.len() > p.len() + 2
            && lower.starts_with(p)
            && v[p.len()..]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_uppercase() || c == '_' || c == '-')
    });
    // `P@ssw0rd1`, `myp@ssw0rd`: the word itself, dressed up.
    let plain: String = lower
        .chars()
        .map(|c| match c {
            '@' | '4' => 'a',
            '0' => 'o',
            '1' | '!' => 'i',
            '3' => 'e',
            '$' | '5' => 's',
            c => c,
        })
        .collect();
    let the_word = [
        "password", "passwd", "passw", "secret", "changeme", "letmein",
    ]
    .iter()
    .any(|w| plain.contains(w));
    // Only where the pattern knows nothing of the value's shape: a keyword rule's
    // value may be a real password that happens to hold the word.
    (password && (slot_prefix || the_word)).then_some(Reason::Placeholder)
}

/// Three pieces or more between `-`, `_` and `.`, three in four of them letters only.
fn worded(v: &str) -> bool {
    let pieces: Vec<&str> = v.split(['-', '_', '.']).filter(|p| !p.is_empty()).collect();
    let words = pieces
        .iter()
        .filter(|p| p.len() >= 2 && p.bytes().all(|b| b.is_ascii_alphabetic()))
        .count();
    pieces.len() >= 3 && words * 4 >= pieces.len() * 3
}

/// A URL's password opening with a percent-escape (`mongodb://svc:%40Xk9…@host`): the
/// URL's own encoding of a symbol, which a URL must use there. Decoded, it must still
/// read as a literal: a symbol first (a URL escapes nothing else), then no template or
/// placeholder marks (`%3Cdb_password%3E` is `<db_password>`, `%24%7B…` is `${…}`), no
/// blanks, and letters or digits enough to be random (`%22%22`, bullets and ellipses
/// are masks). A batch-style slot closes with its `%` (`%DB_PASS%`).
fn url_escaped(v: &str, before: &[u8]) -> bool {
    if !v.starts_with('%') || v.ends_with('%') || !in_url_userinfo(before) {
        return false;
    }
    // A `%` that opens no escape stays a `%`, which the checks below turn away.
    let decoded = crate::hex::percent_decode(v.as_bytes());
    let first_is_symbol = decoded
        .first()
        .is_some_and(|c| c.is_ascii_punctuation() && !b"<>{}[]$%\"'`".contains(c));
    first_is_symbol
        && decoded
            .iter()
            .all(|c| c.is_ascii_graphic() && !b"<>{}[]$%`".contains(c))
        && decoded.iter().filter(|c| c.is_ascii_alphanumeric()).count() >= 6
}

/// Whether `before` ends in a URL's `scheme://user:`, the password's place.
fn in_url_userinfo(before: &[u8]) -> bool {
    let Some(user) = before.strip_suffix(b":") else {
        return false;
    };
    let tail = &user[user.len().saturating_sub(300)..];
    memchr::memmem::rfind(tail, b"://").is_some_and(|i| {
        let name = &tail[i + 3..];
        !name.is_empty()
            && name
                .iter()
                .all(|&b| b.is_ascii_graphic() && !matches!(b, b'/' | b'@' | b':' | b'"' | b'\''))
    })
}

/// A camel-case value that names a credential or is made of words of three letters or
/// more after each capital.
fn reads_as_name(v: &str) -> bool {
    let lower = v.to_ascii_lowercase();
    ["pass", "pwd", "secret", "word", "key", "token"]
        .iter()
        .any(|w| lower.contains(w))
        || v.match_indices(|c: char| c.is_ascii_uppercase())
            .all(|(i, _)| {
                v[i + 1..]
                    .bytes()
                    .take_while(u8::is_ascii_lowercase)
                    .count()
                    >= 3
            })
}

/// Capitalised words run together (`NotARealSecretJustForUnitTests`): twenty letters
/// or more, no digit, three capitals or more and three letters a word on average. A
/// random token of that length has no digit and so few capitals about once in six
/// hundred times.
fn camel_words(v: &str) -> bool {
    let capitals = v.bytes().filter(u8::is_ascii_uppercase).count();
    v.len() >= 20
        && v.bytes().all(|b| b.is_ascii_alphabetic())
        && capitals >= 3
        && capitals * 3 <= v.len()
}

/// A crypt scheme's hash (`$2y$10$…`, `$6$salt$…`): its `$` opens the scheme's id, not
/// a variable.
fn crypt_hash(v: &str) -> bool {
    const SCHEMES: &[&str] = &[
        "1", "2a", "2b", "2x", "2y", "5", "6", "8", "9", "y", "argon2i", "argon2d", "argon2id",
    ];
    v.len() >= 30
        && v.matches('$').count() >= 3
        && v.strip_prefix('$')
            .and_then(|rest| rest.split('$').next())
            .is_some_and(|scheme| SCHEMES.contains(&scheme))
}

/// `{AQAAABAAAAA…}` (Jenkins' ciphertext), `{ZqL5kVrX1n8tA2}`: random characters in
/// braces, not a `{name}` slot. The inside mixes capitals, small letters and digits
/// over a dozen characters or more, which no template's name does. (Jenkins' key lives
/// beside its ciphertext; Spring's `{cipher}…` is meant to be committed and stays a
/// slot.)
fn braced_random(v: &str) -> bool {
    let inner = v.strip_prefix('{').unwrap_or(v);
    let inner = inner.strip_suffix('}').unwrap_or(inner);
    inner.len() >= 12
        && inner
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'-'))
        && inner.bytes().any(|b| b.is_ascii_digit())
        && inner.bytes().any(|b| b.is_ascii_uppercase())
        && inner.bytes().any(|b| b.is_ascii_lowercase())
}

/// A quoted piece joined to a variable (`pw = "cobalt:" + deltaKey`, PHP's
/// `"db-" . $suffix`): the credential is the expression's value, not this text. Two
/// literals joined (`"hunter" + "2"`) are still a literal.
fn joined_to_a_variable(before: &[u8], after: &[u8]) -> bool {
    let Some(&q @ (b'"' | b'\'')) = before.last() else {
        return false;
    };
    let Some(rest) = after.strip_prefix(&[q]) else {
        return false;
    };
    let spaced = rest.first().is_some_and(u8::is_ascii_whitespace);
    let rest = rest.trim_ascii_start();
    let next = |r: &[u8]| r.trim_ascii_start().first().copied();
    if let Some(r) = rest.strip_prefix(b"+") {
        return next(r).is_some_and(|c| c.is_ascii_alphabetic() || c == b'_' || c == b'$');
    }
    // PHP's `.` joins a variable (`. $suffix`, `.$suffix`) or, between blanks, a call
    // (`"db-" . strtoupper($s)`); `"…".strip()` is a method on the literal itself.
    rest.strip_prefix(b".").is_some_and(|r| {
        let after_blank = r.first().is_some_and(u8::is_ascii_whitespace);
        next(r).is_some_and(|c| c == b'$' || ((spaced || after_blank) && c.is_ascii_alphabetic()))
    })
}

/// The name the value is assigned to says it is a hash or ciphertext of a password
/// (`enc_password = "…"`, `password_hash: …`), not the password.
fn hashed_name(before: &[u8]) -> bool {
    let tail = &before[before.len().saturating_sub(48)..];
    let line = match memchr::memrchr(b'\n', tail) {
        Some(i) => &tail[i + 1..],
        None => tail,
    };
    let lower = line.to_ascii_lowercase();
    [
        "enc_",
        "encrypted",
        "hashed",
        "_hash",
        "hash_",
        "digest",
        "cipher",
        "bcrypt",
        "salt",
    ]
    .iter()
    .any(|w| memchr::memmem::find(&lower, w.as_bytes()).is_some())
}
