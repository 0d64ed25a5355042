//! Object keys that open no search are left out of the text detection reads, with a
//! two-character stand-in (`src/scan/keys.rs`). These tests guard that shortcut: the
//! findings are the same with and without it on records built to make neighbours
//! interact, a key that leaks is reported on every record, repeated keys do not move
//! later findings, and in a file of ever-new keys every key is read.

use crate::util::*;
use privacy_audit::config::Config;
use privacy_audit::finding::fingerprint::FingerprintKey;
use privacy_audit::scan::Scanner;
use proptest::prelude::*;
use std::sync::LazyLock;

static SCANNERS: LazyLock<[Scanner; 2]> = LazyLock::new(|| scanners(Config::default()));

/// The same rules with key gaps (which they must allow) and without.
fn scanners(config: Config) -> [Scanner; 2] {
    let scanner = |gaps: bool| {
        let rules = privacy_audit::scan::load_rules(&config).expect("rules");
        assert!(rules.key_gaps, "these rules allow key gaps");
        let rules = if gaps {
            rules
        } else {
            rules.without_key_gaps()
        };
        Scanner::new(config.clone(), rules, FingerprintKey::from_bytes([3; 32])).expect("scanner")
    };
    [scanner(true), scanner(false)]
}

/// Every finding of `data` as `name`, rendered whole, with key gaps and without.
fn both(scanners: &[Scanner; 2], name: &str, data: &str) -> [String; 2] {
    scanners.each_ref().map(|s| {
        let found = s.scan_blob(name, data.as_bytes().to_vec()).findings;
        serde_json::to_string_pretty(&found).expect("serializes")
    })
}

/// A record that is not JSON is taken back out of its unit, gaps included: the
/// unwrap layer's "no line breaks here" shortcut counts them.
#[test]
fn a_bad_line_takes_its_key_gaps_back() {
    let data = concat!(
        r#"{"record_type":"a","case_id":"b"} x"#,
        "\n",
        r#"{"note":"ghp_8mZq2LkP0vX7rT4n\nB9sW1cY6dE3fH5jK2lM0"}"#,
        "\n",
    );
    let [gaps, whole] = both(&SCANNERS, "cases/r.jsonl", data);
    assert!(whole.contains("secret.github_token"), "{whole}");
    assert_eq!(gaps, whole);
}

/// Units are cut where they would be with every key in them: values that share a unit
/// can share a window, so the cut must not move with the gaps.
#[test]
fn units_are_cut_where_they_would_be_with_every_key() {
    let filler = "lorem ipsum dolor sit amet ".repeat(37);
    let mut records = Vec::new();
    // Unit text per record: `record_type`, `\n`, the value, and `\n` between records.
    let mut unit_len = 0;
    while unit_len + 2 * (filler.len() + 14) < (1 << 20) {
        unit_len += usize::from(unit_len > 0) + 11 + 1 + filler.len();
        records.push(format!(r#"{{"record_type":"{filler}"}}"#));
    }
    // One more record brings the text with keys to 5 bytes short of the 1 MiB cut.
    let last = "x".repeat((1 << 20) - 5 - (unit_len + 1 + 11 + 1));
    records.push(format!(r#"{{"record_type":"{last}"}}"#));
    records.push(r#"{"note":"password:"}"#.to_string());
    records.push(r#"{"pass_Xk9mQ2vLp7Tz":"v"}"#.to_string());
    let data = records.join("\n") + "\n";
    let [gaps, whole] = both(&SCANNERS, "cases/big.jsonl", &data);
    assert_eq!(gaps, whole);
}

/// A user rule whose matches need not hold its keyword: a window of a single-line rule
/// must still stay inside its segment, or it reads a neighbouring key.
#[test]
fn single_line_windows_stay_in_their_segment() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rule = "[[rule]]\nid = \"custom.snake\"\ncategory = \"secret\"\nseverity = \"low\"\n\
                description = \"snake case near zq\"\nkeywords = [\"zq\"]\n\
                regex = '[a-z]+_[a-z]+'\n";
    std::fs::write(dir.path().join("snake.toml"), rule).expect("write");
    let mut config = Config::default();
    config.rules.dirs = vec![dir.path().to_path_buf()];
    let data = concat!(r#"{"record_type":"v","a":["zq","zq x\ny"]}"#, "\n");
    let [gaps, whole] = both(&scanners(config), "cases/r.jsonl", data);
    assert_eq!(gaps, whole);
    assert!(
        !whole.contains("custom.snake"),
        "no window reads the key: {whole}"
    );
}

/// Keys that open nothing (left out), short ones, and ones that hold a keyword, a
/// digit, an encoding or a leak (kept), and generated ones.
fn key() -> impl Strategy<Value = String> {
    let listed = prop::sample::select(vec![
        "record_type",
        "case_id",
        "summary_semantics_text",
        "variant_id",
        "abc",
        "ab",
        "a",
        "é_clé_ü",
        "ＡＢＣ",
        "a%41b",
        "QUtJQUlPU0ZPRE5ON0VYQU1QTEU",
        "x_token_y",
        "k1234567",
        "home",
        "users",
        "ana",
        "password",
        "ion.popescu@gmail.com",
        "Z",
        "_",
        "-",
    ])
    .prop_map(String::from);
    prop_oneof![3 => listed, 1 => "[a-zé_%0-9]{1,12}"]
}

/// Halves and wholes of leaks, so a value and the next one could combine.
fn text() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "password:",
        "hunter2!Secret",
        "ion.popescu@gmail.com",
        "ion.popescu@",
        "gmail.com",
        "123-45-6789",
        "123",
        "-45-6789",
        "/home/ana/notes.txt",
        "/home/",
        "ana",
        "10.1.2.3",
        "10.1.2.",
        "C:\\Users\\ana",
        "+40 721 234 567",
        "ghp_8mZq2LkP0vX7rT4nB9sW1cY6dE3fH5jK2lM0",
        "aW9uLnBvcGVzY3VAZ21haWwuY29t",
        "4111111111111111",
        "1732550400000",
        "ok",
        "",
        " ",
        "Traceback (most recent call last)",
        "gpu-17.ml.internal",
        "é",
        "ghp_8mZq2LkP0vX7rT4n\n  B9sW1cY6dE3fH5jK2lM0",
        "line one\nline two",
        "a\r\nb",
    ])
    .prop_map(String::from)
}

fn value() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        text().prop_map(|t| serde_json::to_string(&t).expect("a string")),
        (text(), text()).prop_map(|(a, b)| serde_json::to_string(&format!("{a} {b}")).expect("s")),
        prop::sample::select(vec![
            "1",
            "1732550400000",
            "4111111111111111",
            "true",
            "null"
        ])
        .prop_map(String::from),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            (key(), inner.clone()).prop_map(|(k, v)| format!("{{{}:{v}}}", quoted(&k))),
            prop::collection::vec(inner, 0..3).prop_map(|v| format!("[{}]", v.join(","))),
        ]
    })
}

fn quoted(s: &str) -> String {
    serde_json::to_string(s).expect("a string")
}

/// A record, sometimes followed by junk or cut short (a bad line, read as text).
fn record() -> impl Strategy<Value = String> {
    let members = prop::collection::vec((key(), value()), 1..6);
    (members, 0..8u8).prop_map(|(members, bad)| {
        let body: Vec<String> = members
            .iter()
            .map(|(k, v)| format!("{}:{v}", quoted(k)))
            .collect();
        let record = format!("{{{}}}", body.join(","));
        match bad {
            0 => format!("{record} x"),
            1 => record[..record.len() - 1].to_string(),
            _ => record,
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Leaving keys out never changes a finding: same rules, places, pointers,
    /// excerpts and fingerprints as reading every key.
    #[test]
    fn key_gaps_change_no_finding(records in prop::collection::vec(record(), 1..12)) {
        let data = records.join("\n") + "\n";
        let [gaps, whole] = both(&SCANNERS, "cases/records.jsonl", &data);
        prop_assert_eq!(gaps, whole);
    }
}

/// `(path, line, column, pointer, category, rule_id)`, as [`findings`] gives them.
type Found = Vec<(String, u64, u64, Option<String>, String, String)>;

fn scan_lines(lines: &[String]) -> Found {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    std::fs::write(dir.path().join("records.jsonl"), lines.join("\n") + "\n").expect("write");
    let r = scan_json(home.path(), dir.path(), &[]);
    assert!(!r.stdout.contains("popescu"), "never printed in full");
    findings(&r.json())
}

fn lines_of(found: &Found, rule: &str) -> Vec<u64> {
    found.iter().filter(|f| f.5 == rule).map(|f| f.1).collect()
}

#[test]
fn a_key_that_leaks_is_reported_on_every_record() {
    let lines: Vec<String> = (0..50)
        .map(|i| format!(r#"{{"record_type":"x","ion.popescu@gmail.com":{i},"note":"n"}}"#))
        .collect();
    let found = scan_lines(&lines);
    assert_eq!(
        lines_of(&found, "email.address"),
        (1..=50).collect::<Vec<u64>>()
    );
}

#[test]
fn keys_repeated_on_many_records_do_not_move_later_findings() {
    let mut lines: Vec<String> = (0..300)
        .map(|i| format!(r#"{{"record_type":"event","case_id":"c-{i}","note":"fine"}}"#))
        .collect();
    lines.push(
        r#"{"record_type":"event","case_id":"c-x","note":"mail ion.popescu@gmail.com","ana.popescu@gmail.com":1}"#
            .to_string(),
    );
    let found = scan_lines(&lines);
    let emails: Vec<(u64, u64, Option<String>)> = found
        .iter()
        .filter(|f| f.5 == "email.address")
        .map(|f| (f.1, f.2, f.3.clone()))
        .collect();
    assert_eq!(emails.len(), 2, "{emails:?}");
    // The value and the key, at their own columns on line 301.
    assert!(emails.iter().all(|e| e.0 == 301), "{emails:?}");
    let mut columns: Vec<u64> = emails.iter().map(|e| e.1).collect();
    columns.sort();
    assert_eq!(columns, [53, 77]);
    assert!(emails.iter().any(|e| e.2.as_deref() == Some("/note")));
}

#[test]
fn in_a_file_of_ever_new_keys_every_key_is_read() {
    // Each record brings two keys never seen before.
    let lines: Vec<String> = (0..600)
        .map(|i| format!(r#"{{"field_{i}":1,"ion.popescu{i}@gmail.com":2}}"#))
        .collect();
    let found = scan_lines(&lines);
    assert_eq!(
        lines_of(&found, "email.address"),
        (1..=600).collect::<Vec<u64>>()
    );
}
