//! Layers that rewrite single tokens (runs between blanks) of a text: folded
//! disguises, decoded entities, refanged and normalised paths. Each line holding a
//! changed token goes into the layer with the changed tokens rewritten and every other
//! token blanked, pinned where its first change is, so a plain neighbour is not
//! reported a second time.

use super::decode::{child, push_pinned, segment_from};
use super::escaped::lines;
use crate::formats::{Encoding, Unit};

/// One way of rewriting tokens, with the cheap checks that spare most text the work.
pub(super) struct Rewrite<B, T, M, R> {
    pub encoding: Encoding,
    /// Whether a segment's bytes may hold a token to rewrite (before any allocation).
    pub bytes_may: B,
    /// The same, on its text once it is known to be UTF-8.
    pub text_may: T,
    /// The bytes a token needs for `token` to change it.
    pub marks: M,
    /// A token rewritten, or `None` when it stays as it is.
    pub token: R,
}

/// The layer of `r.encoding` made of the segments from the one holding byte `first` on
/// that pass `r`'s checks, each with its tokens rewritten (see [`fold_tokens`]).
pub(super) fn token_layer<B, T, M, R>(
    unit: &Unit,
    budget: &mut usize,
    first: usize,
    r: Rewrite<B, T, M, R>,
) -> Option<Unit>
where
    B: Fn(&[u8]) -> bool,
    T: Fn(&str) -> bool,
    M: Fn(u8) -> bool + Copy,
    R: Fn(&str) -> Option<String> + Copy,
{
    let Rewrite {
        encoding,
        bytes_may,
        text_may,
        marks,
        token: rewrite,
    } = r;
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
        // Line by line, each piece pinned where its first rewritten token is. A line
        // ends after a `\n`, a character boundary: each is a slice of `text`, valid
        // already (validating every line again was half of this layer's UTF-8 work).
        for (offset, line) in lines(bytes) {
            let Some(line) = text.get(offset..offset + line.len()) else {
                continue;
            };
            let Some((at, rewritten)) = fold_tokens(line, marks, rewrite) else {
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
/// changed token (where the layer is pinned). `fold` is asked only about tokens holding
/// a byte `marks` names, since it changes no other: the walk goes from one such byte to
/// the next, and what lies between is written (blanked) only once a token changed.
fn fold_tokens(
    text: &str,
    marks: impl Fn(u8) -> bool,
    fold: impl Fn(&str) -> Option<String>,
) -> Option<(usize, String)> {
    let bytes = text.as_bytes();
    let mut out: Option<(usize, String)> = None;
    // Bytes of `text` already in `out` (or, before any change, passed over).
    let mut written = 0;
    let mut from = 0;
    while let Some(i) = bytes[from..].iter().position(|&b| marks(b)) {
        let at = from + i;
        // A marked byte opens a character here: `from` is always on a boundary, and
        // the first byte at or past it that is not ASCII leads a character.
        let Some(c) = text[at..].chars().next() else {
            break;
        };
        if c.is_whitespace() {
            from = at + c.len_utf8();
            continue;
        }
        let start = token_start(text, from, at);
        let end = token_end(text, at);
        if let Some(f) = fold(&text[start..end]) {
            let (_, o) = out.get_or_insert_with(|| (start, String::with_capacity(text.len())));
            blank_into(o, &text[written..start]);
            o.push_str(&f);
            written = end;
        }
        from = end;
    }
    let (_, o) = out.as_mut()?;
    blank_into(o, &text[written..]);
    out
}

/// `text` as the layer shows what it does not rewrite: blanks kept, every other
/// character a space.
fn blank_into(out: &mut String, text: &str) {
    if text.is_ascii() {
        out.extend(text.bytes().map(|b| {
            if is_ascii_blank(b) {
                char::from(b)
            } else {
                ' '
            }
        }));
    } else {
        out.extend(
            text.chars()
                .map(|c| if c.is_whitespace() { c } else { ' ' }),
        );
    }
}

/// Where the token holding byte `at` starts, looking back no further than `floor`.
fn token_start(text: &str, floor: usize, mut at: usize) -> usize {
    let bytes = text.as_bytes();
    while at > floor {
        let b = bytes[at - 1];
        if b.is_ascii() {
            if is_ascii_blank(b) {
                break;
            }
            at -= 1;
        } else {
            match text[..at].chars().next_back() {
                Some(c) if !c.is_whitespace() => at -= c.len_utf8(),
                _ => break,
            }
        }
    }
    at
}

/// Whether `b` is an ASCII character [`char::is_whitespace`] calls white space.
fn is_ascii_blank(b: u8) -> bool {
    matches!(b, b'\t'..=b'\r' | b' ')
}

/// Where the token holding byte `at` ends.
fn token_end(text: &str, mut at: usize) -> usize {
    let bytes = text.as_bytes();
    while let Some(&b) = bytes.get(at) {
        if b.is_ascii() {
            if is_ascii_blank(b) {
                break;
            }
            at += 1;
        } else {
            match text[at..].chars().next() {
                Some(c) if !c.is_whitespace() => at += c.len_utf8(),
                _ => break,
            }
        }
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::disguise::{fold_token, is_hidden_control};

    /// Token by token, asking `fold` only about marked tokens and writing only once one
    /// changes, gives what folding every token of the line gives.
    #[test]
    fn folding_marked_tokens_only_gives_the_whole_line_folding() {
        let every_token = |text: &str, fold: &dyn Fn(&str) -> Option<String>| {
            let (mut out, mut first, mut rest, mut offset) = (String::new(), None, text, 0);
            while !rest.is_empty() {
                let blank = rest
                    .find(|c: char| !c.is_whitespace())
                    .unwrap_or(rest.len());
                out.push_str(&rest[..blank]);
                let end = rest[blank..]
                    .find(char::is_whitespace)
                    .map_or(rest.len(), |e| blank + e);
                match fold(&rest[blank..end]) {
                    Some(f) => {
                        first.get_or_insert(offset + blank);
                        out.push_str(&f);
                    }
                    None => out.extend(std::iter::repeat_n(' ', rest[blank..end].chars().count())),
                }
                offset += end;
                rest = &rest[end..];
            }
            first.map(|f| (f, out))
        };
        let marks = |b: u8| !b.is_ascii() || is_hidden_control(b);
        for text in [
            "",
            "plain ascii only",
            "  lead\u{3000}ideographic space then ａｂ x",
            "ion\u{200b}.pop@gmail.com and 2010\u{2013}2015 \u{2014} done\u{2026}",
            "\u{a0}nbsp\u{a0}\u{410}KIA\u{85}next\u{1f}ctl\tTAB\u{b}vt",
            "中文 тест \u{410}b é\u{301}",
            "R&D\u{a0}a&b \u{2003}x&\u{2003} &",
            "\u{a0}\u{410}\u{a0}",
            "ａ",
            "tail ａ  ",
        ] {
            assert_eq!(
                fold_tokens(text, marks, fold_token),
                every_token(text, &fold_token),
                "{text:?}"
            );
            let amp = |t: &str| t.contains('&').then(|| t.replace('&', "+"));
            assert_eq!(
                fold_tokens(text, |b| b == b'&', amp),
                every_token(text, &amp),
                "{text:?}"
            );
        }
    }
}
