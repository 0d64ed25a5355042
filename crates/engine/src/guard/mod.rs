//! The last guard on text a report shows around a match: whatever no rule matched but
//! looks like a token or a disguised value is masked too. Rules miss things (an
//! unknown key format, a full-width or percent-encoded copy of a value reported
//! beside it); an excerpt must not print those in clear just because they were not
//! the finding.
//!
//! A *run* is a stretch of text between delimiters (blanks, quotes, brackets,
//! `,;=|`). A run is masked whole when it holds a disguise (full-width, invisible or
//! bidi characters, combining marks, Latin mixed with look-alike scripts, `%XX`, HTML
//! entities, an `@` inside it), and a piece of it between `/ : .` is masked when it is
//! long and mixed like a key (hex of 20+ characters, or 16+ characters of letters and
//! digits). Before runs are cut, what the delimiters would cut in two is masked whole
//! ([`spans`]).

use crate::unicode::{Reading, reading};

mod spans;
pub use spans::forced;

/// Pieces shorter than this are words, numbers or short ids, not keys.
const KEY_MIN: usize = 16;
/// Hex pieces this long are digests or keys; either way not for an excerpt.
const HEX_MIN: usize = 20;

fn is_delimiter(c: char) -> bool {
    c.is_whitespace() || "\"'`,;=|()[]{}<>".contains(c)
}

/// Characters a reader does not see, or compatibility forms of the characters values
/// are made of (`ｇ`, `ⓖ`, `﹫`, `․`; not `…`, which is prose).
fn is_disguise(c: char) -> bool {
    // Combining marks put on a value's letters (`inte\u{301}rnal`) fold away; U+FFFD
    // stands for a hidden control character (or a byte that is not text) inside it.
    if matches!(c as u32, 0xFFFD | 0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F)
    {
        return true;
    }
    match reading(c) {
        Some(Reading::Unseen) => true,
        Some(Reading::Compat(r)) => {
            r.bytes()
                .any(|b| b.is_ascii_alphanumeric() || b"@/\\:".contains(&b))
                || r == "."
        }
        _ => false,
    }
}

/// A letter of another script, or a sign, that a Latin reader takes for a Latin one.
fn is_look_alike(c: char) -> bool {
    matches!(reading(c), Some(Reading::Look(_)))
}

/// `=40g…`: a quoted-printable escape inside a token, not an assignment (`n=40,`).
fn is_qp_escape(at: &str) -> bool {
    let b = at.as_bytes();
    b.len() > 3
        && b[1].is_ascii_hexdigit()
        && b[2].is_ascii_hexdigit()
        && (b[3].is_ascii_alphanumeric() || matches!(b[3], b'.' | b'_' | b'-'))
}

fn has_qp_escape(run: &str) -> bool {
    run.match_indices('=')
        .any(|(i, _)| i > 0 && is_qp_escape(&run[i..]))
}

/// `\x40`, `\u0040`, `\100`: a character spelled as an escape (doubled backslashes as
/// report names spell one count too).
fn has_backslash_escape(run: &str) -> bool {
    let b = run.as_bytes();
    memchr::memchr_iter(b'\\', b).any(|i| {
        let rest = &b[i + 1..];
        let hex = |n: usize, from: usize| {
            rest.len() >= from + n && rest[from..from + n].iter().all(u8::is_ascii_hexdigit)
        };
        match rest.first() {
            Some(b'x') => hex(2, 1),
            Some(b'u') => hex(4, 1),
            Some(b'U') => hex(8, 1),
            Some(b'0'..=b'3') => {
                rest.len() >= 3 && rest[1..3].iter().all(|c| (b'0'..=b'7').contains(c))
            }
            _ => false,
        }
    })
}

fn has_percent_escape(run: &str) -> bool {
    let b = run.as_bytes();
    b.windows(3)
        .any(|w| w[0] == b'%' && w[1].is_ascii_hexdigit() && w[2].is_ascii_hexdigit())
}

/// `&#64`, `&#x40`, `&commat`: `;` is a delimiter, so an entity ends its run.
fn has_entity(run: &str) -> bool {
    run.match_indices('&').any(|(i, _)| {
        let rest = &run[i + 1..];
        let body_len = rest
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'#')
            .count();
        body_len >= 2 && body_len == rest.len()
    })
}

/// The run needs masking whole: it is disguised or holds an address.
fn run_is_disguised(run: &str) -> bool {
    let latin = run.chars().any(|c| c.is_ascii_alphabetic());
    run.chars()
        .any(|c| is_disguise(c) || (latin && is_look_alike(c)))
        || has_percent_escape(run)
        || has_qp_escape(run)
        || has_backslash_escape(run)
        || has_entity(run)
        || run
            .find('@')
            .is_some_and(|i| i > 0 && i + 1 < run.len() && run[i + 1..].contains('.'))
}

/// A piece of a run that looks like a key or digest.
fn piece_is_token(piece: &str) -> bool {
    let n = piece.chars().count();
    if n >= HEX_MIN && piece.bytes().all(|b| b.is_ascii_hexdigit()) {
        return true;
    }
    if n < KEY_MIN {
        return false;
    }
    // `report-0000000001`, `checkpoint_step_12000`: words and numbers joined, each part
    // all letters or all digits, are names; a key mixes them inside its parts.
    if piece.split(['-', '_']).all(|p| {
        p.bytes().all(|b| b.is_ascii_alphabetic()) || p.bytes().all(|b| b.is_ascii_digit())
    }) {
        return false;
    }
    let digits = piece.bytes().filter(u8::is_ascii_digit).count();
    let letters = piece.bytes().filter(u8::is_ascii_alphabetic).count();
    let upper = piece.bytes().filter(u8::is_ascii_uppercase).count();
    let lower = letters - upper;
    // Letters and digits mixed, or both cases mixed past camelCase's one capital per word.
    (digits > 1 && letters > 1) || (upper > 2 && lower > 2 && upper * 4 >= n)
}

/// `text` with every token-like or disguised run masked.
pub fn guard(text: &str) -> String {
    let forced = spans::forced(text);
    if forced.is_empty() {
        return guard_runs(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (s, e) in forced {
        out.push_str(&guard_runs(&text[at..s]));
        out.push_str(&mask_token(&text[s..e]));
        at = e;
    }
    out.push_str(&guard_runs(&text[at..]));
    out
}

/// [`guard`] without the stretches masked whole: for pieces of a text whose forced
/// stretches were already masked.
pub fn guard_runs(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut run_start: Option<usize> = None;
    for (i, c) in text.char_indices() {
        if is_delimiter(c) && !(c == '=' && run_start.is_some() && is_qp_escape(&text[i..])) {
            if let Some(s) = run_start.take() {
                push_run(&mut out, &text[s..i]);
            }
            out.push(c);
        } else if run_start.is_none() {
            run_start = Some(i);
        }
    }
    if let Some(s) = run_start {
        push_run(&mut out, &text[s..]);
    }
    out
}

fn push_run(out: &mut String, run: &str) {
    if run_is_disguised(run) {
        out.push_str(&mask_token(run));
        return;
    }
    let mut start = 0;
    for (i, c) in run.char_indices() {
        if matches!(c, '/' | ':' | '.' | '\\') {
            push_piece(out, &run[start..i]);
            out.push(c);
            start = i + c.len_utf8();
        }
    }
    push_piece(out, &run[start..]);
}

fn push_piece(out: &mut String, piece: &str) {
    // A piece already masked by a rule (`ab****`) is left as it is.
    if piece_is_token(piece) && !piece.contains('*') {
        out.push_str(&mask_token(piece));
    } else {
        out.push_str(piece);
    }
}

/// Bytes that should be a path (git and the file system give bytes): UTF-8 as it is,
/// anything else spelled `\xNN`, control and bidi characters `\u{..}`, a backslash
/// doubled. A name is so reported faithfully, never lossily turned into another
/// file's name, and never sends escape codes or line breaks to a terminal.
pub fn path_text(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == '\\' {
                out.push_str("\\\\");
            } else if c.is_control() || matches!(c as u32, 0x202A..=0x202E | 0x2066..=0x2069) {
                out.extend(c.escape_unicode());
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// A TOML parse error as `line L, column C: problem`, with anything the problem quotes
/// from the file masked: the line itself is never shown, since a staged rules or
/// config file may hold the very token the gate is there to stop.
pub fn toml_error(text: &str, e: &toml::de::Error) -> String {
    let message = mask_quoted(e.message());
    match e.span() {
        Some(span) => {
            let before = &text.as_bytes()[..span.start.min(text.len())];
            let line = memchr::memchr_iter(b'\n', before).count() + 1;
            let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
            let column = String::from_utf8_lossy(&before[line_start..])
                .chars()
                .count()
                + 1;
            format!("line {line}, column {column}: {message}")
        }
        None => message,
    }
}

/// Masks what a message quotes in `"..."` whole and guards what it quotes in backticks
/// (key names stay readable; a value there is masked like any token).
fn mask_quoted(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(i) = rest.find(['"', '`']) {
        let quote = rest[i..].chars().next().unwrap_or('"');
        out.push_str(&guard(&rest[..i]));
        let after = &rest[i + 1..];
        let Some(j) = after.find(quote) else {
            out.push_str(&mask_token(after));
            return out;
        };
        let inner = &after[..j];
        out.push(quote);
        if quote == '"' {
            out.push_str(&mask_token(inner));
        } else {
            out.push_str(&guard(inner));
        }
        out.push(quote);
        rest = &after[j + 1..];
    }
    out.push_str(&guard(rest));
    out
}

/// Longest mask written; longer values are elided with their length.
const MAX_MASK_CHARS: usize = 40;

/// How many leading characters a mask of `n` characters keeps: never more than four,
/// never half.
pub fn kept_for(n: usize) -> usize {
    match n {
        0..=3 => 0,
        4..=7 => 1,
        8..=15 => 2,
        _ => 4,
    }
}

/// `value` masked as a token: its first characters (see [`kept_for`]) and a star for
/// each of the rest.
pub fn mask_token(value: &str) -> String {
    mask_keep(value, kept_for(value.chars().count()), false)
}

/// `value` with its first `keep` characters (at most half) shown, separators too when
/// `keep_separators`, and every other character a star.
pub fn mask_keep(value: &str, keep: usize, keep_separators: bool) -> String {
    let n = value.chars().count();
    let keep = keep.min(n / 2);
    let mut out = String::new();
    for (i, c) in value.chars().enumerate() {
        if i >= MAX_MASK_CHARS {
            out.push_str(&format!("…({n} chars)"));
            break;
        }
        if i < keep || (keep_separators && !c.is_alphanumeric() && !c.is_whitespace()) {
            out.push(c);
        } else if c == '\n' {
            out.push('⏎');
        } else {
            out.push('*');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_beside_a_finding_are_masked() {
        let shown =
            guard("export AWS_API_KEY='A3T0****' 'ded7db27aa01c0ffee01ded7db27aa01c0ffee01'");
        assert!(
            !shown.contains("ded7db27aa01c0ffee01ded7db27aa01c0ffee01"),
            "{shown}"
        );
        assert!(shown.contains("AWS_API_KEY"), "{shown}");
        assert!(shown.contains("A3T0****"), "{shown}");
    }

    #[test]
    fn a_urls_password_is_masked_whatever_it_looks_like() {
        for (text, password) in [
            (
                "postgres://app:p@ssW0rd9x@db.********:5432/app",
                "p@ssW0rd9x",
            ),
            ("see https://bob:hunter2@git.example.org/x.git", "hunter2"),
            ("redis://:s3cr3t@cache:6379/0", "s3cr3t"),
        ] {
            let shown = guard(text);
            assert!(!shown.contains(password), "{shown}");
        }
        let plain = "https://example.org/a:b@c and mailto:x";
        assert_eq!(guard(plain), plain, "no user information, nothing to mask");
    }

    #[test]
    fn disguised_copies_are_masked() {
        for run in [
            "ａ．ｂ＠ｇｍａｉｌ．ｃｏｍ",
            "a.b%40gmail.com",
            "a.b&#64;gmail.com",
            "a.b@gmail.com",
            "AKI\u{200b}AXXXXXXXXX",
            "\u{410}KIA1234",
        ] {
            let shown = guard(&format!("see {run} here"));
            assert!(!shown.contains(run), "{run} -> {shown}");
            assert!(shown.starts_with("see ") && shown.ends_with(" here"));
        }
    }

    #[test]
    fn prose_and_paths_stay_readable() {
        for text in [
            "the model answered in 3 steps: see /data/runs/run_01.jsonl",
            "getUserName(request) returned None",
            "version 1.2.3 of numpy",
        ] {
            assert_eq!(guard(text), text);
        }
    }

    #[test]
    fn names_are_escaped_and_bytes_spelled() {
        assert_eq!(path_text(b"c\xff.txt"), "c\\xff.txt");
        assert_eq!(path_text(b"data\\leak.txt"), "data\\\\leak.txt");
        assert_eq!(
            path_text(b"x\x1b[8m\nALL CLEAN"),
            "x\\u{1b}[8m\\u{a}ALL CLEAN"
        );
    }
}
