//! The shipped sample dataset, scanned by the real binary: exact findings in every seed
//! format, and the same findings in every output format.

use crate::util::*;

fn f(
    path: &str,
    line: u64,
    col: u64,
    ptr: Option<&str>,
    cat: &str,
    rule: &str,
) -> (String, u64, u64, Option<String>, String, String) {
    (
        path.into(),
        line,
        col,
        ptr.map(str::to_string),
        cat.into(),
        rule.into(),
    )
}

#[test]
fn sample_dataset_exact_findings() {
    let home = tempfile::tempdir().expect("tempdir");
    let run = scan_json(home.path(), &sample_dataset(), &[]);
    assert_eq!(run.code, 1, "findings exit 1; stderr: {}", run.stderr);
    let report = run.json();
    assert_eq!(report["schema"], "privacy-audit.report/v2");
    assert_eq!(report["ruleset_sha256"].as_str().map(str::len), Some(64));
    let expected = vec![
        f(
            "eval-cases.jsonl",
            2,
            92,
            Some("/intent"),
            "email",
            "email.address",
        ),
        f(
            "eval-cases.jsonl",
            2,
            221,
            Some("/observed_state"),
            "local_path",
            "local_path.windows",
        ),
        f(
            "eval-cases.jsonl",
            2,
            453,
            Some("/provenance/capture"),
            "schema",
            "schema.eval_case",
        ),
        f(
            "eval-cases.jsonl",
            2,
            454,
            Some("/provenance/capture"),
            "capture",
            "capture.provenance_mode",
        ),
        f(
            "eval-cases.jsonl",
            3,
            176,
            Some("/observed_state"),
            "hostname",
            "hostname.internal",
        ),
        f(
            "evidence_pack.json",
            9,
            44,
            Some("/findings/0/excerpt"),
            "email",
            "email.address",
        ),
        f(
            "evidence_pack.json",
            14,
            18,
            Some("/attachment"),
            "email",
            "email.address",
        ),
        f(
            "notes.md",
            7,
            23,
            None,
            "secret",
            "secret.aws_access_key_id",
        ),
        f(
            "notes.md",
            11,
            1,
            None,
            "capture",
            "capture.python_traceback",
        ),
        f(
            "notes.md",
            12,
            9,
            None,
            "local_path",
            "local_path.posix_home",
        ),
        f(
            "qa-cases.jsonl",
            1,
            402,
            Some("/turns/1/content"),
            "pii",
            "pii.phone_international",
        ),
        f(
            "qa-cases.jsonl",
            2,
            242,
            Some("/turns/0/content"),
            "secret",
            "secret.connection_string_password",
        ),
        f(
            "qa-cases.jsonl",
            2,
            253,
            Some("/turns/0/content"),
            "hostname",
            "hostname.internal",
        ),
        // The sample's run_meta says v1.5.0 but lacks a field v1.3 made required.
        f(
            "runs/V0/case-33651373.jsonl.gz",
            1,
            1,
            Some(""),
            "schema",
            "schema.exaid_run_log",
        ),
        f(
            "runs/V0/case-33651373.jsonl.gz",
            3,
            252,
            Some("/summary_semantics_text"),
            "ip_address",
            "ip.v4",
        ),
    ];
    assert_eq!(findings(&report), expected);
    let files = report["files"].as_array().expect("files");
    assert_eq!(files.len(), 5);
    assert!(
        files
            .iter()
            .all(|f| f["status"] == "scanned" && f["sha256"].as_str().map(str::len) == Some(64))
    );
    assert_eq!(report["summary"]["findings"], 15);
    assert_eq!(report["summary"]["by_category"]["email"], 3);
    // The base64 finding says where the value really was.
    assert!(
        report["findings"][6]["message"]
            .as_str()
            .unwrap_or("")
            .contains("base64")
    );
}

#[test]
fn fingerprints_are_stable_per_key_and_differ_across_keys() {
    let (a, b) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    let prints = |home: &std::path::Path| -> Vec<String> {
        scan_json(home, &sample_dataset(), &[]).json()["findings"]
            .as_array()
            .expect("array")
            .iter()
            .map(|f| f["fingerprint"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    let (a1, a2, b1) = (prints(a.path()), prints(a.path()), prints(b.path()));
    assert_eq!(a1, a2);
    assert!(a1.iter().all(|p| p.len() == 64));
    assert!(a1.iter().zip(&b1).all(|(x, y)| x != y));
}

#[test]
fn sarif_and_human_carry_the_same_findings() {
    let home = tempfile::tempdir().expect("tempdir");
    let root = sample_dataset();
    let root = root.to_string_lossy();
    let sarif = run(home.path(), &["scan", "--format", "sarif", &root]);
    assert_eq!(sarif.code, 1);
    let v: serde_json::Value = serde_json::from_str(&sarif.stdout).expect("sarif json");
    assert_eq!(v["version"], "2.1.0");
    let results = v["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), 15);
    let rules = v["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules");
    for r in rules {
        for key in ["shortDescription", "fullDescription", "help"] {
            assert!(r[key]["text"].is_string(), "{key} on {}", r["id"]);
        }
    }
    let first = &results[0];
    assert_eq!(
        first["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "examples/sample-dataset/eval-cases.jsonl"
    );
    assert_eq!(
        first["locations"][0]["physicalLocation"]["region"]["startLine"],
        2
    );
    assert!(first["partialFingerprints"]["privacyAudit/v1"].is_string());

    let human = run(home.path(), &["scan", "--format", "human", &root]);
    assert_eq!(human.code, 1);
    assert!(human.stdout.contains("eval-cases.jsonl:2:92  high  email"));
    assert!(human.stdout.contains("15 findings in 5 files scanned"));
    assert!(
        !human.stdout.contains("\x1b["),
        "no colour when not a terminal"
    );
}

#[test]
fn fail_on_raises_the_bar() {
    let home = tempfile::tempdir().expect("tempdir");
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.txt"), "worker at 10.0.3.17\n").expect("write");
    assert_eq!(scan_json(home.path(), dir.path(), &[]).code, 1);
    assert_eq!(
        scan_json(home.path(), dir.path(), &["--fail-on", "high"]).code,
        0
    );
    assert_eq!(
        scan_json(home.path(), dir.path(), &["--fail-on", "bogus"]).code,
        2
    );
}

#[test]
fn rules_test_passes_and_list_names_validators() {
    let home = tempfile::tempdir().expect("tempdir");
    let t = run(home.path(), &["rules", "test"]);
    assert_eq!(t.code, 0, "{}", t.stdout);
    assert!(t.stdout.contains(", 0 failed"));
    let l = run(home.path(), &["rules", "list"]);
    assert_eq!(l.code, 0);
    assert!(l.stdout.contains("secret.aws_access_key_id"));
    assert!(l.stdout.contains("luhn"));
    let json = run(home.path(), &["rules", "list", "--json"]);
    let rules: serde_json::Value = serde_json::from_str(&json.stdout).expect("json");
    let secrets = rules
        .as_array()
        .expect("array")
        .iter()
        .filter(|r| r["category"] == "secret")
        .count();
    assert!(secrets >= 30, "at least 30 credential rules, got {secrets}");
}
