//! What an error may show. Config and rule errors are built from what the user wrote,
//! and serde, globset and the regex parser quote it back (`unknown variant
//! `/home/ana/x``, a pattern with a caret under it): a value there would reach the
//! terminal and CI logs. Every error passes here on its way out.

use crate::guard::guard;

/// `message` with the regex parser's pattern echo dropped, every quoted span that is
/// not a plain word masked, and the rest guarded as report text is.
pub fn error(message: &str) -> String {
    let message = single_quoted(&without_pattern_echo(message));
    let mut out = String::with_capacity(message.len());
    let mut after_input: Option<Input> = None;
    for (i, part) in message.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        let quoted = i % 2 == 1;
        // What serde names as unknown is what the user wrote: an address or a host
        // reads as a plain word, so it is masked whatever it looks like. The names it
        // expected instead are the program's own.
        let shown_as_is = match after_input {
            // A key's typo (`exclued`) helps the reader and is no value.
            Some(Input::Key) => identifier(part),
            Some(Input::Value) => false,
            None => plain_word(part),
        };
        if quoted && !shown_as_is {
            out.push_str(&masked(part));
        } else {
            out.push_str(&guard(part));
        }
        after_input = (!quoted)
            .then(|| USER_INPUT.iter().find(|(p, _)| part.ends_with(p)))
            .flatten()
            .map(|&(_, kind)| kind);
    }
    out
}

/// What a span serde quotes from the input is.
#[derive(Clone, Copy)]
enum Input {
    Key,
    Value,
}

/// Serde's words before a backticked span that quotes the input itself.
const USER_INPUT: [(&str, Input); 4] = [
    ("unknown variant ", Input::Value),
    ("invalid value: string ", Input::Value),
    ("unknown field ", Input::Key),
    ("duplicate field ", Input::Key),
];

/// A config key as people type one: a letter, then letters, digits, `_` and `-`.
fn identifier(s: &str) -> bool {
    s.len() <= 48
        && s.starts_with(|c: char| c.is_ascii_alphabetic())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
}

/// An identifier, a rule id, a keyword: what the program itself names and a user
/// writes when they mean a name, not a value.
fn plain_word(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 48
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'#' | b' '))
        && !s.contains("..")
}

/// The first character, then a mask as long as the rest.
fn masked(s: &str) -> String {
    let mut chars = s.chars();
    let first = chars.next().map(|c| if c.is_control() { ' ' } else { c });
    let rest = chars.count();
    format!(
        "{}{}",
        first.map(String::from).unwrap_or_default(),
        "*".repeat(rest)
    )
}

/// Spans in single quotes with no space inside (`error parsing glob '/home/ana/[x'`)
/// masked like backticked ones; prose apostrophes (`can't … it's`) hold spaces between
/// them and are left alone.
fn single_quoted(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(open) = rest.find('\'') {
        out.push_str(&rest[..open]);
        out.push('\'');
        let after = &rest[open + 1..];
        match after.find('\'') {
            Some(close) if close > 0 && !after[..close].contains(char::is_whitespace) => {
                let inner = &after[..close];
                if plain_word(inner) {
                    out.push_str(inner);
                } else {
                    out.push_str(&masked(inner));
                }
                out.push('\'');
                rest = &after[close + 1..];
            }
            _ => rest = after,
        }
    }
    out.push_str(rest);
    out
}

/// `regex parse error:\n    PATTERN\n       ^\nerror: what` → `regex parse error: what
/// (the pattern is not shown)`.
fn without_pattern_echo(message: &str) -> String {
    let Some(at) = message.find("regex parse error:") else {
        return message.to_string();
    };
    let (head, rest) = message.split_at(at);
    let what = rest
        .lines()
        .find_map(|l| l.trim().strip_prefix("error:"))
        .map(str::trim)
        .unwrap_or("the pattern does not parse");
    format!("{head}regex parse error: {what} (the pattern is not shown)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_quoted_by_an_error_are_masked() {
        let e = error(
            "config x.toml: line 2, column 18: unknown variant `/home/tkowalski/a`, expected one of `low`, `medium`, `high`",
        );
        assert!(!e.contains("tkowalski"), "{e}");
        assert!(e.contains("`low`, `medium`, `high`"), "{e}");
        let e = error(
            "rule r: regex parse error:\n    (?P<value>ana@x[)\n              ^\nerror: unclosed character class",
        );
        assert!(!e.contains("ana@x"), "{e}");
        assert!(e.contains("unclosed character class"), "{e}");
        assert!(error("unknown rule id `email.adress`").contains("email.adress"));
        let e = error("invalid glob: error parsing glob '/home/ana/[x': unclosed");
        assert!(!e.contains("/home/ana"), "{e}");
        assert_eq!(
            error("can't read it, it's gone"),
            "can't read it, it's gone"
        );
    }
}
