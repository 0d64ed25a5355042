//! `--drop-capture`: a raw capture goes whole, not just the line a rule matched. In a
//! JSON string that is the whole string (its decoded text becomes the marker); in
//! text it is the block the match opens: the indented lines after it and the line
//! that closes it (`ValueError: …`).

use super::placeholder::Replacement;
use super::rewrite::escape;

/// What a match stands for when it is only the start of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Whole {
    /// A raw capture: the JSON string that holds it, or its block of text lines.
    Capture,
    /// A PEM or OpenSSH key: everything up to its `-----END … -----` line.
    KeyBlock,
}

/// `r` (a match → its replacement) widened to what it covers at each place it stands
/// in `texts`; `r` itself when it stands nowhere it can be widened.
pub fn widen(r: &Replacement, texts: &[&[u8]], json: bool, whole: Whole) -> Vec<Replacement> {
    let mut out: Vec<Replacement> = Vec::new();
    let once = escape(&r.old);
    // JSON writers may also spell `/` as `\/`.
    let slashed: Vec<u8> = once
        .iter()
        .flat_map(|&b| {
            if b == b'/' {
                vec![b'\\', b'/']
            } else {
                vec![b]
            }
        })
        .collect();
    let spellings: Vec<&[u8]> = match json {
        true if slashed != once => vec![&once, &slashed],
        true => vec![&once],
        false => vec![&r.old],
    };
    for text in texts {
        let places = spellings
            .iter()
            .flat_map(|sp| memchr::memmem::find_iter(text, sp).map(move |at| (at, sp.len())));
        for (at, len) in places {
            let found = match (json, whole) {
                (true, Whole::Capture) => in_string(text, at, len),
                (false, Whole::Capture) => block(text, at, r.old.len()),
                (true, Whole::KeyBlock) => in_string(text, at, len).and_then(|s| key_block(&s, 0)),
                (false, Whole::KeyBlock) => key_block(text, at),
            };
            if let Some(old) = found {
                let wide = Replacement {
                    old,
                    new: r.new.clone(),
                };
                if !out.contains(&wide) {
                    out.push(wide);
                }
            }
        }
    }
    if out.is_empty() {
        out.push(r.clone());
    }
    out
}

/// The decoded content of the JSON string that holds the `len` bytes at `at`.
fn in_string(text: &[u8], at: usize, len: usize) -> Option<Vec<u8>> {
    let spelled_len = len;
    // Back to the quote that opens the string: one not escaped.
    let mut open = at;
    loop {
        open = memchr::memrchr(b'"', &text[..open])?;
        let slashes = text[..open]
            .iter()
            .rev()
            .take_while(|&&b| b == b'\\')
            .count();
        if slashes % 2 == 0 {
            break;
        }
    }
    let mut close = at + spelled_len;
    loop {
        close += memchr::memchr(b'"', &text[close..])?;
        let slashes = text[..close]
            .iter()
            .rev()
            .take_while(|&&b| b == b'\\')
            .count();
        if slashes % 2 == 0 {
            break;
        }
        close += 1;
    }
    let raw = &text[open..=close];
    let decoded: String = serde_json::from_slice(raw).ok()?;
    Some(decoded.into_bytes())
}

/// From the key's `-----BEGIN` at `at` to the end of its `-----END … -----` marker.
fn key_block(text: &[u8], at: usize) -> Option<Vec<u8>> {
    let begin = at + memchr::memmem::find(&text[at..], b"-----BEGIN")?;
    let end_marker = begin + memchr::memmem::find(&text[begin..], b"-----END")?;
    let close = end_marker + 8 + memchr::memmem::find(&text[end_marker + 8..], b"-----")? + 5;
    Some(text[begin..close].to_vec())
}

/// The block of text lines a capture opens with the `len` bytes at `at`.
fn block(text: &[u8], at: usize, len: usize) -> Option<Vec<u8>> {
    let mut end = at + len;
    let mut closed = false;
    while end < text.len() && !closed {
        let line_end = memchr::memchr(b'\n', &text[end..]).map_or(text.len(), |i| end + i);
        let next = line_end + 1;
        if next >= text.len() {
            break;
        }
        let line_stop = memchr::memchr(b'\n', &text[next..]).map_or(text.len(), |i| next + i);
        let line = &text[next..line_stop];
        match line.first() {
            Some(b' ' | b'\t') => end = line_stop,
            // The closing line of a trace names the error: `Name: message`.
            Some(b) if b.is_ascii_alphabetic() && line.contains(&b':') => {
                end = line_stop;
                closed = true;
            }
            _ => break,
        }
    }
    Some(text[at..end].to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the match `old` widens to in `text`, as text.
    fn widened(old: &str, text: &str, json: bool, whole: Whole) -> String {
        let r = Replacement {
            old: old.as_bytes().to_vec(),
            new: b"[removed]".to_vec(),
        };
        let w = widen(&r, &[text.as_bytes()], json, whole);
        String::from_utf8_lossy(&w[0].old).into_owned()
    }

    #[test]
    fn a_key_goes_to_its_end_marker() {
        let text = "key:\n-----BEGIN RSA PRIVATE KEY-----\nAAAA\nBBBB\n-----END RSA PRIVATE KEY-----\nafter\n";
        assert_eq!(
            widened(
                "-----BEGIN RSA PRIVATE KEY-----\nAAAA",
                text,
                false,
                Whole::KeyBlock
            ),
            "-----BEGIN RSA PRIVATE KEY-----\nAAAA\nBBBB\n-----END RSA PRIVATE KEY-----"
        );
    }

    #[test]
    fn a_capture_goes_whole() {
        let header = "Traceback (most recent call last):";
        let text = "before\nTraceback (most recent call last):\n  File \"x.py\", line 1\n    main()\nValueError: bad\nafter\n";
        assert_eq!(
            widened(header, text, false, Whole::Capture),
            "Traceback (most recent call last):\n  File \"x.py\", line 1\n    main()\nValueError: bad"
        );
        let json = r#"{"log":"run 1\nTraceback (most recent call last):\n  File \"x.py\"\nKeyError: 'a'","n":1}"#;
        let w = widened(header, json, true, Whole::Capture);
        assert!(w.starts_with("run 1\nTraceback") && w.ends_with("KeyError: 'a'"));
    }
}
