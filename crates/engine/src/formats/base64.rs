//! Base64 as writers leave it: padding optional and stray trailing bits allowed, in the
//! standard and the URL-safe alphabet. One pair of engines for the decoding layer and
//! for the checks that read what a value encodes.

use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use std::sync::LazyLock;

fn lenient(alphabet: &base64::alphabet::Alphabet) -> GeneralPurpose {
    GeneralPurpose::new(
        alphabet,
        GeneralPurposeConfig::new()
            .with_decode_padding_mode(DecodePaddingMode::Indifferent)
            .with_decode_allow_trailing_bits(true),
    )
}

pub static STANDARD: LazyLock<GeneralPurpose> =
    LazyLock::new(|| lenient(&base64::alphabet::STANDARD));
pub static URL_SAFE: LazyLock<GeneralPurpose> =
    LazyLock::new(|| lenient(&base64::alphabet::URL_SAFE));
