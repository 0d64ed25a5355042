//! Stretches of shown text masked whole before the guard looks at runs: what spans
//! the guard's delimiters. A URL's password may hold a blank or a quote once decoded
//! (`svc:Secr3t%20q@host` reads `svc:Secr3t q@host`), and a defanged value is written
//! with brackets (`ana@gmail[.]com`, `185[.]199[.]108[.]153`); cut at those, neither
//! would look like what it is.

/// How far after `://` a URL's `@` is looked for.
const AUTHORITY_REACH: usize = 256;

/// Defanging marks (lower case): a value written with one is a value.
const DEFANG_MARKS: [&str; 10] = [
    "[.]", "(.)", "{.}", "[dot]", "(dot)", "[@]", "(@)", "{@}", "[at]", "(at)",
];

/// Byte ranges of `text` to mask whole, sorted and disjoint.
pub fn forced(text: &str) -> Vec<(usize, usize)> {
    let mut spans = url_passwords(text);
    // Most text holds no bracket and no home folder: it is not lower-cased for them.
    let bytes = text.as_bytes();
    let bracket = memchr::memchr3(b'[', b'(', b'{', bytes).is_some();
    let home = bytes
        .windows(4)
        .any(|w| w.eq_ignore_ascii_case(b"home") || w.eq_ignore_ascii_case(b"user"));
    if bracket || home {
        let lower = text.to_ascii_lowercase();
        if bracket {
            spans.extend(defanged(text, &lower));
        }
        if home {
            spans.extend(home_names(text, &lower));
        }
    }
    spans.extend(number_runs(text));
    if !text.is_ascii() || text.bytes().any(|b| b < 0x20 && !b"\t\n\r".contains(&b)) {
        spans.extend(disguised_numbers(text));
    }
    spans.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
    for (s, e) in spans {
        match merged.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    merged
}

/// The password of each `scheme://user:password@host` on its line, whatever it holds
/// but a line break or a `/`.
fn url_passwords(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices("://") {
        let from = i + 3;
        let mut limit = (from + AUTHORITY_REACH).min(text.len());
        while !text.is_char_boundary(limit) {
            limit -= 1;
        }
        let window = &text[from..limit];
        let line = &window[..window.find('\n').unwrap_or(window.len())];
        // The host starts after the last `@` before the path; a decoded password may
        // hold a `/` itself, so without an `@` there the `@` before a blank is taken.
        let authority = &line[..line.find('/').unwrap_or(line.len())];
        let at = authority.rfind('@').or_else(|| {
            let word = &line[..line.find(char::is_whitespace).unwrap_or(line.len())];
            word.rfind('@')
        });
        let Some(at) = at else {
            continue;
        };
        let user_end = authority.len().min(at);
        if let Some(colon) = line[..user_end].find(':')
            && colon + 1 < at
        {
            out.push((from + colon + 1, from + at));
        }
    }
    out
}

/// `start..end` widened out to the blanks, quotes and list separators around it.
fn widen(bytes: &[u8], start: usize, end: usize) -> (usize, usize) {
    let edge = |b: u8| b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b'`' | b',' | b';');
    let s = bytes[..start]
        .iter()
        .rposition(|&b| edge(b))
        .map_or(0, |i| i + 1);
    let e = bytes[end..]
        .iter()
        .position(|&b| edge(b))
        .map_or(bytes.len(), |i| end + i);
    (s, e)
}

/// Each run holding a defanging mark: out to the blanks and quotes around it.
fn defanged(text: &str, lower: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    for mark in DEFANG_MARKS {
        for (i, _) in lower.match_indices(mark) {
            let (s, e) = widen(bytes, i, i + mark.len());
            // A mark alone (`see [.]` in prose) hides nothing.
            if s < i || e > i + mark.len() {
                out.push((s, e));
            }
        }
    }
    out
}

/// A home folder spelled without its leading slash or with its slashes turned into
/// dashes or underscores, as tools name folders after paths (`home/ana/x`,
/// `-home-ana-proj`, `__home__ana__x`): out to the blanks and quotes around it.
fn home_names(text: &str, lower: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    for mark in [
        "home/",
        "users/",
        "-home-",
        "-users-",
        "__home__",
        "__users__",
    ] {
        for (i, _) in lower.match_indices(mark) {
            let starts_word = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
            let named = bytes
                .get(i + mark.len())
                .is_some_and(u8::is_ascii_alphanumeric);
            if !starts_word || !named {
                continue;
            }
            out.push(widen(bytes, i, i + mark.len()));
        }
    }
    out
}

/// A character a reader does not see, or a mark put on a digit, inside a number
/// (`+40 721\u{301} 234 567`, `721\u{200b}234`): the number is a disguised one, masked
/// with all its groups. A control character counts too, as written or as the U+FFFD
/// an excerpt shows for it.
fn disguised_numbers(text: &str) -> Vec<(usize, usize)> {
    // The guard's own disguises, and control characters as written.
    let hidden =
        |c: char| super::is_disguise(c) || (c.is_control() && !matches!(c, '\t' | '\n' | '\r'));
    let part =
        |c: char| c.is_ascii_digit() || matches!(c, ' ' | '-' | '+' | '(' | ')' | '.') || hidden(c);
    let mut out = Vec::new();
    for (i, c) in text.char_indices() {
        let next_digit = text[i + c.len_utf8()..].starts_with(|d: char| d.is_ascii_digit());
        let prev_digit = text[..i].ends_with(|d: char| d.is_ascii_digit());
        if !hidden(c) || !(prev_digit || next_digit) {
            continue;
        }
        let s = text[..i]
            .char_indices()
            .rev()
            .take_while(|&(_, d)| part(d))
            .last()
            .map_or(i, |(j, _)| j);
        let e = text[i..]
            .char_indices()
            .find(|&(_, d)| !part(d))
            .map_or(text.len(), |(j, _)| i + j);
        // The blanks around the number are not part of it.
        let inner = &text[s..e];
        let s = s + (inner.len() - inner.trim_start().len());
        let e = e - (inner.len() - inner.trim_end().len());
        // And the token it hides in, when it hides in one (`AKIA\u{2}3RT5…`).
        if s < e {
            out.push(widen(text.as_bytes(), s, e));
        }
    }
    out
}

/// Numbers that identify: four dotted numbers (an IPv4 address, inside a file name
/// too), `+` and ten digits or more (a phone), and thirteen or more digits joined by
/// blanks or dashes (a card, an account).
fn number_runs(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() || (i > 0 && b[i - 1].is_ascii_alphanumeric()) {
            i += 1;
            continue;
        }
        // `123-45-6789`: a US social security number's shape, whatever stands around it.
        if let Some(run) = b.get(i..i + 11)
            && run.iter().enumerate().all(|(k, c)| match k {
                3 | 6 => *c == b'-',
                _ => c.is_ascii_digit(),
            })
            && !b.get(i + 11).is_some_and(u8::is_ascii_alphanumeric)
        {
            out.push((i, i + 11));
            i += 11;
            continue;
        }
        let (mut end, mut digits, mut dots, mut joins, mut group) = (i, 0, 0, 0, 0);
        while end < b.len() {
            match b[end] {
                d if d.is_ascii_digit() => {
                    digits += 1;
                    group += 1;
                }
                b'.' if b.get(end + 1).is_some_and(u8::is_ascii_digit) => {
                    dots += 1;
                    group = 0;
                }
                // Groups of three digits or more: a card's, not a list of small numbers.
                b' ' | b'-' if group >= 3 && b.get(end + 1).is_some_and(u8::is_ascii_digit) => {
                    joins += 1;
                    group = 0;
                }
                _ => break,
            }
            end += 1;
        }
        let address = dots == 3 && joins == 0 && (4..=12).contains(&digits);
        // `+40721234567`: an international number written as one.
        let phone = i > 0 && b[i - 1] == b'+' && digits >= 10 && dots == 0;
        if address || phone || (digits >= 13 && dots == 0) {
            out.push((i - usize::from(phone), end));
        }
        i = end.max(i + 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::forced;

    fn shown(text: &str) -> Vec<&str> {
        forced(text).into_iter().map(|(s, e)| &text[s..e]).collect()
    }

    #[test]
    fn what_spans_the_delimiters_is_masked_whole() {
        assert_eq!(shown("postgres://svc:Secr3t q@db:5432/x"), ["Secr3t q"]);
        assert_eq!(shown("see alice@gmail[.]com now"), ["alice@gmail[.]com"]);
        assert_eq!(shown("cache -home-ana-proj here"), ["-home-ana-proj"]);
        assert_eq!(shown("card 4111 1111 1111 1111."), ["4111 1111 1111 1111"]);
        assert_eq!(shown("file 185.199.108.153.json"), ["185.199.108.153"]);
        assert_eq!(shown("call +40721234567 now"), ["+40721234567"]);
        assert_eq!(shown("scan y/123-45-6789.pdf"), ["123-45-6789"]);
        assert_eq!(
            shown("call +40 721\u{301} 234 567 now"),
            ["+40 721\u{301} 234 567"]
        );
        assert_eq!(shown("call +40 721\u{2} 234 567"), ["+40 721\u{2} 234 567"]);
        assert_eq!(
            shown("key AKIAZ7QW\u{2}3RT5YU2 and"),
            ["AKIAZ7QW\u{2}3RT5YU2"]
        );
    }

    #[test]
    fn ordinary_text_and_numbers_stay() {
        for text in [
            "https://example.org/a and mailto:x",
            "scores 1 2 3 4 5 6 7 8 9 10 11 12 13 14",
            "version 1.2.3 on 2024-01-01 12:30",
            "the [.] mark alone, and homework/ana",
        ] {
            assert!(forced(text).is_empty(), "{text}");
        }
    }
}
