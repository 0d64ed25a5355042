//! A rule's alphabet: every byte any of its matches can hold. A keyword occurrence that
//! holds a byte outside it lies in no match, so it need not open a window. This is what
//! keeps a case-sensitive rule such as `\bSK[0-9a-fA-F]{32}\b` from searching around
//! every "task" and "risk" the case-insensitive keyword pass reports.

use regex_syntax::hir::{Class, Hir, HirKind};

/// A set of bytes, one bit each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ByteSet([u64; 4]);

impl ByteSet {
    pub fn of(bytes: &[u8]) -> ByteSet {
        let mut set = ByteSet::default();
        bytes.iter().for_each(|&b| set.insert(b));
        set
    }

    pub fn union(&self, other: &ByteSet) -> ByteSet {
        let mut set = *self;
        for (word, o) in set.0.iter_mut().zip(other.0) {
            *word |= o;
        }
        set
    }

    pub fn is_empty(&self) -> bool {
        self.0 == [0; 4]
    }

    pub fn len(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    pub fn insert(&mut self, b: u8) {
        self.0[usize::from(b >> 6)] |= 1 << (b & 63);
    }

    pub fn insert_range(&mut self, lo: u8, hi: u8) {
        for b in lo..=hi {
            self.insert(b);
        }
    }

    pub fn contains(&self, b: u8) -> bool {
        self.0[usize::from(b >> 6)] & (1 << (b & 63)) != 0
    }

    pub fn contains_all(&self, bytes: &[u8]) -> bool {
        bytes.iter().all(|&b| self.contains(b))
    }

    /// Whether every spelling of `keyword` the ASCII case-insensitive keyword pass
    /// reports could lie in a match: false when some letter has a case outside the set.
    pub fn holds_every_case_of(&self, keyword: &[u8]) -> bool {
        keyword.iter().all(|&b| {
            self.contains(b.to_ascii_lowercase()) && self.contains(b.to_ascii_uppercase())
        })
    }
}

/// A byte of `\w` as rules mean it (ASCII, `unicode(false)`): letters, digits, `_`.
pub fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Every byte a match of `hir` can consume. Look-arounds consume nothing; a Unicode
/// class reaching past ASCII stands for every non-ASCII byte.
pub fn alphabet(hir: &Hir) -> ByteSet {
    let mut set = ByteSet::default();
    collect(hir, &mut set);
    set
}

fn collect(hir: &Hir, set: &mut ByteSet) {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(lit) => lit.0.iter().for_each(|&b| set.insert(b)),
        HirKind::Class(Class::Bytes(c)) => {
            for r in c.ranges() {
                set.insert_range(r.start(), r.end());
            }
        }
        HirKind::Class(Class::Unicode(c)) => {
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
        HirKind::Repetition(rep) if rep.max == Some(0) => {}
        HirKind::Repetition(rep) => collect(&rep.sub, set),
        HirKind::Capture(cap) => collect(&cap.sub, set),
        HirKind::Concat(parts) | HirKind::Alternation(parts) => {
            parts.iter().for_each(|p| collect(p, set))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(src: &str) -> ByteSet {
        alphabet(&super::super::pattern::parse(src).expect("parses"))
    }

    #[test]
    fn case_sensitive_literals_exclude_the_other_case() {
        let twilio = of(r"\b(?P<value>SK[0-9a-fA-F]{32})\b");
        assert!(twilio.contains_all(b"SK0aF"));
        assert!(!twilio.contains(b's') && !twilio.contains(b'k'));
        assert!(!twilio.holds_every_case_of(b"sk"));
        assert!(!twilio.contains_all(b"sk") && !twilio.contains_all(b"Sk"));
    }

    #[test]
    fn case_insensitive_and_boundary_bytes_are_in() {
        let kv = of(r"(?i)(?:^|[^A-Za-z0-9_])(?:pass|pwd)\s*[:=]");
        assert!(kv.holds_every_case_of(b"pass"));
        assert!(kv.contains(b'\n') && kv.contains(b'='));
        let unicode = of(r"(?u:\w)+@");
        assert!(unicode.contains(0xc3) && unicode.contains(b'@'));
    }
}
