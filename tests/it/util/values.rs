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

/// One value of each category the no-leak properties plant: an address, a key, a
/// public IP, a home path, an internal host.
pub fn any_value() -> impl Strategy<Value = String> {
    prop_oneof![
        email(),
        aws_key(),
        (11u8..99, 1u8..254, 1u8..254, 2u8..254)
            .prop_map(|(a, b, c, d)| format!("{a}.{b}.{c}.{d}")),
        ("[a-z]{5,10}", "[a-z]{3,8}").prop_map(|(u, f)| format!("/home/{u}/runs/{f}")),
        ("[a-z]{3,8}", 2u16..250).prop_map(|(h, n)| format!("gpu-{n}.{h}.internal")),
    ]
}

/// A PEM RSA private key block whose body is key material that never repeats itself (a
/// body of one unit over and over is filler); `seed` makes another one.
pub fn rsa_key_block(seed: u32) -> String {
    use base64::Engine;
    let bytes: Vec<u8> = (0u32..270)
        .map(|i| ((i + seed).wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
    let body: String = b64
        .as_bytes()
        .chunks(60)
        .map(|c| format!("{}\n", String::from_utf8_lossy(c)))
        .collect();
    format!("-----BEGIN RSA PRIVATE KEY-----\n{body}-----END RSA PRIVATE KEY-----\n")
}
