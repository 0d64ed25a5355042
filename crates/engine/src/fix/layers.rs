//! Values inside an encoded layer: base64 (a run decoded, rewritten and encoded again
//! with the same alphabet and padding) and percent-encoding (decoded with a map back
//! to the raw bytes, so only the value's own escapes change, and the placeholder is
//! escaped as the value was).

use super::rewrite::Rewriter;
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};

/// Shorter runs are words, not payloads.
const MIN_BASE64: usize = 16;

/// What each pattern becomes inside any base64 text that holds it: for each of the
/// three alignments a value can have against base64's 3-byte groups, the characters
/// its whole groups encode to, in the standard and the URL-safe alphabet. `None` when a
/// pattern is too short to fill a group at every alignment.
pub fn base64_cores(patterns: &[Vec<u8>]) -> Option<Vec<Vec<u8>>> {
    let mut cores = Vec::new();
    for p in patterns {
        for shift in 0..3 {
            let rest = p.get(shift..)?;
            let whole = rest.get(..rest.len() / 3 * 3).filter(|w| !w.is_empty())?;
            let standard = STANDARD_NO_PAD.encode(whole).into_bytes();
            let url = URL_SAFE_NO_PAD.encode(whole).into_bytes();
            if url != standard {
                cores.push(url);
            }
            cores.push(standard);
        }
    }
    Some(cores)
}

/// `text` with the values inside its base64 runs rewritten.
pub fn base64(text: &[u8], rewriter: &Rewriter, counts: &mut [usize]) -> Vec<u8> {
    if !rewriter.may_hold_base64(text) {
        return text.to_vec();
    }
    let is_b64 = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_');
    let mut out = Vec::with_capacity(text.len());
    let (mut copied, mut i) = (0, 0);
    while i < text.len() {
        if !is_b64(text[i]) || i > 0 && is_b64(text[i - 1]) {
            i += 1;
            continue;
        }
        let mut end = i;
        while end < text.len() && is_b64(text[end]) {
            end += 1;
        }
        while end < text.len() && text[end] == b'=' {
            end += 1;
        }
        let run = &text[i..end];
        if run.len() >= MIN_BASE64
            && let Some(encoded) = rewrite_base64(run, rewriter, counts)
        {
            out.extend_from_slice(&text[copied..i]);
            out.extend_from_slice(&encoded);
            copied = end;
        }
        i = end.max(i + 1);
    }
    out.extend_from_slice(&text[copied..]);
    out
}

/// One run: decoded as text, rewritten, encoded again alike; `None` when it is not
/// base64 of text or holds no value.
fn rewrite_base64(run: &[u8], rewriter: &Rewriter, counts: &mut [usize]) -> Option<Vec<u8>> {
    let url = run.iter().any(|&b| b == b'-' || b == b'_');
    let padded = run.ends_with(b"=");
    let engine = match (url, padded) {
        (false, true) => &STANDARD,
        (false, false) => &STANDARD_NO_PAD,
        (true, true) => &URL_SAFE,
        (true, false) => &URL_SAFE_NO_PAD,
    };
    let decoded = engine.decode(run).ok()?;
    std::str::from_utf8(&decoded).ok()?;
    let mut local = vec![0; counts.len()];
    let rewritten = rewriter.apply(&decoded, &mut local);
    if rewritten == decoded {
        return None;
    }
    for (n, m) in counts.iter_mut().zip(local) {
        *n += m;
    }
    Some(engine.encode(rewritten).into_bytes())
}

/// `text` with the values inside percent-encoded runs rewritten where they stand.
/// Runs are what lies between spaces and quotes, so a map is built for a URL, never
/// for a whole file.
pub fn percent(text: &[u8], rewriter: &Rewriter, counts: &mut [usize]) -> Vec<u8> {
    if memchr::memchr(b'%', text).is_none() {
        return text.to_vec();
    }
    let edge = |b: &u8| b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b'<' | b'>');
    let mut out = Vec::with_capacity(text.len());
    let mut copied = 0;
    // Runs are found from their `%` signs: back to the edge before (never past what
    // is already copied, so each byte is looked at a bounded number of times) and on
    // to the edge after.
    for at in memchr::memchr_iter(b'%', text) {
        if at < copied {
            continue;
        }
        let start = text[copied..at]
            .iter()
            .rposition(edge)
            .map_or(copied, |i| copied + i + 1);
        let end = text[at..]
            .iter()
            .position(edge)
            .map_or(text.len(), |i| at + i);
        out.extend_from_slice(&text[copied..start]);
        out.extend_from_slice(&percent_run(&text[start..end], rewriter, counts));
        copied = end;
    }
    out.extend_from_slice(&text[copied..]);
    out
}

fn percent_run(text: &[u8], rewriter: &Rewriter, counts: &mut [usize]) -> Vec<u8> {
    let (decoded, map, escaped) = decode_percent(text);
    let mut out = Vec::with_capacity(text.len());
    let mut copied = 0;
    for (start, end, which) in rewriter.find_plain(&decoded) {
        let (raw_start, raw_end) = (map[start], map[end]);
        // Only a value that was written with an escape is this layer's to rewrite.
        if !text[raw_start..raw_end].contains(&b'%') {
            continue;
        }
        out.extend_from_slice(&text[copied..raw_start]);
        for &b in rewriter.new_of(which) {
            match escaped[usize::from(b)] {
                true => out.extend_from_slice(format!("%{b:02X}").as_bytes()),
                false => out.push(b),
            }
        }
        copied = raw_end;
        if let Some(n) = counts.get_mut(which) {
            *n += 1;
        }
    }
    out.extend_from_slice(&text[copied..]);
    out
}

/// Percent escapes decoded, a map from each decoded byte (and the end) to its raw
/// offset, and which bytes the text wrote escaped.
fn decode_percent(text: &[u8]) -> (Vec<u8>, Vec<usize>, [bool; 256]) {
    let (mut out, mut map, mut escaped) = (Vec::new(), Vec::new(), [false; 256]);
    let hex = |b: u8| char::from(b).to_digit(16);
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'%'
            && let (Some(h), Some(l)) = (
                text.get(i + 1).and_then(|&b| hex(b)),
                text.get(i + 2).and_then(|&b| hex(b)),
            )
        {
            let b = (h * 16 + l) as u8;
            escaped[usize::from(b)] = true;
            out.push(b);
            map.push(i);
            i += 3;
        } else {
            out.push(text[i]);
            map.push(i);
            i += 1;
        }
    }
    map.push(text.len());
    (out, map, escaped)
}

#[cfg(test)]
mod tests {
    use super::super::placeholder::Replacement;
    use super::*;

    fn rewriter() -> Rewriter {
        Rewriter::new(&[Replacement {
            old: b"ana.silva@outlook.pt".to_vec(),
            new: b"user-1@example.com".to_vec(),
        }])
        .expect("patterns")
    }

    #[test]
    fn base64_runs_are_encoded_again_alike() {
        let inner = STANDARD.encode("Contact ana.silva@outlook.pt now");
        let text = format!("{{\"att\":\"{inner}\",\"id\":\"QUJDREVGR0hJSktMTU5PUA==\"}}");
        let mut counts = [0];
        let out =
            String::from_utf8(base64(text.as_bytes(), &rewriter(), &mut counts)).expect("utf-8");
        let expected = STANDARD.encode("Contact user-1@example.com now");
        assert_eq!(
            out,
            format!("{{\"att\":\"{expected}\",\"id\":\"QUJDREVGR0hJSktMTU5PUA==\"}}")
        );
        assert_eq!(counts, [1]);
    }

    #[test]
    fn percent_escapes_are_kept_where_they_were() {
        let text = b"q=mail%20ana.silva%40outlook.pt&x=%2F";
        let mut counts = [0];
        let out = percent(text, &rewriter(), &mut counts);
        assert_eq!(&out[..], b"q=mail%20user-1%40example.com&x=%2F");
    }
}
