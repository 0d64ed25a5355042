//! No leak, as a property: generated values of several categories, embedded
//! in every format (text, JSON, JSONL, gzip, base64 inside JSON), are detected — so the
//! property is not vacuous — and never appear in full in any rendering of the report.
//! Fingerprints are keyed: the same value under two keys gives two fingerprints.

use crate::util::gzip;
use privacy_audit::config::Config;
use privacy_audit::finding::fingerprint::FingerprintKey;
use privacy_audit::report::{Format, Report, render};
use privacy_audit::scan::Scanner;
use proptest::prelude::*;
use std::sync::LazyLock;

static SCANNER: LazyLock<Scanner> = LazyLock::new(|| scanner([7u8; 32]));

fn scanner(key: [u8; 32]) -> Scanner {
    Scanner::from_config(Config::default(), FingerprintKey::from_bytes(key)).expect("scanner")
}

/// The value in each format, as (file name, bytes).
fn embeddings(v: &str) -> Vec<(&'static str, Vec<u8>)> {
    use base64::Engine;
    let line = serde_json::json!({"note": format!("reach {v} today")}).to_string();
    let b64 = base64::engine::general_purpose::STANDARD.encode(format!("contact {v} now"));
    vec![
        ("notes.txt", format!("see {v} here\n").into_bytes()),
        (
            "case.json",
            serde_json::to_vec_pretty(&serde_json::json!({"a": {"b": [v]}})).unwrap_or_default(),
        ),
        (
            "cases.jsonl",
            format!("{{\"x\": 1}}\n{line}\n").into_bytes(),
        ),
        ("run.jsonl.gz", gzip(&format!("{line}\n"))),
        (
            "blob.json",
            serde_json::json!({"attachment": b64})
                .to_string()
                .into_bytes(),
        ),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn no_rendering_holds_a_value_in_full(v in crate::util::values::any_value()) {
        for (name, bytes) in embeddings(&v) {
            let outcome = SCANNER.scan_blob(name, bytes);
            prop_assert!(!outcome.findings.is_empty(), "{name}: `{v}` was not detected");
            let rules = &SCANNER.rules;
            let report = Report::new(
                rules.sha256.clone(),
                std::time::SystemTime::now(),
                std::time::Duration::ZERO,
                vec![outcome.record],
                outcome.findings,
            );
            for format in [Format::Json, Format::Human, Format::Sarif] {
                let mut out = Vec::new();
                render(&report, format, rules, &Default::default(), &mut out).expect("render");
                let text = String::from_utf8_lossy(&out);
                prop_assert!(!text.contains(v.as_str()), "{name} {format:?} leaks `{v}`");
            }
        }
    }
}

#[test]
fn fingerprints_are_keyed() {
    let (a, b) = (scanner([1u8; 32]), scanner([2u8; 32]));
    let text = b"mail ion.popescu@gmail.com\n".to_vec();
    let fa = a.scan_blob("x.txt", text.clone()).findings;
    let fb = b.scan_blob("x.txt", text.clone()).findings;
    let fa2 = a.scan_blob("x.txt", text).findings;
    assert_eq!(fa.len(), 1);
    assert_eq!(
        fa[0].fingerprint, fa2[0].fingerprint,
        "stable under one key"
    );
    assert_ne!(
        fa[0].fingerprint, fb[0].fingerprint,
        "different under another key"
    );
}
