//! Replacing values in a file's text where they stand, and nothing else. A value is
//! searched in every spelling a JSON writer gives it — as is, escaped once (a JSON
//! string), twice (JSON inside a JSON string), with `\/`, with non-ASCII as `\uXXXX`
//! — and its placeholder is written in the same spelling, so the bytes around it and
//! the file's escaping style stay as they were.

use super::placeholder::Replacement;
use aho_corasick::{AhoCorasick, Input, MatchKind};

/// Every spelling of every replacement, searched at once.
pub struct Rewriter {
    automaton: AhoCorasick,
    /// Per pattern: the replacement it belongs to, and the placeholder spelled alike.
    spelled: Vec<(usize, Vec<u8>)>,
    /// The values as they read decoded, for JSON strings (see [`super::strings`]).
    plain: AhoCorasick,
    news: Vec<Vec<u8>>,
    /// What every spelling looks like base64-encoded at each of its three alignments,
    /// in both alphabets: text holding none of these holds no value in a base64 run.
    /// `None` when a spelling is too short to have such a core.
    encoded: Option<AhoCorasick>,
}

impl Rewriter {
    /// `None` when there is nothing to replace.
    pub fn new(replacements: &[Replacement]) -> Option<Rewriter> {
        let mut patterns: Vec<Vec<u8>> = Vec::new();
        let mut known = std::collections::HashSet::new();
        let mut spelled = Vec::new();
        for (i, r) in replacements.iter().enumerate() {
            for (old, new) in spellings(&r.old, &r.new) {
                if !old.is_empty() && known.insert(old.clone()) {
                    patterns.push(old);
                    spelled.push((i, new));
                }
            }
        }
        if patterns.is_empty() {
            return None;
        }
        let build = |patterns: &[Vec<u8>]| {
            AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .build(patterns)
                .ok()
        };
        let olds: Vec<Vec<u8>> = replacements.iter().map(|r| r.old.clone()).collect();
        let encoded = super::layers::base64_cores(&patterns).and_then(|cores| build(&cores));
        Some(Rewriter {
            encoded,
            automaton: build(&patterns)?,
            spelled,
            plain: build(&olds)?,
            news: replacements.iter().map(|r| r.new.clone()).collect(),
        })
    }

    /// Standalone occurrences of the values in decoded text: (start, end, which).
    pub fn find_plain(&self, text: &[u8]) -> Vec<(usize, usize, usize)> {
        let mut out = Vec::new();
        let mut at = 0;
        while at < text.len() {
            let Some(m) = self.plain.find(Input::new(text).span(at..text.len())) else {
                break;
            };
            if standalone(text, m.start(), m.end()) {
                out.push((m.start(), m.end(), m.pattern().as_usize()));
                at = m.end();
            } else {
                at = m.start() + 1;
            }
        }
        out
    }

    /// Whether `text` may hold a value inside a base64 run.
    pub fn may_hold_base64(&self, text: &[u8]) -> bool {
        self.encoded.as_ref().is_none_or(|a| a.is_match(text))
    }

    /// The placeholder of replacement `which`, as decoded text.
    pub fn new_of(&self, which: usize) -> &[u8] {
        &self.news[which]
    }

    /// `text` with every standalone occurrence replaced, and how many times each
    /// replacement was made.
    pub fn apply(&self, text: &[u8], counts: &mut [usize]) -> Vec<u8> {
        let mut out = Vec::with_capacity(text.len());
        let (mut copied, mut at) = (0, 0);
        while at < text.len() {
            let Some(m) = self.automaton.find(Input::new(text).span(at..text.len())) else {
                break;
            };
            let (start, end) = (m.start(), m.end());
            if !standalone(text, start, end) {
                at = start + 1;
                continue;
            }
            let (which, new) = &self.spelled[m.pattern().as_usize()];
            out.extend_from_slice(&text[copied..start]);
            out.extend_from_slice(new);
            if let Some(n) = counts.get_mut(*which) {
                *n += 1;
            }
            copied = end;
            at = end;
        }
        out.extend_from_slice(&text[copied..]);
        out
    }
}

/// The spellings of a value and of its placeholder, in the same style.
pub(super) fn spellings(old: &[u8], new: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    let once = (escape(old), escape(new));
    let twice = (escape(&once.0), escape(&once.1));
    let slashed = (slash(&once.0), slash(&once.1));
    let ascii_once = (ascii(&once.0), ascii(&once.1));
    let ascii_slashed = (ascii(&slashed.0), ascii(&slashed.1));
    let mut out = vec![
        (old.to_vec(), new.to_vec()),
        once,
        twice,
        slashed,
        ascii_once,
        ascii_slashed,
    ];
    out.dedup();
    out
}

/// JSON string escaping: backslash, quote and control characters.
pub(super) fn escape(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for &b in s {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'"' => out.extend_from_slice(b"\\\""),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\r' => out.extend_from_slice(b"\\r"),
            0..0x20 => out.extend_from_slice(format!("\\u{b:04x}").as_bytes()),
            _ => out.push(b),
        }
    }
    out
}

/// `/` written `\/`, as some JSON writers do.
fn slash(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for &b in s {
        if b == b'/' {
            out.push(b'\\');
        }
        out.push(b);
    }
    out
}

/// Non-ASCII as `\uXXXX` (surrogate pairs above the BMP), as Python's `json.dumps`
/// writes by default.
fn ascii(s: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(s);
    let mut out = String::with_capacity(s.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
        }
    }
    out.into_bytes()
}

/// The match is a whole value: a letter or digit on its edge does not run on into
/// the text around it (an escape such as `\n` before it is not a letter of it).
fn standalone(text: &[u8], start: usize, end: usize) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric();
    // `.`, `-`, `_` and `+` join words into one token (`1.3.6.1.10.1.2.3`,
    // `ops-ana@x.io`); after a value they end it unless a word goes on behind them
    // (`ana@x.io.` ends a sentence).
    let joins = |b: u8| matches!(b, b'.' | b'-' | b'_' | b'+');
    let before_ok = start == 0
        || !word(text[start])
        || !(word(text[start - 1]) || joins(text[start - 1]))
        || after_escape(text, start);
    let after_ok = end == text.len()
        || !word(text[end - 1])
        || !(word(text[end]) || joins(text[end]) && text.get(end + 1).copied().is_some_and(word));
    before_ok && after_ok
}

/// Whether `text[..at]` ends with a one-letter escape (`\n`, `\t`, …) or a `\uXXXX`.
fn after_escape(text: &[u8], at: usize) -> bool {
    let slashes_before = |i: usize| text[..i].iter().rev().take_while(|&&b| b == b'\\').count();
    if at >= 2 && b"nrtbf".contains(&text[at - 1]) && slashes_before(at - 1) % 2 == 1 {
        return true;
    }
    at >= 6
        && text[at - 6] == b'\\'
        && text[at - 5] == b'u'
        && text[at - 4..at].iter().all(u8::is_ascii_hexdigit)
        && slashes_before(at - 5) % 2 == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(old: &str, new: &str) -> Replacement {
        Replacement {
            old: old.as_bytes().to_vec(),
            new: new.as_bytes().to_vec(),
        }
    }

    fn run(text: &str, pairs: &[Replacement]) -> String {
        let r = Rewriter::new(pairs).expect("patterns");
        let mut counts = vec![0; pairs.len()];
        String::from_utf8(r.apply(text.as_bytes(), &mut counts)).expect("utf-8")
    }

    #[test]
    fn every_spelling_is_replaced_in_its_own_style() {
        let p = [pair(r"C:\Users\Ana", r"C:\Users\user")];
        assert_eq!(
            run(
                r#"{"a":"C:\\Users\\Ana\\x","b":"{\"p\":\"C:\\\\Users\\\\Ana\"}"}"#,
                &p
            ),
            r#"{"a":"C:\\Users\\user\\x","b":"{\"p\":\"C:\\\\Users\\\\user\"}"}"#
        );
        let p = [pair("/home/josé", "/home/user")];
        assert_eq!(
            run(r#"["\/home\/jos\u00e9\/a", "/home/josé/b"]"#, &p),
            r#"["\/home\/user\/a", "/home/user/b"]"#
        );
    }

    #[test]
    fn only_whole_values() {
        let p = [pair("ana@acme.io", "user-1@example.com")];
        assert_eq!(
            run(r#"["ana@acme.io", "diana@acme.io", "x\nana@acme.io"]"#, &p),
            r#"["user-1@example.com", "diana@acme.io", "x\nuser-1@example.com"]"#
        );
        let p = [pair("10.1.2.3", "192.0.2.1")];
        assert_eq!(run("110.1.2.3 10.1.2.3", &p), "110.1.2.3 192.0.2.1");
        assert_eq!(
            run("1.3.6.1.4.1.10.1.2.3 v2.10.1.2.3 10.1.2.3.", &p),
            "1.3.6.1.4.1.10.1.2.3 v2.10.1.2.3 192.0.2.1."
        );
        let p = [pair("ana@acme.io", "user-1@example.com")];
        assert_eq!(
            run("ops-ana@acme.io, ana@acme.io.", &p),
            "ops-ana@acme.io, user-1@example.com."
        );
    }
}
