//! Generated values for the no-leak properties.

use proptest::prelude::*;

/// A personal-looking address at a real mail provider.
pub fn email() -> impl Strategy<Value = String> {
    (
        "[a-z]{3,9}",
        "[a-z]{3,9}",
        prop::sample::select(vec!["gmail.com", "outlook.pt", "yahoo.fr"]),
    )
        .prop_map(|(a, b, d)| format!("{a}.{b}@{d}"))
}

/// An AWS access key id of the documented shape.
pub fn aws_key() -> impl Strategy<Value = String> {
    "[A-Z2-7]{16}".prop_map(|s| format!("AKIA{s}"))
}
