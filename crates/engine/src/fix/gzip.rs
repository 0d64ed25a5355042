//! A `.gz` file taken apart member by member and put back the same way: each member's
//! text rewritten on its own, its header's time and system kept, its name, comment and
//! extra field kept unless the run found something in the header (then dropped).

use flate2::bufread::GzDecoder;
use flate2::{Compression, GzBuilder};
use std::io::{Read, Write};

/// One gzip member: its header fields and its inflated bytes.
pub struct Member {
    pub text: Vec<u8>,
    mtime: u32,
    os: u8,
    name: Option<Vec<u8>>,
    comment: Option<Vec<u8>>,
    extra: Option<Vec<u8>>,
}

/// The members of `raw`, inflated (at most `limit` bytes in all); `None` when it is
/// not a gzip stream read whole to its end (trailing bytes, a damaged member).
pub fn members(raw: &[u8], limit: u64) -> Option<Vec<Member>> {
    let mut rest = raw;
    let mut out = Vec::new();
    let mut total = 0u64;
    while !rest.is_empty() {
        let mut decoder = GzDecoder::new(rest);
        let mut text = Vec::new();
        (&mut decoder)
            .take(limit.saturating_sub(total) + 1)
            .read_to_end(&mut text)
            .ok()?;
        total += text.len() as u64;
        if total > limit {
            return None;
        }
        let header = decoder.header()?;
        // A BGZF block records its own compressed size in the extra field: written
        // again, the size would be false, so such a file is not taken apart.
        if header
            .extra()
            .is_some_and(|x| x.windows(2).any(|w| w == b"BC"))
        {
            return None;
        }
        let member = Member {
            text,
            mtime: header.mtime(),
            os: header.operating_system(),
            name: header.filename().map(<[u8]>::to_vec),
            comment: header.comment().map(<[u8]>::to_vec),
            extra: header.extra().map(<[u8]>::to_vec),
        };
        out.push(member);
        rest = decoder.into_inner();
    }
    (!out.is_empty()).then_some(out)
}

/// The members compressed again, one gzip member each.
pub fn rebuild(members: &[Member], clean_header: bool) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    for m in members {
        let mut builder = GzBuilder::new().mtime(m.mtime).operating_system(m.os);
        if !clean_header {
            if let Some(name) = &m.name {
                builder = builder.filename(name.clone());
            }
            if let Some(comment) = &m.comment {
                builder = builder.comment(comment.clone());
            }
            if let Some(extra) = &m.extra {
                builder = builder.extra(extra.clone());
            }
        }
        let mut encoder = builder.write(Vec::new(), Compression::default());
        encoder.write_all(&m.text)?;
        out.extend(encoder.finish()?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_come_back_as_they_were() {
        let one = |text: &[u8], name: &str| {
            let mut e = GzBuilder::new()
                .filename(name)
                .mtime(7)
                .write(Vec::new(), Compression::fast());
            e.write_all(text).expect("write");
            e.finish().expect("finish")
        };
        let raw = [one(b"a\n", "a.jsonl"), one(b"b\n", "b.jsonl")].concat();
        let parts = members(&raw, 1 << 20).expect("two members");
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[1].text, b"b\n");
        let again = members(&rebuild(&parts, false).expect("gzip"), 1 << 20).expect("again");
        assert_eq!(again[0].name.as_deref(), Some(&b"a.jsonl"[..]));
        assert_eq!(again[1].mtime, 7);
        let clean = members(&rebuild(&parts, true).expect("gzip"), 1 << 20).expect("clean");
        assert!(clean[0].name.is_none());
        assert!(members(&[raw.as_slice(), b"junk"].concat(), 1 << 20).is_none());
    }
}
