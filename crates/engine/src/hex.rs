//! Lower-case hex encoding (sha2 0.11 digests no longer implement `LowerHex`), and
//! URLs' `%XX` escapes, which detection and the decoding layers both read.

pub fn encode(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(DIGITS[(b >> 4) as usize] as char);
        out.push(DIGITS[(b & 0x0f) as usize] as char);
    }
    out
}

pub fn decode(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// One hex digit's value, either case.
pub fn digit(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// `%XX` escapes decoded; a `%` that opens no escape is kept as it is.
pub fn percent_decode(text: &[u8]) -> Vec<u8> {
    let digit = |b: Option<&u8>| b.copied().and_then(digit);
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'%'
            && let (Some(h), Some(l)) = (digit(text.get(i + 1)), digit(text.get(i + 2)))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(text[i]);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_trips() {
        assert_eq!(super::encode(&[0x00, 0xab, 0xff]), "00abff");
        assert_eq!(super::decode("00abff"), Some(vec![0x00, 0xab, 0xff]));
        assert_eq!(super::decode("0g"), None);
    }
}
