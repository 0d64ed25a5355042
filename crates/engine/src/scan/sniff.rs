//! What kind of bytes a file holds, decided before any reader sees them. A NUL byte
//! does not make a file unreadable to the gate: UTF-16 and UTF-32 text (by its byte
//! order mark, or by the every-other-byte-zero pattern) is transcoded and scanned as
//! text, and true binary content has its printable runs scanned (see
//! [`printable_view`]), so a key after a planted NUL is still found.

/// Bytes looked at to decide a file is binary, as git and ripgrep do.
const SNIFF: usize = 8192;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wide {
    Utf16Le,
    Utf16Be,
    Utf32Le,
    Utf32Be,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sniff {
    Text,
    /// Text in a wide encoding, and the length of its byte order mark (0 without).
    Wide(Wide, usize),
    Binary,
}

pub fn sniff(bytes: &[u8]) -> Sniff {
    let head = &bytes[..bytes.len().min(SNIFF)];
    // UTF-32 first: its little-endian mark starts like UTF-16's.
    if head.starts_with(&[0xFF, 0xFE, 0, 0]) {
        return Sniff::Wide(Wide::Utf32Le, 4);
    }
    if head.starts_with(&[0, 0, 0xFE, 0xFF]) {
        return Sniff::Wide(Wide::Utf32Be, 4);
    }
    if head.starts_with(&[0xFF, 0xFE]) {
        return Sniff::Wide(Wide::Utf16Le, 2);
    }
    if head.starts_with(&[0xFE, 0xFF]) {
        return Sniff::Wide(Wide::Utf16Be, 2);
    }
    if memchr::memchr(0, head).is_none() {
        return Sniff::Text;
    }
    match unmarked_wide(head) {
        Some(wide) => Sniff::Wide(wide, 0),
        None => Sniff::Binary,
    }
}

/// Wide text without a mark: mostly ASCII, so the zero bytes fall in a fixed pattern
/// (every second byte for UTF-16, three in four for UTF-32).
fn unmarked_wide(head: &[u8]) -> Option<Wide> {
    let units = |size: usize, zero_at: &[usize]| {
        let chunks = head.chunks_exact(size);
        let n = chunks.len();
        let fits = chunks
            .filter(|c| zero_at.iter().all(|&i| c[i] == 0) && c.iter().any(|&b| b != 0))
            .count();
        n >= 2 && fits * 10 >= n * 9
    };
    if units(4, &[1, 2, 3]) {
        Some(Wide::Utf32Le)
    } else if units(4, &[0, 1, 2]) {
        Some(Wide::Utf32Be)
    } else if units(2, &[1]) {
        Some(Wide::Utf16Le)
    } else if units(2, &[0]) {
        Some(Wide::Utf16Be)
    } else {
        None
    }
}

/// Wide text as UTF-8; units that are not characters become U+FFFD.
pub fn transcode(bytes: &[u8], wide: Wide, mark: usize) -> Vec<u8> {
    let body = &bytes[mark.min(bytes.len())..];
    let mut out = String::with_capacity(body.len());
    match wide {
        Wide::Utf16Le | Wide::Utf16Be => {
            let units = body.chunks_exact(2).map(|c| match wide {
                Wide::Utf16Le => u16::from_le_bytes([c[0], c[1]]),
                _ => u16::from_be_bytes([c[0], c[1]]),
            });
            out.extend(char::decode_utf16(units).map(|c| c.unwrap_or('\u{FFFD}')));
        }
        Wide::Utf32Le | Wide::Utf32Be => {
            for c in body.chunks_exact(4) {
                let v = match wide {
                    Wide::Utf32Le => u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
                    _ => u32::from_be_bytes([c[0], c[1], c[2], c[3]]),
                };
                out.push(char::from_u32(v).unwrap_or('\u{FFFD}'));
            }
        }
    }
    out.into_bytes()
}

/// Printable runs shorter than this are blanked in binary content, as `strings -n 8`
/// does: random bytes are printable a third of the time and spell `\\a\b` or `~ab/c`
/// by chance, while every value worth a finding is longer.
const MIN_PRINTABLE_RUN: usize = 8;

/// Binary content as text a detector can read, byte for byte in place (as `strings`
/// sees it): line breaks stay, every other byte that is not printable ASCII or a tab
/// becomes a blank, and so does a printable run shorter than [`MIN_PRINTABLE_RUN`];
/// places are those of the file and no token spans two runs.
pub fn printable_view(bytes: &[u8]) -> Vec<u8> {
    let printable = |b: u8| matches!(b, b'\t' | b'\n' | 0x20..=0x7E);
    let mut out: Vec<u8> = bytes
        .iter()
        .map(|&b| if printable(b) { b } else { b' ' })
        .collect();
    let mut run_start = 0;
    for i in 0..=bytes.len() {
        if i < bytes.len() && printable(bytes[i]) {
            continue;
        }
        if i - run_start < MIN_PRINTABLE_RUN {
            out[run_start..i]
                .iter_mut()
                .filter(|b| **b != b'\n')
                .for_each(|b| *b = b' ');
        }
        run_start = i + 1;
    }
    out
}

/// Whether bytes sniffed as `kind` make a claim the gate should not take on trust: a
/// byte order mark, or a NUL byte anywhere (past the sniffed head, for text).
pub fn needs_second_reading(kind: Sniff, bytes: &[u8]) -> bool {
    match kind {
        Sniff::Wide(_, mark) => mark > 0 || memchr::memchr(0, bytes).is_some(),
        Sniff::Binary => true,
        Sniff::Text => memchr::memchr(0, bytes.get(SNIFF..).unwrap_or_default()).is_some(),
    }
}

/// The bytes with every NUL dropped, then as [`printable_view`]: ASCII written as
/// UTF-16 or UTF-32 (anywhere in a file, whatever its head says) reads as ASCII.
pub fn nul_free_view(bytes: &[u8]) -> Vec<u8> {
    let kept: Vec<u8> = bytes.iter().copied().filter(|&b| b != 0).collect();
    printable_view(&kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16le(s: &str, mark: bool) -> Vec<u8> {
        let mut out = if mark { vec![0xFF, 0xFE] } else { Vec::new() };
        out.extend(s.encode_utf16().flat_map(u16::to_le_bytes));
        out
    }

    #[test]
    fn wide_text_is_text() {
        let text = "{\"mail\": \"ana@gmail.com\"}";
        for mark in [true, false] {
            let bytes = utf16le(text, mark);
            let Sniff::Wide(wide, m) = sniff(&bytes) else {
                panic!("not wide: {mark}");
            };
            assert_eq!(transcode(&bytes, wide, m), text.as_bytes());
        }
        let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        assert_eq!(sniff(&be), Sniff::Wide(Wide::Utf16Be, 0));
        let be32: Vec<u8> = text
            .chars()
            .flat_map(|c| (c as u32).to_be_bytes())
            .collect();
        assert_eq!(sniff(&be32), Sniff::Wide(Wide::Utf32Be, 0));
        let Sniff::Wide(w, m) = sniff(&be32) else {
            panic!()
        };
        assert_eq!(transcode(&be32, w, m), text.as_bytes());
    }

    #[test]
    fn binary_keeps_its_printable_runs_in_place() {
        let bytes = b"\x89PNG\r\n\x1a\n\0\0AKIAABCDEFGHIJKLMNOP\0x";
        assert_eq!(sniff(bytes), Sniff::Binary);
        let view = printable_view(bytes);
        assert_eq!(view.len(), bytes.len());
        assert!(view.windows(20).any(|w| w == b"AKIAABCDEFGHIJKLMNOP"));
        assert_eq!(sniff(b"plain text"), Sniff::Text);
    }
}
