//! Bytes a rule's every match must hold, read from its syntax tree: a window without
//! them cannot hold a match, so its regex is not run there. Detection checks them with
//! `memchr`, far cheaper than the regex it spares.

use super::pattern::{TRIGGER_BYTES, class_within, must_contain};
use regex_syntax::hir::{Hir, HirKind};

/// One to three bytes, at least one of which every match holds; or one byte that every
/// match holds `min` times (the two colons of an IPv6 address, whose trigger is `:`),
/// two of them at most `within` bytes apart when that is known (an IPv6 group is at
/// most four digits, so its colons are at most five bytes apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Required {
    bytes: [u8; 3],
    len: u8,
    min: u32,
    within: Option<u32>,
}

impl Required {
    /// Whether `hay` holds any of the bytes: one `memchr` pass, far cheaper than the
    /// regex it spares.
    pub fn found_in(&self, hay: &[u8]) -> bool {
        let b = self.bytes;
        if let Some(d) = self.within {
            let mut last = None;
            return memchr::memchr_iter(b[0], hay).any(|at| {
                let near = last.is_some_and(|l: usize| at - l <= d as usize);
                last = Some(at);
                near
            });
        }
        if self.min > 1 {
            return memchr::memchr_iter(b[0], hay)
                .nth(self.min as usize - 1)
                .is_some();
        }
        match self.len {
            1 => memchr::memchr(b[0], hay).is_some(),
            2 => memchr::memchr2(b[0], b[1], hay).is_some(),
            _ => memchr::memchr3(b[0], b[1], b[2], hay).is_some(),
        }
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }
}

/// The smallest set of [`TRIGGER_BYTES`] (one, else two, else three of them) that
/// every match must draw from, leaving out the bytes that trigger the rule (every
/// window holds those). Letters, digits and spaces are left out on purpose: a gate
/// made of common bytes would let nearly every window through. Failing a set, a
/// trigger byte that every match holds at least twice.
pub(super) fn required_bytes(hir: &Hir, triggers: &[u8]) -> Option<Required> {
    let rare: Vec<u8> = TRIGGER_BYTES
        .iter()
        .copied()
        .filter(|b| !triggers.contains(b))
        .collect();
    // When even all of them together are not required, no subset is: one walk decides
    // it for most rules (rule compilation is on every commit's path).
    let any_rare = must_contain(hir, &|b| rare.contains(&b));
    let n = if any_rare { rare.len() } else { 0 };
    let rare = &rare;
    let single = (0..n).map(|i| vec![rare[i]]);
    let pairs = (0..n).flat_map(|i| (i + 1..n).map(move |j| vec![rare[i], rare[j]]));
    let triples = (0..n).flat_map(|i| {
        (i + 1..n).flat_map(move |j| (j + 1..n).map(move |k| vec![rare[i], rare[j], rare[k]]))
    });
    let set = single
        .chain(pairs)
        .chain(triples)
        .find(|set| must_contain(hir, &|b| set.contains(&b)));
    if let Some(set) = set {
        let mut bytes = [0; 3];
        bytes[..set.len()].copy_from_slice(&set);
        return Some(Required {
            bytes,
            len: set.len() as u8,
            min: 1,
            within: None,
        });
    }
    let &[b] = triggers else { return None };
    let min = min_count(hir, b);
    (min >= 2).then(|| Required {
        bytes: [b, 0, 0],
        len: 1,
        min: min.min(64) as u32,
        within: pair_within(hir, b).and_then(|d| u32::try_from(d).ok()),
    })
}

/// How many times every match of `hir` holds byte `b`, at least.
fn min_count(hir: &Hir, b: u8) -> usize {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => 0,
        HirKind::Literal(lit) => lit.0.iter().filter(|&&x| x == b).count(),
        HirKind::Class(class) => usize::from(class_within(class, &|x| x == b)),
        HirKind::Repetition(rep) => (rep.min as usize).saturating_mul(min_count(&rep.sub, b)),
        HirKind::Capture(cap) => min_count(&cap.sub, b),
        HirKind::Concat(parts) => parts
            .iter()
            .fold(0, |n, p| n.saturating_add(min_count(p, b))),
        HirKind::Alternation(alts) => alts.iter().map(|a| min_count(a, b)).min().unwrap_or(0),
    }
}

/// When every match of `hir` holds two `b` at most this many bytes apart. Known for a
/// repetition of at least two rounds that each hold `b` (`(?:[0-9a-f]{0,4}:){2,7}`):
/// one round's last `b` and the next round's first are apart by what may follow the
/// one and precede the other. `None` when nothing is known.
fn pair_within(hir: &Hir, b: u8) -> Option<usize> {
    match hir.kind() {
        HirKind::Capture(cap) => pair_within(&cap.sub, b),
        // Every match of the whole holds a match of each part.
        HirKind::Concat(parts) => parts.iter().filter_map(|p| pair_within(p, b)).min(),
        HirKind::Alternation(alts) => alts
            .iter()
            .map(|a| pair_within(a, b))
            .try_fold(0, |d, a| a.map(|a| d.max(a))),
        HirKind::Repetition(rep) if rep.min >= 1 => {
            let inner = pair_within(&rep.sub, b);
            let across = (rep.min >= 2)
                .then(|| Some(after_last(&rep.sub, b)? + before_first(&rep.sub, b)? + 1))
                .flatten();
            match (inner, across) {
                (Some(x), Some(y)) => Some(x.min(y)),
                (x, y) => x.or(y),
            }
        }
        _ => None,
    }
}

/// The most bytes that can stand before the first `b` of a match of `hir`, when every
/// match holds one.
fn before_first(hir: &Hir, b: u8) -> Option<usize> {
    edge(hir, b, false)
}

/// The most bytes that can follow the last `b` of a match of `hir`, when every match
/// holds one.
fn after_last(hir: &Hir, b: u8) -> Option<usize> {
    edge(hir, b, true)
}

fn edge(hir: &Hir, b: u8, from_end: bool) -> Option<usize> {
    if !must_contain(hir, &|x| x == b) {
        return None;
    }
    match hir.kind() {
        HirKind::Literal(lit) if from_end => lit.0.iter().rev().position(|&x| x == b),
        HirKind::Literal(lit) => lit.0.iter().position(|&x| x == b),
        HirKind::Class(class) if class_within(class, &|x| x == b) => Some(0),
        HirKind::Capture(cap) => edge(&cap.sub, b, from_end),
        HirKind::Repetition(rep) => edge(&rep.sub, b, from_end),
        HirKind::Alternation(alts) => alts
            .iter()
            .map(|a| edge(a, b, from_end))
            .try_fold(0, |d, a| a.map(|a| d.max(a))),
        HirKind::Concat(parts) => {
            // Parts before the first that must hold `b` count whole (a `b` in them
            // only comes sooner).
            let mut before = 0usize;
            let ordered: Vec<&Hir> = if from_end {
                parts.iter().rev().collect()
            } else {
                parts.iter().collect()
            };
            for p in ordered {
                if must_contain(p, &|x| x == b) {
                    return edge(p, b, from_end).map(|e| before + e);
                }
                before = before.checked_add(p.properties().maximum_len()?)?;
            }
            None
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(re: &str) -> Hir {
        super::super::pattern::parse(re).expect("parses")
    }

    #[test]
    fn repeated_rounds_bound_the_distance_between_their_bytes() {
        let v6 =
            r"(?:^|[^\w:.])(?P<value>(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?:%[a-z]{1,32})?)";
        assert_eq!(pair_within(&parse(v6), b':'), Some(5));
        assert_eq!(pair_within(&parse(r"(?:ab:c){2}"), b':'), Some(4));
        // One round only, or rounds that need not hold the byte: nothing is known.
        assert_eq!(pair_within(&parse(r"(?:[0-9]{0,4}:){1,7}"), b':'), None);
        assert_eq!(pair_within(&parse(r"(?:[0-9]{0,4}:?){2,7}"), b':'), None);
        // Unbounded text between rounds: nothing is known either.
        assert_eq!(pair_within(&parse(r"(?:\w+:){2}"), b':'), None);
    }

    #[test]
    fn the_gate_wants_two_bytes_near_each_other() {
        let r =
            required_bytes(&parse(r"(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}"), b":").expect("a gate");
        assert!(r.found_in(b"fe80::1"));
        assert!(r.found_in(b"x 2a00:1450:4001 y"));
        assert!(!r.found_in(b"Note: see https://example.org/a:b"));
        assert!(!r.found_in(b"sha256:ab"));
    }
}
