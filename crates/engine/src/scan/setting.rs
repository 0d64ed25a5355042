//! The name a value is set under on its line (`api-token: …`, `API_KEY=…`,
//! `"token": "…"`), for a layer that decodes the value: a Kubernetes Secret's `data:`
//! holds every credential as base64, and once decoded, the value alone no longer says
//! what it is. The decoded layer carries `name: value`, so the rules that read a
//! credential by its name read it there as in plain text.

/// Longest name carried over: a setting's, not a sentence's.
const MAX_NAME: usize = 64;

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')
}

/// The name `text[at..]` is set under: before `at` on its line, an optional quote,
/// blanks, one `:` or `=`, blanks, an optional closing quote, then the name, which
/// starts the line or follows a blank, a quote, `{` or `,`.
pub(super) fn name_before(text: &[u8], at: usize) -> Option<&[u8]> {
    let mut i = at;
    let back = |i: &mut usize, pred: &dyn Fn(u8) -> bool, most: usize| {
        let from = *i;
        while *i > 0 && from - *i < most && pred(text[*i - 1]) {
            *i -= 1;
        }
        from - *i
    };
    let quote = |b: u8| matches!(b, b'"' | b'\'');
    let blank = |b: u8| matches!(b, b' ' | b'\t');
    back(&mut i, &quote, 1);
    back(&mut i, &blank, 8);
    if back(&mut i, &|b| matches!(b, b':' | b'='), 1) == 0 {
        return None;
    }
    back(&mut i, &blank, 8);
    back(&mut i, &quote, 1);
    let end = i;
    let len = back(&mut i, &is_name_byte, MAX_NAME + 1);
    let opens = i == 0
        || matches!(
            text[i - 1],
            b' ' | b'\t' | b'\n' | b'\r' | b'"' | b'\'' | b'{' | b','
        );
    (len > 0 && len <= MAX_NAME && opens && text[i].is_ascii_alphabetic()).then(|| &text[i..end])
}

#[cfg(test)]
mod tests {
    use super::name_before;

    fn name(line: &str) -> Option<String> {
        let at = line.find('Q').expect("a value");
        name_before(line.as_bytes(), at).map(|n| String::from_utf8_lossy(n).into_owned())
    }

    #[test]
    fn the_name_a_value_is_set_under() {
        assert_eq!(name("  api-token: QmFy").as_deref(), Some("api-token"));
        assert_eq!(name("API_KEY=QmFy").as_deref(), Some("API_KEY"));
        assert_eq!(name("{\"token\": \"QmFy\"}").as_deref(), Some("token"));
        assert_eq!(name("x, secret = 'QmFy'").as_deref(), Some("secret"));
        // No operator, a sentence, a name too long or not opening a word: none.
        assert_eq!(name("the token QmFy"), None);
        assert_eq!(name("see: QmFy").as_deref(), Some("see"));
        assert_eq!(name(&format!("{}: QmFy", "k".repeat(65))), None);
        assert_eq!(name("a/b: QmFy"), None);
        assert_eq!(name("QmFy"), None);
    }
}
