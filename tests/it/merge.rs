//! `report merge`: shards scanned apart give the report (and verdict) of one scan.

use crate::util::*;
use serde_json::Value;
use std::path::Path;

fn scan_files(home: &Path, dir: &Path, files: &[&str], out: &Path) -> i32 {
    let mut c = cmd(home);
    c.current_dir(dir)
        .args(["scan", "--format", "json", "--no-progress", "-o"])
        .arg(out)
        .args(files);
    c.output().expect("runs").status.code().unwrap_or(-1)
}

/// The report without what differs run to run (times).
fn timeless(path: &Path) -> Value {
    let mut r: Value = serde_json::from_slice(&std::fs::read(path).expect("report")).expect("json");
    let o = r.as_object_mut().expect("object");
    o.remove("started_at");
    o.remove("finished_at");
    r["summary"]
        .as_object_mut()
        .expect("summary")
        .remove("duration_ms");
    r
}

#[test]
fn shards_merged_equal_one_scan_of_the_whole() {
    let home = tempfile::tempdir().expect("tempdir");
    let data = sample_dataset();
    let out = home.path();
    let mut c = cmd(out);
    c.current_dir(&data)
        .args(["scan", ".", "--format", "json", "--no-progress", "-o"])
        .arg(out.join("all.json"));
    assert_eq!(c.output().expect("runs").status.code(), Some(1));
    let a = scan_files(
        out,
        &data,
        &["eval-cases.jsonl", "evidence_pack.json"],
        &out.join("a.json"),
    );
    let b = scan_files(
        out,
        &data,
        &["notes.md", "qa-cases.jsonl", "runs"],
        &out.join("b.json"),
    );
    assert_eq!((a, b), (1, 1));
    let merged = run(
        out,
        &[
            "report",
            "merge",
            &out.join("a.json").to_string_lossy(),
            &out.join("b.json").to_string_lossy(),
            "-o",
            &out.join("m.json").to_string_lossy(),
        ],
    );
    assert_eq!(merged.code, 1, "{}", merged.stderr);
    assert_eq!(
        timeless(&out.join("m.json")),
        timeless(&out.join("all.json"))
    );
}

#[test]
fn a_shard_that_could_not_be_judged_makes_the_merge_incomplete() {
    let home = tempfile::tempdir().expect("tempdir");
    let dir = home.path().join("d");
    write(&dir, "ok.jsonl", "{\"a\": 1}\n");
    write(
        &dir,
        "broken.jsonl.gz",
        b"\x1f\x8b\x08\x00garbage".as_slice(),
    );
    let a = scan_files(
        home.path(),
        &dir,
        &["ok.jsonl"],
        &home.path().join("a.json"),
    );
    let b = scan_files(
        home.path(),
        &dir,
        &["broken.jsonl.gz"],
        &home.path().join("b.json"),
    );
    assert_eq!((a, b), (0, 2));
    let merged = run(
        home.path(),
        &[
            "report",
            "merge",
            &home.path().join("a.json").to_string_lossy(),
            &home.path().join("b.json").to_string_lossy(),
            "--format",
            "json",
        ],
    );
    assert_eq!(merged.code, 2, "{}", merged.stderr);
}

#[test]
fn reports_of_other_rules_or_no_report_at_all_are_refused_by_name() {
    let home = tempfile::tempdir().expect("tempdir");
    let dir = home.path().join("d");
    write(&dir, "ok.jsonl", "{\"a\": 1}\n");
    let a = home.path().join("a.json");
    assert_eq!(scan_files(home.path(), &dir, &["ok.jsonl"], &a), 0);
    let mut other: Value = serde_json::from_slice(&std::fs::read(&a).expect("a")).expect("json");
    other["ruleset_sha256"] = Value::String("0".repeat(64));
    let b = home.path().join("b.json");
    std::fs::write(&b, other.to_string()).expect("b");
    let refused = run(
        home.path(),
        &[
            "report",
            "merge",
            &a.to_string_lossy(),
            &b.to_string_lossy(),
        ],
    );
    assert_eq!(refused.code, 2);
    assert!(
        refused.stderr.contains("b.json") && refused.stderr.contains("other rules"),
        "{}",
        refused.stderr
    );
    let secret = home.path().join("c.json");
    std::fs::write(
        &secret,
        "{\"token\": \"ghp_R4nd0mT0k3nV4lu3Th4tL00ksR34l012345\"",
    )
    .expect("c");
    let bad = run(
        home.path(),
        &[
            "report",
            "merge",
            &a.to_string_lossy(),
            &secret.to_string_lossy(),
        ],
    );
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("c.json"), "{}", bad.stderr);
    assert!(!bad.stderr.contains("R4nd0mT0k3n"), "{}", bad.stderr);
}

#[test]
fn a_crafted_shard_cannot_launder_a_value_or_hide_a_failure() {
    let home = tempfile::tempdir().expect("tempdir");
    let dir = home.path().join("d");
    write(
        &dir,
        "a.jsonl",
        "{\"note\": \"mail ion.popescu@gmail.com\"}\n",
    );
    write(&dir, "c.bin", b"\x00\x01\x02\x03binary".as_slice());
    let a = home.path().join("a.json");
    assert_eq!(scan_files(home.path(), &dir, &["a.jsonl"], &a), 1);
    let mut crafted: Value = serde_json::from_slice(&std::fs::read(&a).expect("a")).expect("json");
    let token = "ghp_R4nd0mT0k3nV4lu3Th4tL00ksR34l012345";
    crafted["findings"][0]["excerpt"] = Value::String(format!("raw {token}"));
    crafted["findings"][0]["path"] = Value::String("ion.popescu@gmail.com.jsonl".into());
    let b = home.path().join("b.json");
    std::fs::write(&b, crafted.to_string()).expect("b");
    let merged = run(
        home.path(),
        &["report", "merge", &b.to_string_lossy(), "--format", "json"],
    );
    assert!(!merged.stdout.contains("R4nd0mT0k3n"), "{}", merged.stdout);
    assert!(
        !merged.stdout.contains("popescu@gmail"),
        "{}",
        merged.stdout
    );
    // The same file judged failing in one shard and passing in another fails the merge,
    // whichever order the shards come in.
    let strict = home.path().join("strict.json");
    assert_eq!(scan_files(home.path(), &dir, &["c.bin"], &strict), 2);
    let mut lenient: Value =
        serde_json::from_slice(&std::fs::read(&strict).expect("s")).expect("json");
    for f in lenient["files"].as_array_mut().expect("files") {
        f.as_object_mut().expect("file").remove("error");
    }
    let lenient_path = home.path().join("lenient.json");
    std::fs::write(&lenient_path, lenient.to_string()).expect("l");
    for order in [[&strict, &lenient_path], [&lenient_path, &strict]] {
        let r = run(
            home.path(),
            &[
                "report",
                "merge",
                &order[0].to_string_lossy(),
                &order[1].to_string_lossy(),
                "--quiet",
            ],
        );
        assert_eq!(r.code, 2, "{order:?}");
    }
}
