//! Numbers by their own system: a North American number its numbering plan cannot
//! hold or keeps for fiction, the formats fake-data generators print, an issuer's
//! published test card, an SSN the administration never issues, and digits that are a
//! fraction's, a date's or one of a run of numbers.

use super::{Assessment, Context};
use crate::finding::Reason;

pub(super) fn number(cx: &Context<'_>, test_cards: &[String]) -> Assessment {
    if let Some(r) = embedded(cx) {
        return Assessment::low(r);
    }
    let digits: String = cx.value.chars().filter(char::is_ascii_digit).collect();
    let zeros = digits.chars().filter(|&c| c == '0').count() * 10 >= digits.len() * 7;
    if zeros {
        return Assessment::low(Reason::TemplateSlot);
    }
    if cx.rule_id.contains("phone") {
        return phone(cx, &digits);
    }
    if cx.rule_id.contains("payment_card") && test_cards.contains(&digits) {
        return Assessment::low(Reason::TestCard);
    }
    if counted(cx.value.split(|c: char| !c.is_ascii_digit())) {
        return Assessment::low(Reason::TemplateSlot);
    }
    if cx.rule_id.contains("ssn") && !ssn_issuable(&digits) {
        return Assessment::low(Reason::InvalidNumber);
    }
    // A card-shaped number under `*_id` or `latency` is an identifier or a
    // measurement; an SSN under `tax_id` is still a person's.
    if cx.rule_id.contains("payment_card") && key_says_not_personal(cx.key) {
        return Assessment::low(Reason::NumberSeries);
    }
    Assessment::medium()
}

/// Digits that are part of something else: a decimal fraction, a date, a run of
/// numbers in a table or a statistics line (`balls 252 642 7293 4833`).
fn embedded(cx: &Context<'_>) -> Option<Reason> {
    let b = cx.before;
    let fraction = b.last() == Some(&b'.') && b.len() >= 2 && b[b.len() - 2].is_ascii_digit();
    let continues =
        cx.after.first() == Some(&b'.') && cx.after.get(1).is_some_and(u8::is_ascii_digit);
    // Date-shaped (`04-31-3000`, `2024-13-01`), valid or not.
    let groups: Vec<usize> = cx.value.split(['-', '/', '.']).map(str::len).collect();
    let date = matches!(groups.as_slice(), [2, 2, 4] | [4, 2, 2]);
    // A plain number right after it (not another formatted value: two SSNs one space
    // apart are two SSNs). Only after: before a value may stand the tail of another
    // one (`+40 721 123 456 +44 20 …`).
    let after_number = plain_number(cx.after.iter().copied());
    (fraction || continues || date || after_number).then_some(Reason::NumberSeries)
}

/// The bytes after the value hold separators and then a plain run of digits (`4833`)
/// that ends the line or is followed by another number: a neighbour in a series, not
/// prose (`24 hours a day`).
fn plain_number(mut bytes: impl Iterator<Item = u8>) -> bool {
    let mut first = bytes.next();
    if !matches!(first, Some(b' ' | b'\t')) {
        return false;
    }
    let mut seps = 0;
    while matches!(first, Some(b' ' | b'\t' | b'-')) && seps < 4 {
        first = bytes.next();
        seps += 1;
    }
    let mut digits = 0;
    let mut c = first;
    while c.is_some_and(|b| b.is_ascii_digit()) {
        digits += 1;
        c = bytes.next();
    }
    let ends = match c {
        None | Some(b'\n' | b'\r' | b'|' | b',') => true,
        Some(b' ' | b'\t') => bytes
            .next()
            .is_none_or(|b| b.is_ascii_digit() || b == b'\n' || b == b'-'),
        _ => false,
    };
    (1..=5).contains(&digits) && ends
}

fn phone(cx: &Context<'_>, digits: &str) -> Assessment {
    // An extension (`x80863`) or an international prefix from the US (`001-`) is how
    // fake-data generators print numbers; people write `ext.` or `+1`.
    let after = cx.after;
    let extension = after.first() == Some(&b'x') && after.get(1).is_some_and(u8::is_ascii_digit);
    let before = String::from_utf8_lossy(cx.before);
    if extension || (digits.starts_with("001") && digits.len() == 13) || before.ends_with("001-") {
        return Assessment::low(Reason::FakeDataFormat);
    }
    let national = match digits.len() {
        10 => Some(digits),
        11 if digits.starts_with('1') => Some(&digits[1..]),
        13 if digits.starts_with("001") => Some(&digits[3..]),
        _ => None,
    };
    // The plan speaks only of North American numbers: `06 12 34 56 78` is French.
    let nanp = national.filter(|_| {
        cx.rule_id.contains("north_america")
            || cx.value.starts_with("+1")
            || cx.value.starts_with("1-")
            || cx.value.starts_with("001")
    });
    if let Some(n) = nanp
        && let Some(r) = nanp_verdict(n.as_bytes())
    {
        return Assessment::low(r);
    }
    Assessment::medium()
}

/// What the North American Numbering Plan says of a ten-digit number, when it says
/// it is nobody's: area and exchange codes start with 2–9; N11 codes are services;
/// N9X, 37X and 96X area codes are held in reserve and 555 is no area at all; 555
/// exchanges are the fiction numbers; toll-free codes are businesses.
fn nanp_verdict(d: &[u8]) -> Option<Reason> {
    let (npa, nxx) = (&d[0..3], &d[3..6]);
    if npa[0] < b'2' || nxx[0] < b'2' {
        return Some(Reason::InvalidNumber);
    }
    let n11 = |c: &[u8]| c[1] == b'1' && c[2] == b'1';
    if n11(npa) || n11(nxx) || npa[1] == b'9' || npa == b"555" {
        return Some(Reason::InvalidNumber);
    }
    if matches!(npa, [b'3', b'7', _] | [b'9', b'6', _]) {
        return Some(Reason::InvalidNumber);
    }
    if nxx == b"555" {
        return Some(Reason::FictionNumber);
    }
    if matches!(
        npa,
        b"800" | b"833" | b"844" | b"855" | b"866" | b"877" | b"888" | b"900"
    ) {
        return Some(Reason::TollFree);
    }
    // `456-7890`, `123-4567`: the subscriber digits counted up, as templates show them.
    let tail = &d[3..];
    let counted = tail.windows(2).filter(|w| w[1] == w[0] + 1).count() >= 5;
    let same = tail.iter().all(|&c| c == tail[0]);
    (counted || same).then_some(Reason::TemplateSlot)
}

/// The SSA never issues area 000, 666 or 9xx, group 00 or serial 0000; 123-45-6789
/// and 078-05-1120 are the examples printed on sample cards.
fn ssn_issuable(d: &str) -> bool {
    if d.len() != 9 {
        return true;
    }
    let (area, group, serial) = (&d[0..3], &d[3..5], &d[5..9]);
    !(area == "000"
        || area == "666"
        || area.starts_with('9')
        || group == "00"
        || serial == "0000"
        || d == "123456789"
        || d == "078051120")
}

/// Keys under which a number is a measurement or an identifier, not personal data.
fn key_says_not_personal(key: Option<&str>) -> bool {
    let Some(key) = key else { return false };
    let k = key.to_ascii_lowercase();
    [
        "id", "sha", "hash", "version", "latency", "score", "time", "duration", "count", "seed",
        "step", "index", "token", "cost", "size", "mean", "std", "loss",
    ]
    .iter()
    .any(|w| k == *w || k.ends_with(&format!("_{w}")) || k.starts_with(&format!("{w}_")))
}

/// Digits counted up or down (`2345-6789-1234-5678`, `98.76.54.32`, `12.234.56.126`)
/// or one group repeated (`123.123.123.123`): the number every template shows. Pairs
/// are counted within each group; so few digit pairs run in sequence by chance (one in
/// five) that most of them in a row is no one's number.
pub(super) fn counted<'a>(groups: impl Iterator<Item = &'a str>) -> bool {
    let groups: Vec<&[u8]> = groups
        .filter(|g| !g.is_empty())
        .map(str::as_bytes)
        .collect();
    if groups.len() >= 3 && groups.windows(2).all(|w| w[0] == w[1]) {
        return true;
    }
    // Counted one way: a template counts up or down, while a real number's steps of
    // one go both ways by chance (`64.45.212.45`: up, down, up, up).
    let (mut pairs, mut up, mut down) = (0usize, 0usize, 0usize);
    for g in &groups {
        for w in g.windows(2) {
            pairs += 1;
            let (a, b) = (i16::from(w[0]), i16::from(w[1]));
            up += usize::from(b - a == 1);
            down += usize::from(a - b == 1);
        }
    }
    let seq = up.max(down);
    let need = match pairs {
        0..=8 => 4.max((pairs * 7).div_ceil(10)),
        _ => (pairs * 6).div_ceil(10),
    };
    pairs >= 4 && seq >= need
}

#[cfg(test)]
mod tests {
    use super::counted;

    #[test]
    fn digits_counted_up_or_down() {
        let c = |s: &str| counted(s.split(|c: char| !c.is_ascii_digit()));
        for made_up in [
            "2345-6789-1234-5678",
            "2278-9812-3456-4567",
            "98.76.54.32",
            "87.65.43.21",
            "109.87.65.43",
            "12.234.56.126",
            "145.34.45.56",
            "123.123.123.123",
            "1234567890123456",
        ] {
            assert!(c(made_up), "{made_up}");
        }
        for real in [
            "22.242.75.136",
            "15.24.135.80",
            "52.94.236.248",
            "81.196.12.7",
            "4556737586899855",
            "702-383-0281",
            "178.34.55.101",
            "64.45.212.45",
        ] {
            assert!(!c(real), "{real}");
        }
    }
}
