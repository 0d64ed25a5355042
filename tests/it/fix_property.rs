//! `fix` as a property: generated documents with planted values in string values,
//! object keys, nested JSON strings, base64, percent-encoding and `\u0040` spellings,
//! written as JSON, JSON lines and a two-member `.jsonl.gz`, are fixed on disk. Every
//! file still parses with the same shape, none of the planted values is left, a second
//! fix changes nothing, and the fix log holds no planted value.

use crate::util::values::any_value;
use privacy_audit::acceptance::RunPolicy;
use privacy_audit::config::Config;
use privacy_audit::finding::Confidence;
use privacy_audit::finding::fingerprint::FingerprintKey;
use privacy_audit::fix;
use privacy_audit::scan::Scanner;
use proptest::prelude::*;
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;

fn scanner() -> Scanner {
    let key = FingerprintKey::from_bytes([3u8; 32]);
    Scanner::from_config(Config::default(), key)
        .expect("scanner")
        .keeping_values()
}

/// Every confidence is fixed: the property is about what a rewrite does.
fn policy(s: &Scanner) -> RunPolicy {
    let p = RunPolicy::everything(s.key()).expect("policy");
    assert_eq!(p.min_confidence, Confidence::Low);
    p
}

/// A record holding `v` in a value, a key, a nested JSON string, base64 and a
/// percent-encoded URL.
fn record(v: &str, n: usize) -> Value {
    use base64::Engine;
    let nested = json!({"cfg": {"owner": v}}).to_string();
    let b64 = base64::engine::general_purpose::STANDARD.encode(format!("contact {v} now"));
    let pct: String = v
        .bytes()
        .map(|b| match b {
            b'@' | b'/' => format!("%{b:02X}"),
            b => char::from(b).to_string(),
        })
        .collect();
    json!({
        "id": n,
        "note": format!("reach {v} today"),
        "meta": {v: "seen", "list": [1, format!("at {v}"), null]},
        "tool_call": nested,
        "attachment": b64,
        "link": format!("https://docs.example/q?to={pct}&n=1"),
    })
}

fn gzip_member(text: &str) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(text.as_bytes()).expect("gzip");
    e.finish().expect("gzip")
}

/// The same shape: types, array lengths and object sizes; strings and keys may differ.
fn same_shape(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_shape(p, q))
        }
        // A planted key is rewritten, so it may sort elsewhere: matched by name where
        // it kept its name, else with a renamed key of the same shape.
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, p)| match y.get(k) {
                    Some(q) => same_shape(p, q),
                    None => y
                        .iter()
                        .any(|(k2, q)| !x.contains_key(k2) && same_shape(p, q)),
                })
        }
        (Value::String(_), Value::String(_)) => true,
        (p, q) => p == q,
    }
}

fn texts(dir: &Path) -> Vec<(String, Vec<Value>)> {
    let read = |name: &str| std::fs::read(dir.join(name)).expect("file");
    let lines = |bytes: &[u8]| -> Vec<Value> {
        bytes
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).expect("each line parses"))
            .collect()
    };
    let mut gz = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::MultiGzDecoder::new(read("runs.jsonl.gz").as_slice()),
        &mut gz,
    )
    .expect("gzip inflates");
    vec![
        (
            "case.json".into(),
            vec![serde_json::from_slice(&read("case.json")).expect("JSON parses")],
        ),
        ("cases.jsonl".into(), lines(&read("cases.jsonl"))),
        ("runs.jsonl.gz".into(), lines(&gz)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    #[test]
    fn fixed_files_parse_keep_their_shape_and_hold_no_planted_value(
        values in prop::collection::vec(any_value(), 1..4)
    ) {
        let dir = tempfile::tempdir().expect("tempdir");
        let records: Vec<Value> = values.iter().enumerate().map(|(i, v)| record(v, i)).collect();
        let pretty = serde_json::to_string_pretty(&json!({"records": records})).expect("json");
        std::fs::write(dir.path().join("case.json"), &pretty).expect("write");
        let lines: Vec<String> = records.iter().map(Value::to_string).collect();
        // Written as an escaping writer would: every `@` as `\u0040`.
        let escaped = (lines.join("\n") + "\n").replace('@', "\\u0040");
        std::fs::write(dir.path().join("cases.jsonl"), escaped).expect("write");
        let half = lines.len() / 2;
        let gz = [
            gzip_member(&(lines[..half].join("\n") + if half > 0 { "\n" } else { "" })),
            gzip_member(&(lines[half..].join("\n") + "\n")),
        ]
        .concat();
        std::fs::write(dir.path().join("runs.jsonl.gz"), gz).expect("write");
        let before = texts(dir.path());

        let s = scanner();
        // A value the scanner does not take for one (a home named `aaaaa` reads as a
        // placeholder) is not fix's to rewrite.
        let values: Vec<&String> = values
            .iter()
            .filter(|v| !s.scan_blob("probe.json", record(v, 0).to_string().into_bytes()).findings.is_empty())
            .collect();
        prop_assume!(!values.is_empty());
        let roots = [dir.path().to_path_buf()];
        let plan = fix::plan(&s, &roots, &policy(&s)).expect("plan");
        prop_assert!(!plan.changes.is_empty(), "nothing was planned for {values:?}");
        for file in &plan.files {
            fix::write::apply(file, None).expect("written");
        }
        let log = serde_json::to_string(&plan.log(true)).expect("log");
        let after = texts(dir.path());
        for ((name, a), (_, b)) in before.iter().zip(&after) {
            prop_assert_eq!(a.len(), b.len(), "{} lost records", name);
            for (x, y) in a.iter().zip(b) {
                prop_assert!(same_shape(x, y), "{name}: the shape changed");
            }
        }
        for entry in std::fs::read_dir(dir.path()).expect("dir") {
            let path = entry.expect("entry").path();
            let raw = std::fs::read(&path).expect("file");
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let rescan = s.scan_blob(&name, raw);
            for v in &values {
                let text = after.iter().map(|(_, vs)| serde_json::to_string(vs).unwrap_or_default()).collect::<String>();
                prop_assert!(!text.contains(v.as_str()), "`{v}` is still in the data");
                prop_assert!(!log.contains(v.as_str()), "the fix log holds `{v}`");
            }
            let planted: Vec<_> = rescan
                .findings
                .iter()
                .filter(|f| plan.changes.iter().any(|c| c.fingerprint == f.fingerprint))
                .map(|f| f.rule_id.clone())
                .collect();
            prop_assert!(planted.is_empty(), "{name}: found again after fix: {planted:?}");
        }
        let again = fix::plan(&s, &roots, &policy(&s)).expect("plan");
        prop_assert!(again.files.is_empty(), "a second fix would change {} files", again.files.len());
    }
}
