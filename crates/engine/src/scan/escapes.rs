//! Backslash escapes as TOML, YAML, JSON-in-text and source code write them:
//! `\u002F`, `\U0001F600`, `\u{2F}`, `\x2F`, `\057` and `\/`. A home path spelled
//! `"\u002Fhome\u002Fana"` in a committed config reads as `/home/ana` to every program
//! that loads it, so it is judged as that. Segments holding an escape are decoded into a
//! layer of their own, pinned to where the escape starts.

use super::escaped::escaped_layer;
use crate::formats::{Encoding, Unit};

/// Decoded copies of `unit`'s segments that hold a backslash escape of a character.
pub fn escape_layer(unit: &Unit, budget: &mut usize) -> Option<Unit> {
    escaped_layer(unit, budget, Encoding::Escapes, first_escape, decode)
}

fn first_escape(text: &[u8]) -> Option<usize> {
    memchr::memchr_iter(b'\\', text)
        .find(|&i| escape_at(text, i).is_some_and(|(c, _)| !c.is_control()))
}

/// Stands for a lone surrogate escape, and is dropped from the decoded text.
const LONE_SURROGATE: char = '\u{FFFD}';

/// The character an escape at `text[i]` (a backslash) spells, and its length.
fn escape_at(text: &[u8], i: usize) -> Option<(char, usize)> {
    let hex = |from: usize, n: usize| -> Option<u32> {
        let digits = text.get(from..from + n)?;
        let s = std::str::from_utf8(digits).ok()?;
        u32::from_str_radix(s, 16).ok()
    };
    match *text.get(i + 1)? {
        b'u' if text.get(i + 2) == Some(&b'{') => {
            let close = text[i + 3..].iter().take(7).position(|&b| b == b'}')?;
            let v = hex(i + 3, close)?;
            Some((char::from_u32(v)?, close + 4))
        }
        b'u' => {
            let v = hex(i + 2, 4)?;
            // A surrogate pair spells one character.
            if (0xD800..0xDC00).contains(&v)
                && text.get(i + 6) == Some(&b'\\')
                && text.get(i + 7) == Some(&b'u')
                && let Some(lo) = hex(i + 8, 4).filter(|lo| (0xDC00..0xE000).contains(lo))
            {
                let c = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
                return Some((char::from_u32(c)?, 12));
            }
            // A lone surrogate is no character: a reader sees at most a replacement
            // mark, which the value around it reads straight through.
            Some((char::from_u32(v).unwrap_or(LONE_SURROGATE), 6))
        }
        b'U' => Some((char::from_u32(hex(i + 2, 8)?)?, 10)),
        b'x' => Some((char::from_u32(hex(i + 2, 2)?)?, 4)),
        b'/' => Some(('/', 2)),
        // C, Python and shell `\057`: three octal digits, at most `\377`.
        b'0'..=b'3' => {
            let digits = text.get(i + 1..i + 4)?;
            let s = std::str::from_utf8(digits).ok()?;
            let v = u32::from_str_radix(s, 8).ok()?;
            Some((char::from_u32(v)?, 4))
        }
        _ => None,
    }
}

/// `text` with every character escape decoded; anything else kept as it is.
pub fn decode(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        // Control characters stay spelled out: `echo -e "\x1b[31m"` in a script is
        // code, and a value is made of printable characters.
        if text[i] == b'\\'
            && let Some((c, len)) = escape_at(text, i).filter(|(c, _)| !c.is_control())
        {
            if c != LONE_SURROGATE {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            i += len;
            continue;
        }
        out.push(text[i]);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_languages_write_them() {
        let d = |s: &str| String::from_utf8(decode(s.as_bytes())).unwrap_or_default();
        assert_eq!(d(r"\u002Fhome\u002Fana"), "/home/ana");
        assert_eq!(d(r"\x2Fhome\x2Fana"), "/home/ana");
        assert_eq!(d(r"\u{2F}home\/ana"), "/home/ana");
        assert_eq!(d(r"ana\u0040gmail.com"), "ana@gmail.com");
        assert_eq!(d(r"\U0001F600 \ud83d\ude00"), "\u{1F600} \u{1F600}");
        assert_eq!(d(r"C:\Users\ana \n"), r"C:\Users\ana \n");
        assert_eq!(d(r"\x1b[31m red"), r"\x1b[31m red");
        assert_eq!(d(r"ana\ud800@gmail.com"), "ana@gmail.com");
        assert_eq!(d(r"\057home\057ana"), "/home/ana");
    }
}
