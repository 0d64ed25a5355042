//! What stands around a value: words that present it as an example or a format, code
//! that hands it to a function as a test input, neighbours that are example values.

/// How far before a value an "e.g." or "such as" still speaks of it.
const EXAMPLE_WINDOW: usize = 40;

/// Words that present what follows as an example, a format or a test value.
const EXAMPLE_WORDS: &[&str] = &[
    "e.g.",
    "e.g ",
    "eg.",
    "for example",
    "for instance",
    "example",
    "such as",
    "format",
    "formatted",
    "sample",
    "fake",
    "dummy",
    "placeholder",
    "fictional",
    "fictitious",
    "made-up",
    "made up",
    "mock",
    "invalid",
    "valid",
    "test",
    "like:",
    "like `",
    "like \"",
    "like '",
];

/// An example word in the last few words before the value, on the same line.
pub(super) fn example_words(before: &[u8]) -> bool {
    let tail = &before[before.len().saturating_sub(EXAMPLE_WINDOW)..];
    let line = match memchr::memrchr(b'\n', tail) {
        Some(i) => &tail[i + 1..],
        None => tail,
    };
    let lower = line.to_ascii_lowercase();
    EXAMPLE_WORDS.iter().any(|w| {
        memchr::memmem::find_iter(&lower, w.as_bytes()).any(|i| {
            // A whole word: `latest` holds no `test`, `attestation` none either.
            let start_ok = i == 0 || !lower[i - 1].is_ascii_alphabetic();
            let end = i + w.len();
            let end_ok = end >= lower.len()
                || !lower[end].is_ascii_alphabetic()
                || !w.as_bytes()[w.len() - 1].is_ascii_alphabetic();
            start_ok && end_ok
        })
    })
}

/// A quoted literal handed to code: an argument of a call (`check_email("…")`,
/// `f(a, '…')`, `f(email="…")`), an element of a list (`["…", "…"]`), an assertion's
/// operand or a variable set to it (`email = "…"`). Who wrote the code decides
/// elsewhere whether that makes it a test input (a machine printing a real file's
/// code is evidence).
pub(super) fn code_literal(before: &[u8], after: &[u8]) -> bool {
    let Some((&quote, rest)) = before.split_last() else {
        return false;
    };
    if !matches!(quote, b'"' | b'\'' | b'`') || after.first() != Some(&quote) {
        return false;
    }
    let rest = rest.trim_ascii_end();
    // A string prefix (`r"`, `b'`, `f"`) belongs to the literal.
    let rest = match rest.split_last() {
        Some((c, r))
            if matches!(c, b'r' | b'b' | b'f' | b'u')
                && !r.last().is_some_and(u8::is_ascii_alphanumeric) =>
        {
            r.trim_ascii_end()
        }
        _ => rest,
    };
    let Some(&opener) = rest.last() else {
        return false;
    };
    match opener {
        b'(' | b',' | b'[' => true,
        // `x = "…"`, `x == "…"`, `f(email="…")`, but not a JSON member (`"x": "…"`).
        b'=' => {
            let lhs = rest[..rest.len() - 1].trim_ascii_end();
            let lhs = lhs.strip_suffix(b"=").unwrap_or(lhs);
            let lhs = lhs.strip_suffix(b"!").unwrap_or(lhs);
            lhs.last()
                .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b']' | b')'))
        }
        _ => rest.ends_with(b"assert") || rest.ends_with(b"return"),
    }
}

/// The value's line opens with a line number, as a file viewer, `cat -n`, `grep -n`
/// or a compiler prints it: `55:    x = …`, `  12\t…`, `File.py:55: …`.
pub(super) fn listing_line(before: &[u8]) -> bool {
    let line = match memchr::memrchr(b'\n', before) {
        Some(i) => &before[i + 1..],
        // The line may begin before the window: say nothing.
        None if before.len() >= 64 => return false,
        None => before,
    };
    let line = line.trim_ascii_start();
    let digits = line.iter().take_while(|b| b.is_ascii_digit()).count();
    (1..=6).contains(&digits) && matches!(line.get(digits), Some(b':' | b'\t' | b'|'))
}

/// Reserved example domains a list may show beside a value (`alice@example.com`,
/// `bob@…`): the list is made up.
const EXAMPLE_DOMAINS: &[&[u8]] = &[b"@example.", b"@test.", b"@domain.", b"@email.com"];

/// The value sits in a list whose other entries are example addresses.
pub(super) fn example_neighbours(before: &[u8], after: &[u8]) -> bool {
    let near = |s: &[u8]| {
        let lower = s.to_ascii_lowercase();
        EXAMPLE_DOMAINS
            .iter()
            .any(|d| memchr::memmem::find(&lower, d).is_some())
    };
    near(&before[before.len().saturating_sub(64)..]) || near(&after[..after.len().min(64)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example_words_before_the_value() {
        assert!(example_words(
            b"phone number in international format, e.g. '"
        ));
        assert!(example_words(b"an address such as "));
        assert!(example_words(b"Example usage\nemail = \"test: "));
        assert!(!example_words(b"the latest report from "));
        assert!(!example_words(b"Staff Reporter "));
        // Another line's example says nothing of this one.
        assert!(!example_words(b"for example:\n  Contact "));
    }

    #[test]
    fn literals_handed_to_code() {
        let lit = |b: &str, a: &str| code_literal(b.as_bytes(), a.as_bytes());
        assert!(lit("assert check_email(\"", "\") == 'Valid'"));
        assert!(lit("removezero_ip(\"", "\")"));
        assert!(lit("emails = [\"a@x.org\", \"", "\"]"));
        assert!(lit("email = \"", "\"\nprint(x)"));
        assert!(lit("authenticate(username='x', password='", "')"));
        assert!(lit("assert '", "'"));
        assert!(!lit("\"email\": \"", "\""), "a JSON member");
        assert!(!lit("Contact ", " today"), "prose");
        assert!(!lit("email = \"", " today"), "an unclosed quote");
    }

    #[test]
    fn numbered_lines_are_listings() {
        assert!(listing_line(b"Here it is:\n55:    author_email=\""));
        assert!(listing_line(b"x\n  12\tpassword = '"));
        assert!(!listing_line(b"x\nemail = \""));
        assert!(!listing_line(b"x\n2023-10-01 12:00 "));
    }

    #[test]
    fn neighbours_that_are_examples() {
        assert!(example_neighbours(b"Alice,alice@example.com\nBob,", b"\n"));
        assert!(!example_neighbours(b"Staff Reporter ", b" for more"));
    }
}
