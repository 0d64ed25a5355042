//! Gzip inflated whole by libdeflate, when the whole output fits a known space.
//!
//! libdeflate inflates a buffer into a buffer, with no streaming state to carry: on
//! the corpus's run logs it took 87 ms where flate2 (zlib-rs) took 138 ms. It cannot
//! stream, so it serves only files whose whole output fits the space the caller would
//! have filled anyway; anything else (too large, corrupt, a member it refuses) is left
//! to the streaming decoder, which then decides as it always has.
//!
//! One difference remains, on malformed data only: libdeflate reads a few invalid
//! deflate codes that zlib refuses (length symbols 286–287, distance symbols 30–31,
//! oversized HLIT/HDIST counts, a one-codeword code-length code), so a stream crafted
//! with them is inflated and scanned whole where zlib would call it corrupt and scan
//! what came before. Either way nothing goes unscanned. A header CRC (FHCRC), which
//! libdeflate skips unchecked, is left to flate2, which checks it.

// unsafe here: libdeflate is called through its C interface.
#![allow(unsafe_code)]

use libdeflate_sys::{
    libdeflate_alloc_decompressor, libdeflate_decompressor, libdeflate_free_decompressor,
    libdeflate_gzip_decompress_ex, libdeflate_result_LIBDEFLATE_SUCCESS,
};

/// Appends every gzip member of `raw`, inflated, to `out` when all of them decode and
/// their total is at most `space` bytes; otherwise leaves the contents of `out` as they
/// were (its capacity may have grown) and returns `false`.
pub fn gunzip_whole(raw: &[u8], space: usize, out: &mut Vec<u8>) -> bool {
    if raw.is_empty() {
        return false;
    }
    let Some(decompressor) = Decompressor::new() else {
        return false;
    };
    let before = out.len();
    out.reserve(space);
    let (mut read, mut written) = (0, 0);
    while read < raw.len() {
        let input = &raw[read..];
        // FHCRC: flate2 checks the header CRC, libdeflate does not.
        if input.get(3).is_none_or(|flags| flags & 0x02 != 0) {
            return false;
        }
        let (mut used, mut made) = (0usize, 0usize);
        // SAFETY: the decompressor is live; the input is `input`; the output is the
        // `space - written` bytes of spare capacity reserved above past what earlier
        // members wrote, which libdeflate writes within and reports through `made`.
        let result = unsafe {
            libdeflate_gzip_decompress_ex(
                decompressor.0,
                input.as_ptr().cast(),
                input.len(),
                out.as_mut_ptr().add(before + written).cast(),
                space - written,
                &mut used,
                &mut made,
            )
        };
        // A member that consumed nothing would loop forever, and one that wrote past
        // the room it was given would have overrun it: libdeflate reports neither as a
        // success, but the guards cost nothing.
        if result != libdeflate_result_LIBDEFLATE_SUCCESS || used == 0 || made > space - written {
            return false;
        }
        read += used;
        written += made;
    }
    // SAFETY: libdeflate initialised `written` bytes past `before`, all within the
    // capacity reserved above.
    unsafe { out.set_len(before + written) };
    true
}

/// The claimed inflated size of the last member (its ISIZE trailer, modulo 2^32): a
/// hint for whether a file can fit, never trusted as the size.
pub fn last_member_size(raw: &[u8]) -> Option<usize> {
    let tail: [u8; 4] = raw.get(raw.len().checked_sub(4)?..)?.try_into().ok()?;
    usize::try_from(u32::from_le_bytes(tail)).ok()
}

struct Decompressor(*mut libdeflate_decompressor);

impl Decompressor {
    fn new() -> Option<Decompressor> {
        // SAFETY: allocation has no preconditions; NULL (out of memory) is checked.
        let ptr = unsafe { libdeflate_alloc_decompressor() };
        (!ptr.is_null()).then_some(Decompressor(ptr))
    }
}

impl Drop for Decompressor {
    fn drop(&mut self) {
        // SAFETY: allocated by `libdeflate_alloc_decompressor`, freed once.
        unsafe { libdeflate_free_decompressor(self.0) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::gzip::gz;
    use std::io::Read;

    fn flate2(raw: &[u8]) -> std::io::Result<Vec<u8>> {
        let mut out = Vec::new();
        flate2::bufread::MultiGzDecoder::new(raw).read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn every_member_is_inflated_and_appended() {
        let mut raw = gz(b"first member\n");
        raw.extend(gz(b"second member\n"));
        let mut out = b"kept:".to_vec();
        assert!(gunzip_whole(&raw, 1 << 10, &mut out));
        assert_eq!(out, b"kept:first member\nsecond member\n");
        assert_eq!(out[5..], flate2(&raw).expect("valid")[..]);
    }

    #[test]
    fn too_little_space_or_bad_data_leaves_the_output_alone() {
        let raw = gz(&[b'x'; 1000]);
        let mut out = b"kept".to_vec();
        assert!(!gunzip_whole(&raw, 999, &mut out));
        assert_eq!(out, b"kept");
        assert!(gunzip_whole(&raw, 1000, &mut out));
        assert_eq!(out.len(), 1004);

        let mut trailing = raw.clone();
        trailing.extend_from_slice(b"garbage");
        let mut corrupt = raw.clone();
        let mid = corrupt.len() / 2;
        corrupt[mid] ^= 0xff;
        let truncated = &raw[..raw.len() - 3];
        for bad in [
            &trailing[..],
            &corrupt[..],
            truncated,
            &raw[..10],
            &[0x1f, 0x8b][..],
        ] {
            let mut out = b"kept".to_vec();
            assert!(!gunzip_whole(bad, 1 << 20, &mut out));
            assert_eq!(out, b"kept");
        }
    }

    #[test]
    fn the_size_hint_reads_the_last_trailer() {
        let mut raw = gz(&[b'y'; 300]);
        assert_eq!(last_member_size(&raw), Some(300));
        raw.extend(gz(b"tail"));
        assert_eq!(last_member_size(&raw), Some(4));
        assert_eq!(last_member_size(&[1, 2, 3]), None);
    }
}
