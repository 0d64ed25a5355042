//! Statements continued on the next line. Formatters wrap a long literal onto a line of
//! its own (`const apiKey =⏎  "…";`, Python's `TOKEN = (⏎    "…"⏎)` and `TOKEN = \⏎`,
//! Java's `KEY⏎        = "…";`, a fallback after a setting's name, `process.env.KEY ||⏎
//! "…"`), and YAML writes a value under its key (`api_key: >-⏎ …`, `api_key:⏎    …`). Long secrets are just what gets wrapped, and the rules read an
//! assignment within one line: such a line and the value line after it are read as one,
//! the marker that carried the statement over left out (`TOKEN = "…"`).

/// The pieces of `text` to read as one line: the head of the line `start..end` and the
/// value on the line from `next`; `None` unless the line leaves an assignment open and
/// the next line holds one value and nothing else (a comment aside).
pub(super) fn continued(
    text: &[u8],
    start: usize,
    end: usize,
    next: usize,
) -> Option<[(usize, usize); 2]> {
    // Asked of every line of a text: what most lines end with settles it at once.
    let head_end = start + text[start..end].trim_ascii_end().len();
    let last = *text[start..head_end].last()?;
    let open = match last {
        b'=' | b':' | b'>' | b'(' | b'[' | b'\\' | b'|' | b'?' => true,
        // A YAML block indicator's chomping or indentation after its `|` or `>`.
        b'-' | b'+' | b'0'..=b'9' => text[start..head_end - 1]
            .iter()
            .rev()
            .take(2)
            .any(|&b| b == b'|' || b == b'>'),
        _ => false,
    };
    // Java's operator first (`KEY⏎ = "…"`): the next line is indented and opens with `=`.
    if !open {
        if !is_name_end(last) || !matches!(text.get(next), Some(b' ' | b'\t' | b'=')) {
            return None;
        }
        let from = skip_blanks(text, next);
        if text.get(from) != Some(&b'=') || text.get(from + 1) == Some(&b'=') {
            return None;
        }
        let value = skip_blanks(text, from + 1);
        return one_value(text, value).map(|v| [(start, head_end), (from, v)]);
    }
    let head = open_head(&text[start..head_end])?;
    let from = skip_blanks(text, next);
    let value_end = one_value(text, from)?;
    Some([(start, start + head), (from, value_end)])
}

fn skip_blanks(text: &[u8], from: usize) -> usize {
    from + text[from.min(text.len())..]
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count()
}

/// How much of `line` to keep when it ends an assignment left open: through its operator,
/// without a continuation marker after it (`\`, `(`, `[`, a YAML block indicator).
fn open_head(line: &[u8]) -> Option<usize> {
    let n = line.len();
    let marker = match line {
        // A fallback's `||` or `??`: the operator stays, the rules read it.
        [.., b'|', b'|'] | [.., b'?', b'?'] => return Some(n),
        [.., b'\\' | b'(' | b'['] => n - 1,
        // YAML's `|`, `>`, `|-`, `>+`, `|2-` after a key's colon.
        [.., b'|' | b'>'] => n - 1,
        [.., b'|' | b'>', b'-' | b'+' | b'0'..=b'9'] => n - 2,
        [.., b'|' | b'>', b'0'..=b'9', b'-' | b'+'] => n - 3,
        _ => return ends_with_operator(line).then_some(n),
    };
    let head = line[..marker].trim_ascii_end().len();
    let yaml = matches!(line[marker], b'|' | b'>');
    if yaml && line[..head].last() != Some(&b':') {
        // `=>` and the like end with `>` too.
        return ends_with_operator(line).then_some(n);
    }
    ends_with_operator(&line[..head]).then_some(head)
}

/// `=`, `:=`, `=>`, `:` after a name; not a comparison (`==`, `<=`, `!=`) nor a path
/// (`::`).
fn ends_with_operator(head: &[u8]) -> bool {
    match head {
        [.., b'=', b'>'] | [.., b':', b'='] => true,
        [.., a, b'='] => !matches!(a, b'=' | b'!' | b'<' | b'>'),
        [.., a, b':'] => *a != b':' && is_name_end(*a),
        _ => false,
    }
}

fn is_name_end(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'"' | b'\'' | b']' | b' ' | b'\t')
}

/// Where the one value starting at `from` ends, when its line holds it and at most a
/// comment after it: no blank inside it (words are prose, not a value). A password may
/// open with any symbol; a bracket, a tag, a comment or a YAML block opens structure.
fn one_value(text: &[u8], from: usize) -> Option<usize> {
    const LONGEST: usize = 1024;
    let first = *text.get(from)?;
    if !first.is_ascii_graphic() || matches!(first, b'{' | b'[' | b'(' | b'<' | b'#' | b'|' | b'>')
    {
        return None;
    }
    let window = &text[from..text.len().min(from + LONGEST)];
    let value = window
        .iter()
        .position(|&b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
        .unwrap_or(window.len());
    if value == window.len() && window.len() == LONGEST {
        return None;
    }
    if is_statement(&window[..value]) {
        return None;
    }
    let rest = &window[value..];
    let line_end = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
    let after = rest[..line_end].trim_ascii();
    (after.is_empty() || after.starts_with(b"#") || after.starts_with(b"//"))
        .then_some(from + value)
}

/// A line that is a statement of its own, not a value: `NAME=value`, `NAME=` (written
/// as a setting's name: words joined by `_`, `.` or `-`, or capitals), `key:`. The name
/// must read as words: a password with `=` inside (`i9jr3i=…`) and base64's padding
/// are values. A quoted value is a value.
fn is_statement(value: &[u8]) -> bool {
    if matches!(value.first(), Some(b'"' | b'\'' | b'`')) {
        return false;
    }
    if value.ends_with(b":") {
        return true;
    }
    let Some(eq) = memchr::memchr(b'=', value) else {
        return false;
    };
    let name = &value[..eq];
    let assigns = value[eq..].iter().any(|&b| b != b'=');
    let separated = name.iter().any(|b| matches!(b, b'_' | b'.' | b'-'));
    let capitals = name
        .iter()
        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b'_');
    is_name(name) && (assigns || separated || capitals)
}

/// Written as a name: a letter or `_` first, then words (see
/// [`crate::detect::names::joined_words`]).
fn is_name(name: &[u8]) -> bool {
    const LONGEST: usize = 64;
    name.first()
        .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
        && name.len() <= LONGEST
        && crate::detect::names::joined_words(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joined(text: &str) -> Option<String> {
        let nl = text.find('\n')?;
        let pieces = continued(text.as_bytes(), 0, nl, nl + 1)?;
        let parts: Vec<&str> = pieces.iter().map(|&(a, b)| &text[a..b]).collect();
        Some(parts.join(" "))
    }

    #[test]
    fn open_assignments_join_their_value_line() {
        for (text, want) in [
            ("key =\n  \"v\";", "key = \"v\";"),
            ("key := \\\n v", "key := v"),
            ("f = (\n    'v'\n)", "f = 'v'"),
            ("k: |2-\n  v", "k: v"),
            ("k: >\n  v # note", "k: v"),
            ("map = k =>\n v,", "map = k => v,"),
            ("String KEY\n    = \"v\";", "String KEY = \"v\";"),
            ("password:\n i9jr3iKq=Lx7", "password: i9jr3iKq=Lx7"),
            ("token:\n  Ohg_W4Hkd9_x3Tq==", "token: Ohg_W4Hkd9_x3Tq=="),
            ("env.KEY ||\n  \"v\";", "env.KEY || \"v\";"),
            ("env.KEY ??\n  'v'", "env.KEY ?? 'v'"),
        ] {
            assert_eq!(joined(text).as_deref(), Some(want), "{text:?}");
        }
        for text in [
            "a ==\n b",
            "a <=\n b",
            "std::\n b",
            "note:\n two words",
            "KEY=\nOTHER_KEY=",
            "KEY=\nport=5432",
            "password:\n  host:",
            "k:\n  name: v",
            "x = y\n more",
            "<b>\n v",
            "a = b\n== c",
            "a |\n b",
            "a ?\n b",
        ] {
            assert_eq!(joined(text), None, "{text:?}");
        }
    }
}
