//! The accept route through a push: each pushed commit is judged by the config and
//! baseline of its own parent, so "baseline commit, then the data commit" goes through
//! pre-push and a pre-receive server in one push, while a commit that brings a leak
//! together with the baseline accepting it is still refused.

use crate::util::git::*;
use std::path::{Path, PathBuf};

const HOST_LINE: &str = "{\"host\": \"gpu-07.corp.internal\"}\n";

/// A repository with the pre-push gate, pushed once (clean) to a server whose
/// pre-receive hook is the gate too.
fn pushed_repo(s: &Sandbox) -> (PathBuf, PathBuf) {
    let server = s.server("server.git", "");
    let repo = s.repo();
    write(&repo, "README.md", "data\n");
    s.commit_all(&repo, &["start"]);
    s.ok(
        &repo,
        &["remote", "add", "origin", server.to_str().expect("utf-8")],
    );
    let out = s.bin(&repo, &["hook", "install", "--hook", "pre-push"]);
    assert!(out.status.success(), "{}", stderr(&out));
    s.ok(&repo, &["push", "-q", "origin", "main"]);
    (repo, server)
}

fn push(s: &Sandbox, repo: &Path) -> std::process::Output {
    s.git(repo, &["push", "-q", "origin", "main"])
}

/// Pushes a commit with the `lax` config, then one that is strict again, and checks out
/// a new branch `name` at the lax commit: the remote holds both.
fn branch_off_lax(s: &Sandbox, repo: &Path, lax: &str, name: &str) {
    write(repo, "privacy-audit.toml", lax);
    s.commit_all(repo, &["lax for a while"]);
    assert!(push(s, repo).status.success());
    write(repo, "privacy-audit.toml", "[rules]\ndisable = []\n");
    s.commit_all(repo, &["strict again"]);
    assert!(push(s, repo).status.success());
    s.ok(repo, &["checkout", "-q", "-b", name, "HEAD~1"]);
}

#[test]
fn a_baseline_commit_then_the_data_commit_pass_in_one_push() {
    let s = Sandbox::new();
    let (repo, server) = pushed_repo(&s);
    let out = s.bin(&repo, &["init"]);
    assert!(out.status.success(), "{}", stderr(&out));
    write(&repo, "data/hosts.jsonl", HOST_LINE);
    let out = s.bin(&repo, &["baseline"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // As the block message says: the acceptance on its own, then the data.
    s.ok(
        &repo,
        &["add", "privacy-audit.toml", ".privacy-audit-baseline.json"],
    );
    s.ok(&repo, &["commit", "-qm", "accept the known host"]);
    s.ok(&repo, &["add", "data"]);
    s.ok(&repo, &["commit", "-qm", "data"]);
    let out = push(&s, &repo);
    assert!(out.status.success(), "refused: {}", stderr(&out));
    // The server, judging the same way, took both.
    let tip = s.ok(&server, &["rev-parse", "main"]);
    assert_eq!(tip, s.ok(&repo, &["rev-parse", "HEAD"]));
    // CI's range scan agrees.
    let out = s.bin(&repo, &["scan-git", "--range", "HEAD~2..HEAD"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn a_commit_cannot_accept_its_own_leak_even_in_a_push() {
    let s = Sandbox::new();
    let (repo, server) = pushed_repo(&s);
    let before = s.ok(&server, &["rev-parse", "main"]);
    write(&repo, "data/hosts.jsonl", HOST_LINE);
    let out = s.bin(&repo, &["baseline"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Leak and its acceptance in one commit (past any pre-commit hook).
    s.ok(&repo, &["add", "-A"]);
    s.ok(&repo, &["commit", "-qm", "leak and accept", "--no-verify"]);
    let out = push(&s, &repo);
    assert!(!out.status.success(), "a commit accepted its own leak");
    assert!(
        stderr(&out).contains("hostname.internal"),
        "{}",
        stderr(&out)
    );
    // Past the client hook, the server refuses it too.
    let out = s.git(&repo, &["push", "-q", "--no-verify", "origin", "main"]);
    assert!(!out.status.success(), "the server took it");
    assert_eq!(s.ok(&server, &["rev-parse", "main"]), before);
    let out = s.bin(&repo, &["scan-git", "--range", "HEAD~1..HEAD"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
}

/// A branch off an old commit whose config was laxer is judged by what the remote holds
/// now: only a parent pushed along with a commit speaks for it.
#[test]
fn branching_off_an_old_lax_config_does_not_bring_it_back() {
    let s = Sandbox::new();
    let (repo, server) = pushed_repo(&s);
    branch_off_lax(&s, &repo, "[rules]\ndisable = [\"email.address\"]\n", "lax");
    write(&repo, "data/a.jsonl", SECRET_LINE);
    s.commit_all(&repo, &["leak on the old config"]);
    let out = s.git(&repo, &["push", "-q", "origin", "lax"]);
    assert!(!out.status.success(), "the old lax config judged the push");
    let out = s.git(&repo, &["push", "-q", "--no-verify", "origin", "lax"]);
    assert!(!out.status.success(), "the server took it");
    let branches = s.ok(&server, &["branch", "--list", "lax"]);
    assert!(branches.is_empty(), "{branches}");
}

/// A pushed commit lends the next one its acceptance only: a config that switches
/// rules off in the same push does not switch them off for the data after it.
#[test]
fn a_pushed_config_cannot_switch_the_gate_off_for_the_next_commit() {
    let s = Sandbox::new();
    let (repo, _server) = pushed_repo(&s);
    write(
        &repo,
        "privacy-audit.toml",
        "[rules]\ndisable = [\"email.address\"]\n",
    );
    s.commit_all(&repo, &["switch email off"]);
    write(&repo, "data/a.jsonl", SECRET_LINE);
    s.commit_all(&repo, &["data"]);
    let out = push(&s, &repo);
    assert!(
        !out.status.success(),
        "the pushed config switched the rule off"
    );
    let out = s.git(&repo, &["push", "-q", "--no-verify", "origin", "main"]);
    assert!(!out.status.success(), "the server took it");
}

/// An empty commit on top of an old, laxer commit does not make the old config the
/// pushed data's: the line from the data's parent must reach the remote's tip.
#[test]
fn an_empty_commit_on_an_old_lax_commit_lends_it_nothing() {
    let s = Sandbox::new();
    let (repo, _server) = pushed_repo(&s);
    let allow = "[[allow]]\npath = \"data/**\"\nrule = \"email.address\"\nreason = \"old\"\n";
    branch_off_lax(&s, &repo, allow, "side");
    s.ok(&repo, &["commit", "-q", "--allow-empty", "-m", "nothing"]);
    write(&repo, "data/a.jsonl", SECRET_LINE);
    s.commit_all(&repo, &["leak"]);
    let out = s.git(&repo, &["push", "-q", "origin", "side"]);
    assert!(
        !out.status.success(),
        "the old allow entry accepted the leak"
    );
    let out = s.git(&repo, &["push", "-q", "--no-verify", "origin", "side"]);
    assert!(!out.status.success(), "the server took it");
}
