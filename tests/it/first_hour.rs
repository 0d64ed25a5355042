//! What a new user meets in their first hour, through the real binary: a closed pipe,
//! a report sent to a file, findings hidden below the confidence floor, the accept
//! advice only where it applies.

use crate::util::*;
use std::io::Read;
use std::process::Stdio;

/// Runs `args` with stdout read for a few bytes and then closed, as `| head -c 8` does.
fn closed_early(home: &std::path::Path, args: &[&str]) -> (i32, String) {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("privacy-audit"))
        .args(args)
        .env("PRIVACY_AUDIT_KEY_FILE", home.join("key"))
        .env("PRIVACY_AUDIT_CACHE_DIR", home.join("cache"))
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut head = [0u8; 8];
    let mut stdout = child.stdout.take().expect("stdout");
    stdout.read_exact(&mut head).expect("some output");
    drop(stdout);
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("stderr");
    (child.wait().expect("exit").code().unwrap_or(-1), err)
}

#[test]
fn a_reader_that_stops_early_ends_the_run_quietly_with_its_verdict() {
    let home = tempfile::tempdir().expect("home");
    let (code, err) = closed_early(home.path(), &["rules", "list"]);
    assert_eq!((code, err.as_str()), (0, ""), "rules list | head");
    // Enough findings that the report outgrows the pipe; the verdict still stands.
    let data = tempfile::tempdir().expect("data");
    let lines: Vec<String> = (0..4000)
        .map(|i| format!("{{\"text\": \"mail ana.popescu{i}@gmail.com now\"}}"))
        .collect();
    std::fs::write(data.path().join("a.jsonl"), lines.join("\n")).expect("write");
    let dir = data.path().to_string_lossy().into_owned();
    let (code, err) = closed_early(
        home.path(),
        &["scan", "--no-progress", "--no-baseline", &dir],
    );
    assert_eq!((code, err.as_str()), (1, ""), "scan | head keeps exit 1");
}

#[test]
fn a_report_sent_to_a_file_still_prints_its_summary_and_hidden_findings_are_counted() {
    let home = tempfile::tempdir().expect("home");
    let data = tempfile::tempdir().expect("data");
    // Placeholders only: every finding is below the default floor.
    std::fs::write(
        data.path().join("a.jsonl"),
        "{\"email\": \"john.doe@gmail.com\"}\n{\"email\": \"noreply@github.com\"}\n",
    )
    .expect("write");
    let dir = data.path().to_string_lossy().into_owned();
    let out = home.path().join("r.json");
    let o = out.to_string_lossy().into_owned();
    let run = run(
        home.path(),
        &["scan", "--no-progress", "--no-baseline", &dir, "-o", &o],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.is_empty(), "the report went to the file");
    assert!(
        run.stderr.contains("0 findings in 1 file scanned"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("2 more below the confidence floor")
            && run.stderr.contains("--min-confidence low"),
        "{}",
        run.stderr
    );
    // A clean scan's summary is the first line, with no blank line before it.
    let run = crate::util::run(
        home.path(),
        &["scan", "--no-progress", "--no-baseline", &dir],
    );
    assert!(run.stdout.starts_with("0 findings"), "{:?}", run.stdout);
    // Shown with --min-confidence low, each says it is not sure.
    let run = crate::util::run(
        home.path(),
        &[
            "scan",
            "--no-progress",
            "--no-baseline",
            "--min-confidence",
            "low",
            &dir,
        ],
    );
    let listed = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("  a.jsonl:"))
        .count();
    assert!(listed >= 1, "{}", run.stdout);
    assert_eq!(
        run.stdout.matches("(low confidence)").count(),
        listed,
        "{}",
        run.stdout
    );
}

#[test]
fn the_accept_advice_appears_only_where_allow_can_apply() {
    let home = tempfile::tempdir().expect("home");
    let outside = tempfile::tempdir().expect("outside");
    let leak =
        "{\"text\": \"mail ana.popescu@gmail.com or build-07.corp.acmecorp.internal:8443/api\"}\n";
    std::fs::write(outside.path().join("a.jsonl"), leak).expect("write");
    let dir = outside.path().to_string_lossy().into_owned();
    let run = run(
        home.path(),
        &["scan", "--no-progress", "--no-baseline", &dir],
    );
    assert_eq!(run.code, 1);
    assert!(
        !run.stdout.contains("privacy-audit allow"),
        "{}",
        run.stdout
    );
    // The host's suffix is what makes it a finding: it stays visible, the rest masked.
    assert!(run.stdout.contains(".internal:8443"), "{}", run.stdout);
    assert!(!run.stdout.contains("acmecorp"), "{}", run.stdout);
    let repo = tempfile::tempdir().expect("repo");
    git::Sandbox::new().ok(repo.path(), &["init", "-q"]);
    std::fs::write(repo.path().join("a.jsonl"), leak).expect("write");
    let dir = repo.path().to_string_lossy().into_owned();
    let run = crate::util::run(
        home.path(),
        &["scan", "--no-progress", "--no-baseline", &dir],
    );
    assert!(run.stdout.contains("privacy-audit allow"), "{}", run.stdout);
}

#[test]
fn a_teammates_clone_is_told_it_has_no_gate_until_init_and_nothing_to_commit() {
    let s = git::Sandbox::new();
    let repo = s.repo();
    let out = s.bin(&repo, &["init"]);
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(said.contains("git commit privacy-audit.toml"), "{said}");
    assert!(
        said.contains("each teammate runs `privacy-audit init`"),
        "{said}"
    );
    s.ok(&repo, &["add", "privacy-audit.toml"]);
    s.ok(&repo, &["commit", "-qm", "config"]);
    let clone = s.home.path().join("teammate");
    s.ok(
        s.home.path(),
        &["clone", "-q", repo.to_str().expect("utf-8"), "teammate"],
    );
    assert!(
        !clone.join(".git/hooks/pre-commit").exists(),
        "git cloned a hook"
    );
    let out = s.bin(&clone, &["init"]);
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{said}");
    assert!(said.contains("nothing to commit"), "{said}");
    assert!(!said.contains("on its own"), "{said}");
    assert!(
        clone.join(".git/hooks/pre-commit").exists(),
        "no gate installed"
    );
}

#[test]
fn the_defaults_the_generated_config_points_to_are_printed_by_the_binary() {
    let home = tempfile::tempdir().expect("home");
    let run = run(home.path(), &["config", "--defaults"]);
    assert_eq!(run.code, 0);
    assert!(
        run.stdout.contains("[scan]") && run.stdout.contains("min_confidence"),
        "{}",
        run.stdout
    );
    let repo = tempfile::tempdir().expect("repo");
    git::Sandbox::new().ok(repo.path(), &["init", "-q"]);
    let dir = repo.path().to_string_lossy().into_owned();
    let out = crate::util::run(home.path(), &["init", "--repo", &dir, "--no-hook"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let written = std::fs::read_to_string(repo.path().join("privacy-audit.toml")).expect("config");
    assert!(
        written.contains("privacy-audit config --defaults"),
        "{written}"
    );
    assert!(!written.contains("docs/configuration.md"), "{written}");
}

#[test]
fn a_missing_manifest_entry_names_its_file() {
    let home = tempfile::tempdir().expect("home");
    let data = tempfile::tempdir().expect("data");
    std::fs::write(data.path().join("a.txt"), "hi\n").expect("write");
    // Made-up digests: the entry's file is missing whatever the digest says.
    let sums = "8b0e7153bf7c3706d85c524e440066559a6656c90bd5482a90a29b9fa5ff5180  a.txt\nbc0dbc0e15637ebb8e3b91d26ab4a829a95249f512c17b8ed411fa644d35db41  gone-0001.txt\n";
    std::fs::write(data.path().join("SHA256SUMS"), sums).expect("write");
    let dir = data.path().to_string_lossy().into_owned();
    let run = run(
        home.path(),
        &["verify", "--no-progress", "--no-baseline", &dir],
    );
    assert!(
        run.stdout.contains("does not exist, gone-0001.txt"),
        "{}",
        run.stdout
    );
}

#[test]
fn allow_names_the_rules_found_there_and_baseline_leaves_out_what_allow_accepts() {
    let s = git::Sandbox::new();
    let repo = s.repo();
    let out = s.bin(&repo, &["init", "--no-hook"]);
    assert!(out.status.success());
    std::fs::write(
        repo.join("case.json"),
        "{\"contact\": \"maria.garcia@contoso-labs.com\"}\n",
    )
    .expect("write");
    let out = s.bin(
        &repo,
        &["allow", "case.json:1", "--rule", "email", "--reason", "r"],
    );
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("found there: email.address"), "{said}");
    let out = s.bin(
        &repo,
        &[
            "allow",
            "case.json:1",
            "--rule",
            "email.address",
            "--reason",
            "public",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = s.bin(&repo, &["baseline", "-o", "-"]);
    let baseline: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(
        baseline["findings"].as_array().map(Vec::len),
        Some(0),
        "{baseline}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 finding already accepted"));
}
