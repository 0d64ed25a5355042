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
        // Line by line, each piece pinned where its first rewritten token is.
        for (offset, line) in lines(bytes) {
            let Ok(line) = std::str::from_utf8(line) else {
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
/// a byte `marks` names, since it changes no other; and nothing is written until a
/// token changes, since most lines that pass the layer's checks hold none.
fn fold_tokens(
    text: &str,
    marks: impl Fn(u8) -> bool,
    fold: impl Fn(&str) -> Option<String>,
) -> Option<(usize, String)> {
    let mut out: Option<(usize, String)> = None;
    let mut at = 0;
    while at < text.len() {
        let token_start = blanks_end(text, at);
        if let Some((_, o)) = out.as_mut() {
            o.push_str(&text[at..token_start]);
        }
        let (token_end, marked) = token_end(text, token_start, &marks);
        let token = &text[token_start..token_end];
        match (marked.then(|| fold(token)).flatten(), out.as_mut()) {
            (Some(f), Some((_, o))) => o.push_str(&f),
            (Some(f), None) => {
                // Everything before the first change, blanked as it would have been.
                let mut o = String::with_capacity(text.len());
                o.extend(
                    text[..token_start]
                        .chars()
                        .map(|c| if c.is_whitespace() { c } else { ' ' }),
                );
                o.push_str(&f);
                out = Some((token_start, o));
            }
            (None, Some((_, o))) => o.extend(std::iter::repeat_n(' ', token.chars().count())),
            (None, None) => {}
        }
        at = token_end;
    }
    out
}

/// Whether `b` is an ASCII character [`char::is_whitespace`] calls white space.
fn is_ascii_blank(b: u8) -> bool {
    matches!(b, b'\t'..=b'\r' | b' ')
}

/// Where the run of white space at `at` ends.
fn blanks_end(text: &str, mut at: usize) -> usize {
    let bytes = text.as_bytes();
    while let Some(&b) = bytes.get(at) {
        if b.is_ascii() {
            if !is_ascii_blank(b) {
                break;
            }
            at += 1;
        } else {
            match text[at..].chars().next() {
                Some(c) if c.is_whitespace() => at += c.len_utf8(),
                _ => break,
            }
        }
    }
    at
}

/// Where the token at `at` ends, and whether a byte of it is one `marks` names.
fn token_end(text: &str, mut at: usize, marks: impl Fn(u8) -> bool) -> (usize, bool) {
    let bytes = text.as_bytes();
    let mut marked = false;
    while let Some(&b) = bytes.get(at) {
        if b.is_ascii() {
            if is_ascii_blank(b) {
                break;
            }
            marked |= marks(b);
            at += 1;
        } else {
            match text[at..].chars().next() {
                Some(c) if !c.is_whitespace() => {
                    marked |= marks(b);
                    at += c.len_utf8();
                }
                _ => break,
            }
        }
    }
    (at, marked)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::disguise::{fold_token, is_hidden_control};

    /// Token by token, asking `fold` only about marked tokens and writing only once one
    /// changes, gives what folding every token of the line gives.
    #[test]
    fn folding_marked_tokens_only_gives_the_whole_line_folding() {
        let every_token = |text: &str| {
            let (mut out, mut first, mut rest, mut offset) = (String::new(), None, text, 0);
            while !rest.is_empty() {
                let blank = rest
                    .find(|c: char| !c.is_whitespace())
                    .unwrap_or(rest.len());
                out.push_str(&rest[..blank]);
                let end = rest[blank..]
                    .find(char::is_whitespace)
                    .map_or(rest.len(), |e| blank + e);
                match fold_token(&rest[blank..end]) {
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
        ] {
            assert_eq!(
                fold_tokens(text, marks, fold_token),
                every_token(text),
                "{text:?}"
            );
        }
    }
}
