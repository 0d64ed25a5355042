//! Quoted-printable (RFC 2045), as mail bodies and some exports write text: `=40` is
//! `@`, and a line ending in `=` goes on in the next (a soft line break), so
//! `ion.pop=40gmail.com` and a key cut by `=\n` are the value to every decoder.
//!
//! Plain text is full of `=`: `depth=40,` and `n=20` are assignments, not escapes. An
//! escape counts only inside a token (a token character on both sides) or when it
//! spells a byte of a UTF-8 sequence; a soft break only between two token characters.

use super::escaped::{escaped_lines_layer, lines};
use crate::formats::{Encoding, Unit};

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).and_then(|d| u8::try_from(d).ok())
}

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b'/' | b'+')
}

/// The byte `=XX` at `text[i]` spells, if `text[i]` starts one.
fn escape_at(text: &[u8], i: usize) -> Option<u8> {
    Some(hex(*text.get(i + 1)?)? << 4 | hex(*text.get(i + 2)?)?)
}

/// Whether the `=` at `text[i]` is a soft line break (`=\n`, `=\r\n`) inside a token.
/// An encoder breaks a line only when it is nearly full: at most 76 characters with the
/// `=` (RFC 2045), and past 51 (mail libraries break at the last blank or stop within
/// the last 25). On such a line every other `=` is an escape (`=3D` for `=` itself):
/// a bare one, as in `KEY=…=`, makes the closing `=` base64's padding before the next
/// setting, not a break.
fn soft_break_at(text: &[u8], i: usize) -> Option<usize> {
    const WIDTH: std::ops::RangeInclusive<usize> = 52..=76;
    // Asked of every `=` of a text: most are followed by no line break.
    let len = match text.get(i + 1..i + 3) {
        Some([b'\r', b'\n']) => 3,
        _ if text.get(i + 1) == Some(&b'\n') => 2,
        _ => return None,
    };
    // Past `WIDTH`'s end without a newline, the line is too long: the width comes out 78.
    let from = i.saturating_sub(WIDTH.end() + 1);
    let line_start = memchr::memrchr(b'\n', &text[from..i]).map_or(from, |n| from + n + 1);
    if !WIDTH.contains(&(i + 1 - line_start)) {
        return None;
    }
    if memchr::memchr_iter(b'=', &text[line_start..i])
        .any(|at| escape_at(text, line_start + at).is_none())
    {
        return None;
    }
    let before = i.checked_sub(1).and_then(|b| text.get(b));
    let after = text.get(i + len);
    (before.is_some_and(|&b| is_token_byte(b)) && after.is_some_and(|&b| is_token_byte(b)))
        .then_some(len)
}

/// Where the first escape or soft break that counts is.
fn first(text: &[u8]) -> Option<usize> {
    memchr::memchr_iter(b'=', text).find(|&i| {
        soft_break_at(text, i).is_some()
            || escape_at(text, i).is_some_and(|byte| {
                let inside = i > 0
                    && is_token_byte(text[i - 1])
                    && text.get(i + 3).is_some_and(|&b| is_token_byte(b));
                byte >= 0x80 || (inside && !byte.is_ascii_alphanumeric())
            })
    })
}

/// `text` decoded as quoted-printable: every `=XX` and soft break.
fn decode(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'=' {
            if let Some(len) = soft_break_at(text, i) {
                i += len;
                continue;
            }
            if let Some(byte) = escape_at(text, i).filter(|b| !b.is_ascii_control()) {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(text[i]);
        i += 1;
    }
    out
}

/// The lines of `text` with soft-broken ones joined: (start, bytes) of each.
fn logical_lines(text: &[u8]) -> Vec<(usize, &[u8])> {
    let mut out: Vec<(usize, &[u8])> = Vec::new();
    let mut joining = false;
    for (at, line) in lines(text) {
        match out.last_mut() {
            Some((start, whole)) if joining => *whole = &text[*start..at + line.len()],
            _ => out.push((at, line)),
        }
        let body = line.strip_suffix(b"\n").unwrap_or(line);
        let body = body.strip_suffix(b"\r").unwrap_or(body);
        joining = body.last() == Some(&b'=') && soft_break_at(text, at + body.len() - 1).is_some();
    }
    out
}

/// Decoded copies of the lines of `unit` that hold a quoted-printable escape.
pub fn quoted_layer(unit: &Unit, budget: &mut usize) -> Option<Unit> {
    escaped_lines_layer(
        unit,
        budget,
        Encoding::QuotedPrintable,
        first,
        decode,
        logical_lines,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(text: &str) -> Option<String> {
        crate::scan::layers::peeled(text, quoted_layer)
    }

    #[test]
    fn escapes_and_soft_breaks_inside_tokens_are_decoded() {
        assert_eq!(
            layer("mail ion.pop=40gmail.com").as_deref(),
            Some("mail ion.pop@gmail.com")
        );
        // A mail library's line, broken after a dot past 51 characters.
        let broken = format!("{} key AKIAZ7QW3RT=\n5YU2IOPLM", "x".repeat(40));
        assert_eq!(
            layer(&broken).as_deref(),
            Some(format!("{} key AKIAZ7QW3RT5YU2IOPLM", "x".repeat(40)).as_str())
        );
        // An encoder's full line: 75 characters and the `=`.
        let full = format!("{}key AKIAZ7QW3RT=\n5YU2IOPLM", "x".repeat(60));
        assert_eq!(
            layer(&full).as_deref(),
            Some(format!("{}key AKIAZ7QW3RT5YU2IOPLM", "x".repeat(60)).as_str())
        );
        assert_eq!(layer("caf=C3=A9").as_deref(), Some("café"));
    }

    #[test]
    fn assignments_are_not_escapes() {
        assert_eq!(layer("depth=40, n=20 x = 1"), None);
        assert_eq!(layer("let a =\n  b"), None);
        assert_eq!(layer("timeout=30s"), None);
        // Base64's padding ends a setting's line before the next setting's, however
        // wide the line.
        assert_eq!(layer("TOKEN=ptr_KyuCvJs4vwYCtMRuNLXt3tz=\nAPI_KEY=x"), None);
        let wide = format!("SIGNING_KEY={}=\nAPI_KEY=x", "Kq3Lm9Xv2P".repeat(6));
        assert_eq!(layer(&wide), None);
    }
}
