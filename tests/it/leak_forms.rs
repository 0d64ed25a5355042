//! No value leaks in another form: a planted value is reported, and no rendering of
//! the report holds it in clear, full-width, percent-encoded, base64 or JSON-escaped —
//! not through the excerpt of a neighbouring finding, a pointer, a message, or the
//! file's name. And every blob the gate is given is judged or fails the run.

use privacy_audit::report::{FileStatus, Format, Report, render};
use privacy_audit::scan::Scanner;
use proptest::prelude::*;
use std::sync::LazyLock;

static SCANNER: LazyLock<Scanner> = LazyLock::new(|| crate::util::scanner(9));

fn value() -> impl Strategy<Value = String> {
    prop_oneof![crate::util::values::email(), crate::util::values::aws_key(),]
}

fn full_width(v: &str) -> String {
    v.chars()
        .map(|c| match c {
            '!'..='~' => char::from_u32(c as u32 - 0x21 + 0xFF01).unwrap_or(c),
            c => c,
        })
        .collect()
}

fn percent(v: &str) -> String {
    v.bytes().map(|b| format!("%{b:02X}")).collect()
}

fn base64(v: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(v)
}

fn json_escaped(v: &str) -> String {
    v.chars().map(|c| format!("\\u{:04x}", c as u32)).collect()
}

/// Every form of `v` that must never be printed.
fn forms(v: &str) -> Vec<String> {
    vec![
        v.to_string(),
        full_width(v),
        percent(v),
        base64(v),
        json_escaped(v),
    ]
}

fn rendered(report: &Report) -> String {
    let mut text = String::new();
    for format in [Format::Json, Format::Human, Format::Sarif] {
        let mut out = Vec::new();
        render(
            report,
            format,
            &SCANNER.rules,
            &Default::default(),
            &mut out,
        )
        .expect("render");
        text.push_str(&String::from_utf8_lossy(&out));
    }
    text
}

fn report_of(name: &str, bytes: Vec<u8>) -> Report {
    let outcome = SCANNER.scan_blob(name, bytes);
    Report::new(
        SCANNER.rules.sha256.clone(),
        std::time::SystemTime::now(),
        std::time::Duration::ZERO,
        vec![outcome.record],
        outcome.findings,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, .. ProptestConfig::default() })]

    /// The value and its disguised copies side by side in one line, as a key, in the
    /// file's name, and beside an undetected token.
    #[test]
    fn no_form_of_a_value_is_printed(v in value(), hex in "[0-9a-f]{40}", wide in any::<bool>()) {
        let line = format!(
            "{v} {} {} {} x={} tok='{hex}'",
            full_width(&v),
            percent(&v),
            base64(&v),
            json_escaped(&v)
        );
        let doc = serde_json::json!({ v.clone(): { "note": line } }).to_string();
        let bytes = if wide {
            let mut b = vec![0xFF, 0xFE];
            b.extend(doc.encode_utf16().flat_map(u16::to_le_bytes));
            b
        } else {
            doc.into_bytes()
        };
        let name = format!("data/{v}.json");
        let report = report_of(&name, bytes);
        prop_assert!(report.findings.len() >= 2, "`{v}` not detected: {:?}", report.findings);
        prop_assert!(
            report.findings.iter().any(|f| f.message.contains("file name")),
            "the name was not judged"
        );
        let text = rendered(&report);
        for form in forms(&v) {
            prop_assert!(!text.contains(&form), "`{form}` printed:\n{text}");
        }
        prop_assert!(!text.contains(&hex), "the undetected token was printed");
    }

    /// Whatever the bytes, a blob is judged, or its record fails the run, or its kind
    /// is one the configuration lets pass (and its printable text was still scanned).
    #[test]
    fn every_blob_is_judged_or_fails(bytes in prop::collection::vec(any::<u8>(), 0..2048), v in value()) {
        let mut content = bytes;
        content.extend_from_slice(format!(" {v} ").as_bytes());
        let outcome = SCANNER.scan_blob("blob.dat", content);
        let r = &outcome.record;
        match r.status {
            FileStatus::Scanned => {}
            FileStatus::Skipped => prop_assert!(
                r.error || r.reason.as_deref().is_some_and(|x| x.starts_with("binary")),
                "skipped silently: {:?}", r.reason
            ),
        }
        // Text, wide text or binary: the planted value is found in every case.
        prop_assert!(!outcome.findings.is_empty(), "`{v}` missed ({:?})", r.reason);
    }
}
