//! Personal data that has a checksum or a structure to check: payment cards (Luhn and
//! issuer prefix), IBANs (mod-97), US SSNs, Romanian CNPs, Spanish DNI/NIE, and phones.

use super::validators::Candidate;

/// No number these validators accept has more digits (a phone has at most 15).
const MAX_DIGITS: usize = 24;

/// The digit values of `value`, without allocating (validators run on every candidate,
/// and most candidates are timestamps and ids they reject); `None` past [`MAX_DIGITS`].
struct Digits {
    buf: [u8; MAX_DIGITS],
    len: usize,
}

impl std::ops::Deref for Digits {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

fn digits(value: &[u8]) -> Option<Digits> {
    let mut d = Digits {
        buf: [0; MAX_DIGITS],
        len: 0,
    };
    for b in value.iter().filter(|b| b.is_ascii_digit()) {
        *d.buf.get_mut(d.len)? = b - b'0';
        d.len += 1;
    }
    Some(d)
}

fn all_same(d: &[u8]) -> bool {
    d.windows(2).all(|w| w[0] == w[1])
}

pub fn luhn(d: &[u8]) -> bool {
    let sum: u32 = d
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &x)| {
            let x = u32::from(x);
            if i % 2 == 1 {
                let y = x * 2;
                if y > 9 { y - 9 } else { y }
            } else {
                x
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

pub fn is_card(value: &[u8]) -> bool {
    let Some(d) = digits(value) else {
        return false;
    };
    if !(13..=19).contains(&d.len()) || all_same(&d) || !luhn(&d) {
        return false;
    }
    let prefix = |n: usize| d[..n].iter().fold(0u32, |a, &x| a * 10 + u32::from(x));
    match d[0] {
        4 => true,                                             // Visa
        5 => (51..=55).contains(&prefix(2)),                   // Mastercard
        2 => (2221..=2720).contains(&prefix(4)),               // Mastercard 2-series
        3 => matches!(prefix(2), 34 | 37 | 35 | 36 | 38 | 30), // Amex, JCB, Diners
        6 => matches!(prefix(2), 60 | 62 | 64 | 65),           // Discover, UnionPay
        _ => false,
    }
}

/// BBAN lengths (total IBAN length) of the countries seen most; others 15–34.
fn iban_length(country: &str) -> Option<usize> {
    Some(match country {
        "AT" => 20,
        "BE" => 16,
        "BG" => 22,
        "CH" => 21,
        "CY" => 28,
        "CZ" => 24,
        "DE" => 22,
        "DK" => 18,
        "EE" => 20,
        "ES" => 24,
        "FI" => 18,
        "FR" => 27,
        "GB" => 22,
        "GR" => 27,
        "HR" => 21,
        "HU" => 28,
        "IE" => 22,
        "IT" => 27,
        "LT" => 20,
        "LU" => 20,
        "LV" => 21,
        "MT" => 31,
        "NL" => 18,
        "NO" => 15,
        "PL" => 28,
        "PT" => 25,
        "RO" => 24,
        "SE" => 24,
        "SI" => 19,
        "SK" => 24,
        _ => return None,
    })
}

pub fn is_iban(value: &[u8]) -> bool {
    // On the stack: this runs for every digit-group candidate the IBAN rule keeps.
    let mut buf = [0u8; 34];
    let mut len = 0;
    for &b in value {
        if b.is_ascii_whitespace() || b == b'-' {
            continue;
        }
        if len == buf.len() || !b.is_ascii_alphanumeric() {
            return false;
        }
        buf[len] = b.to_ascii_uppercase();
        len += 1;
    }
    let s = &buf[..len];
    if s.len() < 15 {
        return false;
    }
    let country = String::from_utf8_lossy(&s[..2]);
    match iban_length(&country) {
        Some(len) if len != s.len() => return false,
        _ => {}
    }
    // Move the first four characters to the end; letters become 10..35; mod 97 == 1.
    let mut rem: u32 = 0;
    for &b in s[4..].iter().chain(&s[..4]) {
        let v = if b.is_ascii_digit() {
            u32::from(b - b'0')
        } else {
            u32::from(b - b'A') + 10
        };
        rem = if v >= 10 {
            (rem * 100 + v) % 97
        } else {
            (rem * 10 + v) % 97
        };
    }
    rem == 1
}

pub fn is_ssn(value: &[u8]) -> bool {
    let Some(d) = digits(value) else {
        return false;
    };
    if d.len() != 9 || all_same(&d) {
        return false;
    }
    let area = u32::from(d[0]) * 100 + u32::from(d[1]) * 10 + u32::from(d[2]);
    let group = u32::from(d[3]) * 10 + u32::from(d[4]);
    let serial = d[5..].iter().fold(0u32, |a, &x| a * 10 + u32::from(x));
    // Advertised and documentation samples (Woolworth wallet, 123-45-6789).
    let sample = matches!(
        (area, group, serial),
        (78, 5, 1120) | (219, 9, 9999) | (123, 45, 6789)
    );
    area != 0 && area != 666 && area < 900 && group != 0 && serial != 0 && !sample
}

pub fn is_ro_cnp(value: &[u8]) -> bool {
    let Some(d) = digits(value) else {
        return false;
    };
    if d.len() != 13 || d[0] == 0 {
        return false;
    }
    let month = d[3] * 10 + d[4];
    let day = d[5] * 10 + d[6];
    let county = d[7] * 10 + d[8];
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || !(1..=52).contains(&county) {
        return false;
    }
    const WEIGHTS: [u32; 12] = [2, 7, 9, 1, 4, 6, 3, 5, 8, 2, 7, 9];
    let sum: u32 = d[..12]
        .iter()
        .zip(WEIGHTS)
        .map(|(&x, w)| u32::from(x) * w)
        .sum();
    let check = match sum % 11 {
        10 => 1,
        r => r,
    };
    check == u32::from(d[12])
}

pub fn is_es_dni(value: &[u8]) -> bool {
    const LETTERS: &[u8; 23] = b"TRWAGMYFPDXBNJZSQVHLCKE";
    let s: Vec<u8> = value
        .iter()
        .filter(|b| b.is_ascii_alphanumeric())
        .map(u8::to_ascii_uppercase)
        .collect();
    if s.len() != 9 {
        return false;
    }
    let (first, rest) = (s[0], &s[1..8]);
    let lead = match first {
        b'X' => 0,
        b'Y' => 1,
        b'Z' => 2,
        b'0'..=b'9' => u32::from(first - b'0'),
        _ => return false,
    };
    if !rest.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let n = rest.iter().fold(lead, |a, &x| a * 10 + u32::from(x - b'0'));
    let digits_only = &s[..8];
    !all_same(digits_only) && LETTERS[(n % 23) as usize] == s[8]
}

pub fn is_phone(c: &Candidate<'_>) -> bool {
    let Some(d) = digits(c.value) else {
        return false;
    };
    if all_same(&d) || d.len() < 8 || d.len() > 15 || looks_like_date(c.value) {
        return false;
    }
    let international = c.value.first() == Some(&b'+') || c.value.starts_with(b"00");
    // +1 is North America: country code plus exactly ten digits.
    if c.value.starts_with(b"+1")
        && !c.value.get(2).is_some_and(u8::is_ascii_digit)
        && d.len() != 11
    {
        return false;
    }
    if !international && d.len() > 11 {
        return false;
    }
    if !international {
        // North American numbers: NXX 555 with line 0100–0199 is reserved for fiction.
        let national = if d.len() == 11 && d[0] == 1 {
            &d[1..]
        } else {
            &d[..]
        };
        if national.len() == 10
            && national[3..6] == [5, 5, 5]
            && national[6] == 0
            && national[7] == 1
        {
            return false;
        }
    } else if d.len() >= 11 && d[..1] == [1] && d[4..7] == [5, 5, 5] && d[7] == 0 && d[8] == 1 {
        return false;
    }
    true
}

/// `01.02.2025`, `05-11-2024 10`: day, month, then a 19xx/20xx year.
fn looks_like_date(value: &[u8]) -> bool {
    let year = |g: &[u8]| g.len() == 4 && (g.starts_with(b"19") || g.starts_with(b"20"));
    let mut groups = value
        .split(|b| !b.is_ascii_digit())
        .filter(|g| !g.is_empty());
    let Some(first) = groups.next() else {
        return false;
    };
    if year(first) {
        return true;
    }
    // The two groups before each one: day and month before a year.
    let (mut before, mut last) = (None::<&[u8]>, first);
    for g in groups {
        if before.is_some_and(|b| b.len() <= 2) && last.len() <= 2 && year(g) {
            return true;
        }
        (before, last) = (Some(last), g);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums() {
        assert!(is_card(b"4111 1111 1111 1111"));
        assert!(!is_card(b"4111 1111 1111 1112"));
        assert!(!is_card(b"1734567890120")); // epoch millis, no issuer
        assert!(is_iban(b"GB82 WEST 1234 5698 7654 32"));
        assert!(is_iban(b"DE89370400440532013000"));
        assert!(!is_iban(b"DE89370400440532013001"));
        assert!(is_ssn(b"536-22-1844"));
        assert!(!is_ssn(b"666-22-1844"));
        assert!(!is_ssn(b"123-45-6789"));
        assert!(is_ro_cnp(b"1800101221144"));
        assert!(!is_ro_cnp(b"1800101221145"));
        assert!(is_es_dni(b"12345678Z"));
        assert!(!is_es_dni(b"12345678A"));
        assert!(is_es_dni(b"X1234567L"));
    }

    #[test]
    fn dates_are_told_from_phone_numbers() {
        for date in [
            "01.02.2025",
            "05-11-2024 10",
            "2024-05-01",
            "1 2 1999",
            "x 3/4/2020",
        ] {
            assert!(looks_like_date(date.as_bytes()), "{date}");
        }
        for other in [
            "12 34 5678",
            "123 45 2001",
            "+40 721 234 567",
            "",
            "-",
            "2 1999",
        ] {
            assert!(!looks_like_date(other.as_bytes()), "{other}");
        }
    }

    #[test]
    fn too_many_digits_is_no_number() {
        let long = "4".repeat(MAX_DIGITS + 1);
        assert!(digits(long.as_bytes()).is_none());
        assert_eq!(digits(b"12-34").map(|d| d.to_vec()), Some(vec![1, 2, 3, 4]));
        assert!(!is_card(long.as_bytes()));
    }
}
