//! Provenance through the real binary: manifests, hash fields bound to files (by sibling
//! convention and by `[[provenance.bind]]`), hash hygiene and the hash cache. Every hash
//! in a fixture is computed here from the bytes the test writes, never pasted.

use crate::util::*;
use sha2::{Digest, Sha256};
use std::path::Path;

fn sha(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `(path, line, pointer, rule_id)` of every finding, in report order.
fn placed(report: &serde_json::Value) -> Vec<(String, u64, Option<String>, String)> {
    findings(report)
        .into_iter()
        .map(|(path, line, _col, ptr, _cat, rule)| (path, line, ptr, rule))
        .collect()
}

fn at(
    path: &str,
    line: u64,
    ptr: Option<&str>,
    rule: &str,
) -> (String, u64, Option<String>, String) {
    (
        path.to_string(),
        line,
        ptr.map(str::to_string),
        rule.to_string(),
    )
}

fn verify(home: &Path, dir: &Path, extra: &[&str]) -> Run {
    let p = dir.to_string_lossy().into_owned();
    let mut args = vec!["verify", "--format", "json", "--no-progress"];
    args.extend_from_slice(extra);
    args.push(&p);
    run(home, &args)
}

/// A dataset folder with two data files and a manifest whose lines are `entries`.
fn manifest_dataset(dir: &Path, entries: &[String]) {
    write(dir, "data/a.jsonl", "{\"id\": 1}\n");
    write(dir, "data/sub/b.bin", [0u8, 1, 2, 3, 255]);
    write(dir, "data/SHA256SUMS", entries.join("\n") + "\n");
}

#[test]
fn manifest_entries_are_each_checked() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    let a = sha(b"{\"id\": 1}\n");
    let b = sha(&[0u8, 1, 2, 3, 255]);
    let wrong = sha(b"something else");
    // Text and binary markers, a `sha256:` prefix, a BSD line, a comment, then the breaks.
    let good = vec![
        "# produced by the release script".to_string(),
        format!("{a}  a.jsonl"),
        format!("sha256:{b} *sub/b.bin"),
        format!("SHA256 (a.jsonl) = {a}"),
    ];
    manifest_dataset(dir.path(), &good);
    // The binary file is hashed whole (verify), and let pass by `scan` when allowed.
    let cfg = home.path().join("allow-binary.toml");
    std::fs::write(&cfg, "[scan]\nallow_unjudged = [\"binary\"]\n").expect("cfg");
    let cfg = cfg.to_string_lossy().into_owned();
    for cmd in ["scan", "verify"] {
        let path = dir.path().to_string_lossy().into_owned();
        let r = run(
            home.path(),
            &[
                "--config",
                &cfg,
                cmd,
                "--format",
                "json",
                "--no-progress",
                &path,
            ],
        );
        assert_eq!(r.code, 0, "{cmd} on a clean manifest: {}", r.stdout);
    }

    let mut broken = good.clone();
    broken.push(format!("{wrong}  a.jsonl"));
    broken.push(format!("{a}  missing.json"));
    broken.push(format!("{a}  ../../../../etc/passwd"));
    broken.push("0123abc  short.txt".to_string());
    broken.push("just-one-token".to_string());
    manifest_dataset(dir.path(), &broken);
    let r = verify(home.path(), dir.path(), &[]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let m = "data/SHA256SUMS";
    assert_eq!(
        placed(&r.json()),
        vec![
            at(m, 5, None, "provenance.hash_mismatch"),
            at(m, 6, None, "provenance.missing_file"),
            at(m, 7, None, "provenance.path_escape"),
            at(m, 8, None, "provenance.malformed_hash"),
            at(m, 9, None, "provenance.manifest_syntax"),
        ]
    );
    assert!(
        !r.stdout.contains("root:"),
        "the escaping path must not be read"
    );
}

#[test]
fn strict_reports_files_the_manifest_does_not_list() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    let a = sha(b"{\"id\": 1}\n");
    let b = sha(&[0u8, 1, 2, 3, 255]);
    manifest_dataset(
        dir.path(),
        &[format!("{a}  a.jsonl"), format!("{b}  sub/b.bin")],
    );
    write(dir.path(), "data/sub/extra.txt", "not listed\n");
    // Outside the manifest's folder: not its business.
    write(dir.path(), "elsewhere.txt", "x\n");
    assert_eq!(verify(home.path(), dir.path(), &[]).code, 0);
    let r = verify(home.path(), dir.path(), &["--strict"]);
    assert_eq!(r.code, 1);
    let report = r.json();
    assert_eq!(
        placed(&report),
        vec![at("data/SHA256SUMS", 0, None, "provenance.unlisted_file")]
    );
    assert!(
        report["findings"][0]["excerpt"]
            .as_str()
            .is_some_and(|e| e.contains("data/sub/extra.txt"))
    );
}

#[test]
fn sibling_hashes_are_recomputed_and_text_hashes_checked() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    let trace = b"{\"steps\": 3}\n";
    write(dir.path(), "traces/t1.json", trace);
    write(dir.path(), "artifacts/model.cfg", "layers = 4\n");
    let text = "Patient stable; no change.";
    let record = |trace_hash: &str, cfg_hash: &str, text_hash: &str| {
        serde_json::json!({
            "case_id": "c1",
            "trace_file": "../traces/t1.json",
            "trace_file_hash": format!("sha256:{trace_hash}"),
            "artifact": {"path": "../artifacts/model.cfg", "sha256": cfg_hash},
            "new_buffer_text": text,
            "new_buffer_text_hash": format!("sha256:{text_hash}"),
        })
        .to_string()
    };
    let (t, c, x) = (sha(trace), sha(b"layers = 4\n"), sha(text.as_bytes()));
    let other = sha(b"other");
    write(
        dir.path(),
        "records/r.jsonl",
        format!(
            "{}\n{}\n",
            record(&t, &c, &x),
            record(&other, &other, &other)
        ),
    );
    let r = verify(home.path(), dir.path(), &[]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let f = "records/r.jsonl";
    let mut got = placed(&r.json());
    got.sort();
    assert_eq!(
        got,
        vec![
            at(f, 2, Some("/artifact/sha256"), "provenance.hash_mismatch"),
            at(
                f,
                2,
                Some("/new_buffer_text_hash"),
                "provenance.text_hash_mismatch"
            ),
            at(f, 2, Some("/trace_file_hash"), "provenance.hash_mismatch"),
        ]
    );
    write(dir.path(), "records/r.jsonl", record(&t, &c, &x) + "\n");
    let clean = verify(home.path(), dir.path(), &[]);
    assert_eq!(clean.code, 0, "{}", clean.stdout);
    // The same file scanned in full also verifies clean.
    assert_eq!(scan_json(home.path(), dir.path(), &[]).code, 0);
}

/// The README's EXAID example: `stop_entities_hash` in `run_meta` names a stoplist file
/// that the record itself does not mention.
#[test]
fn configured_binding_checks_exaid_stoplists() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    let config = dir.path().join("privacy-audit.toml");
    std::fs::write(
        &config,
        r#"
[[provenance.bind]]
pointer = "/stoplists_provenance/stop_entities_hash"
record_type = "run_meta"
file = "../../stoplists/{variant_id}/stop_entities.txt"
"#,
    )
    .expect("config");
    let data = dir.path().join("data");
    let stoplist = "aspirin\nibuprofen\n";
    write(&data, "stoplists/V0/stop_entities.txt", stoplist);
    let log = |hash: &str| {
        format!(
            "{}\n",
            serde_json::json!({
                "record_type": "run_meta", "schema_name": "exaid.run", "schema_version": "1.5.0",
                "case_id": "case-00000001", "variant_id": "V0", "mas_run_id": "mas_1",
                "eval_run_id": "eval-1", "history_k": 3,
                "concept_extractor": {"spacy_version": "3.7.4"},
                "stoplists_provenance": {"stop_entities_hash": format!("sha256:{hash}")},
                "timestamp_derivation": {"source": "t_emitted_ms"},
                "determinism": {"gzip_mtime": 0}
            })
        )
    };
    let run_log = "runs/V0/case-00000001.jsonl.gz";
    write(&data, run_log, gzip(&log(&sha(stoplist.as_bytes()))));
    let cfg = config.to_string_lossy().into_owned();
    let args = ["--config", cfg.as_str()];
    let clean = verify(home.path(), &data, &args);
    assert_eq!(clean.code, 0, "{}{}", clean.stdout, clean.stderr);

    write(&data, "stoplists/V0/stop_entities.txt", "aspirin\n");
    let r = verify(home.path(), &data, &args);
    assert_eq!(r.code, 1);
    assert_eq!(
        placed(&r.json()),
        vec![at(
            run_log,
            1,
            Some("/stoplists_provenance/stop_entities_hash"),
            "provenance.hash_mismatch"
        )]
    );
    // Without the binding nothing connects the hash to the file.
    assert_eq!(verify(home.path(), &data, &[]).code, 0);
}

#[test]
fn hash_hygiene_everywhere() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    let empty = sha(b"");
    let doc = serde_json::json!({
        "a_hash": "sha256:9F86D081",
        "b_hash": "sha256:abc123...",
        "c_hash": format!("sha256:{}", "0".repeat(64)),
        "d_hash": format!("sha256:{}", "7".repeat(64)),
        "e_hash": format!("sha256:{empty}"),
        "f_hash": format!("sha256:{}", sha(b"fine")),
        "nested": [{"config_sha256": "deadbeef"}]
    });
    write(
        dir.path(),
        "meta.json",
        serde_json::to_string_pretty(&doc).expect("json"),
    );
    let r = verify(home.path(), dir.path(), &[]);
    assert_eq!(r.code, 1);
    let mut got = placed(&r.json());
    got.sort();
    let m = "meta.json";
    assert_eq!(
        got,
        vec![
            at(m, 2, Some("/a_hash"), "provenance.malformed_hash"),
            at(m, 3, Some("/b_hash"), "provenance.placeholder_hash"),
            at(m, 4, Some("/c_hash"), "provenance.placeholder_hash"),
            at(m, 5, Some("/d_hash"), "provenance.placeholder_hash"),
            at(m, 6, Some("/e_hash"), "provenance.empty_file_hash"),
            at(
                m,
                10,
                Some("/nested/0/config_sha256"),
                "provenance.malformed_hash"
            ),
        ]
    );
    // The placeholder is quoted in the report only in redacted form.
    assert!(!r.stdout.contains("9F86D081"));
}

/// A list of records is audited for the hashes it holds, found by key or by the
/// `sha256:` prefix, wherever the record sits; prose about a hash map asks for nothing.
#[test]
fn hashes_in_a_list_of_records_are_audited() {
    let (home, dir) = (
        tempfile::tempdir().expect("home"),
        tempfile::tempdir().expect("dir"),
    );
    let doc = serde_json::json!([
        {"answer": "use a hash map, then hash each key"},
        {"hash": "sha256:9F86D081"},
        {"source": format!("sha256:{}", "0".repeat(64))},
        {"weights_sha256": "deadbeef"}
    ]);
    write(
        dir.path(),
        "answers.json",
        serde_json::to_string_pretty(&doc).expect("json"),
    );
    let r = verify(home.path(), dir.path(), &[]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    let mut got = placed(&r.json());
    got.sort();
    let m = "answers.json";
    assert_eq!(
        got,
        vec![
            at(m, 6, Some("/1/hash"), "provenance.malformed_hash"),
            at(m, 9, Some("/2/source"), "provenance.placeholder_hash"),
            at(
                m,
                12,
                Some("/3/weights_sha256"),
                "provenance.malformed_hash"
            ),
        ]
    );
}

/// A hash key written with an escape means the same key: the list is still audited.
#[test]
fn an_escaped_hash_key_in_a_list_is_audited() {
    let (home, dir) = (
        tempfile::tempdir().expect("home"),
        tempfile::tempdir().expect("dir"),
    );
    let doc = r#"[{"answer": "caf\u00e9 \u003cb\u003e"}, {"weights_sha25\u0036": "deadbeef"}]"#;
    write(dir.path(), "answers.json", doc);
    let r = verify(home.path(), dir.path(), &[]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert_eq!(
        placed(&r.json()),
        vec![at(
            "answers.json",
            1,
            Some("/1/weights_sha256"),
            "provenance.malformed_hash"
        )]
    );
}

#[test]
fn stoplist_provenance_outside_run_meta_is_flagged() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    let h = format!("sha256:{}", sha(b"stoplist"));
    let lines = [
        serde_json::json!({"record_type": "run_meta", "schema_version": "1.2.9", "case_id": "c"}),
        serde_json::json!({"record_type": "summary_event", "case_id": "c", "variant_id": "V0",
            "event_id": "c-V0-se-000", "event_index": 0,
            "stoplists_provenance": {"stop_entities_hash": h}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    write(dir.path(), "run.jsonl", text);
    let r = verify(home.path(), dir.path(), &[]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert_eq!(
        placed(&r.json()),
        vec![at(
            "run.jsonl",
            2,
            Some("/stoplists_provenance"),
            "provenance.duplicated"
        )]
    );
}

/// 10,000 files under one manifest: each is read once, and the second run reads none.
#[test]
fn ten_thousand_files_are_hashed_once_then_served_from_the_cache() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    let mut manifest = String::new();
    for i in 0..10_000 {
        let rel = format!("shard{:02}/f{i:05}.txt", i % 50);
        let body = format!("file {i}\n");
        manifest.push_str(&format!("{}  {rel}\n", sha(body.as_bytes())));
        write(dir.path(), &rel, body);
    }
    write(dir.path(), "SHA256SUMS", &manifest);
    let stats = |r: &Run| {
        r.stderr
            .lines()
            .find(|l| l.contains("hashes:"))
            .unwrap_or_default()
            .to_string()
    };
    let first = verify(home.path(), dir.path(), &["--stats"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(
        stats(&first).contains("hashes: 10000 files (98890 bytes) read to hash, 0 reused from this run, 0 from the cache"),
        "{}",
        first.stderr
    );
    let second = verify(home.path(), dir.path(), &["--stats"]);
    assert_eq!(second.code, 0);
    assert!(
        stats(&second).contains(
            "hashes: 0 files (0 bytes) read to hash, 0 reused from this run, 10000 from the cache"
        ),
        "{}",
        second.stderr
    );
    // A full scan reads every file for content and reuses those reads for the manifest.
    let full = scan_json(home.path(), dir.path(), &["--stats", "--no-cache"]);
    assert_eq!(full.code, 0);
    assert!(
        stats(&full).contains(
            "10001 files read by the scan; hashes: 0 files (0 bytes) read to hash, 10000 reused"
        ),
        "{}",
        full.stderr
    );
    // A changed file is noticed despite the cache.
    write(dir.path(), "shard07/f00007.txt", "file 7 changed\n");
    let changed = verify(home.path(), dir.path(), &["--stats"]);
    assert_eq!(changed.code, 1);
    assert!(
        stats(&changed).contains("hashes: 1 files"),
        "{}",
        changed.stderr
    );
}

/// `verify SHA256SUMS` from inside the dataset: the root is the manifest's folder, and
/// neither `..` nor a symbolic link leads out of it.
#[cfg(unix)]
#[test]
fn no_way_out_of_the_root() {
    let (home, outer) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    let secret = b"outside the dataset\n";
    write(outer.path(), "private/notes.txt", secret);
    let dir = outer.path().join("dataset");
    write(&dir, "inside.txt", "in\n");
    std::os::unix::fs::symlink(outer.path().join("private"), dir.join("ext")).expect("symlink");
    std::os::unix::fs::symlink("inside.txt", dir.join("latest.txt")).expect("symlink");
    let s = sha(secret);
    write(
        &dir,
        "SHA256SUMS",
        format!(
            "{s}  ../private/notes.txt\n{s}  ext/notes.txt\n{}  latest.txt\n",
            sha(b"in\n")
        ),
    );
    let out = cmd(home.path())
        .current_dir(&dir)
        .args(["verify", "--format", "json", "--no-progress", "SHA256SUMS"])
        .output()
        .expect("runs");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(
        placed(&report),
        vec![
            at("SHA256SUMS", 1, None, "provenance.path_escape"),
            at("SHA256SUMS", 2, None, "provenance.path_escape"),
        ],
        "a link to a file inside the root is followed, as sha256sum -c does"
    );
}

#[test]
fn nested_manifests_each_own_their_folder_under_strict() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    write(dir.path(), "top.txt", "top\n");
    write(dir.path(), "sub/inner.txt", "inner\n");
    write(dir.path(), "sub/stray.txt", "stray\n");
    write(
        dir.path(),
        "SHA256SUMS",
        format!("{}  top.txt\n", sha(b"top\n")),
    );
    write(
        dir.path(),
        "sub/SHA256SUMS",
        format!("{}  inner.txt\n", sha(b"inner\n")),
    );
    let r = verify(home.path(), dir.path(), &["--strict"]);
    let report = r.json();
    assert_eq!(
        placed(&report),
        vec![at("sub/SHA256SUMS", 0, None, "provenance.unlisted_file")]
    );
    assert!(
        report["findings"][0]["excerpt"]
            .as_str()
            .is_some_and(|e| e.ends_with("sub/stray.txt"))
    );
}

/// A binary file is refused by the scanner but was read whole to decide that; its
/// hash serves the manifest, so it is not read again.
#[test]
fn skipped_binary_files_are_not_read_twice() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    let blob = [0u8, 159, 146, 150, 0, 1];
    write(dir.path(), "weights.bin", blob);
    write(
        dir.path(),
        "weights.bin.sha256",
        format!("{}\n", sha(&blob)),
    );
    let r = scan_json(home.path(), dir.path(), &["--stats", "--no-cache"]);
    // Not judged whole (binary): exit 2 by default; the hash is still reused.
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(
        r.stderr
            .contains("hashes: 0 files (0 bytes) read to hash, 1 reused from this run"),
        "{}",
        r.stderr
    );
    write(dir.path(), "weights.bin.sha256", format!("{}\n", sha(b"x")));
    let r = scan_json(home.path(), dir.path(), &["--no-cache"]);
    assert_eq!(
        placed(&r.json()),
        vec![at(
            "weights.bin.sha256",
            1,
            None,
            "provenance.hash_mismatch"
        )]
    );
}

/// `[privacy] file_digest = "keyed"`: reports carry a keyed digest of each file, not its
/// sha256, so a one-value file cannot be found by hashing guesses.
#[test]
fn reports_can_carry_keyed_file_digests_instead_of_sha256() {
    use sha2::{Digest, Sha256};
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    let content = "ion.popescu@gmail.com\n";
    write(dir.path(), "one.txt", content);
    let plain = privacy_audit::hex::encode(&Sha256::digest(content.as_bytes()));
    let files = |extra: &[&str]| {
        let r = scan_json(home.path(), dir.path(), extra);
        r.json()["files"].as_array().cloned().unwrap_or_default()
    };
    assert_eq!(files(&[])[0]["sha256"], plain.as_str());
    let cfg = dir.path().join("privacy-audit.toml");
    std::fs::write(&cfg, "[privacy]\nfile_digest = \"keyed\"\n").expect("config");
    let keyed = files(&["--config", &cfg.to_string_lossy()]);
    let one = keyed
        .iter()
        .find(|f| f["path"] == "one.txt")
        .expect("one.txt");
    assert!(
        one.get("sha256").is_none_or(serde_json::Value::is_null),
        "{one}"
    );
    let k = one["keyed_sha256"].as_str().expect("keyed digest");
    assert_eq!(k.len(), 64);
    assert_ne!(k, plain);
}

/// The hash cache is read when a file first needs a hash: a scan of an empty folder
/// does not parse it (its start-up does not grow with every file ever seen), and one
/// that hashes a file does, warning of a corrupt cache.
#[test]
fn the_hash_cache_is_read_only_when_a_hash_is_needed() {
    let (home, empty, data) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    write(home.path(), "cache/hashes-v3.jsonl", "not a cache\n");
    let r = scan_json(home.path(), empty.path(), &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stderr.contains("hash cache"), "{}", r.stderr);
    write(data.path(), "a.jsonl", "{\"id\": 1}\n");
    let r = scan_json(home.path(), data.path(), &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("hash cache is corrupt"), "{}", r.stderr);
}
