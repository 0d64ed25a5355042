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

use super::decode::{child, push_pinned, segment_from};
use super::escaped::lines;
use crate::formats::{Encoding, Unit};
use crate::unicode::{Reading, reading};

/// A control character a reader does not see and a JSON string can carry (`\u0000`):
/// not tab, line feed or carriage return, which are blanks, nor vertical tab and form
/// feed, which split tokens as blanks do.
fn is_hidden_control(b: u8) -> bool {
    matches!(b, 0x00..=0x08 | 0x0E..=0x1F | 0x7F)
}

/// Combining marks: a key with an accent stacked on one letter still reads as the key.
fn is_combining(c: char) -> bool {
    matches!(c, '\u{300}'..='\u{36F}' | '\u{1AB0}'..='\u{1AFF}' | '\u{20D0}'..='\u{20FF}')
}

/// `token` as a reader sees it, or `None` when it holds no disguise. Look-alike
/// letters and stacked accents count only in a token that also holds ASCII letters or
/// digits: Russian or Greek prose is left alone.
fn fold_token(token: &str) -> Option<String> {
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
fn may_fold(text: &str) -> bool {
    let mut look_alike = false;
    for c in text
        .chars()
        .filter(|&c| !c.is_ascii() || u8::try_from(c).is_ok_and(is_hidden_control))
    {
        match reading(c) {
            Some(Reading::Unseen | Reading::Compat(_)) => return true,
            Some(Reading::Look(_)) => look_alike = true,
            None if u8::try_from(c).is_ok_and(is_hidden_control) => return true,
            None => look_alike |= is_combining(c),
        }
    }
    look_alike && text.bytes().any(|b| b.is_ascii_alphanumeric())
}

/// Where the first byte a fold may change is: one that is not ASCII, or a hidden
/// control character (rare: only then is the slower per-byte look taken).
fn first_foldable(bytes: &[u8]) -> Option<usize> {
    let non_ascii = first_non_ascii(bytes);
    let end = non_ascii.unwrap_or(bytes.len());
    match bytes[..end].iter().position(|&b| is_hidden_control(b)) {
        Some(c) => Some(c),
        None => non_ascii,
    }
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
        first_foldable(&unit.text)?
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
        Encoding::Folded,
        may,
        may_fold,
        fold_token,
    )
}

/// The layer of `encoding` made of the segments from the one holding byte `first` on
/// that pass `bytes_may` and `text_may` (cheap checks, before any allocation), each
/// with its tokens rewritten by `rewrite` (see [`fold_tokens`]).
pub(super) fn token_layer(
    unit: &Unit,
    budget: &mut usize,
    first: usize,
    encoding: Encoding,
    bytes_may: impl Fn(&[u8]) -> bool,
    text_may: impl Fn(&str) -> bool,
    rewrite: impl Fn(&str) -> Option<String> + Copy,
) -> Option<Unit> {
    let from = segment_from(unit, first);
    let mut out = child(unit, encoding);
    for (i, seg) in unit.segments.iter().enumerate().skip(from) {
        let bytes = &unit.text[seg.start..seg.end];
        if !bytes_may(bytes) {
            continue;
        }
        let Ok(text) = std::str::from_utf8(bytes) else {
            continue;
        };
        if !text_may(text) {
            continue;
        }
        // Line by line, each piece pinned where its first rewritten token is.
        for (offset, line) in lines(bytes) {
            let Ok(line) = std::str::from_utf8(line) else {
                continue;
            };
            let Some((at, rewritten)) = fold_tokens(line, rewrite) else {
                continue;
            };
            if rewritten.len() > *budget {
                continue;
            }
            *budget -= rewritten.len();
            push_pinned(
                &mut out,
                unit,
                i,
                seg.start + offset + at,
                rewritten.as_bytes(),
            );
        }
    }
    (!out.segments.is_empty()).then_some(out)
}

/// `text` with each token `fold` changes replaced by its folding and every other
/// token blanked; `None` when no token changed. Also the byte offset of the first
/// changed token (where the layer is pinned).
fn fold_tokens(text: &str, fold: impl Fn(&str) -> Option<String>) -> Option<(usize, String)> {
    let mut out = String::with_capacity(text.len());
    let mut first = None;
    let mut rest = text;
    let mut offset = 0;
    while !rest.is_empty() {
        let blank = rest
            .find(|c: char| !c.is_whitespace())
            .unwrap_or(rest.len());
        out.push_str(&rest[..blank]);
        let token_end = rest[blank..]
            .find(char::is_whitespace)
            .map_or(rest.len(), |e| blank + e);
        let token = &rest[blank..token_end];
        match fold(token) {
            Some(f) => {
                first.get_or_insert(offset + blank);
                out.push_str(&f);
            }
            None => out.extend(std::iter::repeat_n(' ', token.chars().count())),
        }
        offset += token_end;
        rest = &rest[token_end..];
    }
    first.map(|f| (f, out))
}

/// A named character reference a writer would use to hide an address or a path.
fn named_entity(name: &str) -> Option<char> {
    Some(match name {
        "commat" => '@',
        "period" => '.',
        "sol" => '/',
        "bsol" => '\\',
        "colon" => ':',
        "lowbar" => '_',
        "hyphen" | "dash" => '-',
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "num" => '#',
        "plus" => '+',
        "equals" => '=',
        "percnt" => '%',
        _ => return None,
    })
}

/// `token` with its HTML character references decoded (twice, for `&amp;#64;`), or
/// `None` when it has none.
fn decode_entities(token: &str) -> Option<String> {
    let once = decode_entities_once(token)?;
    Some(decode_entities_once(&once).unwrap_or(once))
}

fn decode_entities_once(token: &str) -> Option<String> {
    if !token.contains('&') {
        return None;
    }
    let mut out = String::with_capacity(token.len());
    let mut changed = false;
    let mut rest = token;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        // A numeric reference may end without `;` (`&#64gmail`), as browsers read it.
        let numeric_end = after.strip_prefix('#').map(|n| {
            let hex = n.starts_with(['x', 'X']);
            let digits = n[usize::from(hex)..]
                .bytes()
                .take_while(|b| {
                    if hex {
                        b.is_ascii_hexdigit()
                    } else {
                        b.is_ascii_digit()
                    }
                })
                .count();
            1 + usize::from(hex) + digits
        });
        let end = after
            .find(';')
            .filter(|&e| e > 0 && e <= 10)
            .or(numeric_end.filter(|&e| e > 1 && after.as_bytes().get(e) != Some(&b';')));
        let decoded = end.and_then(|e| {
            let body = &after[..e];
            match body.strip_prefix('#') {
                Some(num) => match num.strip_prefix(['x', 'X']) {
                    Some(hex) => u32::from_str_radix(hex, 16).ok(),
                    None => num.parse().ok(),
                }
                .and_then(char::from_u32),
                None => named_entity(body),
            }
        });
        match (decoded, end) {
            (Some(c), Some(e)) => {
                out.push(c);
                changed = true;
                let semi = after.as_bytes().get(e) == Some(&b';');
                rest = &after[e + usize::from(semi)..];
            }
            _ => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// `&#` or `&name;` somewhere: checked before any allocation (a URL's `&x=1` is not).
fn has_reference(bytes: &[u8]) -> bool {
    memchr::memchr_iter(b'&', bytes).any(|i| {
        let rest = &bytes[i + 1..bytes.len().min(i + 12)];
        rest.first() == Some(&b'#')
            || rest
                .iter()
                .position(|&b| b == b';')
                .is_some_and(|e| e >= 2 && rest[..e].iter().all(u8::is_ascii_alphabetic))
    })
}

/// Copies of the segments whose tokens hold HTML character references, decoded.
pub fn entity_layer(unit: &Unit, budget: &mut usize) -> Option<Unit> {
    let first = memchr::memchr(b'&', &unit.text)?;
    token_layer(
        unit,
        budget,
        first,
        Encoding::Entities,
        has_reference,
        |_| true,
        decode_entities,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::scan::layers::peeled as layer;

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

    #[test]
    fn entities_are_decoded() {
        let dec = |t: &str| layer(t, entity_layer);
        assert_eq!(
            dec("mail ion.pop&#64;gmail&period;com").as_deref(),
            Some("ion.pop@gmail.com")
        );
        assert_eq!(dec("x&#x40;y&commat;z").as_deref(), Some("x@y@z"));
        assert_eq!(dec("R&D; salt & pepper"), None);
        assert_eq!(dec("a&#64b.com").as_deref(), Some("a@b.com"));
        assert_eq!(dec("a&amp;#64;b.com").as_deref(), Some("a@b.com"));
    }
}
