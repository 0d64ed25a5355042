//! Wide bounded gaps, searched first as open ones. A rule writes the room it allows
//! between its parts as a bounded repetition (`curl[^\n]{0,400}-u …`); the lazy DFA
//! that runs it must count every position of that gap against every place the next
//! part may start, and builds hundreds of states per keyword: half a megabyte of cache
//! for each such rule in each worker, rebuilt as it fills.
//!
//! Such a rule gets a *gate*: the same regex with those gaps left open (`[^\n]*`),
//! which the DFA holds in a few states. Opening a gap only lets more text match, so a
//! window the gate does not match holds no match of the rule, and most windows stop
//! there. A window it does match is searched with the regex as written, which alone
//! reports matches: the bound still decides what is a finding (a window can be far
//! wider than a gap's bound, and a greedy open gap would also move where a value is
//! read).
//!
//! Only a gap is opened: a repetition of a broad class (`[^\n]`, `\S`, `[^"']`, at least
//! half of all bytes; never a value's alphabet), outside every capture group, whose
//! bound allows at least [`WIDE`] more bytes than its minimum, and that something the
//! match must hold follows. A run that ends the pattern bounds the match itself and
//! stays as written.

use regex_automata::meta::{Builder, Regex};
use regex_syntax::hir::{Class, Hir, HirKind, Repetition};

/// A repetition this much wider than its minimum is a gap; narrower ones (`\s{1,16}`)
/// cost the DFA little and stay as written.
const WIDE: u32 = 64;

/// The gate of the regex `hir`: `None` when it has no wide gap to open.
pub(super) fn gate(hir: Hir, builder: fn() -> Builder) -> Result<Option<Regex>, String> {
    let opened = open_gaps(hir.clone());
    if opened == hir {
        return Ok(None);
    }
    let gate = builder()
        .build_from_hir(&opened)
        .map_err(|e| e.to_string())?;
    Ok(Some(gate))
}

/// Whether [`open_gaps`] would open anything in `hir`: asked once, when the pattern is
/// analysed, so a rule without gaps is not parsed again for its gate.
pub(super) fn has_gap(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Concat(subs) => {
            let mut needed = false;
            for h in subs.iter().rev() {
                if (needed && is_gap(h)) || has_gap(h) {
                    return true;
                }
                needed |= h.properties().minimum_len().is_some_and(|n| n > 0);
            }
            false
        }
        HirKind::Alternation(subs) => subs.iter().any(has_gap),
        HirKind::Repetition(r) => has_gap(&r.sub),
        _ => false,
    }
}

/// `hir` with every wide gap outside a capture group left unbounded.
pub(super) fn open_gaps(hir: Hir) -> Hir {
    match hir.into_kind() {
        HirKind::Concat(subs) => {
            // What the match must still hold after each part.
            let mut needed_after = vec![false; subs.len()];
            let mut needed = false;
            for (i, h) in subs.iter().enumerate().rev() {
                needed_after[i] = needed;
                needed |= h.properties().minimum_len().is_some_and(|n| n > 0);
            }
            let parts = subs
                .into_iter()
                .zip(needed_after)
                .map(|(h, needed)| match needed && is_gap(&h) {
                    true => open(h),
                    false => open_gaps(h),
                })
                .collect();
            Hir::concat(parts)
        }
        HirKind::Alternation(subs) => Hir::alternation(subs.into_iter().map(open_gaps).collect()),
        HirKind::Repetition(r) => Hir::repetition(Repetition {
            sub: Box::new(open_gaps(*r.sub)),
            ..r
        }),
        // A group's contents are a value, or a part the rule reads: each keeps its bounds.
        kind => rebuild(kind),
    }
}

/// The tree of one node, put back together unchanged.
fn rebuild(kind: HirKind) -> Hir {
    match kind {
        HirKind::Empty => Hir::empty(),
        HirKind::Literal(l) => Hir::literal(l.0),
        HirKind::Class(c) => Hir::class(c),
        HirKind::Look(l) => Hir::look(l),
        HirKind::Repetition(r) => Hir::repetition(r),
        HirKind::Capture(c) => Hir::capture(c),
        HirKind::Concat(subs) => Hir::concat(subs),
        HirKind::Alternation(subs) => Hir::alternation(subs),
    }
}

fn is_gap(h: &Hir) -> bool {
    match h.kind() {
        HirKind::Repetition(r) => {
            r.max.is_some_and(|max| max.saturating_sub(r.min) >= WIDE)
                && r.sub.properties().explicit_captures_len() == 0
                && broad(&r.sub)
        }
        _ => false,
    }
}

/// A gap ([`is_gap`]) without its bound.
fn open(h: Hir) -> Hir {
    match h.into_kind() {
        HirKind::Repetition(r) => Hir::repetition(Repetition { max: None, ..r }),
        kind => rebuild(kind),
    }
}

/// A class of at least half of all bytes, or an alternation with one as a branch
/// (`(?:[^\n]|\\\n)`, a line with its continuations).
fn broad(h: &Hir) -> bool {
    match h.kind() {
        HirKind::Class(Class::Bytes(c)) => {
            c.ranges()
                .iter()
                .map(|r| usize::from(r.end() - r.start()) + 1)
                .sum::<usize>()
                >= 128
        }
        HirKind::Class(Class::Unicode(c)) => {
            c.ranges()
                .iter()
                .map(|r| r.end() as usize - r.start() as usize + 1)
                .sum::<usize>()
                >= 128
        }
        HirKind::Alternation(subs) => subs.iter().any(broad),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opened(source: &str) -> String {
        let hir = super::super::pattern::parse(source).expect("parses");
        open_gaps(hir).to_string()
    }

    #[test]
    fn wide_gaps_open_and_everything_else_stays() {
        let gap = opened(r"curl[^\n]{0,400}-u");
        assert!(!gap.contains("400"), "{gap}");
        // The value's own length is the rule's, and narrow gaps stay.
        let value = opened(r"key=(?P<value>[A-Za-z0-9]{8,684})");
        assert!(value.contains("684"), "{value}");
        let alphabet = opened(r"AQE[A-Za-z0-9_=+/.-]{80,300}\b");
        assert!(alphabet.contains("300"), "{alphabet}");
        let last = opened(r"curl[^\n]{0,400}");
        assert!(last.contains("400"), "{last}");
        let narrow = opened(r"login\s{1,16}password");
        assert!(narrow.contains("16"), "{narrow}");
        // A repetition holding a group is a structure, not a gap.
        let group = opened(r"(?:a(?P<x>b)){0,100}");
        assert!(group.contains("100"), "{group}");
    }
}
