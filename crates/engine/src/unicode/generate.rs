//! Generates `rules/vocabulary/unicode-fold.txt` from the Unicode data as the
//! `unicode-security` (UTS #39 confusables and default-ignorable code points) and
//! `unicode-normalization` (NFKC) crates compile it, and checks that the committed file
//! is what they give. `PRIVACY_AUDIT_REGENERATE=1 cargo test -p privacy-audit-engine
//! unicode_fold_table` rewrites the file after a Unicode update.

use std::fmt::Write as _;
use unicode_normalization::UnicodeNormalization;
use unicode_security::skeleton;

/// A reading made of characters a value is written with: printable ASCII, and not
/// only quotes (curly quotes are prose, not a disguise).
fn is_value_ascii(s: &str) -> bool {
    !s.is_empty()
        && s.bytes().all(|b| (0x21..0x7F).contains(&b))
        && !s.bytes().all(|b| matches!(b, b'\'' | b'"' | b'`'))
}

/// Of the ASCII characters a look-alike shares its prototype with (`I`, `l`, `1`, `|`
/// all read as `l`), the one of the same kind: an upper-case look-alike reads as the
/// upper-case letter, a digit as the digit.
fn choose(c: char, prototype: &str, candidates: &[char]) -> Option<String> {
    let pick = |f: fn(&char) -> bool| candidates.iter().copied().find(f);
    let chosen = match candidates {
        [] => return is_value_ascii(prototype).then(|| prototype.to_string()),
        [one] => Some(*one),
        _ if c.is_uppercase() => pick(char::is_ascii_uppercase),
        _ if c.is_lowercase() => pick(char::is_ascii_lowercase),
        _ if c.is_numeric() => pick(char::is_ascii_digit),
        _ => None,
    };
    let chosen = chosen
        .or_else(|| {
            candidates
                .iter()
                .copied()
                .find(|a| prototype == a.to_string())
        })
        .or_else(|| candidates.first().copied())?;
    Some(chosen.to_string()).filter(|r| is_value_ascii(r))
}

/// Dots UTS #39 does not list as confusable but that Chinese and Japanese input writes
/// for `.` (`name@qq。com` is a common way to slip an address past a filter).
const IDEOGRAPHIC_DOTS: [char; 2] = ['\u{3002}', '\u{FF61}'];

pub(super) fn generate() -> String {
    let ascii: Vec<(char, String)> = (0x21u8..0x7F)
        .map(char::from)
        .map(|a| (a, skeleton(&a.to_string()).collect()))
        .collect();
    let (major, minor, update) = unicode_security::UNICODE_VERSION;
    let mut out = format!(
        "# How a reader sees characters that are not ASCII, for undoing disguises.\n\
         # Generated from Unicode {major}.{minor}.{update} (UTS #39 confusables, default-ignorable\n\
         # code points, NFKC): do not edit; see crates/engine/src/unicode/generate.rs.\n\
         # code point, kind (ignore: unseen; compat: NFKC form; look: look-alike), reading\n"
    );
    let planes = (0x80..0x40000).chain(0xE0000..0xE1000);
    // Unseen characters come in long runs (tag characters, variation selectors): one
    // line per run.
    let mut unseen: Option<(u32, u32)> = None;
    let flush = |out: &mut String, run: &mut Option<(u32, u32)>| {
        if let Some((from, to)) = run.take() {
            let _ = match from == to {
                true => writeln!(out, "{from:04X} ignore"),
                false => writeln!(out, "{from:04X}..{to:04X} ignore"),
            };
        }
    };
    for c in planes.filter_map(char::from_u32) {
        let one = c.to_string();
        let skel: String = skeleton(&one).collect();
        let cp = u32::from(c);
        if skel.is_empty() {
            match &mut unseen {
                Some((_, to)) if *to + 1 == cp => *to = cp,
                run => {
                    flush(&mut out, run);
                    *run = Some((cp, cp));
                }
            }
            continue;
        }
        flush(&mut out, &mut unseen);
        let line = if IDEOGRAPHIC_DOTS.contains(&c) {
            Some(("look", ".".to_string()))
        } else if let nfkc = one.nfkc().collect::<String>()
            && is_value_ascii(&nfkc)
        {
            Some(("compat", nfkc))
        } else if skel != one.nfd().collect::<String>() {
            let candidates: Vec<char> = ascii
                .iter()
                .filter(|(_, s)| *s == skel)
                .map(|(a, _)| *a)
                .collect();
            choose(c, &skel, &candidates).map(|r| ("look", r))
        } else {
            None
        };
        if let Some((kind, reading)) = line {
            let _ = writeln!(out, "{cp:04X} {kind} {reading}");
        }
    }
    flush(&mut out, &mut unseen);
    out
}
