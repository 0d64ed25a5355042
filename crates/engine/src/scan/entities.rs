//! HTML character references (`&#64;`, `&commat;`) undone as a layer: a writer hides
//! an address or a path behind them as easily as behind a look-alike letter.

use super::token_layer::{Rewrite, token_layer};
use crate::formats::{Encoding, Unit};

/// A named character reference a writer would use to hide an address or a path.
fn named_entity(name: &str) -> Option<char> {
    Some(match name {
        "commat" => '@',
        "period" => '.',
        "sol" => '/',
        "bsol" => '\\',
        "colon" => ':',
        "lowbar" => '_',
        "hyphen" | "dash" => '-',
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "num" => '#',
        "plus" => '+',
        "equals" => '=',
        "percnt" => '%',
        _ => return None,
    })
}

/// `token` with its HTML character references decoded (twice, for `&amp;#64;`), or
/// `None` when it has none.
fn decode_entities(token: &str) -> Option<String> {
    let once = decode_entities_once(token)?;
    Some(decode_entities_once(&once).unwrap_or(once))
}

fn decode_entities_once(token: &str) -> Option<String> {
    if !token.contains('&') {
        return None;
    }
    let mut out = String::with_capacity(token.len());
    let mut changed = false;
    let mut rest = token;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        // A numeric reference may end without `;` (`&#64gmail`), as browsers read it.
        let numeric_end = after.strip_prefix('#').map(|n| {
            let hex = n.starts_with(['x', 'X']);
            let digits = n[usize::from(hex)..]
                .bytes()
                .take_while(|b| {
                    if hex {
                        b.is_ascii_hexdigit()
                    } else {
                        b.is_ascii_digit()
                    }
                })
                .count();
            1 + usize::from(hex) + digits
        });
        let end = after
            .find(';')
            .filter(|&e| e > 0 && e <= 10)
            .or(numeric_end.filter(|&e| e > 1 && after.as_bytes().get(e) != Some(&b';')));
        let decoded = end.and_then(|e| {
            let body = &after[..e];
            match body.strip_prefix('#') {
                Some(num) => match num.strip_prefix(['x', 'X']) {
                    Some(hex) => u32::from_str_radix(hex, 16).ok(),
                    None => num.parse().ok(),
                }
                .and_then(char::from_u32),
                None => named_entity(body),
            }
        });
        match (decoded, end) {
            (Some(c), Some(e)) => {
                out.push(c);
                changed = true;
                let semi = after.as_bytes().get(e) == Some(&b';');
                rest = &after[e + usize::from(semi)..];
            }
            _ => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// `&#` or `&name;` somewhere: checked before any allocation (a URL's `&x=1` is not).
fn has_reference(bytes: &[u8]) -> bool {
    memchr::memchr_iter(b'&', bytes).any(|i| {
        let rest = &bytes[i + 1..bytes.len().min(i + 12)];
        rest.first() == Some(&b'#')
            || rest
                .iter()
                .position(|&b| b == b';')
                .is_some_and(|e| e >= 2 && rest[..e].iter().all(u8::is_ascii_alphabetic))
    })
}

/// Copies of the segments whose tokens hold HTML character references, decoded.
pub fn entity_layer(unit: &Unit, budget: &mut usize) -> Option<Unit> {
    let first = memchr::memchr(b'&', &unit.text)?;
    token_layer(
        unit,
        budget,
        first,
        Rewrite {
            encoding: Encoding::Entities,
            bytes_may: has_reference,
            text_may: |_: &str| true,
            marks: |b: u8| b == b'&',
            token: decode_entities,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::layers::peeled as layer;

    #[test]
    fn entities_are_decoded() {
        let dec = |t: &str| layer(t, entity_layer);
        assert_eq!(
            dec("mail ion.pop&#64;gmail&period;com").as_deref(),
            Some("ion.pop@gmail.com")
        );
        assert_eq!(dec("x&#x40;y&commat;z").as_deref(), Some("x@y@z"));
        assert_eq!(dec("R&D; salt & pepper"), None);
        assert_eq!(dec("a&#64b.com").as_deref(), Some("a@b.com"));
        assert_eq!(dec("a&amp;#64;b.com").as_deref(), Some("a@b.com"));
    }
}
