//! Tests of what a credential is not.
use super::*;

#[test]
fn a_uuid_stamped_with_a_clock_is_no_key_material() {
    // Version 1, 2023, a container's node: an identifier.
    assert!(!is_key_material(b"d2db5ec4-6e7a-11ee-b962-0242ac120002"));
    // Random (version 4), and version-1-shaped with no date in this era.
    assert!(is_key_material(b"3f9c2a71-8b4e-4d6a-9f1c-7e2b5a0d8c43"));
    assert!(is_key_material(b"3f9c2a71-8b4e-1d6a-9f1c-7e2b5a0d8c43"));
}

#[test]
fn rejects_non_credentials() {
    for v in [
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "550e8400-e29b-41d4-a716-446655440000",
        "<API_KEY>",
        "${DB_PASSWORD}",
        "xxxxxxxxxxxx",
        "your_api_key_here",
        "required",
    ] {
        assert!(!is_credential_like(v.as_bytes()), "{v}");
    }
    assert!(is_credential_like(b"Tr0ub4dor&3x"));
    assert!(!is_credential_like(b"xoxp-123-456-YourAccessTokenHere"));
}

#[test]
fn an_ethereum_address_is_public() {
    assert!(!is_credential_like(
        b"0x58d0d2f8a4e5b1c3e9f7a6b2c4d8e0f1a3b5c7d9"
    ));
    assert!(is_credential_like(
        b"0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
    ));
}

#[test]
fn a_verdict_under_a_bare_pass_is_no_password() {
    let secret = |v: &str, before: &str| is_secret_value(v.as_bytes(), before.as_bytes(), None);
    assert!(!secret("skipped-test", "pass: "));
    assert!(!secret("all_green", "test_pass = "));
    assert!(secret("Ui9-Op4a-kk", "smtp_pass = "));
    assert!(secret("hunter-two", "password: "));
}

#[test]
fn hex_in_both_cases_is_typed_by_hand() {
    assert!(is_filler(b"acdeFf05b1a6d4c890237bf08c5e6e8d2b4d0f2e"));
    assert!(!is_filler(b"acdef05b1a6d4c890237bf08c5e6e8d2b4d0f2e"));
    assert!(!is_filler(b"ACDEF05B1A6D4C890237BF08C5E6E8D2B4D0F2E"));
    // Base62 that is not all hex letters keeps its case.
    assert!(!is_filler(b"Qm9vW3xZpL8rT2vN6kJ4hD1s"));
    assert!(!is_filler(b"Ab3F"));
    assert!(!is_filler(b"ACd356c5f8315e1365d5f994ba93a0f4b7"));
}

#[test]
fn a_value_counted_out_in_short_runs_is_typed_by_hand() {
    assert!(is_filler(b"ABCD1234EFGH5678IJKL9012MNOP3456"));
    assert!(is_filler(b"abc123def456ghi789jkl012mno345pq"));
    assert!(is_filler(
        b"7e4abcdef456Ghijkl789mnopqr012stuvwx3455123abcdef456ghijkl789mnopqr012stuvwX"
    ));
    // Random keys count up now and then, never at half their places.
    assert!(!is_filler(b"Qm9vW3xZpL8rT2vN6kJ4hD1s"));
    assert!(!is_filler(
        b"8d4f2a9c6e1b7053f9a2c8e4d1b6f70a93c5e2d8b4a1f60c7e9d3b5a2f8c4e16"
    ));
    assert!(!is_filler(b"ab12cd34ef"));
}

#[test]
fn a_short_unit_repeated_is_filler_and_random_keys_are_not() {
    assert!(is_filler(b"GR134894112312312312312312312"));
    assert!(is_filler(
        b"xoxp-1234-1234-1234-4ddbc191d40ee098cbaae6f3523ada2d"
    ));
    assert!(is_filler(b"ghp_abababababababcdXyZ9k2Lm4Pq7Rs8Tu"));
    // Longer units, typed by hand: a word of hex, a keyboard pattern.
    assert!(is_filler(b"deadbeefdeadbeefdeadbeefdeadbeef"));
    assert!(is_filler(b"q1W2e3R4q1W2e3R4q1W2e3R4q1W2e3R4"));
    // Eight characters seen once more only in part: chance in random hex.
    assert!(!repeated_unit(b"9f2c4e819f2cb07d3a65c1e8f4b29a0d"));
    for random in [
        "ghp_x7Kq2mP9vL4nR8tW3yB6cF1dH5jZ0sA2eG7u",
        "AAAAAAAAAAAAAAAAAAAAAJXVLTPoli7GZaUizBF1YcgMR99YARHZhxQkT5XOPlx",
        "3c9e1f07a4b82d65e0c7f19a84b3d26e5f0a1c97",
    ] {
        assert!(!repeated_unit(random.as_bytes()), "{random}");
    }
}

#[test]
fn short_placeholder_words_count_only_standing_apart() {
    assert!(is_placeholder("token-none"));
    assert!(is_placeholder("tbd"));
    // Angle brackets stand in only as a pair or at an end.
    assert!(is_placeholder("<password>"));
    assert!(is_placeholder("<%= env[\"key\"] %>"));
    assert!(is_placeholder("key-<redacted>"));
    assert!(!is_placeholder("bq7;kn>l2wj33gb>x"));
    assert!(is_placeholder("neo4j:[password]"));
    assert!(!is_placeholder("(k)7nw[^+2$qadz@]*4rm"));
    // `none` and `tbd` inside random characters are chance, not a placeholder.
    assert!(!is_placeholder("q8nonez7tbdk2"));
    assert!(is_placeholder("sk-abc123xyz"));
}

#[test]
fn the_next_lines_name_is_no_value() {
    assert!(!is_credential_like(b"jdbc.snowflake.url="));
    assert!(is_credential_like(b"cGFzc3dvcmQxMjM="));
}

#[test]
fn filler_is_one_character_whatever_separates_it() {
    assert!(is_filler(b"00000000-0000-0000-0000-000000000000"));
    assert!(is_filler(b"sk-lf-aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"));
    assert!(!is_filler(b"e7a13c5f-9b2d-4e86-a0f1-3c7d5b9e2a64"));
    assert!(is_filler(b"sgp_5555555dAAAAA7777777CcccCFaaaaaaaaaaaaaa"));
    assert!(!is_filler(b"sgp_7C3e0a9DbF1482e6A5c09d3BE7f1a24c60b8D95e"));
    assert!(!is_filler(
        b"AAAAAAAAAAAAAAAAAAAAAJXq8RbN4yZc1dHf7sPa4Ue6gVi0bQXo3vB9qLm2TzR8wKc5YjN1dHf7sPa4"
    ));
}

#[test]
fn basic_credentials_are_judged_decoded() {
    use base64::Engine;
    let enc = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    assert!(is_basic_credential(enc("ana:S3cure!pw").as_bytes()));
    assert!(is_basic_credential(
        enc("ci-bot:J7qM2xV9nL4w").trim_end_matches('=').as_bytes()
    ));
    for stand_in in [
        "user:password",
        "admin:admin",
        "me:${TOKEN}",
        "nocolon",
        "u:abc",
    ] {
        assert!(!is_basic_credential(enc(stand_in).as_bytes()), "{stand_in}");
    }
    assert!(!is_basic_credential(b"not base64!"));
    // One mistyped byte in a long password still leaves the pair readable; a
    // damaged user name, or a password mostly damaged, is no pair.
    let engine = base64::engine::general_purpose::STANDARD;
    let damaged = |s: &[u8]| engine.encode(s);
    assert!(is_basic_credential(
        damaged(b"svc-eval:vzcAdasejf\x95ZbP76UBc43MT11").as_bytes()
    ));
    assert!(!is_basic_credential(
        damaged(b"sv\xffc:vzcAdasejfZbP76").as_bytes()
    ));
    assert!(!is_basic_credential(
        damaged(b"svc:\x95\xfe\x81\xc0ab").as_bytes()
    ));
    assert!(is_credential_like(b"s3cr3t-v4lue-91"));
}

#[test]
fn two_sequences_counted_side_by_side_are_filler() {
    assert!(is_filler(b"a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8NRAL"));
    assert!(is_filler(b"px-api-a1b2c3d4-e5f6-g7h8-i8j0-k0l3m3n4o0p5"));
    assert!(is_filler(b"1a2b3c4d5e6f7g8h9i"));
    assert!(!is_filler(b"a1b2c3d4"));
    assert!(!is_filler(b"Qm9vW3xZpL8rT2vN6kJ4hD1s"));
    assert!(!is_filler(b"e7a13c5f-9b2d-4e86-a0f1-3c7d5b9e2a64"));
}
