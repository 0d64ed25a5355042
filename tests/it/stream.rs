//! Gzip is inflated and scanned a piece at a time. A streamed file must give
//! exactly what the same text gives unzipped: the same findings at the same lines,
//! columns and pointers, across piece borders, for records and text lines longer than
//! a piece, and for checks that span records. A stream that breaks part-way still
//! reports what came before, and says why it stopped.

use crate::util::*;
use std::io::Write;

/// Inflated bytes per piece in `src/scan/stream.rs`; the texts below span several.
const PIECE: usize = 4 << 20;

fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(bytes).expect("gzip");
    enc.finish().expect("gzip")
}

/// `(line, column, pointer, rule)` of every finding.
type Placed = Vec<(u64, u64, Option<String>, String)>;

/// The findings of one file, sorted, and its status in the report.
fn scan_one(name: &str, bytes: &[u8]) -> (Placed, String) {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    std::fs::write(dir.path().join(name), bytes).expect("write");
    let r = scan_json(home.path(), dir.path(), &[]);
    assert!(!r.stdout.contains("popescu@"), "never printed in full");
    let report = r.json();
    let mut found: Vec<_> = findings(&report)
        .into_iter()
        .map(|f| (f.1, f.2, f.3, f.5))
        .collect();
    found.sort();
    (found, status(&report, name))
}

fn status(report: &serde_json::Value, name: &str) -> String {
    let files = report["files"].as_array().expect("files");
    let f = files.iter().find(|f| f["path"] == name).expect("listed");
    format!(
        "{} {}",
        f["status"].as_str().unwrap_or_default(),
        f["reason"].as_str().unwrap_or_default()
    )
}

/// The text as `name` and gzipped as `name.gz`: both must give the same findings.
fn same_streamed_as_plain(name: &str, text: &str) -> Placed {
    let (plain, plain_status) = scan_one(name, text.as_bytes());
    let (streamed, gz_status) = scan_one(&format!("{name}.gz"), &gz(text.as_bytes()));
    assert_eq!(plain_status.trim(), "scanned");
    assert_eq!(gz_status.trim(), "scanned");
    assert_eq!(streamed, plain, "{name}: streamed and plain differ");
    plain
}

/// Records of varied length, so piece borders fall at varied places within records; a
/// leak every so often, in a value and (with a wrong text hash) in the provenance.
fn records(n: usize) -> String {
    let text = "Patient stable; no change.";
    let mut out = String::new();
    for i in 0..n {
        let pad = "word ".repeat(i % 97);
        let note = match i % 1500 {
            0 => format!("mail ion.popescu{i}@gmail.com {pad}"),
            _ => pad,
        };
        let hash = match i % 2500 {
            7 => "sha256:".to_string() + &"ab".repeat(32),
            _ => String::new(),
        };
        let mut rec = serde_json::json!({"case_id": format!("c-{i}"), "note": note});
        if !hash.is_empty() {
            rec["new_buffer_text"] = text.into();
            rec["new_buffer_text_hash"] = hash.into();
        }
        out.push_str(&rec.to_string());
        out.push('\n');
    }
    out
}

#[test]
fn json_lines_across_pieces_match_the_plain_file() {
    let text = records(40_000);
    assert!(
        text.len() > 2 * PIECE,
        "spans several pieces: {}",
        text.len()
    );
    let found = same_streamed_as_plain("run.jsonl", &text);
    let emails = found.iter().filter(|f| f.3 == "email.address").count();
    let hashes = found
        .iter()
        .filter(|f| f.3 == "provenance.text_hash_mismatch")
        .count();
    assert_eq!((emails, hashes), (40_000 / 1500 + 1, 40_000 / 2500));
}

#[test]
fn a_record_longer_than_a_piece_is_read_whole() {
    let long = format!(
        "{{\"note\": \"{} ion.popescu@gmail.com\"}}",
        "x ".repeat(PIECE)
    );
    let text = format!("{{\"a\": 1}}\n{long}\n{{\"b\": \"ana.popescu@gmail.com\"}}\n");
    let found = same_streamed_as_plain("big.jsonl", &text);
    let lines: Vec<u64> = found.iter().map(|f| f.0).collect();
    assert_eq!(lines, [2, 3]);
}

#[test]
fn a_text_line_longer_than_a_piece_keeps_its_columns() {
    // Leaks just before, across and after where pieces are cut inside the line.
    let mut line = String::new();
    for at in [
        PIECE - 4000,
        PIECE - 12,
        PIECE + 100,
        2 * PIECE - 30,
        3 * PIECE,
    ] {
        while line.len() < at {
            line.push_str("lorem ipsum ");
        }
        line.push_str(" ion.popescu@gmail.com ");
    }
    let text = format!("first line\n{line}\nlast ana.popescu@gmail.com\n");
    let found = same_streamed_as_plain("notes.txt", &text);
    assert_eq!(found.iter().filter(|f| f.3 == "email.address").count(), 6);
}

#[test]
fn a_stream_broken_part_way_reports_what_came_before() {
    let text = records(40_000);
    let mut bytes = gz(text.as_bytes());
    // Damage the deflate stream well past the first pieces.
    let at = bytes.len() * 3 / 4;
    for b in &mut bytes[at..at + 64] {
        *b ^= 0x5a;
    }
    let emails = broken_stream_emails(&bytes);
    assert!(emails.contains(&1) && emails.len() > 5, "{emails:?}");
}

/// Scans `bytes` as a broken `run.jsonl.gz`: the run is incomplete, the file is listed
/// as skipped with why and what was scanned; returns the lines of its e-mail findings.
fn broken_stream_emails(bytes: &[u8]) -> Vec<u64> {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    std::fs::write(dir.path().join("run.jsonl.gz"), bytes).expect("write");
    let r = scan_json(home.path(), dir.path(), &[]);
    assert_eq!(r.code, 2, "a broken file makes the scan incomplete");
    let report = r.json();
    let s = status(&report, "run.jsonl.gz");
    assert!(s.starts_with("skipped corrupt gzip"), "{s}");
    assert!(s.contains("what came before it was scanned"), "{s}");
    findings(&report)
        .into_iter()
        .filter(|f| f.5 == "email.address")
        .map(|f| f.1)
        .collect()
}

#[test]
fn a_small_file_cut_short_reports_what_came_before() {
    // Well under one piece: the error comes in the first read.
    let bytes = gz(records(3_000).as_bytes());
    let emails = broken_stream_emails(&bytes[..bytes.len() * 2 / 3]);
    assert_eq!(emails.iter().min(), Some(&1), "{emails:?}");
}

/// `records(n)` as one JSON document, a record a line: `{"cases": [` on line 1, record
/// `i` on line `i + 2`.
fn document(n: usize) -> String {
    let records = records(n);
    let list: Vec<&str> = records.lines().collect();
    format!("{{\"cases\": [\n{}\n], \"n\": {n}}}\n", list.join(",\n"))
}

#[test]
fn a_large_json_document_is_detected_in_pieces_with_true_places() {
    // Several megabytes: the document is detected a piece at a time, and every finding
    // still has the line, pointer and count the whole document gives.
    let text = document(40_000);
    assert!(text.len() > 2 * PIECE, "{}", text.len());
    let (found, status) = scan_one("cases.json", text.as_bytes());
    assert_eq!(status.trim(), "scanned");
    let emails: Vec<_> = found.iter().filter(|f| f.3 == "email.address").collect();
    assert_eq!(emails.len(), 40_000 / 1500 + 1);
    for f in &emails {
        let i = (f.0 - 2) as usize;
        assert_eq!(i % 1500, 0, "{f:?}");
        assert_eq!(f.2.as_deref(), Some(format!("/cases/{i}/note").as_str()));
    }
    let hashes = found
        .iter()
        .filter(|f| f.3 == "provenance.text_hash_mismatch")
        .count();
    assert_eq!(hashes, 40_000 / 2500);
}

#[test]
fn a_large_json_document_broken_near_its_end_reports_every_leak_once() {
    // The break comes after several pieces were detected: those keep their pointers,
    // the rest is read as text, and no leak is reported twice.
    let mut text = document(40_000);
    let cut = text.rfind("\"c-38990\"").expect("late record");
    text.insert_str(cut, "oops ");
    let (found, _) = scan_one("cases.json", text.as_bytes());
    assert!(
        found.iter().any(|f| f.3 == "format.invalid_json"),
        "{found:?}"
    );
    let emails: Vec<_> = found.iter().filter(|f| f.3 == "email.address").collect();
    assert_eq!(emails.len(), 40_000 / 1500 + 1, "{emails:?}");
    assert_eq!(emails[0].2.as_deref(), Some("/cases/0/note"));
    assert!(
        emails.last().is_some_and(|f| f.2.is_none()),
        "after the break: text"
    );
}
