//! `--drop-capture`: a raw capture goes whole, not just the line a rule matched. In a
//! JSON string that is the whole string (its decoded text becomes the marker); in
//! text it is the block the match opens: the indented lines after it and the line
//! that closes it (`ValueError: …`).

use super::placeholder::Replacement;
use super::rewrite::escape;

/// `r` (a capture's match → marker) widened to what the capture covers at each place
/// it stands in `texts`; `r` itself when it stands nowhere it can be widened.
pub fn widen(r: &Replacement, texts: &[&[u8]], json: bool) -> Vec<Replacement> {
    let mut out: Vec<Replacement> = Vec::new();
    for text in texts {
        let spelled = match json {
            true => escape(&r.old),
            false => r.old.clone(),
        };
        for at in memchr::memmem::find_iter(text, &spelled) {
            let found = match json {
                true => in_string(text, at, spelled.len()),
                false => block(text, at, r.old.len()),
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

    fn r(old: &str) -> Replacement {
        Replacement {
            old: old.as_bytes().to_vec(),
            new: b"[removed]".to_vec(),
        }
    }

    #[test]
    fn a_capture_goes_whole() {
        let text = "before\nTraceback (most recent call last):\n  File \"x.py\", line 1\n    main()\nValueError: bad\nafter\n";
        let w = widen(
            &r("Traceback (most recent call last):"),
            &[text.as_bytes()],
            false,
        );
        assert_eq!(
            String::from_utf8_lossy(&w[0].old),
            "Traceback (most recent call last):\n  File \"x.py\", line 1\n    main()\nValueError: bad"
        );
        let json = r#"{"log":"run 1\nTraceback (most recent call last):\n  File \"x.py\"\nKeyError: 'a'","n":1}"#;
        let w = widen(
            &r("Traceback (most recent call last):"),
            &[json.as_bytes()],
            true,
        );
        assert!(w[0].old.starts_with(b"run 1\nTraceback") && w[0].old.ends_with(b"KeyError: 'a'"));
    }
}
