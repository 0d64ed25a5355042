//! Spellings that look the same to a reader but not to a regex, undone as layers:
//! compatibility forms (full-width `ｉｏｎ＠ｇｍａｉｌ`, circled, mathematical, small
//! `﹫`), characters that are not drawn (`gm\u{200b}ail`, U+202E, tag characters),
//! look-alikes inside a Latin token (`АKIA…` with a Cyrillic `А`, `∕home∕` with
//! division slashes), all from the Unicode tables in [`crate::unicode`], and HTML
//! character references (`&#64;`, `&commat;`).
//!
//! Only the tokens (runs between blanks) that hold such a spelling go into a layer;
//! the rest of the segment is blanked, so a plain value beside an unrelated full-width
//! comma is not reported a second time.

use super::token_layer::{Rewrite, token_layer};
use crate::formats::{Encoding, Unit};
use crate::unicode::{Reading, reading};

/// A control character a reader does not see and a JSON string can carry (`\u0000`):
/// not tab, line feed or carriage return, which are blanks, nor vertical tab and form
/// feed, which split tokens as blanks do.
pub(super) fn is_hidden_control(b: u8) -> bool {
    matches!(b, 0x00..=0x08 | 0x0E..=0x1F | 0x7F)
}

/// Combining marks: a key with an accent stacked on one letter still reads as the key.
fn is_combining(c: char) -> bool {
    matches!(c, '\u{300}'..='\u{36F}' | '\u{1AB0}'..='\u{1AFF}' | '\u{20D0}'..='\u{20FF}')
}

/// `token` as a reader sees it, or `None` when it holds no disguise. Look-alike
/// letters and stacked accents count only in a token that also holds ASCII letters or
/// digits: Russian or Greek prose is left alone.
pub(super) fn fold_token(token: &str) -> Option<String> {
    let latin = token.bytes().any(|b| b.is_ascii_alphanumeric());
    let mut changed = false;
    let mut out = String::with_capacity(token.len());
    for c in token.chars() {
        match reading(c) {
            _ if u8::try_from(c).is_ok_and(is_hidden_control) => changed = true,
            Some(Reading::Unseen) => changed = true,
            Some(Reading::Compat(r)) => {
                changed = true;
                out.push_str(r);
            }
            Some(Reading::Look(r)) if latin => {
                changed = true;
                out.push_str(r);
            }
            _ if latin && is_combining(c) => changed = true,
            _ => out.push(c),
        }
    }
    changed.then_some(out)
}

/// Whether `text` holds anything [`fold_token`] would change: checked before any
/// allocation, since accented or non-Latin prose is common and almost never disguised.
/// Only the characters that are not plain ASCII are decoded; the runs between them
/// (most of an English text with a curly quote in it) are passed over eight bytes at a
/// time.
fn may_fold(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut look_alike = false;
    let mut at = 0;
    while let Some(skip) = first_unusual(&bytes[at..]) {
        at += skip;
        let Some(c) = text[at..].chars().next() else {
            break;
        };
        at += c.len_utf8();
        match reading(c) {
            Some(Reading::Unseen | Reading::Compat(_)) => return true,
            Some(Reading::Look(_)) => look_alike = true,
            None if u8::try_from(c).is_ok_and(is_hidden_control) => return true,
            None => look_alike |= is_combining(c),
        }
    }
    look_alike && bytes.iter().any(u8::is_ascii_alphanumeric)
}

/// Where the first byte that is not ASCII or is a hidden control is, eight bytes at a
/// time: a word is looked at byte by byte only when it holds a byte above 0x7E or below
/// 0x20 (a line break, most often).
fn first_unusual(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let unusual = |b: u8| !b.is_ascii() || is_hidden_control(b);
    let mut chunks = bytes.chunks_exact(8);
    let mut at = 0;
    for c in &mut chunks {
        let w = u64::from_ne_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        // High bit: not ASCII, or (after adding 1) 0x7F; below 0x20: borrows.
        let flagged = (w | w.wrapping_add(ONES) | w.wrapping_sub(0x20 * ONES)) & HIGH;
        if flagged != 0
            && let Some(i) = c.iter().position(|&b| unusual(b))
        {
            return Some(at + i);
        }
        at += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| unusual(b))
        .map(|i| at + i)
}

/// Where the first byte that is not ASCII is, eight bytes at a time.
fn first_non_ascii(bytes: &[u8]) -> Option<usize> {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut chunks = bytes.chunks_exact(8);
    let mut at = 0;
    for c in &mut chunks {
        let word = u64::from_ne_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        if word & HIGH != 0 {
            return c.iter().position(|b| !b.is_ascii()).map(|i| at + i);
        }
        at += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|b| !b.is_ascii())
        .map(|i| at + i)
}

/// Folded copies of the segments that hold a disguised token.
pub fn fold_layer(unit: &Unit, budget: &mut usize) -> Option<Unit> {
    let controls = unit.controls;
    let first = if controls {
        first_unusual(&unit.text)?
    } else {
        first_non_ascii(&unit.text)?
    };
    let may = |bytes: &[u8]| {
        !bytes.is_ascii() || (controls && bytes.iter().any(|&b| is_hidden_control(b)))
    };
    token_layer(
        unit,
        budget,
        first,
        Rewrite {
            encoding: Encoding::Folded,
            bytes_may: may,
            text_may: may_fold,
            marks: |b: u8| !b.is_ascii() || is_hidden_control(b),
            token: fold_token,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::scan::layers::peeled as layer;

    /// The fast pre-check says what a plain walk over every character says, on text
    /// mixing the bytes it must stop at with the runs it may pass over.
    #[test]
    fn the_fold_check_skips_only_plain_ascii() {
        let plain = |text: &str| {
            let mut look = false;
            for c in text.chars() {
                match reading(c) {
                    Some(Reading::Unseen | Reading::Compat(_)) => return true,
                    Some(Reading::Look(_)) => look = true,
                    None if u8::try_from(c).is_ok_and(is_hidden_control) => return true,
                    None => look |= is_combining(c),
                }
            }
            look && text.bytes().any(|b| b.is_ascii_alphanumeric())
        };
        let parts = [
            "plain words ",
            "\n",
            "\n",
            "\t",
            "\u{7f}",
            "\u{0}",
            "\u{1b}",
            "’",
            "—",
            "é",
            "\u{200b}",
            "ａ",
            "\u{410}",
            "\u{301}",
            "中文",
            "~",
            " ",
            "x1",
        ];
        let mut seed = 7u64;
        for _ in 0..4000 {
            let mut text = String::new();
            for _ in 0..(seed % 9) {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                text.push_str(parts[(seed >> 33) as usize % parts.len()]);
            }
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            assert_eq!(may_fold(&text), plain(&text), "{text:?}");
        }
    }

    #[test]
    fn disguises_are_undone() {
        let fold = |t: &str| layer(t, fold_layer);
        assert_eq!(
            fold("key \u{410}KIAZ7QW3RT5YU2IOPLM").as_deref(),
            Some("AKIAZ7QW3RT5YU2IOPLM")
        );
        assert_eq!(
            fold("mail ion\u{202E}.pop@gmail.com").as_deref(),
            Some("ion.pop@gmail.com")
        );
        assert_eq!(
            fold("ａ．ｂ＠ｇｍａｉｌ．ｃｏｍ").as_deref(),
            Some("a.b@gmail.com")
        );
        assert_eq!(fold("гм\u{200F}ail").as_deref(), Some("rмail"));
        assert_eq!(
            fold("ion.pop\u{FE6B}gmail\u{3002}com").as_deref(),
            Some("ion.pop@gmail.com")
        );
        assert_eq!(
            fold("\u{2215}home\u{2215}ana").as_deref(),
            Some("/home/ana")
        );
        assert_eq!(
            fold("AKIA\u{E0100}Z7\u{FFFD}QW").as_deref(),
            Some("AKIAZ7QW")
        );
        assert_eq!(fold("AKIA\u{E0020}Z7QW").as_deref(), Some("AKIAZ7QW"));
        assert_eq!(fold("AK\u{3164}IA").as_deref(), Some("AKIA"));
        assert_eq!(
            fold("\u{1D400}\u{1D40A}\u{1D408}\u{1D400}\u{1D7D0}").as_deref(),
            Some("AKIA2")
        );
        assert_eq!(fold("AKI\u{301}A").as_deref(), Some("AKIA"));
    }

    #[test]
    fn prose_in_other_scripts_and_plain_neighbours_are_left_alone() {
        assert_eq!(layer("Привет мир, Ελληνικά", fold_layer), None);
        // The plain address is not in the layer, only the token with the comma.
        let folded = layer("write ion.pop@gmail.com today，ok", fold_layer).unwrap_or_default();
        assert!(!folded.contains("gmail"), "{folded}");
    }
}
