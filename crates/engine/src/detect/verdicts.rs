//! What detection said about short strings that come back again and again: the object
//! keys of a dataset's records. A key that holds nothing to report is judged once per
//! worker, then left out of the text every record's detection reads.
//!
//! An open-addressing table with a cheap hash of the key's length and first and last
//! eight bytes, not a `HashMap`: the lookup runs on every key of every record and must
//! cost less than scanning the key would (about 16 ns on this corpus), which SipHash
//! does not. Nothing is evicted: two keys that evicted each other would be judged again
//! on every record. Once half full it takes no more keys; later ones are scanned.
//!
//! A key is judged on its second sighting, not its first: most distinct keys of real
//! data occur once (ids used as keys, one-off fields), and judging one costs a small
//! detection run (microseconds) where reading it with its record costs nanoseconds. A
//! bit per hash remembers first sightings; a collision only judges a key early.

const SLOTS_BITS: u32 = 10;
const MAX_KEYS: usize = 1 << (SLOTS_BITS - 1);
/// Longer keys are rare in datasets and are scanned as they come.
pub const MAX_KEY_LEN: usize = 64;

#[derive(Default)]
pub struct Verdicts {
    slots: Vec<Slot>,
    len: usize,
    /// One bit per hash of the keys sighted and not yet judged.
    sighted: Vec<u64>,
}

const SIGHTED_BITS: u32 = 16;

/// A key is told apart by its length and its first and last eight bytes, which for a
/// key of up to 16 bytes are all of it; a longer one keeps its bytes to compare.
#[derive(Default)]
struct Slot {
    words: Option<Words>,
    long: Box<[u8]>,
    clean: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
struct Words {
    len: usize,
    head: u64,
    tail: u64,
}

impl Words {
    fn of(key: &[u8]) -> Words {
        let len = key.len();
        let u64_at = |i: usize| {
            key.get(i..i + 8)
                .map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap_or_default()))
        };
        let u32_at = |i: usize| {
            key.get(i..i + 4)
                .map_or(0, |b| u32::from_le_bytes(b.try_into().unwrap_or_default()))
        };
        // Plain loads, not a padded copy (a `memcpy` call per key): for 4 to 7 bytes,
        // the first and last four are all of the key, as the first and last eight are
        // for 8 to 16.
        let (head, tail) = match len {
            8.. => (u64_at(0), u64_at(len - 8)),
            4..8 => (u64::from(u32_at(0)) | u64::from(u32_at(len - 4)) << 32, 0),
            _ => (key.iter().fold(0, |w, &b| w << 8 | u64::from(b)), 0),
        };
        Words { len, head, tail }
    }

    fn hash(self) -> u64 {
        (self.len as u64 ^ self.head.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .wrapping_add(self.tail.rotate_left(31))
            .wrapping_mul(0xFF51_AFD7_ED55_8CCD)
    }

    fn slot(self) -> usize {
        (self.hash() >> (64 - SLOTS_BITS)) as usize
    }
}

impl Verdicts {
    /// `Some(clean)` when `key` was judged before.
    pub fn get(&self, key: &[u8]) -> Option<bool> {
        let words = Words::of(key);
        let mask = self.slots.len().checked_sub(1)?;
        let mut at = words.slot();
        loop {
            let slot = &self.slots[at];
            match slot.words {
                None => return None,
                Some(w) if w == words && (key.len() <= 16 || *slot.long == *key) => {
                    return Some(slot.clean);
                }
                Some(_) => at = (at + 1) & mask,
            }
        }
    }

    /// Whether the table takes no more keys: a verdict found now would be thrown away.
    pub fn is_full(&self) -> bool {
        self.len >= MAX_KEYS
    }

    /// Whether `key` (not yet judged) was sighted before; notes this sighting. Keys
    /// of the same full hash share a bit, which at worst judges one a sighting early.
    pub fn sighted_again(&mut self, key: &[u8]) -> bool {
        if self.sighted.is_empty() {
            self.sighted.resize(1 << (SIGHTED_BITS - 6), 0);
        }
        // The high bits, as for slots: the low bits of a product see only the low
        // bits of the key's words.
        let bit = (Words::of(key).hash() >> (64 - SIGHTED_BITS)) as usize;
        let (word, mask) = (bit >> 6, 1u64 << (bit & 63));
        let again = self.sighted[word] & mask != 0;
        self.sighted[word] |= mask;
        again
    }

    pub fn insert(&mut self, key: &[u8], clean: bool) {
        if key.len() > MAX_KEY_LEN || self.len >= MAX_KEYS || self.get(key).is_some() {
            return;
        }
        if self.slots.is_empty() {
            self.slots.resize_with(1 << SLOTS_BITS, Slot::default);
        }
        let words = Words::of(key);
        let mask = self.slots.len() - 1;
        let mut at = words.slot();
        while self.slots[at].words.is_some() {
            at = (at + 1) & mask;
        }
        self.slots[at] = Slot {
            words: Some(words),
            long: if key.len() > 16 {
                key.into()
            } else {
                Box::default()
            },
            clean,
        };
        self.len += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_exact_keys_only() {
        let mut v = Verdicts::default();
        assert_eq!(v.get(b"record_type"), None);
        v.insert(b"record_type", true);
        v.insert(b"api_key_alice@corp.example", false);
        assert_eq!(v.get(b"record_type"), Some(true));
        assert_eq!(v.get(b"api_key_alice@corp.example"), Some(false));
        assert_eq!(v.get(b"record_typf"), None);
        assert_eq!(v.get(b"record_type "), None);
        assert_eq!(v.get(b""), None);
        // Past 16 bytes, keys with the same length, head and tail differ in the middle.
        v.insert(b"aaaaaaaa_middle_1_zzzzzzzz", true);
        assert_eq!(v.get(b"aaaaaaaa_middle_1_zzzzzzzz"), Some(true));
        assert_eq!(v.get(b"aaaaaaaa_middle_2_zzzzzzzz"), None);
        let long = vec![b'k'; MAX_KEY_LEN + 1];
        v.insert(&long, true);
        assert_eq!(v.get(&long), None);
    }

    #[test]
    fn a_key_is_sighted_again_only_after_a_first_sighting() {
        let mut v = Verdicts::default();
        assert!(!v.sighted_again(b"record_type"));
        assert!(!v.sighted_again(b"case_id"));
        assert!(v.sighted_again(b"record_type"));
        assert!(v.sighted_again(b"case_id"));
    }

    /// Keys that share a slot both stay: neither is judged again because of the other.
    #[test]
    fn many_keys_all_kept_until_full() {
        let mut v = Verdicts::default();
        let keys: Vec<String> = (0..MAX_KEYS + 10).map(|i| format!("key_{i}")).collect();
        for (i, k) in keys.iter().enumerate() {
            v.insert(k.as_bytes(), i % 3 == 0);
        }
        for (i, k) in keys.iter().enumerate() {
            let want = (i < MAX_KEYS).then_some(i % 3 == 0);
            assert_eq!(v.get(k.as_bytes()), want, "{k}");
        }
    }
}
