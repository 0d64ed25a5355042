//! Peeling encodings: base64 (standard and URL-safe, possibly gzip inside) and
//! percent-encoding. Each layer becomes a new [`Unit`] scanned like the first, pinned to
//! the position of the encoded run; depth and decoded bytes are bounded per file.

use super::escaped::escaped_layer;
use crate::formats::base64::{STANDARD, URL_SAFE};
use crate::formats::{Encoding, Segment, Unit};
use crate::source::gzip::gunzip;
use base64::Engine;
use base64::engine::GeneralPurpose;

/// Layers of encoding peeled at most (base64 in base64 in percent…).
pub const MAX_DEPTH: u8 = 4;
/// Shortest base64 run worth decoding: shorter runs are mostly identifiers.
const MIN_BASE64: usize = 20;

/// Bytes of the standard and URL-safe base64 alphabets.
static BASE64_BYTE: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'_' | b'-');
        b += 1;
    }
    t
};

/// Maximal runs of at least [`MIN_BASE64`] alphabet bytes, with up to two `=` after.
///
/// Text is classified 64 bytes at a time into a bit mask (written so the compiler
/// turns it into vector compares), and a run of 20 set bits is found with five shifts.
/// Prose, where such runs are rare, then costs a fraction of a cycle per byte instead
/// of a branch per probe; only a block that holds a run is walked byte by byte.
fn base64_runs(text: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    const _: () = assert!(MIN_BASE64 == 20, "the shift ladder below is built for 20");
    let mut i = 0;
    // Alphabet bytes just before `i`, all in a row (fewer than the minimum).
    let mut carry = 0;
    std::iter::from_fn(move || {
        while i < text.len() {
            let mask = crate::bytemask::base64(&text[i..]);
            let two = mask & (mask >> 1);
            let four = two & (two >> 2);
            let eight = four & (four >> 4);
            let sixteen = eight & (eight >> 8);
            let twenty = sixteen & (four >> 16);
            let start = if carry + mask.trailing_ones() as usize >= MIN_BASE64 {
                i - carry
            } else if twenty != 0 {
                i + twenty.trailing_zeros() as usize
            } else {
                carry = mask.leading_ones() as usize;
                // Past the end of the text the mask reads zeros: no carry to keep.
                i += 64;
                continue;
            };
            let mut end = start + MIN_BASE64;
            while end < text.len() && BASE64_BYTE[text[end] as usize] {
                end += 1;
            }
            // `text[end]` is not in the alphabet: the next run starts after it.
            i = end + 1;
            carry = 0;
            let pad = text[end..]
                .iter()
                .take(2)
                .take_while(|&&b| b == b'=')
                .count();
            return Some((start, end + pad));
        }
        None
    })
}

/// Text decoded out of `unit`'s base64 runs, or `None` when there is none worth scanning.
pub fn base64_layer(unit: &Unit, budget: &mut usize) -> Option<Unit> {
    let mut out = child(unit, Encoding::Base64);
    for (run_start, run_end) in base64_runs(&unit.text) {
        let run = &unit.text[run_start..run_end];
        let body = run
            .strip_suffix(b"==")
            .or_else(|| run.strip_suffix(b"="))
            .unwrap_or(run);
        // Base64 of anything but a few bytes mixes upper and lower case (a run of 20
        // characters from one case is about 1 in 10^5); identifiers (`summary_text_hash`),
        // digests and upper-case ids do not, and decoding them is wasted work.
        if body.len() < MIN_BASE64
            || body.len() % 4 == 1
            || !body.iter().any(u8::is_ascii_uppercase)
            || !body.iter().any(u8::is_ascii_lowercase)
        {
            continue;
        }
        let url = body.iter().any(|b| *b == b'-' || *b == b'_');
        let std = body.iter().any(|b| *b == b'+' || *b == b'/');
        let engine: &GeneralPurpose = match (url, std) {
            (true, true) => continue,
            (true, false) => &URL_SAFE,
            _ => &STANDARD,
        };
        let Ok(mut decoded) = engine.decode(body) else {
            continue;
        };
        if decoded.starts_with(&[0x1f, 0x8b]) {
            match gunzip(&decoded, *budget as u64) {
                Ok(inflated) => decoded = inflated,
                Err(_) => continue,
            }
        }
        if decoded.len() > *budget || !is_text(&decoded) {
            continue;
        }
        // A single token decoded from under a setting's name keeps the name (see
        // [`super::setting`]): `api-token: <base64>` is read as `api-token: <token>`.
        if !decoded.iter().any(u8::is_ascii_whitespace)
            && let Some(name) = super::setting::name_before(&unit.text, run_start)
        {
            let mut named = Vec::with_capacity(name.len() + 2 + decoded.len());
            named.extend_from_slice(name);
            named.extend_from_slice(b": ");
            named.extend_from_slice(&decoded);
            decoded = named;
        }
        if decoded.len() > *budget {
            continue;
        }
        *budget -= decoded.len();
        let Some(seg) = unit.segment_at(run_start) else {
            continue;
        };
        push_pinned(&mut out, unit, seg, run_start, &decoded);
    }
    (!out.segments.is_empty()).then_some(out)
}

/// Percent-decoded copies of `unit`'s segments that hold `%XX` escapes.
pub fn percent_layer(unit: &Unit, budget: &mut usize) -> Option<Unit> {
    escaped_layer(
        unit,
        budget,
        Encoding::Percent,
        first_escape,
        percent_decode,
    )
}

/// Shortest piece of a token that counts as wrapped when a line ends with it.
const MIN_WRAPPED_PIECE: usize = 16;

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'_' | b'-' | b'.' | b'~')
}

/// Tokens wrapped across lines inside one value — a key or base64 blob broken at a
/// fixed width, in a JSON string as `\n` escapes or in a text file — joined back:
/// `ghp_8mZq2LkP0vX7rT4n\n  B9sW1cY6…` becomes one token again. A line counts as
/// wrapped when it ends in at least 16 token bytes and the next line (after its
/// indentation) goes on with token bytes; only the joined tokens go into the layer.
/// In the same pass, an assignment continued on the next line is read as one line
/// (see [`super::continued`]).
pub fn unwrap_layer(unit: &Unit, budget: &mut usize) -> Option<Unit> {
    // Segments are joined by newlines; when those are all the unit holds (JSON strings
    // without line breaks, the usual case), no line can be wrapped.
    // Keys left out of the text leave a separator each too.
    let newlines = crate::bytemask::count(&unit.text, b'\n');
    if newlines < unit.segments.len() + unit.gaps {
        return None;
    }
    let mut out = child(unit, Encoding::Unwrapped);
    for (i, seg) in unit.segments.iter().enumerate() {
        let text = &unit.text[seg.start..seg.end];
        let mut pos = 0;
        while let Some(off) = memchr::memchr(b'\n', &text[pos..]) {
            let nl = pos + off;
            // A CRLF line ends before its `\r`.
            let line_end = if nl > pos && text[nl - 1] == b'\r' {
                nl - 1
            } else {
                nl
            };
            let start = text[pos..line_end]
                .iter()
                .rposition(|&b| !is_token_byte(b))
                .map_or(pos, |j| pos + j + 1);
            if let Some(pieces) = super::continued::continued(text, pos, line_end, nl + 1) {
                let len: usize = pieces.iter().map(|(a, b)| b - a + 1).sum();
                if len <= *budget {
                    *budget -= len;
                    let at = pieces.map(|(a, b)| (seg.start + a, seg.start + b));
                    out.push_joined(unit, i, &at, b" ");
                }
            }
            pos = nl + 1;
            if line_end - start < MIN_WRAPPED_PIECE {
                continue;
            }
            // Copied only once a next piece joins: most lines ending in a long token
            // (a URL, a path) are not wrapped.
            let mut joined: Vec<u8> = Vec::new();
            let mut cur = line_end;
            while let Some(after) = line_break(text, cur) {
                let from = after
                    + text[after..]
                        .iter()
                        .take_while(|b| matches!(b, b' ' | b'\t'))
                        .count();
                let to = from
                    + text[from..]
                        .iter()
                        .take_while(|&&b| is_token_byte(b))
                        .count();
                // Base64 padding ends a token: nothing that follows is more of it.
                if to == from
                    || text[..cur].last() == Some(&b'=')
                    || starts_a_statement(&text[from..to], &text[to..])
                {
                    break;
                }
                if joined.is_empty() {
                    joined.extend_from_slice(&text[start..line_end]);
                }
                joined.extend_from_slice(&text[from..to]);
                cur = to;
                if to - from < MIN_WRAPPED_PIECE {
                    break; // a short last piece ends the token
                }
            }
            if joined.is_empty() || joined.len() > *budget {
                continue;
            }
            *budget -= joined.len();
            push_pinned(&mut out, unit, i, seg.start + start, &joined);
            pos = cur.max(pos);
        }
    }
    (!out.segments.is_empty()).then_some(out)
}

/// A line that opens with `NAME=value`, `name:` or `name = value` starts a setting of
/// its own (the next line of a `.env`, YAML or `.properties` file), not the rest of a
/// token: base64 has `=` only as padding at its end, and a key's pieces are not
/// followed by a colon or an operator.
fn starts_a_statement(piece: &[u8], rest: &[u8]) -> bool {
    let assigns =
        memchr::memchr(b'=', piece).is_some_and(|i| piece[i..].iter().any(|&b| b != b'='));
    let operator = rest
        .iter()
        .find(|&&b| b != b' ' && b != b'\t')
        .is_some_and(|&b| b == b':' || b == b'=');
    assigns || operator
}

/// Where the next line starts, if a line break (`\n` or `\r\n`) is at `at`.
fn line_break(text: &[u8], at: usize) -> Option<usize> {
    match text.get(at..at + 2) {
        Some([b'\r', b'\n']) => Some(at + 2),
        _ => (text.get(at) == Some(&b'\n')).then_some(at + 1),
    }
}

/// Index of the segment holding (or, on a separator, following) text position `pos`.
pub(super) fn segment_from(unit: &Unit, pos: usize) -> usize {
    unit.segments.partition_point(|s| s.end < pos)
}

pub(super) fn child(parent: &Unit, encoding: Encoding) -> Unit {
    Unit {
        depth: parent.depth + 1,
        encoding: Some(encoding),
        ..Unit::default()
    }
}

pub(super) fn push_pinned(out: &mut Unit, parent: &Unit, seg: usize, at: usize, decoded: &[u8]) {
    let raw_start = parent.raw_offset(seg, at);
    let node = parent.segments[seg]
        .node
        .map(|n| out.paths.verbatim(&parent.paths.pointer(n)));
    let start = out.begin_segment();
    out.text.extend_from_slice(decoded);
    out.finish_segment(Segment {
        start,
        end: out.text.len(),
        raw_start,
        checkpoints: (0, 0),
        node,
        is_key: false,
        pinned: true,
    });
}

fn first_escape(text: &[u8]) -> Option<usize> {
    memchr::memchr_iter(b'%', text).find(|&i| {
        text.get(i + 1)
            .and_then(|&b| crate::hex::digit(b))
            .is_some()
            && text
                .get(i + 2)
                .and_then(|&b| crate::hex::digit(b))
                .is_some()
    })
}

pub use crate::hex::percent_decode;

/// Valid UTF-8 with almost no control characters: what an encoded secret or message
/// looks like, and what random bytes from a digest do not.
fn is_text(bytes: &[u8]) -> bool {
    let Ok(s) = std::str::from_utf8(bytes) else {
        return false;
    };
    let total = s.chars().count();
    let control = s
        .chars()
        .filter(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
        .count();
    total >= 8 && control * 20 <= total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_runs_agree_with_the_regex_they_replace() {
        let re = regex::bytes::Regex::new(r"[A-Za-z0-9+/_-]{20,}={0,2}").expect("compiles");
        let alphabet = b"aZ09+/_- =.\n";
        let mut state = 0x2545_f491_u32;
        for len in [
            0, 1, 19, 20, 21, 40, 63, 64, 65, 83, 84, 127, 128, 200, 2000,
        ] {
            for _ in 0..50 {
                let text: Vec<u8> = (0..len)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 17;
                        state ^= state << 5;
                        // Mostly alphabet bytes, so runs of every length occur.
                        let i = (state % 64) as usize;
                        if i < 56 {
                            alphabet[i % 8]
                        } else {
                            alphabet[8 + i % 4]
                        }
                    })
                    .collect();
                let want: Vec<_> = re.find_iter(&text).map(|m| (m.start(), m.end())).collect();
                let got: Vec<_> = base64_runs(&text).collect();
                assert_eq!(got, want, "{:?}", String::from_utf8_lossy(&text));
            }
        }
    }

    fn text_unit(s: &str) -> Unit {
        let mut u = Unit::default();
        u.push_plain(s.as_bytes(), 0, None);
        u
    }

    #[test]
    fn decodes_base64_text_but_not_digests() {
        let encoded = STANDARD.encode("contact ion.popescu@gmail.com now");
        let u = text_unit(&format!(
            "x {encoded} e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        ));
        let mut budget = 1 << 20;
        let layer = base64_layer(&u, &mut budget).expect("one layer");
        assert_eq!(layer.segments.len(), 1);
        assert!(String::from_utf8_lossy(&layer.text).contains("ion.popescu@gmail.com"));
        assert_eq!(layer.segments[0].raw_start, 2);
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode(b"%2Fhome%2Fjdoe%zz"), b"/home/jdoe%zz");
        let u = text_unit("path=%2Fhome%2Fjdoe");
        let mut budget = 1 << 20;
        let layer = percent_layer(&u, &mut budget).expect("layer");
        assert_eq!(layer.text, b"path=/home/jdoe");
    }
}
