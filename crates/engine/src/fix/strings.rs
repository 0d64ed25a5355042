//! Values inside JSON strings as they read decoded. A writer may spell any character
//! of a string as an escape (`ana\u0040mail.pt`, `C:\\Users`), which no fixed list of
//! spellings covers; each string that holds an escape is decoded here with a map from
//! every decoded byte back to its raw offset, the values are found in the decoded text,
//! and only their raw bytes are replaced (by the placeholder, JSON-escaped). The rest
//! of the string keeps its escapes as written.

use super::rewrite::{Rewriter, escape};

/// `text` (a JSON document or JSON lines) with the values in its escaped strings
/// rewritten; `counts[i]` grows by each replacement `i` made.
pub fn rewrite(text: &[u8], rewriter: &Rewriter, counts: &mut [usize]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let (mut copied, mut at) = (0, 0);
    while let Some(q) = memchr::memchr(b'"', &text[at..]) {
        let open = at + q;
        let Some(close) = string_end(text, open + 1) else {
            break;
        };
        let raw = &text[open + 1..close];
        at = close + 1;
        if memchr::memchr(b'\\', raw).is_none() {
            continue; // a plain string: the spelled-out pass sees its values
        }
        let Some((decoded, map)) = decode(raw) else {
            continue;
        };
        for (start, end, which) in rewriter.find_plain(&decoded) {
            let (raw_start, raw_end) = (open + 1 + map[start], open + 1 + map[end]);
            out.extend_from_slice(&text[copied..raw_start]);
            out.extend_from_slice(&escape(rewriter.new_of(which)));
            copied = raw_end;
            if let Some(n) = counts.get_mut(which) {
                *n += 1;
            }
        }
    }
    out.extend_from_slice(&text[copied..]);
    out
}

/// The offset of the quote that closes the string whose content starts at `from`.
fn string_end(text: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < text.len() {
        match text[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            b'\n' => return None,
            _ => i += 1,
        }
    }
    None
}

/// A JSON string's content decoded, and for every decoded byte (and the end) the raw
/// offset of the character or escape it came from. `None` for a malformed escape.
fn decode(raw: &[u8]) -> Option<(Vec<u8>, Vec<usize>)> {
    let (mut out, mut map) = (
        Vec::with_capacity(raw.len()),
        Vec::with_capacity(raw.len() + 1),
    );
    let mut i = 0;
    while i < raw.len() {
        let start = i;
        if raw[i] != b'\\' {
            out.push(raw[i]);
            map.push(start);
            i += 1;
            continue;
        }
        let c = *raw.get(i + 1)?;
        i += 2;
        let ch = match c {
            b'"' | b'\\' | b'/' => char::from(c),
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let unit = hex4(raw.get(i..i + 4)?)?;
                i += 4;
                if (0xD800..0xDC00).contains(&unit)
                    && raw.get(i..i + 2) == Some(b"\\u")
                    && let Some(low) = raw.get(i + 2..i + 6).and_then(hex4)
                    && (0xDC00..0xE000).contains(&low)
                {
                    i += 6;
                    char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))?
                } else {
                    char::from_u32(unit).unwrap_or('\u{FFFD}')
                }
            }
            _ => return None,
        };
        let mut buf = [0u8; 4];
        for &b in ch.encode_utf8(&mut buf).as_bytes() {
            out.push(b);
            map.push(start);
        }
    }
    map.push(raw.len());
    Some((out, map))
}

fn hex4(b: &[u8]) -> Option<u32> {
    u32::from_str_radix(std::str::from_utf8(b).ok()?, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::super::placeholder::Replacement;
    use super::*;

    #[test]
    fn escaped_values_are_replaced_and_other_escapes_kept() {
        let r = Rewriter::new(&[Replacement {
            old: b"ana.silva@outlook.pt".to_vec(),
            new: b"user-1@example.com".to_vec(),
        }])
        .expect("patterns");
        let text = br#"{"a":"to ana.silva\u0040outlook.pt\n\u00e9","b":"x"}"#;
        let mut counts = [0];
        let out = rewrite(text, &r, &mut counts);
        assert_eq!(
            String::from_utf8_lossy(&out),
            r#"{"a":"to user-1@example.com\n\u00e9","b":"x"}"#
        );
        assert_eq!(counts, [1]);
    }
}
