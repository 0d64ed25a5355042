//! Baselines and `[[allow]]` as a team lives with them: made by one person with
//! `privacy-audit init` and `baseline`, committed, and honoured on every clone and in CI,
//! where each machine has its own fingerprint key.

use crate::util::git::*;
use std::path::{Path, PathBuf};

/// A finding of `hostname.internal`: the rule whose id itself reads as a host name.
const HOST_LINE: &str = "{\"host\": \"gpu-07.corp.internal\"}\n";

fn run_ok(s: &Sandbox, dir: &Path, args: &[&str]) -> String {
    let out = s.bin(dir, args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A repository set up by `init --baseline` over a data file with a finding, with the
/// config and baseline committed on their own (as the hook's message says) and the
/// data committed after: every commit passes the installed hook.
fn team_repo(s: &Sandbox) -> PathBuf {
    let repo = s.repo();
    write(&repo, "data/hosts.jsonl", HOST_LINE);
    run_ok(s, &repo, &["init", "--baseline"]);
    let baseline = std::fs::read_to_string(repo.join(".privacy-audit-baseline.json"))
        .expect("init wrote the baseline itself");
    assert!(baseline.contains("hostname.internal"), "{baseline}");
    s.ok(
        &repo,
        &["add", "privacy-audit.toml", ".privacy-audit-baseline.json"],
    );
    let out = s.git(&repo, &["commit", "-qm", "privacy-audit setup"]);
    assert!(
        out.status.success(),
        "the baseline's own commit was blocked: {}",
        stderr(&out)
    );
    s.ok(&repo, &["add", "data"]);
    let out = s.git(&repo, &["commit", "-qm", "data"]);
    assert!(
        out.status.success(),
        "the baselined data was blocked: {}",
        stderr(&out)
    );
    assert_eq!(s.commits(&repo), 2);
    repo
}

#[test]
fn init_and_baseline_let_a_team_commit_what_it_accepted() {
    let s = Sandbox::new();
    team_repo(&s);
}

#[test]
fn init_installs_a_hook_that_blocks_a_new_leak() {
    let s = Sandbox::new();
    let repo = team_repo(&s);
    write(&repo, "data/more.jsonl", SECRET_LINE);
    s.ok(&repo, &["add", "-A"]);
    let out = s.git(&repo, &["commit", "-qm", "leak"]);
    assert!(!out.status.success(), "a new leak went through");
    assert_eq!(s.commits(&repo), 2);
}

#[test]
fn a_committed_baseline_holds_on_another_machine_and_in_ci() {
    let a = Sandbox::new();
    let repo = team_repo(&a);
    // Another person: another HOME, so another machine key.
    let b = Sandbox::new();
    let clone = b.home.path().join("clone");
    b.ok(
        b.home.path(),
        &["clone", "-q", repo.to_str().expect("utf-8"), "clone"],
    );
    let out = b.bin(&clone, &["scan", ".", "--format", "json", "--no-progress"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(report["summary"]["findings"], 0);
    assert_eq!(report["suppressed"].as_array().map(Vec::len), Some(1));
    // The same through the other machine's pre-commit hook.
    let hook = b.bin(&clone, &["hook", "install"]);
    assert!(hook.status.success());
    write(&clone, "data/notes.jsonl", CLEAN_LINE);
    b.ok(&clone, &["add", "-A"]);
    let out = b.git(&clone, &["commit", "-qm", "notes"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn a_baseline_that_cannot_match_accepts_nothing_and_says_why() {
    // No [team] key: the baseline is this machine's. A teammate's run must say so, and
    // fail the findings it cannot accept, not pass them.
    let a = Sandbox::new();
    let repo = a.repo();
    write(&repo, "hosts.jsonl", HOST_LINE);
    run_ok(&a, &repo, &["baseline"]);
    let b = Sandbox::new();
    let out = b.bin(&repo, &["scan", ".", "--format", "json", "--no-progress"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("[team] key"), "{err}");
    assert!(err.contains("privacy-audit baseline"), "{err}");
}

#[test]
fn a_committed_baseline_of_another_key_does_not_jam_the_commit_that_replaces_it() {
    let s = Sandbox::new();
    let repo = team_repo(&s);
    let path = repo.join(".privacy-audit-baseline.json");
    let text = std::fs::read_to_string(&path).expect("baseline");
    let v: serde_json::Value = serde_json::from_str(&text).expect("json");
    let wrong = text.replace(v["key_id"].as_str().expect("id"), "0123456789abcdef");
    std::fs::write(&path, wrong).expect("write");
    s.ok(
        &repo,
        &["commit", "-qam", "a baseline of another key", "--no-verify"],
    );
    run_ok(&s, &repo, &["baseline"]);
    let out = s.git(&repo, &["commit", "-qam", "baseline again"]);
    assert!(
        out.status.success(),
        "the fix was blocked: {}",
        stderr(&out)
    );
}

#[test]
fn an_allow_entry_made_on_one_machine_holds_on_another() {
    let a = Sandbox::new();
    let repo = a.repo();
    write(&repo, "hosts.jsonl", HOST_LINE);
    run_ok(&a, &repo, &["init", "--no-hook"]);
    let human = a.bin(&repo, &["scan", "hosts.jsonl", "--no-progress"]);
    let text = String::from_utf8_lossy(&human.stdout).into_owned();
    assert!(text.contains("privacy-audit allow"), "{text}");
    run_ok(
        &a,
        &repo,
        &[
            "allow",
            "hosts.jsonl:1",
            "--rule",
            "hostname.internal",
            "--reason",
            "a test host",
        ],
    );
    let config = std::fs::read_to_string(repo.join("privacy-audit.toml")).expect("config");
    assert!(config.contains("reason = \"a test host\""), "{config}");
    let b = Sandbox::new();
    let out = b.bin(
        &repo,
        &["scan", "hosts.jsonl", "--format", "json", "--no-progress"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(report["suppressed"][0]["by"], "allow");
}

#[test]
fn no_report_carries_a_fingerprint_made_with_the_team_key() {
    // The team key is in the repository: a fingerprint under it of a value that was
    // blocked (and never committed) could be reversed by guessing.
    let s = Sandbox::new();
    let repo = s.repo();
    write(&repo, "hosts.jsonl", HOST_LINE);
    run_ok(&s, &repo, &["init", "--no-hook", "--baseline"]);
    let baseline: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo.join(".privacy-audit-baseline.json")).expect("b"),
    )
    .expect("json");
    let team_print = baseline["findings"][0]["fingerprint"]
        .as_str()
        .expect("fp")
        .to_string();
    for format in ["human", "json", "sarif"] {
        let out = s.bin(&repo, &["scan", ".", "--no-baseline", "--format", format]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            !text.contains(&team_print[..16]),
            "{format} shows a team fingerprint"
        );
    }
}

#[test]
fn the_baseline_leaves_out_files_git_ignores() {
    let s = Sandbox::new();
    let repo = s.repo();
    write(&repo, ".gitignore", ".env\n");
    write(&repo, ".env", "{\"contact\": \"ion.popescu@gmail.com\"}\n");
    write(&repo, "hosts.jsonl", HOST_LINE);
    run_ok(&s, &repo, &["init", "--no-hook", "--baseline"]);
    let text = std::fs::read_to_string(repo.join(".privacy-audit-baseline.json")).expect("b");
    assert!(
        text.contains("hosts.jsonl") && !text.contains(".env"),
        "{text}"
    );
}

#[test]
fn a_baseline_that_is_a_symbolic_link_in_the_tree_is_no_baseline() {
    // A symbolic link's blob is its target's name, which can be spelled as a whole
    // baseline: the git doors read only regular files.
    let s = Sandbox::new();
    let repo = s.repo();
    run_ok(&s, &repo, &["init"]);
    let scratch = s.repo();
    write(&scratch, "leak.jsonl", SECRET_LINE);
    std::fs::copy(
        repo.join("privacy-audit.toml"),
        scratch.join("privacy-audit.toml"),
    )
    .expect("cp");
    let made = s.bin(&scratch, &["baseline", "-o", "-"]);
    let json = String::from_utf8_lossy(&made.stdout)
        .trim()
        .replace('\n', "");
    assert!(json.contains("email.address"), "{json}");
    std::os::unix::fs::symlink(&json, repo.join(".privacy-audit-baseline.json")).expect("ln");
    s.ok(&repo, &["add", "-A"]);
    s.ok(&repo, &["commit", "-qm", "setup", "--no-verify"]);
    write(&repo, "leak.jsonl", SECRET_LINE);
    s.ok(&repo, &["add", "leak.jsonl"]);
    let out = s.git(&repo, &["commit", "-qm", "leak"]);
    assert!(!out.status.success(), "a symbolic link accepted a leak");
}

#[test]
fn baseline_check_masks_the_paths_it_names() {
    let s = Sandbox::new();
    let repo = s.repo();
    run_ok(&s, &repo, &["init", "--no-hook"]);
    let dir = "ion.popescu@gmail.com";
    write(&repo, &format!("{dir}/x.jsonl"), HOST_LINE);
    run_ok(&s, &repo, &["baseline"]);
    std::fs::remove_dir_all(repo.join(dir)).expect("rm");
    let out = s.bin(&repo, &["baseline", "--check"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("stale baseline entry"), "{text}");
    assert!(!text.contains("popescu@gmail"), "{text}");
}

#[test]
fn baseline_check_names_entries_that_match_nothing_any_more() {
    let s = Sandbox::new();
    let repo = team_repo(&s);
    assert!(run_ok(&s, &repo, &["baseline", "--check"]).contains("all match"));
    std::fs::remove_file(repo.join("data/hosts.jsonl")).expect("rm");
    let out = s.bin(&repo, &["baseline", "--check"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("stale baseline entry: data/hosts.jsonl"),
        "{text}"
    );
}

/// `scan .` with no baseline honoured must find something (exit 1).
fn judged_as_leak(s: &Sandbox, repo: &Path) -> std::process::Output {
    let args = [
        "scan",
        ".",
        "--format",
        "json",
        "--no-progress",
        "--no-baseline",
    ];
    let out = s.bin(repo, &args);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    out
}

#[test]
fn a_file_posing_as_the_baseline_is_still_judged() {
    let s = Sandbox::new();
    let repo = s.repo();
    // Strictly a baseline, but a path in it is a key; and one with a made-up rule id
    // that spells a host name is not a baseline at all.
    let as_path = serde_json::json!({
        "schema": "privacy-audit.baseline/v1",
        "key_id": "0123456789abcdef",
        "findings": [{"fingerprint": "a".repeat(64), "rule_id": "email.address",
                      "path": "keys/AKIAZ7QW3RT5YU2IOPLM.json"}],
    });
    write(&repo, ".privacy-audit-baseline.json", as_path.to_string());
    judged_as_leak(&s, &repo);
    for hidden in [
        "SSN 536-22-1844 at gpu-17.ml.internal".to_string(),
        crate::util::b64(format!("{}ion.popescu@gmail.com", "x ".repeat(35_000))),
    ] {
        let mut posing = as_path.clone();
        posing["findings"][0]["path"] = serde_json::Value::String(hidden);
        write(&repo, ".privacy-audit-baseline.json", posing.to_string());
        judged_as_leak(&s, &repo);
    }
    let as_rule = as_path
        .to_string()
        .replace("email.address", "db01.corp.internal");
    write(&repo, ".privacy-audit-baseline.json", &as_rule);
    let out = judged_as_leak(&s, &repo);
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("hostname.internal"), "{report}");
}

#[test]
fn an_allow_entry_holds_for_its_file_only_and_only_in_the_repository_config() {
    let s = Sandbox::new();
    let repo = s.repo();
    write(&repo, "fixtures/hosts.jsonl", HOST_LINE);
    write(&repo, "prod/dump.jsonl", HOST_LINE);
    run_ok(&s, &repo, &["init", "--no-hook"]);
    // An address in the reason would be a finding in privacy-audit.toml itself (the
    // config is data too); a terminal escape must not reach a report.
    let reason = "fixture\u{1b}[31m red";
    run_ok(
        &s,
        &repo,
        &[
            "allow",
            "fixtures/hosts.jsonl:1",
            "--rule",
            "hostname.internal",
            "--reason",
            reason,
        ],
    );
    let out = s.bin(&repo, &["scan", ".", "--format", "json", "--no-progress"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the same value elsewhere must still fail"
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let report: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(report["findings"][0]["path"], "prod/dump.jsonl");
    assert_eq!(report["suppressed"][0]["path"], "fixtures/hosts.jsonl");
    assert!(
        !text.contains('\u{1b}') && !text.contains("\\u001b"),
        "{text}"
    );
    // No repository config: the entry would go to the user's config and accept the
    // value everywhere on this machine.
    let elsewhere = s.home.path().join("elsewhere");
    write(&elsewhere, "hosts.jsonl", HOST_LINE);
    write(
        s.home.path(),
        ".config/privacy-audit/config.toml",
        "[scan]\nfail_on = \"low\"\n",
    );
    let refused = s.bin(
        &elsewhere,
        &[
            "allow",
            "hosts.jsonl",
            "--rule",
            "hostname.internal",
            "--reason",
            "x",
        ],
    );
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    // A file outside the repository, named through `..`: no entry that could never match.
    let outside = s.bin(
        &repo,
        &[
            "allow",
            "../elsewhere/hosts.jsonl:1",
            "--rule",
            "hostname.internal",
            "--reason",
            "x",
        ],
    );
    assert_eq!(outside.status.code(), Some(2), "{}", stderr(&outside));
}
