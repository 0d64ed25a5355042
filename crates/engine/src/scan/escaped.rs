//! Decoded readings made a line at a time: each piece of a segment that holds an
//! escape is decoded on its own and pinned where its first escape is, so a finding in
//! it is reported on its own line.

use super::decode::{child, push_pinned, segment_from};
use crate::formats::{Encoding, Unit};

/// Decoded copies of `unit`'s segments where `first` finds an escape, each pinned to
/// where its first escape starts; a decoding that changes nothing adds nothing.
pub(super) fn escaped_layer(
    unit: &Unit,
    budget: &mut usize,
    encoding: Encoding,
    first: fn(&[u8]) -> Option<usize>,
    decode: fn(&[u8]) -> Vec<u8>,
) -> Option<Unit> {
    escaped_lines_layer(unit, budget, encoding, first, decode, |t| {
        lines(t).collect()
    })
}

/// Cuts a segment's text into pieces, each with where it starts.
pub(super) type Split = fn(&[u8]) -> Vec<(usize, &[u8])>;

/// [`escaped_layer`] over the pieces `split` cuts a segment into (lines, or lines
/// joined where an encoding continues one on the next).
pub(super) fn escaped_lines_layer(
    unit: &Unit,
    budget: &mut usize,
    encoding: Encoding,
    first: fn(&[u8]) -> Option<usize>,
    decode: fn(&[u8]) -> Vec<u8>,
    split: Split,
) -> Option<Unit> {
    // One pass over the whole unit first: most hold no escape at all, and a call per
    // short segment cost more than the search.
    let from = segment_from(unit, first(&unit.text)?);
    let mut out = child(unit, encoding);
    for (i, seg) in unit.segments.iter().enumerate().skip(from) {
        let text = &unit.text[seg.start..seg.end];
        if first(text).is_none() {
            continue;
        }
        // Line by line: a layer piece is pinned where its first escape is, so a piece
        // spanning lines would report every later line's finding on that one.
        for (offset, line) in split(text) {
            let Some(at) = first(line) else {
                continue;
            };
            let decoded = decode(line);
            if decoded.len() > *budget || decoded == line {
                continue;
            }
            *budget -= decoded.len();
            push_pinned(&mut out, unit, i, seg.start + offset + at, &decoded);
        }
    }
    (!out.segments.is_empty()).then_some(out)
}

/// The lines of `text` (split at `\n`, which stays with its line) and where each starts.
pub(super) fn lines(text: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let mut at = 0;
    std::iter::from_fn(move || {
        let rest = text.get(at..).filter(|r| !r.is_empty())?;
        let len = memchr::memchr(b'\n', rest).map_or(rest.len(), |n| n + 1);
        let start = at;
        at += len;
        Some((start, &rest[..len]))
    })
}
