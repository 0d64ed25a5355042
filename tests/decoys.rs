//! Precision: 200+ values that peers report and we must not (digests, UUIDs, model ids,
//! versions, file names with TLD-like extensions, relative and URL paths, reserved
//! domains and documentation addresses, placeholders, checksum-failing numbers) give
//! zero findings as text, as a JSON array, and as JSON object values under many keys.

mod common;
use common::*;

fn decoys() -> Vec<String> {
    let text = include_str!("fixtures/decoys.txt");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(str::to_string)
        .collect()
}

fn assert_clean(dir: &std::path::Path) {
    let home = tempfile::tempdir().expect("tempdir");
    let run = scan_json(home.path(), dir, &[]);
    let report = run.json();
    assert_eq!(
        findings(&report),
        vec![],
        "decoys were reported (excerpts: {:?})",
        report["findings"]
            .as_array()
            .map(|a| a.iter().map(|f| f["excerpt"].clone()).collect::<Vec<_>>())
    );
    assert_eq!(run.code, 0);
    assert_eq!(report["summary"]["files_scanned"], 3);
}

#[test]
fn at_least_200_decoys_yield_zero_findings() {
    let decoys = decoys();
    assert!(decoys.len() >= 200, "only {} decoys", decoys.len());
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("decoys.txt"), decoys.join("\n")).expect("write");
    std::fs::write(
        dir.path().join("decoys.json"),
        serde_json::to_string_pretty(&decoys).expect("json"),
    )
    .expect("write");
    let keys = [
        "text_hash",
        "notes",
        "model_id",
        "path",
        "source",
        "version",
        "url",
        "token_count",
    ];
    let records: Vec<String> = decoys
        .iter()
        .enumerate()
        .map(|(i, d)| serde_json::json!({ keys[i % keys.len()]: d, "index": i }).to_string())
        .collect();
    std::fs::write(dir.path().join("decoys.jsonl"), records.join("\n")).expect("write");
    assert_clean(dir.path());
}
