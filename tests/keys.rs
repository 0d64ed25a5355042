//! Object keys are scanned like values, on every record. These tests guard any shortcut
//! on keys that repeat from record to record: a key that leaks is reported on every
//! record, repeated keys do not move later findings, and in a file of ever-new keys
//! every key is read. (Skipping keys once judged clean alone was tried and withdrawn:
//! see README, Performance.)

mod common;
use common::*;

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
