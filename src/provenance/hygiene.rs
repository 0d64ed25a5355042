//! Is a written hash a real sha256? Malformed values (`sha256:` not followed by exactly
//! 64 lower-case hex digits), placeholders (`abc123...`, all zeros, one repeated digit)
//! and the digest of the empty file are told apart so each gets its own message.

/// sha256 of zero bytes: a hash of "nothing" where content was expected.
pub const EMPTY_SHA256: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Valid,
    Malformed,
    Placeholder,
    EmptyFile,
}

/// `0123456789abcdef` four times: a made-up digest.
const COUNTING: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// Judges a hash value as written, with or without the `sha256:` prefix. Allocates
/// nothing: it runs on every hash of every record.
pub fn judge(value: &str) -> Verdict {
    let hex = value.strip_prefix("sha256:").unwrap_or(value);
    // 64 lowercase hex digits hold no `.`, `…` or `x`: the placeholder scans below
    // cannot match, and nearly every value is one of these.
    let well_formed =
        hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    let xs = |w: &[u8]| w.iter().all(|b| b.eq_ignore_ascii_case(&b'x'));
    if !well_formed
        && (hex.contains("...") || hex.contains('…') || hex.as_bytes().windows(4).any(xs))
    {
        return Verdict::Placeholder;
    }
    if !well_formed {
        // `abc123`, `def456` and friends are placeholders even when short.
        let starts = |p: &str| hex.get(..3).is_some_and(|h| h.eq_ignore_ascii_case(p));
        if starts("abc") || starts("def") || starts("ghi") || hex.is_empty() {
            return Verdict::Placeholder;
        }
        return Verdict::Malformed;
    }
    let first = hex.as_bytes()[0];
    if hex.bytes().all(|b| b == first) || hex == COUNTING {
        return Verdict::Placeholder;
    }
    if hex == EMPTY_SHA256 {
        return Verdict::EmptyFile;
    }
    Verdict::Valid
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
        assert_eq!(judge(good), Verdict::Valid);
        assert_eq!(judge(&format!("sha256:{good}")), Verdict::Valid);
        assert_eq!(
            judge(&format!("sha256:{}", good.to_uppercase())),
            Verdict::Malformed
        );
        assert_eq!(judge("sha256:abc123..."), Verdict::Placeholder);
        assert_eq!(judge("sha256:def456"), Verdict::Placeholder);
        assert_eq!(
            judge(&format!("sha256:{}", "0".repeat(64))),
            Verdict::Placeholder
        );
        assert_eq!(
            judge(&format!("sha256:{}", "7".repeat(64))),
            Verdict::Placeholder
        );
        assert_eq!(
            judge(&format!("sha256:{}", &good[..63])),
            Verdict::Malformed
        );
        assert_eq!(judge(EMPTY_SHA256), Verdict::EmptyFile);
        assert_eq!(judge(COUNTING), Verdict::Placeholder);
        assert_eq!(judge("sha256:"), Verdict::Placeholder);
        assert_eq!(judge("sha256:ABC123"), Verdict::Placeholder);
        assert_eq!(judge("sha256:deadXxXx"), Verdict::Placeholder);
        assert_eq!(judge("sha256:…"), Verdict::Placeholder);
        assert_eq!(judge("sha256:xyz"), Verdict::Malformed);
    }

    /// The verdict as first written: every placeholder scan before the shape check.
    fn judge_in_order(value: &str) -> Verdict {
        let hex = value.strip_prefix("sha256:").unwrap_or(value);
        let xs = |w: &[u8]| w.iter().all(|b| b.eq_ignore_ascii_case(&b'x'));
        if hex.contains("...") || hex.contains('…') || hex.as_bytes().windows(4).any(xs) {
            return Verdict::Placeholder;
        }
        if hex.len() != 64 || !hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            let starts = |p: &str| hex.get(..3).is_some_and(|h| h.eq_ignore_ascii_case(p));
            if starts("abc") || starts("def") || starts("ghi") || hex.is_empty() {
                return Verdict::Placeholder;
            }
            return Verdict::Malformed;
        }
        let first = hex.as_bytes()[0];
        if hex.bytes().all(|b| b == first) || hex == COUNTING {
            return Verdict::Placeholder;
        }
        if hex == EMPTY_SHA256 {
            return Verdict::EmptyFile;
        }
        Verdict::Valid
    }

    proptest::proptest! {
        /// Checking the shape first only skips scans that cannot match.
        #[test]
        fn shape_first_changes_no_verdict(
            prefix in proptest::bool::ANY,
            body in "[0-9a-fxX.…]{60,68}|[0-9a-f]{64}|[0-9a-fA-F]{62,66}",
        ) {
            let value = if prefix { format!("sha256:{body}") } else { body };
            proptest::prop_assert_eq!(judge(&value), judge_in_order(&value));
        }
    }
}
