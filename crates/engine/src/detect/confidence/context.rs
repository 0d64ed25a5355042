//! What stands around a value: words that present it as an example or a format, code
//! that hands it to a function as a test input, neighbours that are example values.

/// How far before a value an "e.g." or "such as" still speaks of it.
const EXAMPLE_WINDOW: usize = 40;

/// Phrases that present what follows as an example, within the window on its line.
const EXAMPLE_PHRASES: &[&str] = &[
    "e.g.",
    "e.g ",
    "eg.",
    "for example",
    "for instance",
    "example",
    "such as",
    "placeholder",
    "fictional",
    "fictitious",
    "made-up",
    "made up",
    "dummy",
    "fake",
    "mock",
    "like:",
    "like `",
    "like \"",
    "like '",
];

/// Words that present a value only right before it (one of the last two words):
/// "a test address x", "in the format x", "emails like x"; further back they are a
/// log's own words ("sample upload by x", "INFO test_login: authenticated x").
const CLOSE_WORDS: &[&str] = &["test", "sample", "format", "formatted", "like", "validate"];

/// An example phrase shortly before the value on its line, or an example word right
/// before it.
pub(super) fn example_words(before: &[u8]) -> bool {
    let tail = &before[before.len().saturating_sub(EXAMPLE_WINDOW)..];
    let line = match memchr::memrchr(b'\n', tail) {
        Some(i) => &tail[i + 1..],
        None => tail,
    };
    let lower = line.to_ascii_lowercase();
    let phrase = EXAMPLE_PHRASES.iter().any(|w| {
        // Where a word starts: `examples` is one, `counterexample` is not.
        memchr::memmem::find_iter(&lower, w.as_bytes())
            .any(|i| i == 0 || !lower[i - 1].is_ascii_alphabetic())
    });
    let close = lower
        .split(|b| !b.is_ascii_alphanumeric() && *b != b'_')
        .filter(|w| !w.is_empty())
        .rev()
        .take(2)
        .any(|w| CLOSE_WORDS.iter().any(|c| c.as_bytes() == w));
    phrase || close
}

/// A quoted literal handed to a check or a demonstration in code: an argument of an
/// assertion or of a checking function (`assert check_email("…")`,
/// `print(is_valid('…'))`, `removezero_ip("…")` in a test), or an element of a list a
/// test loops over. A literal in code someone pasted from their own project
/// (`connect(host="…")`, `author_email="…"`) is configuration, not a test input.
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
    if !rest
        .last()
        .is_some_and(|c| matches!(c, b'(' | b',' | b'[' | b'='))
        && !rest.ends_with(b"assert")
    {
        return false;
    }
    let line = match memchr::memrchr(b'\n', rest) {
        Some(i) => &rest[i + 1..],
        None => rest,
    };
    let line = line.to_ascii_lowercase();
    let after_line = after
        .split(|b| *b == b'\n')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    let checks = |text: &[u8]| {
        [
            &b"assert"[..],
            b"expect(",
            b"print(",
            b"console.log(",
            b"check",
            b"valid",
            b"verify",
            b"test",
            b"==",
        ]
        .iter()
        .any(|w| memchr::memmem::find(text, w).is_some())
    };
    checks(&line) || checks(&after_line)
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
/// `bob@…`): the list is made up. Whole domains: `@test.kestrel.io` is a real
/// company's test subdomain.
const EXAMPLE_DOMAINS: &[&[u8]] = &[
    b"@example.com",
    b"@example.org",
    b"@example.net",
    b"@domain.com",
    b"@email.com",
];

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
        assert!(example_words(b"Example usage\nprint(\"for example: "));
        assert!(example_words(b"a test address "));
        assert!(example_words(b"emails like "));
        assert!(!example_words(b"the latest report from "));
        assert!(!example_words(b"Staff Reporter "));
        assert!(!example_words(b"sample upload by "));
        assert!(!example_words(b"INFO test_login: authenticated "));
        assert!(!example_words(b"session valid for "));
        // Another line's example says nothing of this one.
        assert!(!example_words(b"for example:\n  Contact "));
    }

    #[test]
    fn literals_handed_to_checks() {
        let lit = |b: &str, a: &str| code_literal(b.as_bytes(), a.as_bytes());
        assert!(lit("assert check_email(\"", "\") == 'Valid'"));
        assert!(lit("assert removezero_ip(\"", "\")==('216.8.94.196')"));
        assert!(lit("print(is_valid_email(\"", "\"))"));
        assert!(lit("assert '", "' in out"));
        assert!(!lit("\"email\": \"", "\""), "a JSON member");
        assert!(!lit("Contact ", " today"), "prose");
        assert!(
            !lit("conn = psycopg2.connect(host=\"", "\", user=\"x\")"),
            "config"
        );
        assert!(!lit("    author_email='", "',"), "a project's metadata");
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
