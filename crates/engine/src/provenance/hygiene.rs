//! Is a written hash a real sha256? Malformed values (`sha256:` not followed by exactly
//! 64 lower-case hex digits), placeholders (`abc123...`, all zeros, one repeated digit)
//! and the digest of the empty file are told apart so each gets its own message.

/// sha256 of zero bytes: a hash of "nothing" where content was expected.
pub const EMPTY_SHA256: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HashForm {
    Valid,
    Malformed,
    Placeholder,
    EmptyFile,
}

/// `0123456789abcdef` four times: a made-up digest.
const COUNTING: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// Judges a hash value as written, with or without the `sha256:` prefix. Allocates
/// nothing: it runs on every hash of every record.
pub fn classify(value: &str) -> HashForm {
    let hex = value.strip_prefix("sha256:").unwrap_or(value);
    // Nearly every value is well formed, and a well-formed value holds none of the
    // placeholder marks (`.`, `…`, `x`): those scans are for the others only.
    if !well_formed(hex) {
        // `abc123`, `def456` and friends are placeholders even when short.
        let starts = |p: &str| hex.get(..3).is_some_and(|h| h.eq_ignore_ascii_case(p));
        if has_placeholder_marks(hex)
            || starts("abc")
            || starts("def")
            || starts("ghi")
            || hex.is_empty()
        {
            return HashForm::Placeholder;
        }
        return HashForm::Malformed;
    }
    let first = hex.as_bytes()[0];
    if hex.bytes().all(|b| b == first) || hex == COUNTING {
        return HashForm::Placeholder;
    }
    if hex == EMPTY_SHA256 {
        return HashForm::EmptyFile;
    }
    HashForm::Valid
}

/// 64 lowercase hex digits.
fn well_formed(hex: &str) -> bool {
    hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// An ellipsis or a run of four `x`: `sha256:abc...`, `sha256:xxxx…`.
fn has_placeholder_marks(hex: &str) -> bool {
    let xs = |w: &[u8]| w.iter().all(|b| b.eq_ignore_ascii_case(&b'x'));
    hex.contains("...") || hex.contains('…') || hex.as_bytes().windows(4).any(xs)
}

/// The 64 hex digits of a valid value, for comparison.
pub fn hex_of(value: &str) -> &str {
    value.strip_prefix("sha256:").unwrap_or(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts() {
        let good = "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae";
        assert_eq!(classify(good), HashForm::Valid);
        assert_eq!(classify(&format!("sha256:{good}")), HashForm::Valid);
        assert_eq!(
            classify(&format!("sha256:{}", good.to_uppercase())),
            HashForm::Malformed
        );
        assert_eq!(classify("sha256:abc123..."), HashForm::Placeholder);
        assert_eq!(classify("sha256:def456"), HashForm::Placeholder);
        assert_eq!(
            classify(&format!("sha256:{}", "0".repeat(64))),
            HashForm::Placeholder
        );
        assert_eq!(
            classify(&format!("sha256:{}", "7".repeat(64))),
            HashForm::Placeholder
        );
        assert_eq!(
            classify(&format!("sha256:{}", &good[..63])),
            HashForm::Malformed
        );
        assert_eq!(classify(EMPTY_SHA256), HashForm::EmptyFile);
        assert_eq!(classify(COUNTING), HashForm::Placeholder);
        assert_eq!(classify("sha256:"), HashForm::Placeholder);
        assert_eq!(classify("sha256:ABC123"), HashForm::Placeholder);
        assert_eq!(classify("sha256:deadXxXx"), HashForm::Placeholder);
        assert_eq!(classify("sha256:…"), HashForm::Placeholder);
        assert_eq!(classify("sha256:xyz"), HashForm::Malformed);
    }

    proptest::proptest! {
        /// `judge` skips the placeholder scans for well-formed values: they must never
        /// find a mark in one.
        #[test]
        fn well_formed_values_hold_no_placeholder_marks(
            hex in "[0-9a-fxX.…]{60,68}|[0-9a-f]{64}|[0-9a-fA-F]{62,66}",
        ) {
            proptest::prop_assert!(!(well_formed(&hex) && has_placeholder_marks(&hex)));
        }
    }
}
