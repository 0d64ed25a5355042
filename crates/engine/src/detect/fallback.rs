//! A value that is itself a setting's name, with the setting's fallback after it:
//! `token = process.env.ACME_TOKEN || "…"`. A rule's greedy value takes
//! `process.env.ACME_TOKEN`, which its checks reject; the literal after `||` is the
//! value, and its name is inside the rejected one. Searching on from inside that name
//! finds it, once per fallback operator, so the extra search stays linear.

/// Whether a fallback operator (`||`, `??`, Python's `or`) follows `text[end]` after at
/// most a closing quote, bracket or parenthesis and blanks.
pub(super) fn follows(text: &[u8], end: usize) -> bool {
    const REACH: usize = 8;
    let tail = &text[end.min(text.len())..];
    let skip = tail
        .iter()
        .take(REACH)
        .take_while(|b| matches!(b, b'"' | b'\'' | b'`' | b']' | b')' | b' ' | b'\t'))
        .count();
    let rest = &tail[skip..];
    rest.starts_with(b"||")
        || rest.starts_with(b"??")
        || skip > 0 && tail[skip - 1] == b' ' && rest.starts_with(b"or ")
}

#[cfg(test)]
mod tests {
    use super::follows;

    #[test]
    fn a_fallback_operator_after_a_name() {
        for (text, end) in [
            ("process.env.ACME_TOKEN || \"v\"", 22),
            ("env.KEY ?? 'v'", 7),
            ("os.getenv(\"KEY\") or 'v'", 14),
        ] {
            assert!(follows(text.as_bytes(), end), "{text:?}");
        }
        for (text, end) in [
            ("process.env.ACME_TOKEN | \"v\"", 22),
            ("settings.token, other", 14),
            ("a_value_ending_in_or", 18),
            ("x", 5),
        ] {
            assert!(!follows(text.as_bytes(), end), "{text:?}");
        }
    }
}
