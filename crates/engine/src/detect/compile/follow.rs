//! What follows a trigger byte. A rule woken by one byte (the `:` of a Windows path or
//! of an IPv6 address) is woken by every occurrence of it, and `:` is everywhere in
//! text: "key: value", URLs, clock times. When every match holds the byte *followed by*
//! one of a few bytes (`:` then `\` or `/`; `:` then a hex digit or another `:`), an
//! occurrence followed by anything else need not open a window: the occurrence each
//! match holds is a hit too, and its window covers the match (windows reach a rule's
//! longest match to either side of a hit).
//!
//! The analysis is conservative: `None` whenever it cannot show such a set, and the
//! rule is then woken by every occurrence, as before.

use super::alphabet::ByteSet;
use regex_syntax::hir::{Class, Hir, HirKind};

/// A set of bytes such that every match of `hir` holds `b` immediately followed by one
/// of them; the smallest the tree shows. `None` when none can be shown.
pub fn follow_set(hir: &Hir, b: u8) -> Option<ByteSet> {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) | HirKind::Class(_) => None,
        HirKind::Literal(lit) => lit
            .0
            .windows(2)
            .find(|w| w[0] == b)
            .map(|w| ByteSet::of(&[w[1]])),
        HirKind::Capture(cap) => follow_set(&cap.sub, b),
        HirKind::Repetition(rep) => {
            let inside = (rep.min >= 1).then(|| follow_set(&rep.sub, b)).flatten();
            // Two rounds or more: a round ending in `b` is followed by the next one.
            let across = (rep.min >= 2 && ends_with(&rep.sub, b))
                .then(|| first(&rep.sub))
                .flatten();
            smaller(inside, across)
        }
        HirKind::Concat(parts) => {
            let mut best = None;
            // Zero-width parts (`\b`, `^`) sit between bytes without being one.
            let consuming: Vec<&Hir> = parts.iter().filter(|p| !zero_width(p)).collect();
            for (i, part) in consuming.iter().enumerate() {
                best = smaller(best, follow_set(part, b));
                if let Some(next) = consuming.get(i + 1)
                    && ends_with(part, b)
                {
                    best = smaller(best, first(next));
                }
            }
            best
        }
        HirKind::Alternation(alts) => alts.iter().try_fold(ByteSet::default(), |acc, alt| {
            follow_set(alt, b).map(|set| acc.union(&set))
        }),
    }
}

fn smaller(a: Option<ByteSet>, b: Option<ByteSet>) -> Option<ByteSet> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if y.len() < x.len() { y } else { x }),
        (x, y) => x.or(y),
    }
}

fn zero_width(hir: &Hir) -> bool {
    hir.properties().maximum_len() == Some(0)
}

/// Every match of `hir` is non-empty and ends with `b`.
fn ends_with(hir: &Hir, b: u8) -> bool {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => false,
        HirKind::Literal(lit) => lit.0.last() == Some(&b),
        HirKind::Class(class) => only_byte(class) == Some(b),
        HirKind::Repetition(rep) => rep.min >= 1 && ends_with(&rep.sub, b),
        HirKind::Capture(cap) => ends_with(&cap.sub, b),
        HirKind::Concat(parts) => parts
            .iter()
            .rev()
            .find(|p| !zero_width(p))
            .is_some_and(|p| ends_with(p, b)),
        HirKind::Alternation(alts) => alts.iter().all(|a| ends_with(a, b)),
    }
}

fn only_byte(class: &Class) -> Option<u8> {
    match class {
        Class::Bytes(c) => match c.ranges() {
            [r] if r.start() == r.end() => Some(r.start()),
            _ => None,
        },
        Class::Unicode(c) => match c.ranges() {
            [r] if r.start() == r.end() && r.start().is_ascii() => Some(r.start() as u8),
            _ => None,
        },
    }
}

/// Every byte a match of `hir` can begin with, when no match is empty.
fn first(hir: &Hir) -> Option<ByteSet> {
    let (set, may_be_empty) = first_bytes(hir);
    (!may_be_empty).then_some(set)
}

/// The bytes a match can begin with, and whether a match can be empty.
fn first_bytes(hir: &Hir) -> (ByteSet, bool) {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => (ByteSet::default(), true),
        HirKind::Literal(lit) => match lit.0.first() {
            Some(&b) => (ByteSet::of(&[b]), false),
            None => (ByteSet::default(), true),
        },
        HirKind::Class(class) => (class_bytes(class), false),
        HirKind::Repetition(rep) => {
            let (set, empty) = first_bytes(&rep.sub);
            (set, empty || rep.min == 0)
        }
        HirKind::Capture(cap) => first_bytes(&cap.sub),
        HirKind::Concat(parts) => {
            let mut set = ByteSet::default();
            for part in parts {
                let (s, empty) = first_bytes(part);
                set = set.union(&s);
                if !empty {
                    return (set, false);
                }
            }
            (set, true)
        }
        HirKind::Alternation(alts) => alts.iter().fold((ByteSet::default(), false), |acc, a| {
            let (s, empty) = first_bytes(a);
            (acc.0.union(&s), acc.1 || empty)
        }),
    }
}

/// A class's bytes; a character past ASCII stands for every non-ASCII byte.
fn class_bytes(class: &Class) -> ByteSet {
    let mut set = ByteSet::default();
    match class {
        Class::Bytes(c) => c
            .ranges()
            .iter()
            .for_each(|r| set.insert_range(r.start(), r.end())),
        Class::Unicode(c) => {
            for r in c.ranges() {
                let (lo, hi) = (u32::from(r.start()), u32::from(r.end()));
                if lo < 0x80 {
                    set.insert_range(lo as u8, hi.min(0x7f) as u8);
                }
                if hi >= 0x80 {
                    set.insert_range(0x80, 0xff);
                }
            }
        }
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(src: &str, b: u8) -> Option<Vec<u8>> {
        let hir = super::super::pattern::parse(src).expect("parses");
        follow_set(&hir, b).map(|s| (0..=255u8).filter(|&x| s.contains(x)).collect())
    }

    #[test]
    fn a_drive_letter_colon_is_followed_by_a_slash() {
        let path = r#"(?:^|[^A-Za-z0-9])(?P<value>[A-Za-z]:(?:\\{1,2}|/)[^\\/:*?"<>|\s]+)"#;
        assert_eq!(of(path, b':'), Some(br"/\".to_vec()));
    }

    #[test]
    fn an_ipv6_colon_is_followed_by_a_hex_digit_or_a_colon() {
        let v6 =
            r"(?:^|[^\w:.])(?P<value>(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4})(?:[^\w:.%]|$)";
        let want: Vec<u8> = (0..=255u8)
            .filter(|b| b.is_ascii_hexdigit() || *b == b':')
            .collect();
        assert_eq!(of(v6, b':'), Some(want));
    }

    #[test]
    fn nothing_is_shown_where_a_match_may_end_on_the_byte() {
        assert_eq!(of(r"\w+:", b':'), None, "the colon may end the match");
        assert_eq!(of(r"(?:\w+:){1,3}", b':'), None, "one round ends on it");
        assert_eq!(of(r"a:b|c:", b':'), None, "one branch ends on it");
        assert_eq!(of(r"a:x?", b':'), None, "what follows may be empty");
        assert_eq!(of(r"a:\bb", b':'), Some(b"b".to_vec()), "\\b is no byte");
        assert_eq!(of(r"a:b|c:d", b':'), Some(b"bd".to_vec()));
    }

    /// The rules `:` wakes keep their follow sets: without them every "key: value"
    /// in a unit opens a window (three times the windows on real data).
    #[test]
    fn the_built_in_colon_rules_have_a_follow_set() {
        let rules = crate::detect::RuleSet::builtin().expect("built-in rules");
        for id in ["local_path.windows", "ip.v6"] {
            let rule = rules.rules.iter().find(|r| r.id == id).expect(id);
            let crate::detect::Matcher::Regex(p) = &rule.matcher else {
                panic!("{id} is a regex rule");
            };
            assert!(!p.facts().wakes_at(b':', Some(b' ')), "{id}");
            assert!(!p.facts().wakes_at(b':', None), "{id}");
        }
    }
}
