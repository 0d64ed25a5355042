//! Everything git or a file carries is content: a gzip header's stored name and comment,
//! the name of a pushed branch, an author's or committer's name, a submodule's path and
//! a file name holding a value of any category are judged through the real doors (the
//! installed pre-commit hook, a bare server's pre-receive hook, `scan`), and a value
//! found there is never printed in full.

use crate::util::git::*;
use std::path::Path;

const AWS_KEY: &str = "AKIAZ7QW3RT5YU2IOPLM";
const EMAIL: &str = "ion.popescu@gmail.com";

/// A `.jsonl.gz` with clean content whose header carries `name` and `comment`.
fn gzip_with_header(name: &str, comment: &str) -> Vec<u8> {
    use std::io::Write;
    let mut enc = flate2::GzBuilder::new()
        .filename(name)
        .comment(comment)
        .write(Vec::new(), flate2::Compression::fast());
    enc.write_all(CLEAN_LINE.as_bytes()).expect("gzip");
    enc.finish().expect("gzip")
}

fn blocked_commit(s: &Sandbox, repo: &Path) -> String {
    s.ok(repo, &["add", "-A"]);
    let out = s.git(repo, &["commit", "-qm", "x"]);
    assert!(!out.status.success(), "the commit went through");
    stderr(&out)
}

/// A repository with one clean commit, and a server whose pre-receive is the gate.
fn repo_and_server(s: &Sandbox) -> std::path::PathBuf {
    let repo = s.repo();
    write(&repo, "ok.jsonl", CLEAN_LINE);
    s.commit_all(&repo, &["clean"]);
    let server = s.server("server.git", "");
    s.ok(
        &repo,
        &["remote", "add", "origin", server.to_str().expect("utf-8")],
    );
    repo
}

#[test]
fn a_gzip_header_is_content() {
    for (name, comment) in [
        (format!("{EMAIL}.jsonl"), String::new()),
        ("run.jsonl".to_string(), format!("built with key {AWS_KEY}")),
    ] {
        let s = Sandbox::new();
        let repo = s.installed_repo();
        std::fs::write(repo.join("run.jsonl.gz"), gzip_with_header(&name, &comment))
            .expect("write");
        let err = blocked_commit(&s, &repo);
        assert!(err.contains("gzip header"), "{err}");
        assert!(!err.contains(EMAIL) && !err.contains(AWS_KEY), "{err}");
        let out = s.bin(&repo, &["scan", "run.jsonl.gz", "--format", "json"]);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    }
}

#[test]
fn a_pushed_branch_name_is_content() {
    let s = Sandbox::new();
    let repo = repo_and_server(&s);
    s.ok(&repo, &["push", "-q", "origin", "main"]);
    for branch in [format!("feature/{EMAIL}"), format!("keys/{AWS_KEY}")] {
        s.ok(&repo, &["branch", &branch]);
        let out = s.git(&repo, &["push", "-q", "origin", &branch]);
        assert!(!out.status.success(), "pre-receive accepted {branch}");
        // git itself names the rejected ref; the gate's own lines never do.
        let err = stderr(&out);
        let gate: Vec<&str> = err.lines().filter(|l| l.starts_with("remote:")).collect();
        assert!(!gate.is_empty(), "{err}");
        assert!(
            gate.iter()
                .all(|l| !l.contains(EMAIL) && !l.contains(AWS_KEY)),
            "{err}"
        );
    }
}

#[test]
fn author_and_committer_names_are_content() {
    let s = Sandbox::new();
    let repo = repo_and_server(&s);
    write(&repo, "more.jsonl", CLEAN_LINE);
    s.ok(&repo, &["add", "-A"]);
    let author = format!("deploy {AWS_KEY} <t@example.com>");
    s.ok(
        &repo,
        &["commit", "-qm", "more", &format!("--author={author}")],
    );
    let out = s.bin(&repo, &["scan-git", "--all", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains(AWS_KEY), "{text}");
    let out = s.git(&repo, &["push", "-q", "origin", "main"]);
    assert!(!out.status.success(), "pre-receive accepted the author");
}

#[test]
fn an_ordinary_identity_passes() {
    // Every commit carries its author's address: that alone blocks nothing.
    let s = Sandbox::new();
    let repo = repo_and_server(&s);
    write(&repo, "more.jsonl", CLEAN_LINE);
    s.ok(&repo, &["add", "-A"]);
    s.ok(
        &repo,
        &[
            "commit",
            "-qm",
            "more",
            &format!("--author=Ion Popescu <{EMAIL}>"),
        ],
    );
    let out = s.git(&repo, &["push", "-q", "origin", "main"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn a_submodule_path_is_content() {
    let s = Sandbox::new();
    let repo = s.installed_repo();
    let commit = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
    s.ok(
        &repo,
        &[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("160000,{commit},vendor/{EMAIL}"),
        ],
    );
    let out = s.git(&repo, &["commit", "-qm", "x"]);
    assert!(!out.status.success(), "the gitlink went through");
    let err = stderr(&out);
    assert!(err.contains("submodule"), "{err}");
    assert!(!err.contains(EMAIL), "{err}");
}

#[test]
fn a_file_name_holding_any_kind_of_value_is_content() {
    for name in [
        "call_702-383-0281.txt",
        "srv-81.196.12.7.log",
        "order-4556737586899855.json",
    ] {
        let s = Sandbox::new();
        let repo = s.installed_repo();
        write(&repo, name, CLEAN_LINE);
        let err = blocked_commit(&s, &repo);
        assert!(err.contains("in the file name"), "{name}: {err}");
        assert!(!err.contains(name), "{name} printed in full: {err}");
    }
}

/// The daemon quarantines a file whose name is a value: neither the report, the
/// trail's log nor the destination it prints holds the name; the original path is
/// kept beside the file, readable by the daemon's user only.
#[test]
fn a_quarantined_name_is_never_printed() {
    use crate::util::daemon::Daemon;
    use std::os::unix::fs::PermissionsExt;
    let mut d = Daemon::start("on_violation = \"quarantine\"\n");
    let name = format!("{EMAIL}.jsonl");
    let path = d.data().join(&name);
    std::fs::write(&path, CLEAN_LINE).expect("write");
    d.wait_for("the quarantine", || {
        d.reports().iter().any(|r| r["quarantined"].is_array())
    });
    assert!(!path.exists(), "moved out of the watched folder");
    let report = d
        .reports()
        .into_iter()
        .find(|r| r["quarantined"].is_array())
        .expect("a report");
    let to = report["quarantined"][0]["to"]
        .as_str()
        .expect("to")
        .to_string();
    assert!(!to.contains(EMAIL), "{to}");
    assert!(std::path::Path::new(&to).exists(), "{to}");
    let origin = std::fs::metadata(format!("{to}.origin")).expect("origin kept");
    assert_eq!(origin.permissions().mode() & 0o777, 0o600);
    let log = std::fs::read_to_string(d.reports_dir().join("audit.jsonl")).expect("log");
    assert!(!log.contains(EMAIL), "{log}");
    assert!(!report.to_string().contains(EMAIL));
    d.signal(libc::SIGTERM);
    assert_eq!(d.wait_exit(), Some(0));
}

/// Config and rule errors name the file, line and key, never the value the user wrote
/// (serde, globset and the regex parser all quote it back).
#[test]
fn config_and_rule_errors_never_echo_the_value() {
    let planted = "/home/tkowalski/notes";
    let host = "gpu-07.corp.internal";
    for (config, rule) in [
        (format!("[scan]\nmin_confidence = \"{planted}\"\n"), None),
        (format!("[scan]\n\"{planted}\" = 1\n"), None),
        (format!("[scan]\nexclude = [\"{planted}/[x\"]\n"), None),
        (
            "[rules]\ndirs = [\"r\"]\n".to_string(),
            Some(format!(
                "[[rule]]\nid = \"x.y\"\ncategory = \"secret\"\nseverity = \"high\"\n\
                 description = \"d\"\nregex = \"{host}[(\"\n"
            )),
        ),
    ] {
        let dir = tempfile::tempdir().expect("t");
        std::fs::write(dir.path().join("privacy-audit.toml"), &config).expect("write");
        if let Some(rule) = rule {
            std::fs::create_dir(dir.path().join("r")).expect("mkdir");
            std::fs::write(dir.path().join("r/a.toml"), rule).expect("write");
        }
        let home = tempfile::tempdir().expect("t");
        let config = dir.path().join("privacy-audit.toml");
        let run = crate::util::run(
            home.path(),
            &[
                "--config",
                config.to_str().expect("utf-8"),
                "scan",
                dir.path().to_str().expect("utf-8"),
                "--no-progress",
            ],
        );
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(run.stderr.contains("error"), "{}", run.stderr);
        assert!(
            !run.stderr.contains("tkowalski") && !run.stderr.contains(host),
            "{}",
            run.stderr
        );
    }
}

/// A value spelled with backslash escapes (TOML, YAML, code) is the value: a committed
/// config holding an escaped home path is blocked, and a YAML or source file too.
#[test]
fn backslash_escapes_hide_nothing() {
    for (name, text) in [
        (
            "privacy-audit.toml",
            "[privacy]\nplaceholders = [\"\\u002Fhome\\u002Ftkowalski\\u002Fnotes\"]\n",
        ),
        ("conf.yaml", "owner: \"ion.popescu\\x40gmail.com\"\n"),
        ("run.py", "KEY = \"\\u0041KIAZ7QW3RT5YU2IOPLM\"\n"),
    ] {
        let s = Sandbox::new();
        let repo = s.installed_repo();
        write(&repo, name, text);
        let err = blocked_commit(&s, &repo);
        assert!(err.contains("backslash escapes"), "{name}: {err}");
        assert!(!err.contains("tkowalski") && !err.contains(EMAIL), "{err}");
    }
}
