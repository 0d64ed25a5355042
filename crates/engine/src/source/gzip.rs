//! Gzip inflated with a cap: a piece at a time for files scanned as they inflate, or
//! whole. Every member is read (`cat a.gz b.gz`, pigz, bgzip).

use super::inflate;
use super::read::SkipReason;
use flate2::read::MultiGzDecoder;
use std::io::Read;

/// Inflates every gzip member, refusing to produce more than `limit` bytes.
pub fn gunzip(raw: &[u8], limit: u64) -> Result<Vec<u8>, SkipReason> {
    let mut out = Vec::new();
    gunzip_into(raw, limit, &mut out)?;
    Ok(out)
}

/// [`gunzip`] into `out` (cleared first), reusing its allocation.
pub fn gunzip_into(raw: &[u8], limit: u64, out: &mut Vec<u8>) -> Result<(), SkipReason> {
    out.clear();
    // All of it as one piece: the cap is the total's.
    Pieces::new(raw, limit).fill(out, usize::MAX).map(|_| ())
}

/// Gzip inflated a piece at a time into one buffer, the total capped at `limit`: memory stays at a piece or two (plus the longest JSON Lines record)
/// however large the file inflates.
pub struct Pieces<'r> {
    raw: &'r [u8],
    decoder: MultiGzDecoder<&'r [u8]>,
    limit: u64,
    total: u64,
    /// Whether the first fill was offered to [`inflate::gunzip_whole`].
    tried_whole: bool,
    /// Set when the whole file was inflated at once: nothing is left to read.
    done: bool,
}

/// The most a first fill inflates at once by libdeflate (whole reads ask for all).
const WHOLE_MAX: usize = 16 << 20;

impl<'r> Pieces<'r> {
    pub fn new(raw: &'r [u8], limit: u64) -> Self {
        Pieces {
            raw,
            decoder: MultiGzDecoder::new(raw),
            limit,
            total: 0,
            tried_whole: false,
            done: false,
        }
    }

    /// Appends up to `want` more inflated bytes to `buf`; `Ok(false)` once the last
    /// are in. On an error, what was inflated before it is in `buf`, and never more
    /// than one byte past the cap.
    pub fn fill(&mut self, buf: &mut Vec<u8>, want: usize) -> Result<bool, SkipReason> {
        if !self.tried_whole {
            self.tried_whole = true;
            // Only a file this fill would have read to its end anyway, within the cap
            // (fewer than `want` bytes, at most `limit`): the caller sees the same bytes
            // and the same `Ok(false)` as from the streaming decoder (see
            // `inflate` for the malformed streams libdeflate reads and zlib refuses).
            let space = want
                .saturating_sub(1)
                .min(usize::try_from(self.limit).unwrap_or(usize::MAX))
                .min(WHOLE_MAX);
            let before = buf.len();
            // Room for the last member's claimed size first (exact for one member, and
            // it does not grow a small file's buffer to `space`), then for `space` when
            // that was not enough (several members).
            let whole = want > 0
                && inflate::last_member_size(self.raw).is_some_and(|claimed| {
                    claimed <= space
                        && (inflate::gunzip_whole(self.raw, claimed, buf)
                            || (claimed < space && inflate::gunzip_whole(self.raw, space, buf)))
                });
            if whole {
                self.total = (buf.len() - before) as u64;
                self.done = true;
            }
        }
        if self.done {
            return Ok(false);
        }
        let room = self.limit.saturating_add(1).saturating_sub(self.total);
        let ask = (want as u64).min(room);
        let got = (&mut self.decoder)
            .take(ask)
            .read_to_end(buf)
            .map_err(|e| SkipReason::CorruptGzip(e.to_string()))?;
        self.total += got as u64;
        if self.total > self.limit {
            buf.truncate(buf.len() - 1);
            return Err(SkipReason::Bomb { limit: self.limit });
        }
        Ok(got as u64 == ask)
    }
}

/// Gzip of `bytes`, one member: for the tests of every module that reads gzip.
/// A field of a gzip member header that holds text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderField {
    /// `FNAME`: the original file's name.
    Name,
    /// `FCOMMENT` and `FEXTRA`: free text and bytes.
    Other,
}

/// What a gzip file carries outside its compressed data: each member header's stored
/// file name (`FNAME`), comment (`FCOMMENT`) and extra field (`FEXTRA`). `gzip -N`,
/// Python's `gzip` module and many writers store the original name; anything may be put
/// in the others. Later members are found by their magic bytes; a false start inside
/// compressed data reads as noise that no rule matches, and fields are bounded, so a
/// hostile file cannot make this large.
pub fn header_fields(raw: &[u8]) -> Vec<(HeaderField, &[u8])> {
    let mut out = Vec::new();
    let (mut at, mut members, mut bytes) = (0, 0, 0);
    while let Some(i) = memchr::memmem::find(&raw[at..], &[0x1f, 0x8b, 0x08]) {
        let start = at + i;
        at = start + 3;
        if let Some(fields) = member_fields(&raw[start..]) {
            bytes += fields.iter().map(|(_, f)| f.len()).sum::<usize>();
            out.extend(fields.into_iter().filter(|(_, f)| !f.is_empty()));
            members += 1;
        }
        if members >= MAX_MEMBERS || bytes >= MAX_HEADER_TEXT {
            break;
        }
    }
    out
}

const MAX_MEMBERS: usize = 4096;
const MAX_HEADER_TEXT: usize = 1 << 20;
/// Longest name or comment read from one header.
const MAX_FIELD: usize = 64 << 10;

/// The header fields of the member starting at `m[0]`, or `None` when the bytes are
/// not a header (reserved flag bits set, a field not ended in bounds).
fn member_fields(m: &[u8]) -> Option<Vec<(HeaderField, &[u8])>> {
    const FEXTRA: u8 = 4;
    const FNAME: u8 = 8;
    const FCOMMENT: u8 = 16;
    let flags = *m.get(3)?;
    if flags & 0xe0 != 0 {
        return None;
    }
    let mut pos = 10;
    let mut fields = Vec::new();
    if flags & FEXTRA != 0 {
        let len = usize::from(u16::from_le_bytes([*m.get(pos)?, *m.get(pos + 1)?]));
        fields.push((HeaderField::Other, m.get(pos + 2..pos + 2 + len)?));
        pos += 2 + len;
    }
    for (flag, field) in [(FNAME, HeaderField::Name), (FCOMMENT, HeaderField::Other)] {
        if flags & flag != 0 {
            let rest = m.get(pos..)?;
            let end = memchr::memchr(0, &rest[..rest.len().min(MAX_FIELD)])?;
            fields.push((field, &rest[..end]));
            pos += end + 1;
        }
    }
    Some(fields)
}

#[cfg(test)]
pub(crate) fn gz(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(bytes).expect("compress");
    enc.finish().expect("compress")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every fill, call by call: what is in the buffer and what `fill` said.
    fn fills(raw: &[u8], want: usize, limit: u64, stream_only: bool) -> Vec<(Vec<u8>, String)> {
        let mut pieces = Pieces::new(raw, limit);
        pieces.tried_whole = stream_only;
        let mut buf = b"before".to_vec();
        let mut calls = Vec::new();
        for _ in 0..64 {
            let said = pieces.fill(&mut buf, want);
            let stop = !matches!(said, Ok(true));
            calls.push((buf.clone(), format!("{said:?}")));
            if stop {
                break;
            }
        }
        calls
    }

    /// libdeflate's whole-file shortcut must be invisible: the same bytes and the same
    /// answers, call by call, as the streaming decoder, at every size around the piece
    /// and the cap, with several members, and with corrupt or trailing data.
    #[test]
    fn whole_file_inflation_gives_what_streaming_gives() {
        let text: Vec<u8> = (0..5000u32)
            .flat_map(|i| format!("{i} ").into_bytes())
            .collect();
        let n = text.len();
        let mut two = gz(&text[..n / 2]);
        two.extend(gz(&text[n / 2..n / 2 + 10]));
        let mut corrupt_second = gz(&text[..100]);
        let mut second = gz(&text[100..400]);
        let mid = second.len() / 2;
        second[mid] ^= 0x55;
        corrupt_second.extend(second);
        let mut trailing = gz(&text);
        trailing.extend_from_slice(b"\x1f\x8bnot gzip");
        // A header CRC (FHCRC) that does not match: flate2 refuses it, libdeflate would
        // skip it unchecked.
        let mut bad_header_crc = gz(b"hello\n");
        bad_header_crc[3] |= 0x02;
        bad_header_crc.splice(10..10, [0u8, 0]);
        let inputs = [
            gz(&text),
            gz(b""),
            two,
            corrupt_second,
            trailing,
            bad_header_crc,
        ];
        let sizes = [0, 1, n - 1, n, n + 1, n / 2, n / 2 + 10, 100, usize::MAX];
        let mut whole_used = 0;
        for raw in &inputs {
            for &want in &sizes {
                for limit in [n as u64 - 1, n as u64, n as u64 + 1, 150, 1 << 30] {
                    let streamed = fills(raw, want, limit, true);
                    let mixed = fills(raw, want, limit, false);
                    assert_eq!(mixed, streamed, "want {want}, limit {limit}");
                    let mut probe = Pieces::new(raw, limit);
                    let _ = probe.fill(&mut Vec::new(), want);
                    whole_used += usize::from(probe.done);
                }
            }
        }
        // The shortcut must have served some of these, or the test compares nothing.
        assert!(whole_used > 20, "{whole_used}");
    }

    #[test]
    fn header_fields_of_every_member_are_text() {
        use std::io::Write;
        let member = |name: &[u8], comment: &[u8], extra: &[u8]| {
            let mut enc = flate2::GzBuilder::new()
                .filename(name)
                .comment(comment)
                .extra(extra)
                .write(Vec::new(), flate2::Compression::fast());
            enc.write_all(b"{}\n").expect("compress");
            enc.finish().expect("compress")
        };
        let raw = [
            member(b"first.jsonl", b"by ana", b"x1"),
            member(b"second.jsonl", b"note", b""),
        ]
        .concat();
        let fields = header_fields(&raw);
        let text = |kind| {
            fields
                .iter()
                .filter(|(k, _)| *k == kind)
                .map(|(_, f)| String::from_utf8_lossy(f).into_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(text(HeaderField::Name), ["first.jsonl", "second.jsonl"]);
        assert_eq!(text(HeaderField::Other), ["x1", "by ana", "note"]);
        assert!(header_fields(&gz(b"plain")).is_empty());
    }
}
