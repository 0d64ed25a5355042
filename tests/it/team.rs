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
fn a_baseline_that_cannot_match_stops_the_run_and_says_why() {
    // No [team] key: the baseline is this machine's, and a teammate's run must say so
    // rather than fail every accepted finding in silence (or pass them).
    let a = Sandbox::new();
    let repo = a.repo();
    write(&repo, "hosts.jsonl", HOST_LINE);
    run_ok(&a, &repo, &["baseline"]);
    let b = Sandbox::new();
    let out = b.bin(&repo, &["scan", ".", "--format", "json", "--no-progress"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("[team] key"), "{err}");
    assert!(err.contains("privacy-audit baseline"), "{err}");
}

#[test]
fn an_allow_entry_named_by_the_short_fingerprint_holds_on_another_machine() {
    let a = Sandbox::new();
    let repo = a.repo();
    write(&repo, "hosts.jsonl", HOST_LINE);
    let key = "ab".repeat(32);
    write(
        &repo,
        "privacy-audit.toml",
        format!("[team]\nkey = \"{key}\"\n"),
    );
    let human = a.bin(&repo, &["scan", "hosts.jsonl", "--no-progress"]);
    let text = String::from_utf8_lossy(&human.stdout).into_owned();
    let fp = text
        .split_whitespace()
        .find_map(|w| w.strip_prefix("fp:"))
        .unwrap_or_else(|| panic!("no fingerprint shown: {text}"))
        .to_string();
    assert_eq!(fp.len(), 16);
    write(
        &repo,
        "privacy-audit.toml",
        format!(
            "[team]\nkey = \"{key}\"\n\n[[allow]]\nfingerprint = \"{fp}\"\nreason = \"a test host\"\n"
        ),
    );
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
    let out = s.bin(
        &repo,
        &[
            "scan",
            ".",
            "--format",
            "json",
            "--no-progress",
            "--no-baseline",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let as_rule = as_path
        .to_string()
        .replace("email.address", "db01.corp.internal");
    write(&repo, ".privacy-audit-baseline.json", &as_rule);
    let out = s.bin(
        &repo,
        &[
            "scan",
            ".",
            "--format",
            "json",
            "--no-progress",
            "--no-baseline",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("hostname.internal"), "{report}");
}
