//! `privacy-audit fix` through the binary: a dry run writes nothing and shows no value;
//! `--write` rewrites, keeps what it does not touch byte for byte, re-hashes manifests,
//! bound hashes and a record's own text hash, keeps gzip members, backs up, and is
//! idempotent; what it cannot rewrite is listed for a person (exit 1).

use crate::util::{gzip, run};
use sha2::{Digest, Sha256};
use std::path::Path;

const EMAIL: &str = "ion.popescu@gmail.com";
const HOME: &str = "/home/ionpopescu/runs/a.py";
const KEY: &str = "AKIAZ7QW3RT5YU2IOPLM";

pub(crate) fn sha(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

pub(crate) fn write(dir: &Path, name: &str, bytes: &[u8]) {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("dir");
    }
    std::fs::write(path, bytes).expect("write");
}

pub(crate) fn read(dir: &Path, name: &str) -> Vec<u8> {
    std::fs::read(dir.join(name)).expect("read")
}

/// A dataset with values in JSON lines, a text file and a gzip, a manifest over them,
/// a manifest over that manifest, and a record that hashes its own text.
fn dataset(dir: &Path) {
    let line = serde_json::json!({"q": format!("mail {EMAIL}"), "path": HOME}).to_string();
    write(
        dir,
        "d/cases.jsonl",
        format!("{{\"id\":1}}\n{line}\n").as_bytes(),
    );
    write(
        dir,
        "d/notes.md",
        format!("# notes\nkey {KEY} here\n").as_bytes(),
    );
    write(dir, "d/run.jsonl.gz", &gzip(&format!("{line}\n")));
    let text = format!("ask {EMAIL}");
    let own = serde_json::json!({"text": text, "text_sha256": format!("sha256:{}", sha(text.as_bytes()))});
    write(dir, "d/own.jsonl", format!("{own}\n").as_bytes());
    let sums: String = ["cases.jsonl", "notes.md", "run.jsonl.gz"]
        .iter()
        .map(|n| format!("{}  {n}\n", sha(&read(dir, &format!("d/{n}")))))
        .collect();
    write(dir, "d/SHA256SUMS", sums.as_bytes());
    let top = format!("{}  d/SHA256SUMS\n", sha(&read(dir, "d/SHA256SUMS")));
    write(dir, "SHA256SUMS", top.as_bytes());
}

#[test]
fn a_dry_run_writes_nothing_and_shows_no_value() {
    let home = tempfile::tempdir().expect("home");
    let data = tempfile::tempdir().expect("data");
    dataset(data.path());
    let before = read(data.path(), "d/cases.jsonl");
    let dir = data.path().to_str().expect("utf-8");
    let out = run(home.path(), &["fix", dir]);
    assert_eq!(out.code, 1, "changes are pending: {}", out.stderr);
    assert!(
        out.stdout.contains("dry run: nothing was written"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("→ user-"), "{}", out.stdout);
    assert_eq!(read(data.path(), "d/cases.jsonl"), before);
    for value in [EMAIL, HOME, "ionpopescu", KEY] {
        assert!(
            !out.stdout.contains(value) && !out.stderr.contains(value),
            "{value} shown"
        );
    }
    let log = run(home.path(), &["fix", dir, "--format", "json"]);
    let log = log.json();
    assert_eq!(log["written"], false);
    assert!(!log.to_string().contains(EMAIL));
}

#[test]
fn write_fixes_rehashes_and_a_second_run_has_nothing_to_do() {
    let home = tempfile::tempdir().expect("home");
    let data = tempfile::tempdir().expect("data");
    let backup = tempfile::tempdir().expect("backup");
    dataset(data.path());
    let original = read(data.path(), "d/cases.jsonl");
    let dir = data.path().to_str().expect("utf-8");
    assert_eq!(
        run(home.path(), &["verify", dir]).code,
        0,
        "the hashes hold before"
    );
    let out = run(
        home.path(),
        &[
            "fix",
            dir,
            "--write",
            "--backup",
            backup.path().to_str().expect("utf-8"),
        ],
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("hashes recorded anew"),
        "{}",
        out.stdout
    );

    // The values are gone, the data still reads, its hashes hold.
    let scan = run(
        home.path(),
        &["scan", dir, "--format", "json", "--no-baseline"],
    );
    assert_eq!(scan.code, 0, "{}", scan.stdout);
    assert_eq!(
        run(home.path(), &["verify", dir]).code,
        0,
        "every hash holds after"
    );
    let cases = String::from_utf8(read(data.path(), "d/cases.jsonl")).expect("utf-8");
    assert!(
        cases.starts_with("{\"id\":1}\n"),
        "untouched lines stay: {cases}"
    );
    assert!(
        cases.contains("/home/user/runs/a.py"),
        "only the user's folder changed"
    );
    assert!(cases.contains("@example.com"));
    for line in cases.lines() {
        serde_json::from_str::<serde_json::Value>(line).expect("each line parses");
    }
    let own = String::from_utf8(read(data.path(), "d/own.jsonl")).expect("utf-8");
    let own: serde_json::Value = serde_json::from_str(own.trim()).expect("json");
    let text = own["text"].as_str().expect("text");
    assert_eq!(
        own["text_sha256"],
        format!("sha256:{}", sha(text.as_bytes()))
    );
    assert_eq!(
        read(
            backup.path(),
            &data
                .path()
                .join("d/cases.jsonl")
                .components()
                .skip(1)
                .collect::<std::path::PathBuf>()
                .to_string_lossy(),
        ),
        original,
        "the backup is the original"
    );

    // Idempotent: nothing left to do.
    let again = run(home.path(), &["fix", dir, "--write"]);
    assert_eq!(again.code, 0, "{}", again.stdout);
    assert!(
        again.stdout.contains("0 values in 0 files"),
        "{}",
        again.stdout
    );
}

#[test]
fn a_hash_that_was_already_wrong_is_left_and_what_cannot_be_rewritten_needs_a_person() {
    let home = tempfile::tempdir().expect("home");
    let data = tempfile::tempdir().expect("data");
    let line = serde_json::json!({"q": format!("mail {EMAIL}")}).to_string();
    write(data.path(), "a.jsonl", format!("{line}\n").as_bytes());
    let wrong = sha(b"other bytes");
    write(
        data.path(),
        "SHA256SUMS",
        format!("{wrong}  a.jsonl\n").as_bytes(),
    );
    let trace = "Traceback (most recent call last):\n  File \"/srv/app/x.py\", line 3, in <module>\n    main()\nValueError: bad\n";
    write(data.path(), "log.txt", trace.as_bytes());
    let dir = data.path().to_str().expect("utf-8");
    let out = run(home.path(), &["fix", dir, "--write"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(out.stdout.contains("needs a person"), "{}", out.stdout);
    assert!(
        out.stdout.contains("provenance.hash_mismatch"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("capture.python_traceback"),
        "{}",
        out.stdout
    );
    let sums = String::from_utf8(read(data.path(), "SHA256SUMS")).expect("utf-8");
    assert!(
        sums.starts_with(&wrong),
        "a false hash is not made true by fix: {sums}"
    );
    assert_eq!(
        read(data.path(), "log.txt"),
        trace.as_bytes(),
        "a capture is not half-fixed"
    );
}

#[test]
fn the_replacements_list_is_private_and_never_inside_the_data() {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().expect("home");
    let data = tempfile::tempdir().expect("data");
    let line = serde_json::json!({"q": format!("mail {EMAIL}")}).to_string();
    write(data.path(), "a.jsonl", format!("{line}\n").as_bytes());
    let dir = data.path().to_str().expect("utf-8");
    let inside = data.path().join("values.txt");
    let refused = run(
        home.path(),
        &[
            "fix",
            dir,
            "--replacements",
            inside.to_str().expect("utf-8"),
        ],
    );
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(!inside.exists(), "nothing is written inside the data");

    let list = home.path().join("values.txt");
    let out = run(
        home.path(),
        &[
            "fix",
            dir,
            "--write",
            "--replacements",
            list.to_str().expect("utf-8"),
        ],
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains("holds the values in full"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains(EMAIL));
    let mode = std::fs::metadata(&list).expect("list").permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "the list is its owner's only");
    let text = std::fs::read_to_string(&list).expect("list");
    assert!(
        text.lines()
            .any(|l| l.starts_with(&format!("literal:{EMAIL}==>user-"))),
        "{text}"
    );
}

/// A commit the hook refuses is fixed in place: the staged file and the manifest that
/// records its hash are rewritten in the work tree and staged again, and the commit
/// then passes. A staged file with unstaged changes is refused.
#[test]
fn fix_staged_rewrites_the_index_and_the_work_tree_together() {
    use crate::util::git::{Sandbox, stderr};
    let s = Sandbox::new();
    let repo = s.installed_repo();
    let line = serde_json::json!({"q": format!("mail {EMAIL}")}).to_string();
    write(&repo, "d/a.jsonl", format!("{line}\n").as_bytes());
    let sums = format!("{}  a.jsonl\n", sha(&read(&repo, "d/a.jsonl")));
    write(&repo, "d/SHA256SUMS", sums.as_bytes());
    s.ok(&repo, &["add", "."]);
    assert!(!s.git(&repo, &["commit", "-qm", "leak"]).status.success());

    write(
        &repo,
        "d/a.jsonl",
        format!("{line}\n{{\"more\":1}}\n").as_bytes(),
    );
    let dirty = s.bin(&repo, &["fix", "--staged", "--write"]);
    assert_eq!(dirty.status.code(), Some(2), "{}", stderr(&dirty));
    assert!(
        stderr(&dirty).contains("more changes not staged"),
        "{}",
        stderr(&dirty)
    );
    write(&repo, "d/a.jsonl", format!("{line}\n").as_bytes());

    let out = s.bin(&repo, &["fix", "--staged", "--write"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let staged = s.ok(&repo, &["show", ":d/a.jsonl"]);
    assert!(
        staged.contains("@example.com") && !staged.contains(EMAIL),
        "{staged}"
    );
    assert_eq!(
        s.ok(&repo, &["diff", "--stat"]),
        "",
        "index and work tree agree"
    );
    let commit = s.git(&repo, &["commit", "-qm", "fixed"]);
    assert!(commit.status.success(), "{}", stderr(&commit));
    assert_eq!(s.bin(&repo, &["verify", "."]).status.code(), Some(0));
}

#[test]
fn drop_capture_replaces_a_trace_whole() {
    let home = tempfile::tempdir().expect("home");
    let data = tempfile::tempdir().expect("data");
    let trace = "Traceback (most recent call last):\n  File \"/srv/app/x.py\", line 3, in <module>\n    main()\nValueError: bad\n";
    let log = serde_json::json!({"step": 1, "observation": format!("ran it\n{trace}")});
    write(data.path(), "run.jsonl", format!("{log}\n").as_bytes());
    write(
        data.path(),
        "notes.txt",
        format!("before\n{trace}after\n").as_bytes(),
    );
    let dir = data.path().to_str().expect("utf-8");
    let out = run(home.path(), &["fix", dir, "--drop-capture", "--write"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let notes = String::from_utf8(read(data.path(), "notes.txt")).expect("utf-8");
    assert_eq!(notes, "before\n[capture.python_traceback removed]\nafter\n");
    let run_log: serde_json::Value =
        serde_json::from_slice(&read(data.path(), "run.jsonl")).expect("json");
    assert_eq!(run_log["observation"], "[capture.python_traceback removed]");
    assert_eq!(run_log["step"], 1);
    let scan = run(home.path(), &["scan", dir, "--no-baseline"]);
    assert_eq!(scan.code, 0, "{}", scan.stdout);
}

/// What a review found: a key block goes whole; a manifest line of an unfixed twin is
/// left; a hash inside a file that a manifest covers is rewritten before the
/// manifest's line for that file; `--backup` inside the data is refused; a second run
/// at `--min-confidence low` has nothing to do.
#[test]
fn keys_twins_chains_and_a_low_confidence_rerun() {
    let home = tempfile::tempdir().expect("home");
    let data = tempfile::tempdir().expect("data");
    let d = data.path();
    let key = crate::util::values::rsa_key_block(0);
    write(
        d,
        "notes.txt",
        format!("deploy key:\n{key}done\n").as_bytes(),
    );
    write(d, "a.txt", format!("mail {EMAIL}\n").as_bytes());
    write(d, "b.txt", format!("mail {EMAIL}\n").as_bytes());
    let sums = format!(
        "{}  a.txt\n{}  b.txt\n",
        sha(&read(d, "a.txt")),
        sha(&read(d, "b.txt"))
    );
    write(d, "SHA256SUMS", sums.as_bytes());
    write(d, "g/g.txt", format!("mail {EMAIL}\n").as_bytes());
    let bound =
        serde_json::json!({"path": "g.txt", "sha256": sha(&read(d, "g/g.txt")), "who": EMAIL});
    write(d, "g/a.json", bound.to_string().as_bytes());
    write(
        d,
        "g/SHA256SUMS",
        format!("{}  a.json\n", sha(&read(d, "g/a.json"))).as_bytes(),
    );
    let p = |rel: &str| d.join(rel).to_string_lossy().into_owned();
    assert_eq!(run(home.path(), &["verify", &p("")]).code, 0);

    let inside = p("bak");
    assert_eq!(
        run(
            home.path(),
            &["fix", &p(""), "--write", "--backup", &inside]
        )
        .code,
        2
    );
    let out = run(
        home.path(),
        &[
            "fix",
            &p("notes.txt"),
            &p("a.txt"),
            &p("SHA256SUMS"),
            &p("g"),
            "--write",
        ],
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let notes = String::from_utf8(read(d, "notes.txt")).expect("utf-8");
    assert_eq!(
        notes, "deploy key:\nREDACTED-private_key\ndone\n",
        "the whole block goes"
    );
    assert_eq!(
        read(d, "b.txt"),
        format!("mail {EMAIL}\n").as_bytes(),
        "b.txt was not asked for"
    );
    assert_eq!(
        run(home.path(), &["verify", &p("")]).code,
        0,
        "every hash holds after"
    );

    let low = ["fix", &p("a.txt"), "--write", "--min-confidence", "low"];
    assert_eq!(run(home.path(), &low).code, 0);
    assert_eq!(
        run(home.path(), &low).code,
        0,
        "a second run has nothing to do"
    );
}

/// The hashes of an EXAID-style run log: a record binds a trace file by `trace_file` +
/// `trace_file_hash`, a summary event hashes its own `new_buffer_text`. Values in the
/// trace and in the buffer text are fixed, both hashes are made true again, and
/// `verify` passes after as before.
#[test]
fn a_run_logs_own_hashes_are_made_true_again() {
    let home = tempfile::tempdir().expect("home");
    let data = tempfile::tempdir().expect("data");
    let d = data.path();
    let trace = serde_json::json!({"events": [{"note": format!("paged {EMAIL}")}]}).to_string();
    write(d, "traces/c1.json", trace.as_bytes());
    let buffer = format!("triage note for {EMAIL}");
    // The hash conventions only: not a whole run log, whose schema is another matter.
    let meta = serde_json::json!({
        "trace_file": "traces/c1.json",
        "trace_file_hash": format!("sha256:{}", sha(trace.as_bytes())),
    });
    let event = serde_json::json!({
        "new_buffer_text": buffer,
        "new_buffer_text_hash": format!("sha256:{}", sha(buffer.as_bytes())),
    });
    write(d, "run.jsonl", format!("{meta}\n{event}\n").as_bytes());
    let dir = d.to_str().expect("utf-8");
    assert_eq!(run(home.path(), &["verify", dir]).code, 0, "true before");
    let out = run(home.path(), &["fix", dir, "--write"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_eq!(run(home.path(), &["verify", dir]).code, 0, "true after");
    let log = String::from_utf8(read(d, "run.jsonl")).expect("utf-8");
    assert!(
        !log.contains(EMAIL)
            && !String::from_utf8_lossy(&read(d, "traces/c1.json")).contains(EMAIL)
    );
    let event: serde_json::Value =
        serde_json::from_str(log.lines().nth(1).expect("event")).expect("json");
    let text = event["new_buffer_text"].as_str().expect("text");
    assert_eq!(
        event["new_buffer_text_hash"],
        format!("sha256:{}", sha(text.as_bytes()))
    );
}

#[test]
fn a_denylisted_term_becomes_the_configured_replacement() {
    let home = tempfile::tempdir().expect("home");
    let data = tempfile::tempdir().expect("data");
    let d = data.path();
    write(d, "terms.txt", b"Globex Industries\n");
    write(
        d,
        "privacy-audit.toml",
        b"[privacy]\ndenylist_files = [\"terms.txt\"]\ndenylist_replacement = \"the client\"\n",
    );
    let case = serde_json::json!({"note": "audit for Globex Industries, phase 2"}).to_string();
    write(d, "data/case.jsonl", format!("{case}\n").as_bytes());
    let config = d.join("privacy-audit.toml");
    let target = d.join("data");
    let args = [
        "--config",
        config.to_str().expect("utf-8"),
        "fix",
        target.to_str().expect("utf-8"),
        "--write",
    ];
    let out = run(home.path(), &args);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(!out.stdout.contains("Globex"), "{}", out.stdout);
    let fixed = String::from_utf8(read(d, "data/case.jsonl")).expect("utf-8");
    assert!(fixed.contains("audit for the client, phase 2"), "{fixed}");
}
