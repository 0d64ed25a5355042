//! Defanged writing, as threat reports and careful people spell what must not be a
//! live link or address: `81[.]196[.]12[.]7`, `gpu-07[.]corp[.]internal`,
//! `ion.popescu@gmail[.]com`, `hxxps://…`. A reader, and any tool that refangs, reads
//! the value; each such token is refanged in a layer of its own.

use super::token_layer::{Rewrite, token_layer};
use crate::formats::{Encoding, Unit};

/// Bracketed stand-ins and what they stand for (matched without regard to case).
const STAND_INS: [(&str, &str); 12] = [
    ("[.]", "."),
    ("(.)", "."),
    ("{.}", "."),
    ("[dot]", "."),
    ("(dot)", "."),
    ("{dot}", "."),
    ("[at]", "@"),
    ("(at)", "@"),
    ("{at}", "@"),
    ("[@]", "@"),
    ("[:]", ":"),
    ("[/]", "/"),
];

/// Where the first stand-in (`[.]`, `(dot)`, `[at]`…) or `hxxp` in `bytes` may be:
/// code's `f(x)` and `a[0]` are passed over without work.
fn first_hold(bytes: &[u8]) -> Option<usize> {
    let bracket = memchr::memchr3_iter(b'[', b'(', b'{', bytes).find(|&i| {
        let inside = &bytes[i + 1..bytes.len().min(i + 5)];
        // Code opens brackets everywhere: most are passed over on their next byte.
        if !matches!(
            inside.first(),
            Some(b'.' | b'd' | b'D' | b'a' | b'A' | b'@' | b':' | b'/')
        ) {
            return false;
        }
        [".", "dot", "at", "@", ":", "/"].iter().any(|s| {
            inside.len() > s.len()
                && inside[..s.len()].eq_ignore_ascii_case(s.as_bytes())
                && matches!(inside[s.len()], b']' | b')' | b'}')
        })
    });
    // `hxxp` counts only before the first bracketed stand-in: after it, the first is known.
    let before = &bytes[..bracket.unwrap_or(bytes.len())];
    first_hxxp(before).or(bracket)
}

/// Where the first `hxxp` or `HXXP` is. `x` is rare in prose and JSON, so one pass over
/// its two cases finds both spellings; two `memmem` passes cost a scan of real eval
/// data 1% of its instructions.
fn first_hxxp(bytes: &[u8]) -> Option<usize> {
    memchr::memchr2_iter(b'x', b'X', bytes).find_map(|i| {
        let start = i.checked_sub(1)?;
        let word = bytes.get(start..start + 4)?;
        (word == b"hxxp" || word == b"HXXP").then_some(start)
    })
}

fn may_hold(bytes: &[u8]) -> bool {
    first_hold(bytes).is_some()
}

/// `token` refanged, if it holds a stand-in.
fn refang(token: &str) -> Option<String> {
    if !may_hold(token.as_bytes()) {
        return None;
    }
    let lower = token.to_ascii_lowercase();
    let mut out = String::with_capacity(token.len());
    let mut at = 0;
    let mut changed = false;
    'outer: while at < token.len() {
        for (stand_in, real) in STAND_INS {
            if lower[at..].starts_with(stand_in) {
                out.push_str(real);
                at += stand_in.len();
                changed = true;
                continue 'outer;
            }
        }
        if lower[at..].starts_with("hxxp") {
            out.push_str(&token[at..at + 4].replace(['x', 'X'], "t"));
            at += 4;
            changed = true;
            continue;
        }
        let c = token[at..].chars().next().unwrap_or(' ');
        out.push(c);
        at += c.len_utf8();
    }
    changed.then_some(out)
}

/// Refanged copies of the tokens of `unit` that are written defanged.
pub fn defang_layer(unit: &Unit, budget: &mut usize) -> Option<Unit> {
    // Segments before the first possible stand-in are not looked at again.
    let first = first_hold(&unit.text)?;
    token_layer(
        unit,
        budget,
        first,
        Rewrite {
            encoding: Encoding::Defanged,
            bytes_may: may_hold,
            text_may: |_: &str| true,
            // Every stand-in opens with a bracket; `hxxp` with its `h`.
            marks: |b: u8| matches!(b, b'[' | b'(' | b'{' | b'h' | b'H'),
            token: refang,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::{first_hold, refang};

    #[test]
    fn the_first_stand_in_or_hxxp_is_found() {
        assert_eq!(first_hold(b"x max hxxps://a"), Some(6));
        assert_eq!(first_hold(b"HXXP://A and a[.]b"), Some(0));
        assert_eq!(first_hold(b"a[.]b then hxxp://c"), Some(1));
        assert_eq!(first_hold(b"xhxxp"), Some(1));
        // Only the two spellings writers use; `x` alone or at the end is nothing.
        assert_eq!(first_hold(b"hXxp 0x1f index x"), None);
    }

    #[test]
    fn defanged_values_are_read_as_written_live() {
        assert_eq!(refang("81[.]196[.]12[.]7").as_deref(), Some("81.196.12.7"));
        assert_eq!(
            refang("ion.popescu@gmail[.]com").as_deref(),
            Some("ion.popescu@gmail.com")
        );
        assert_eq!(refang("a[AT]b(dot)ro").as_deref(), Some("a@b.ro"));
        assert_eq!(refang("hxxps[:]//x.ro").as_deref(), Some("https://x.ro"));
        assert_eq!(refang("f(x)"), None);
        assert_eq!(refang("list[0].name"), None);
    }
}
