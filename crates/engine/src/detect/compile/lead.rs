//! Where the first digit of a digit rule's match can be, read from the syntax tree.
//!
//! Digit rules (cards, national ids, phones, IPs) begin at a word boundary: a consumed
//! `(?:^|[^\w-])` or a `\b`. Their first digit then sits at most a few bytes after that
//! boundary (none for a card, two for an IBAN's country letters). A digit run that
//! continues a word, as most runs inside a hex digest do, cannot hold a match's first
//! digit, so the digit group searches only around runs that start near a boundary.

use super::alphabet::is_word_byte as is_word;
use super::pattern::class_within;
use regex_syntax::hir::{Class, Hir, HirKind, Look};

const INF: usize = usize::MAX;

/// For a pattern that starts at a word boundary and whose every match holds a digit:
/// the most bytes that can stand between the boundary and the match's first digit.
/// `None` when the pattern is not of that shape (the group then searches every run).
pub fn digit_lead(hir: &Hir) -> Option<usize> {
    let HirKind::Concat(parts) = hir.kind() else {
        return None;
    };
    let (first, rest) = parts.split_first()?;
    let boundary_ok = match first.kind() {
        // `\b`: the byte before is a non-word byte only if the match starts with a word byte.
        HirKind::Look(Look::WordAscii | Look::WordStartAscii | Look::WordStartHalfAscii) => {
            starts_with_word(rest)
        }
        HirKind::Alternation(alts) => alts.iter().all(consumes_non_word),
        _ => consumes_non_word(first),
    };
    if !boundary_ok {
        return None;
    }
    let p = rest
        .iter()
        .fold(Prefix::EMPTY, |acc, h| acc.then(prefix(h)));
    // Every match must hold a digit (`digit_free: None`), at a bounded distance.
    match (p.first_digit, p.digit_free) {
        (Some(k), None) if k != INF => Some(k),
        _ => None,
    }
}

/// Whether the pattern is `boundary (?P<value>...) boundary`: its value is preceded by
/// a consumed non-word byte (or `^`, or `\b`) and followed by one (or `$`, or `\b`).
/// In a segment of digits alone, such a pattern can only match with the whole segment
/// as its value, so a validator that rejects the segment rejects every match there.
/// Returns the value's least and greatest length.
pub fn bounded_value(hir: &Hir) -> Option<(usize, Option<usize>)> {
    let HirKind::Concat(parts) = hir.kind() else {
        return None;
    };
    let [before, value, after] = parts.as_slice() else {
        return None;
    };
    let HirKind::Capture(cap) = value.kind() else {
        return None;
    };
    let props = cap.sub.properties();
    (cap.name.as_deref() == Some("value") && opens_value(before) && closes_value(after))
        .then(|| (props.minimum_len().unwrap_or(0), props.maximum_len()))
}

/// The byte before the value is a non-word byte or the text's start, given that the
/// value starts with a digit (so `\b` before it means the same).
fn opens_value(h: &Hir) -> bool {
    match h.kind() {
        HirKind::Look(look) => matches!(
            look,
            Look::Start
                | Look::StartLF
                | Look::WordAscii
                | Look::WordStartAscii
                | Look::WordStartHalfAscii
        ),
        HirKind::Alternation(alts) => alts.iter().all(opens_value),
        _ => consumes_non_word(h),
    }
}

/// The byte after the value is a non-word byte or the text's end, given that the value
/// ends with a digit.
fn closes_value(h: &Hir) -> bool {
    match h.kind() {
        HirKind::Look(look) => matches!(
            look,
            Look::End | Look::EndLF | Look::WordAscii | Look::WordEndAscii | Look::WordEndHalfAscii
        ),
        HirKind::Literal(lit) => lit.0.first().is_some_and(|&b| !is_word(b)),
        HirKind::Class(class @ Class::Bytes(_)) => class_within(class, &|b| !is_word(b)),
        HirKind::Alternation(alts) => alts.iter().all(closes_value),
        HirKind::Concat(parts) => parts.first().is_some_and(closes_value),
        HirKind::Capture(cap) => closes_value(&cap.sub),
        HirKind::Repetition(rep) => rep.min >= 1 && closes_value(&rep.sub),
        _ => false,
    }
}

/// `^`, or exactly one byte that is not a word byte.
fn consumes_non_word(h: &Hir) -> bool {
    match h.kind() {
        HirKind::Look(Look::Start) => true,
        HirKind::Literal(lit) => matches!(&*lit.0, [b] if !is_word(*b)),
        // Bytes only: a Unicode class may consume several bytes.
        HirKind::Class(class @ Class::Bytes(_)) => class_within(class, &|b| !is_word(b)),
        _ => false,
    }
}

/// Every match of the sequence `parts` starts with a word byte.
fn starts_with_word(parts: &[Hir]) -> bool {
    for h in parts {
        match first_word(h) {
            First::Word => return true,
            First::Other => return false,
            First::Empty => continue,
        }
    }
    false
}

enum First {
    /// Every non-empty match starts with a word byte, and the match cannot be empty.
    Word,
    /// Some match starts with something else.
    Other,
    /// Zero-width: look at what follows.
    Empty,
}

fn first_word(h: &Hir) -> First {
    match h.kind() {
        HirKind::Empty | HirKind::Look(_) => First::Empty,
        HirKind::Literal(lit) => match lit.0.first() {
            Some(&b) if is_word(b) => First::Word,
            Some(_) => First::Other,
            None => First::Empty,
        },
        HirKind::Class(class @ Class::Bytes(_)) => match class_within(class, &is_word) {
            true => First::Word,
            false => First::Other,
        },
        HirKind::Class(Class::Unicode(_)) => First::Other,
        HirKind::Capture(cap) => first_word(&cap.sub),
        HirKind::Repetition(rep) if rep.min >= 1 => first_word(&rep.sub),
        HirKind::Repetition(_) => First::Other,
        HirKind::Concat(parts) => {
            for p in parts {
                match first_word(p) {
                    First::Empty => continue,
                    other => return other,
                }
            }
            First::Empty
        }
        HirKind::Alternation(alts) => {
            if alts.iter().all(|a| matches!(first_word(a), First::Word)) {
                First::Word
            } else {
                First::Other
            }
        }
    }
}

/// What a piece of pattern says about digits, over all the strings it matches.
#[derive(Clone, Copy)]
struct Prefix {
    /// Among strings holding a digit: the largest offset of the first digit.
    first_digit: Option<usize>,
    /// Among strings without a digit: the greatest length.
    digit_free: Option<usize>,
}

impl Prefix {
    const EMPTY: Prefix = Prefix {
        first_digit: None,
        digit_free: Some(0),
    };

    /// This piece followed by `next`.
    fn then(self, next: Prefix) -> Prefix {
        let via = match (self.digit_free, next.first_digit) {
            (Some(z), Some(k)) => Some(z.saturating_add(k)),
            _ => None,
        };
        Prefix {
            first_digit: max_opt(self.first_digit, via),
            digit_free: match (self.digit_free, next.digit_free) {
                (Some(a), Some(b)) => Some(a.saturating_add(b)),
                _ => None,
            },
        }
    }

    fn or(self, other: Prefix) -> Prefix {
        Prefix {
            first_digit: max_opt(self.first_digit, other.first_digit),
            digit_free: max_opt(self.digit_free, other.digit_free),
        }
    }
}

fn max_opt(a: Option<usize>, b: Option<usize>) -> Option<usize> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

fn prefix(h: &Hir) -> Prefix {
    match h.kind() {
        HirKind::Empty | HirKind::Look(_) => Prefix::EMPTY,
        HirKind::Literal(lit) => match lit.0.iter().position(u8::is_ascii_digit) {
            Some(i) => Prefix {
                first_digit: Some(i),
                digit_free: None,
            },
            None => Prefix {
                first_digit: None,
                digit_free: Some(lit.0.len()),
            },
        },
        HirKind::Class(class) => {
            let (digit, other, width) = match class {
                Class::Bytes(c) => {
                    let digit = c
                        .ranges()
                        .iter()
                        .any(|r| r.start() <= b'9' && r.end() >= b'0');
                    let other = c
                        .ranges()
                        .iter()
                        .any(|r| r.start() < b'0' || r.end() > b'9');
                    (digit, other, 1)
                }
                Class::Unicode(c) => {
                    let digit = c
                        .ranges()
                        .iter()
                        .any(|r| r.start() <= '9' && r.end() >= '0');
                    let other = c.ranges().iter().any(|r| r.start() < '0' || r.end() > '9');
                    (digit, other, 4)
                }
            };
            Prefix {
                first_digit: digit.then_some(0),
                digit_free: other.then_some(width),
            }
        }
        HirKind::Capture(cap) => prefix(&cap.sub),
        HirKind::Repetition(rep) => {
            let sub = prefix(&rep.sub);
            let min = if rep.min == 0 { Prefix::EMPTY } else { sub };
            match rep.max {
                // k copies, unrolled: the first digit can sit after k - 1 digit-free ones.
                Some(max) if max <= 64 => {
                    let mut acc = Prefix::EMPTY;
                    let mut all = if rep.min == 0 {
                        Some(Prefix::EMPTY)
                    } else {
                        None
                    };
                    for k in 1..=max {
                        acc = acc.then(sub);
                        if k >= rep.min {
                            all = Some(all.map_or(acc, |a| a.or(acc)));
                        }
                    }
                    all.unwrap_or(min)
                }
                _ => match sub.digit_free {
                    Some(0) | None => sub.or(min),
                    Some(_) => Prefix {
                        first_digit: sub.first_digit.map(|_| INF),
                        digit_free: Some(INF),
                    },
                },
            }
        }
        HirKind::Concat(parts) => parts
            .iter()
            .fold(Prefix::EMPTY, |acc, p| acc.then(prefix(p))),
        HirKind::Alternation(alts) => alts
            .iter()
            .map(prefix)
            .reduce(Prefix::or)
            .unwrap_or(Prefix::EMPTY),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(re: &str) -> Hir {
        super::super::pattern::parse(re).expect("parses")
    }

    fn lead(re: &str) -> Option<usize> {
        digit_lead(&parse(re))
    }

    #[test]
    fn boundary_then_digits() {
        assert_eq!(
            lead(r"(?:^|[^\w-])(?P<value>\d{4}(?:[ -]?\d{4}){3})(?:[^\w-]|$)"),
            Some(0)
        );
        assert_eq!(lead(r"(?:^|\W)(?P<value>[1-9]\d{12})(?:\W|$)"), Some(0));
        assert_eq!(lead(r"\b(?P<value>(?:\d{8}|[XYZ]\d{7})-?[A-Z])\b"), Some(1));
        assert_eq!(
            lead(r"\b(?P<value>[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7})\b"),
            Some(2)
        );
        assert_eq!(
            lead(r"(?:^|[^\w.-])(?P<value>(?:\([2-9]\d{2}\)\s?|[2-9]\d{2}[-.\s])\d{3}[-.\s]\d{4})"),
            Some(1)
        );
    }

    fn bounded(re: &str) -> bool {
        bounded_value(&parse(re)).is_some()
    }

    #[test]
    fn values_flanked_by_boundaries() {
        assert!(bounded(
            r"(?:^|[^\w-])(?P<value>\d{4}(?:[ -]?\d{4}){3})(?:[^\w-]|$)"
        ));
        assert!(bounded(r"(?:^|\W)(?P<value>[1-9]\d{12})(?:\W|$)"));
        assert_eq!(
            bounded_value(&parse(r"\b(?P<value>\d{3}-?\d{2})\b")),
            Some((5, Some(6)))
        );
        assert!(bounded(
            r"\b(?P<value>[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7})\b"
        ));
        // An IPv4 value may be followed by a dot, if a non-word byte follows that.
        assert!(bounded(
            r"(?:^|[^\w.])(?P<value>(?:\d{1,3}\.){3}\d{1,3})(?:[^\w.]|\.[^\w]|\.$|$)"
        ));
    }

    #[test]
    fn values_that_can_end_or_start_inside_a_run() {
        // Nothing after the value: it may be any prefix of a run of digits.
        assert!(!bounded(r"(?:^|\W)(?P<value>\d{6})"));
        assert!(!bounded(r"\b(?P<value>\d{6})"));
        // Nothing before it: any suffix.
        assert!(!bounded(r"(?P<value>\d{6})\b"));
        // A word byte may follow the value.
        assert!(!bounded(r"(?:^|\W)(?P<value>\d{6})(?:[^-]|$)"));
        assert!(!bounded(r"(?:^|\W)(?P<value>\d{6})(?:x\W|$)"));
        // The value is not the group named `value`, or there is more around it.
        assert!(!bounded(r"(?:^|\W)(?P<other>\d{6})(?:\W|$)"));
        assert!(!bounded(r"(?:^|\W)id(?P<value>\d{6})(?:\W|$)"));
        // An optional closing byte may be absent.
        assert!(!bounded(r"(?:^|\W)(?P<value>\d{6})\W?"));
    }

    #[test]
    fn no_lead_without_a_boundary_or_a_bound() {
        // No boundary: a match may start in the middle of a word.
        assert_eq!(lead(r"\d{6}"), None);
        assert_eq!(lead(r"id\d{6}"), None);
        // `\b` before a non-word byte says nothing about the byte before it.
        assert_eq!(lead(r"\b-?\d{6}"), None);
        // Any number of letters may come before the first digit.
        assert_eq!(lead(r"\b[A-Z]+\d{2}"), None);
        // A match need not hold a digit.
        assert_eq!(lead(r"\b(?:\d{4}|abcd)"), None);
        // The boundary class holds a word byte.
        assert_eq!(lead(r"(?:^|[^-])\d{6}"), None);
    }
}
