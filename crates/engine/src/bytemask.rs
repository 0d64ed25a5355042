//! Byte classes, 64 bytes at a time, as bit masks: bit `j` is set when byte `j` is in
//! the class. Scans that look for rare runs (base64, digits) test a whole block with
//! one mask instead of a branch per byte.
//!
//! On x86-64 the classes are computed with SSE2, which is part of the architecture
//! itself (no run-time detection needed); elsewhere byte by byte.

// unsafe here: SSE2 intrinsics classify 64 bytes at a time.
#![allow(unsafe_code)]

/// Bytes of the standard and URL-safe base64 alphabets (`A-Za-z0-9+/-_`).
pub fn base64(text: &[u8]) -> u64 {
    mask(text, Class::Base64)
}

/// ASCII digits.
pub fn digits(text: &[u8]) -> u64 {
    mask(text, Class::Digit)
}

/// How many times `byte` occurs in `text`: memchr's counter (AVX2 where the CPU has
/// it), since without POPCNT in the x86-64 baseline a mask's `count_ones` is a dozen
/// instructions per 64 bytes.
pub fn count(text: &[u8], byte: u8) -> usize {
    memchr::memchr_iter(byte, text).count()
}

#[derive(Clone, Copy)]
enum Class {
    Base64,
    Digit,
}

impl Class {
    /// The byte-by-byte definition: the fallback, and the tests' reference.
    #[cfg(any(test, not(target_arch = "x86_64")))]
    fn contains(self, b: u8) -> bool {
        match self {
            Class::Base64 => b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_'),
            Class::Digit => b.is_ascii_digit(),
        }
    }
}

/// The mask of the first 64 bytes of `text`; past its end, bits are clear.
fn mask(text: &[u8], class: Class) -> u64 {
    if let Some(block) = text.first_chunk::<64>() {
        return mask64(block, class);
    }
    // The short tail is copied into a zeroed block; only here, since a store read
    // back at once by vector loads stalls.
    let mut block = [0u8; 64];
    block[..text.len()].copy_from_slice(text);
    // The padding is zeros, which a class may hold.
    mask64(&block, class) & ((1 << text.len()) - 1)
}

fn mask64(block: &[u8; 64], class: Class) -> u64 {
    let mut mask = 0u64;
    for (j, chunk) in block.chunks_exact(16).enumerate() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: SSE2 is part of the x86-64 baseline; every x86-64 CPU has it.
        let bits = unsafe { sse2::mask16(chunk, class) };
        #[cfg(not(target_arch = "x86_64"))]
        let bits = chunk
            .iter()
            .enumerate()
            .fold(0u16, |m, (j, &b)| m | (u16::from(class.contains(b)) << j));
        mask |= u64::from(bits) << (16 * j);
    }
    mask
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use super::Class;
    use std::arch::x86_64::*;

    #[target_feature(enable = "sse2")]
    pub(super) fn mask16(chunk: &[u8], class: Class) -> u16 {
        let word = |at: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&chunk[at..at + 8]);
            i64::from_le_bytes(w)
        };
        let v = _mm_set_epi64x(word(8), word(0));
        let splat = |b: u8| _mm_set1_epi8(b as i8);
        // `t <= c` unsigned, per byte: `min(t, c) == t`.
        let within = |t: __m128i, c: u8| _mm_cmpeq_epi8(_mm_min_epu8(t, splat(c)), t);
        let digit = within(_mm_sub_epi8(v, splat(b'0')), 9);
        let all = match class {
            Class::Digit => digit,
            Class::Base64 => {
                let letter = within(_mm_sub_epi8(_mm_or_si128(v, splat(0x20)), splat(b'a')), 25);
                let symbol = _mm_or_si128(
                    _mm_or_si128(
                        _mm_cmpeq_epi8(v, splat(b'+')),
                        _mm_cmpeq_epi8(v, splat(b'/')),
                    ),
                    _mm_or_si128(
                        _mm_cmpeq_epi8(v, splat(b'-')),
                        _mm_cmpeq_epi8(v, splat(b'_')),
                    ),
                );
                _mm_or_si128(_mm_or_si128(letter, digit), symbol)
            }
        };
        _mm_movemask_epi8(all) as u16
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_agree_with_the_byte_classes() {
        let all: Vec<u8> = (0..=255).collect();
        for start in (0..256).step_by(64) {
            let block = &all[start..];
            for (class, mask) in [
                (Class::Base64, base64(block)),
                (Class::Digit, digits(block)),
            ] {
                for (j, &b) in block.iter().enumerate().take(64) {
                    assert_eq!(mask >> j & 1 == 1, class.contains(b), "byte {b:#04x}");
                }
            }
        }
        assert_eq!(digits(b"a1"), 0b10, "past the end, bits are clear");
        assert_eq!(base64(b""), 0);
        let text: Vec<u8> = (0..1000u32)
            .map(|i| if i % 7 == 0 { 0 } else { b'\n' })
            .collect();
        let want = text.iter().filter(|&&b| b == b'\n').count();
        assert_eq!(count(&text, b'\n'), want);
        assert_eq!(
            count(&text, 0),
            1000 - want,
            "zero bytes in the text, not the padding"
        );
    }
}
