//! The git gate through real repositories: the `git` CLI makes commits and pushes in
//! temp dirs, the installed hook runs the real binary, and each case checks what git
//! did (commit made or refused) as well as what privacy-audit said.

use std::path::Path;
use std::process::Command;

use crate::util::git::*;

#[test]
fn staged_secret_blocks_initial_commit_and_clean_commit_passes() {
    let s = Sandbox::new();
    let repo = s.installed_repo();
    write(&repo, "cases/a.jsonl", SECRET_LINE);
    s.ok(&repo, &["add", "."]);
    let out = s.git(&repo, &["commit", "-qm", "leak"]);
    assert!(
        !out.status.success(),
        "an initial commit with a leak is refused"
    );
    let err = stderr(&out);
    assert!(err.contains("cases/a.jsonl:1:20"), "{err}");
    assert!(
        err.contains("email") && err.contains("commit is blocked"),
        "{err}"
    );
    assert!(
        !err.contains("ion.popescu@gmail.com"),
        "the value is masked"
    );
    assert_eq!(s.commits(&repo), 0);
    assert!(
        err.contains("`privacy-audit fix --staged --write` can rewrite 1 of these"),
        "the block says what fix can do: {err}"
    );

    write(&repo, "cases/a.jsonl", CLEAN_LINE);
    s.commit_all(&repo, &["clean"]);
    assert_eq!(s.commits(&repo), 1);
}

#[test]
fn the_staged_version_is_judged_not_the_worktree() {
    let s = Sandbox::new();
    let repo = s.installed_repo();
    // Staged bad, worktree clean: blocked.
    write(&repo, "a.jsonl", SECRET_LINE);
    s.ok(&repo, &["add", "a.jsonl"]);
    write(&repo, "a.jsonl", CLEAN_LINE);
    assert!(!s.git(&repo, &["commit", "-qm", "x"]).status.success());
    // Staged clean, worktree bad: passes.
    s.ok(&repo, &["add", "a.jsonl"]);
    write(&repo, "a.jsonl", SECRET_LINE);
    s.ok(&repo, &["commit", "-qm", "clean staged"]);
    // `git commit -a` stages into a temporary index the hook must read.
    let out = s.git(&repo, &["commit", "-qam", "all"]);
    assert!(!out.status.success(), "commit -a of a leak is refused");
    assert_eq!(s.commits(&repo), 1);
}

#[test]
fn rename_binary_deletion_and_symlink() {
    let s = Sandbox::new();
    let repo = s.installed_repo();
    write(&repo, "old.jsonl", SECRET_LINE);
    write(&repo, "keep.jsonl", CLEAN_LINE);
    s.commit_all(&repo, &["seed", "--no-verify"]);
    // A clean rename passes; renaming a leaking file re-adds its content: blocked.
    s.ok(&repo, &["mv", "keep.jsonl", "moved.jsonl"]);
    s.ok(&repo, &["commit", "-qm", "rename clean"]);
    s.ok(&repo, &["mv", "old.jsonl", "renamed.jsonl"]);
    let out = s.git(&repo, &["commit", "-qm", "rename leak"]);
    assert!(
        stderr(&out).contains("renamed.jsonl:1:"),
        "{}",
        stderr(&out)
    );
    // Deleting the leaking file is what cleans it up: not scanned, passes.
    s.ok(&repo, &["rm", "-q", "--cached", "renamed.jsonl"]);
    s.ok(&repo, &["commit", "-qm", "delete"]);
    // A binary blob is listed as skipped (its structure is not read), but its printable
    // text is scanned: an address planted after a NUL is found.
    write(&repo, "blob.bin", b"\x00\x01ion.popescu@gmail.com\x00");
    s.ok(&repo, &["add", "blob.bin"]);
    let run = s.bin(&repo, &["hook", "run", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).expect("json");
    assert_eq!(report["files"][0]["status"], "skipped");
    assert_eq!(
        report["files"][0]["reason"],
        "binary (its printable text was scanned)"
    );
    assert_eq!(report["findings"][0]["rule_id"], "email.address");
    // Not judged whole: exit 2 (it outranks findings) until the config lets binary pass.
    assert_eq!(run.status.code(), Some(2));
    write(&repo, "blob.bin", b"\x00\x01\x02binary\x00");
    s.ok(&repo, &["add", "blob.bin"]);
    assert!(!s.git(&repo, &["commit", "-qm", "binary"]).status.success());
    write(
        &repo,
        "privacy-audit.toml",
        "[hook]\nallow_unjudged = [\"binary\"]\n",
    );
    s.ok(&repo, &["reset", "-q", "blob.bin"]);
    s.ok(&repo, &["add", "privacy-audit.toml"]);
    s.ok(&repo, &["commit", "-qm", "binaries may pass"]);
    s.ok(&repo, &["add", "blob.bin"]);
    s.ok(&repo, &["commit", "-qm", "binary"]);
    // A symlink's content is its target: a home path there is a finding.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("/home/jdoe/private/run.json", repo.join("link.json"))
            .expect("symlink");
        s.ok(&repo, &["add", "link.json"]);
        let out = s.git(&repo, &["commit", "-qm", "link"]);
        assert!(stderr(&out).contains("local_path"), "{}", stderr(&out));
    }
}

#[test]
fn a_merge_is_judged_by_what_it_stages() {
    let s = Sandbox::new();
    let repo = s.installed_repo();
    write(&repo, "a.jsonl", CLEAN_LINE);
    s.commit_all(&repo, &["base"]);
    s.ok(&repo, &["checkout", "-qb", "side"]);
    write(&repo, "side.jsonl", CLEAN_LINE);
    s.commit_all(&repo, &["side"]);
    s.ok(&repo, &["checkout", "-q", "main"]);
    write(&repo, "main.jsonl", CLEAN_LINE);
    s.commit_all(&repo, &["main"]);
    // A merge that stages a leak while resolving is refused...
    s.ok(&repo, &["merge", "-q", "--no-commit", "--no-ff", "side"]);
    write(&repo, "side.jsonl", SECRET_LINE);
    s.ok(&repo, &["add", "side.jsonl"]);
    assert!(!s.git(&repo, &["commit", "-qm", "merge"]).status.success());
    // ...and the plain merge goes through.
    write(&repo, "side.jsonl", CLEAN_LINE);
    s.ok(&repo, &["add", "side.jsonl"]);
    s.ok(&repo, &["commit", "-qm", "merge"]);
    assert_eq!(s.commits(&repo), 4);
}

#[test]
fn an_existing_hook_is_chained_and_restored() {
    let s = Sandbox::new();
    let repo = s.repo();
    let hooks = repo.join(".git/hooks");
    let theirs = "#!/bin/sh\necho ran >> \"$(git rev-parse --git-dir)/their-hook-ran\"\n";
    write(&hooks, "pre-commit", theirs);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            hooks.join("pre-commit"),
            std::fs::Permissions::from_mode(0o755),
        )
        .expect("chmod");
    }
    assert!(s.bin(&repo, &["hook", "install"]).status.success());
    let installed = std::fs::read(hooks.join("pre-commit")).expect("hook");
    let again = s.bin(&repo, &["hook", "install"]);
    assert!(stderr(&again).contains("already installed"));
    assert_eq!(
        std::fs::read(hooks.join("pre-commit")).expect("hook"),
        installed
    );

    write(&repo, "a.jsonl", CLEAN_LINE);
    s.commit_all(&repo, &["one"]);
    assert!(
        repo.join(".git/their-hook-ran").exists(),
        "the old hook still runs"
    );
    write(&repo, "b.jsonl", SECRET_LINE);
    s.ok(&repo, &["add", "."]);
    assert!(!s.git(&repo, &["commit", "-qm", "two"]).status.success());

    assert!(s.bin(&repo, &["hook", "uninstall"]).status.success());
    assert_eq!(
        std::fs::read_to_string(hooks.join("pre-commit")).expect("restored"),
        theirs
    );
    assert!(!hooks.join("pre-commit.legacy").exists());
}

#[test]
fn core_hooks_path_is_honoured() {
    let s = Sandbox::new();
    let repo = s.repo();
    s.ok(&repo, &["config", "core.hooksPath", "ci/hooks"]);
    assert!(s.bin(&repo, &["hook", "install"]).status.success());
    assert!(repo.join("ci/hooks/pre-commit").is_file());
    write(&repo, "a.jsonl", SECRET_LINE);
    s.ok(&repo, &["add", "a.jsonl"]);
    assert!(!s.git(&repo, &["commit", "-qm", "x"]).status.success());
}

#[test]
fn a_missing_binary_fails_closed() {
    let s = Sandbox::new();
    let repo = s.repo();
    let copy = s.home.path().join("bin/privacy-audit");
    std::fs::create_dir_all(copy.parent().expect("parent")).expect("mkdir");
    std::fs::copy(assert_cmd::cargo::cargo_bin("privacy-audit"), &copy).expect("copy");
    // A test thread that forks while the copy is being written hands the child its
    // write handle until that child execs: running the copy then fails with "text file
    // busy" for a moment. Tried again until it runs.
    let status = (0..50)
        .find_map(|_| {
            let mut c = Command::new(&copy);
            s.env(&mut c);
            match c.current_dir(&repo).args(["hook", "install"]).status() {
                Err(e) if e.raw_os_error() == Some(26) => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    None
                }
                other => Some(other.expect("runs")),
            }
        })
        .expect("the copied binary runs");
    assert!(status.success());
    std::fs::remove_file(&copy).expect("rm");
    write(&repo, "a.jsonl", CLEAN_LINE);
    s.ok(&repo, &["add", "."]);
    let out = s.git(&repo, &["commit", "-qm", "x"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("is missing, so this pre-commit is blocked"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_baseline_lets_accepted_findings_through_and_allow_needs_a_reason() {
    let s = Sandbox::new();
    let repo = s.installed_repo();
    write(&repo, "legacy.jsonl", SECRET_LINE);
    let out = s.bin(
        &repo,
        &["baseline", ".", "-o", ".privacy-audit-baseline.json"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    // The baseline is committed first: it applies to the commits after it, never to
    // the one that brings it.
    s.ok(&repo, &["add", ".privacy-audit-baseline.json"]);
    s.ok(&repo, &["commit", "-qm", "baseline"]);
    s.commit_all(&repo, &["baselined"]);
    let run = s.bin(&repo, &["scan", "--format", "json", "."]);
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).expect("json");
    assert_eq!(run.status.code(), Some(0));
    assert_eq!(report["summary"]["baselined"], 1);
    assert_eq!(report["suppressed"][0]["by"], "baseline");
    // A new leak is still blocked.
    write(
        &repo,
        "new.jsonl",
        SECRET_LINE.replace("ion.popescu", "ana.pop"),
    );
    s.ok(&repo, &["add", "new.jsonl"]);
    assert!(!s.git(&repo, &["commit", "-qm", "new"]).status.success());
    // An [[allow]] by path and rule, with its reason in the report.
    write(
        &repo,
        "privacy-audit.toml",
        "[[allow]]\npath = \"new.jsonl\"\nrule = \"email.address\"\nreason = \"synthetic address for tests\"\n",
    );
    // Only a committed config counts: neither an edit in the work tree nor one staged
    // with the commit it would let through.
    let run = s.bin(&repo, &["hook", "run", "--format", "json"]);
    assert_eq!(run.status.code(), Some(1), "{}", stderr(&run));
    s.ok(&repo, &["add", "privacy-audit.toml"]);
    let run = s.bin(&repo, &["hook", "run", "--format", "json"]);
    assert_eq!(run.status.code(), Some(1), "{}", stderr(&run));
    s.ok(&repo, &["reset", "-q", "new.jsonl"]);
    s.ok(&repo, &["commit", "-qm", "allow the synthetic address"]);
    s.ok(&repo, &["add", "new.jsonl"]);
    let run = s.bin(&repo, &["hook", "run", "--format", "json"]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).expect("json");
    assert_eq!(
        report["suppressed"][0]["reason"],
        "synthetic address for tests"
    );
    write(
        &repo,
        "privacy-audit.toml",
        "[[allow]]\npath = \"new.jsonl\"\nrule = \"email.address\"\n",
    );
    s.ok(&repo, &["reset", "-q", "new.jsonl"]);
    s.ok(&repo, &["add", "privacy-audit.toml"]);
    s.ok(&repo, &["commit", "-qm", "broken config"]);
    s.ok(&repo, &["add", "new.jsonl"]);
    let run = s.bin(&repo, &["hook", "run"]);
    assert_eq!(
        run.status.code(),
        Some(2),
        "an allow without a reason is a config error"
    );
}

#[test]
fn a_changed_file_without_its_manifest_is_caught() {
    let s = Sandbox::new();
    let repo = s.installed_repo();
    write(&repo, "data/a.txt", "one\n");
    let hash = {
        use sha2::{Digest, Sha256};
        Sha256::digest(b"one\n")
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    write(&repo, "data/SHA256SUMS", format!("{hash}  a.txt\n"));
    s.commit_all(&repo, &["data"]);
    write(&repo, "data/a.txt", "two\n");
    s.ok(&repo, &["add", "."]);
    let out = s.git(&repo, &["commit", "-qm", "edit"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("data/SHA256SUMS:1:1"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("provenance.hash_mismatch"));
}

/// A manifest committed with a wrong hash: `scan-git` names the commit that brought the
/// claim, as it does for any finding in a file.
#[test]
fn a_broken_claim_in_history_names_its_commit() {
    let s = Sandbox::new();
    let repo = s.repo();
    write(&repo, "data/a.txt", "one\n");
    // The hash of other bytes: a real hash, not a placeholder.
    let other = {
        use sha2::{Digest, Sha256};
        Sha256::digest(b"two\n")
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    write(&repo, "data/SHA256SUMS", format!("{other}  a.txt\n"));
    s.commit_all(&repo, &["data", "--no-verify"]);
    let bad = s.ok(&repo, &["rev-parse", "HEAD"]);
    let run = s.bin(&repo, &["scan-git", "--all", "--format", "json"]);
    assert_eq!(run.status.code(), Some(1), "{}", stderr(&run));
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).expect("json");
    let findings = report["findings"].as_array().expect("findings");
    let claim = findings
        .iter()
        .find(|f| f["rule_id"] == "provenance.hash_mismatch")
        .expect("the wrong hash is found");
    assert_eq!(claim["commit"], bad.as_str());
    assert_eq!(claim["path"], "data/SHA256SUMS");
}

/// Three commits pushed at once, the middle one leaking (made with --no-verify): the
/// pre-push hook refuses the push, and `scan-git` names the commit.
#[test]
fn pre_push_and_scan_git_catch_a_bad_commit_in_the_middle() {
    let s = Sandbox::new();
    let remote = s.bare("remote.git");
    let repo = s.repo();
    s.ok(
        &repo,
        &["remote", "add", "origin", remote.to_str().expect("utf-8")],
    );
    write(&repo, "a.jsonl", CLEAN_LINE);
    s.commit_all(&repo, &["base"]);
    s.ok(&repo, &["push", "-q", "origin", "main"]);
    let base = s.ok(&repo, &["rev-parse", "HEAD"]);
    for (i, line) in [CLEAN_LINE, SECRET_LINE, CLEAN_LINE].iter().enumerate() {
        write(&repo, &format!("c{i}.jsonl"), line);
        s.commit_all(&repo, &[&format!("c{i}"), "--no-verify"]);
    }
    let bad = s.ok(&repo, &["rev-parse", "HEAD~1"]);
    assert!(
        s.bin(&repo, &["hook", "install", "--hook", "pre-push"])
            .status
            .success()
    );
    let out = s.git(&repo, &["push", "-q", "origin", "main"]);
    assert!(!out.status.success(), "the push is refused");
    assert!(stderr(&out).contains("push is blocked"), "{}", stderr(&out));
    assert_eq!(
        s.ok(&remote, &["rev-parse", "main"]),
        base,
        "the remote did not move"
    );

    let range = format!("{base}..HEAD");
    let run = s.bin(&repo, &["scan-git", "--range", &range, "--format", "json"]);
    assert_eq!(run.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).expect("json");
    assert_eq!(report["findings"].as_array().map(Vec::len), Some(1));
    assert_eq!(report["findings"][0]["commit"], bad.as_str());
    assert_eq!(report["findings"][0]["path"], "c1.jsonl");
    // One entry per (blob, path): the same bytes under another path are judged again,
    // because accepting a finding depends on its path.
    let files = report["files"].as_array().expect("files");
    let messages = files
        .iter()
        .filter(|f| {
            f["path"]
                .as_str()
                .is_some_and(|p| p.starts_with("(commit "))
        })
        .count();
    assert_eq!((files.len() - messages, messages), (3, 3));
    // A new branch is judged by what the remote does not have yet: once the leak is on
    // the remote (pushed past the hook), a clean branch on top of it goes through.
    s.ok(&repo, &["push", "-q", "--no-verify", "origin", "main"]);
    s.ok(&repo, &["checkout", "-qb", "topic"]);
    write(&repo, "t.jsonl", CLEAN_LINE);
    s.commit_all(&repo, &["topic"]);
    s.ok(&repo, &["push", "-q", "origin", "topic"]);
}

/// The server-side gate `--no-verify` cannot skip: pushed objects are still in git's
/// quarantine when pre-receive runs, and the hook must read them there.
#[cfg(unix)]
#[test]
fn pre_receive_refuses_a_leak_on_the_server() {
    let s = Sandbox::new();
    let remote = s.server("server.git", "");
    let repo = s.repo();
    s.ok(
        &repo,
        &["remote", "add", "origin", remote.to_str().expect("utf-8")],
    );
    write(&repo, "a.jsonl", CLEAN_LINE);
    s.commit_all(&repo, &["clean"]);
    s.ok(&repo, &["push", "-q", "origin", "main"]);
    write(&repo, "b.jsonl", SECRET_LINE);
    s.commit_all(&repo, &["leak", "--no-verify"]);
    let out = s.git(&repo, &["push", "-q", "origin", "main"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("update is blocked"),
        "{}",
        stderr(&out)
    );
}

/// `.pre-commit-hooks.yaml` names a command that really is the staged-content gate.
#[test]
fn the_pre_commit_framework_entry_runs_the_gate() {
    let manifest = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(".pre-commit-hooks.yaml"),
    )
    .expect("manifest");
    let entry = manifest
        .lines()
        .find_map(|l| l.trim().strip_prefix("entry: "))
        .expect("an entry line");
    let args: Vec<&str> = entry.split_whitespace().collect();
    assert_eq!(args.first(), Some(&"privacy-audit"));
    assert!(manifest.contains("pass_filenames: false"));
    let s = Sandbox::new();
    let repo = s.repo();
    write(&repo, "a.jsonl", SECRET_LINE);
    s.ok(&repo, &["add", "."]);
    assert_eq!(s.bin(&repo, &args[1..]).status.code(), Some(1));
    write(&repo, "a.jsonl", CLEAN_LINE);
    s.ok(&repo, &["add", "."]);
    assert_eq!(s.bin(&repo, &args[1..]).status.code(), Some(0));
}

/// Our index reader (cache-tree shortcut) and libgit2's tree-to-index diff must name
/// the same staged blobs, in index versions 2, 3 and 4, with and without a cache tree.
#[test]
fn the_fast_index_reader_agrees_with_libgit2() {
    use privacy_audit::git::{changes, index};
    let s = Sandbox::new();
    let repo = s.repo();
    for i in 0..60 {
        write(
            &repo,
            &format!("d{}/sub{}/f{i}.txt", i % 4, i % 3),
            format!("{i}\n"),
        );
    }
    write(&repo, "top.txt", "top\n");
    s.commit_all(&repo, &["seed", "--no-verify"]);
    write(&repo, "d1/sub0/f4.txt", "changed\n");
    write(&repo, "d2/new/deep/x.txt", "new\n");
    write(&repo, "top.txt", "top changed\n");
    s.ok(&repo, &["mv", "d3/sub0/f3.txt", "d0/moved.txt"]);
    s.ok(&repo, &["rm", "-q", "d0/sub0/f0.txt"]);
    s.ok(&repo, &["add", "."]);
    let staged_by = |repo: &Path| -> (Vec<String>, Vec<String>) {
        let r = git2::Repository::open(repo).expect("open");
        let libgit2 = changes::staged(&r, &r.index().expect("index")).expect("diff");
        let data = std::fs::read(repo.join(".git/index")).expect("index file");
        let parsed = index::parse(&data).expect("our reader handles this index");
        let fast = changes::staged_fast(&r, &parsed).expect("fast");
        let names = |v: Vec<changes::BlobRef>| {
            let mut n: Vec<String> = v
                .into_iter()
                .map(|b| format!("{} {}", b.shown(), b.oid))
                .collect();
            n.sort();
            n
        };
        (names(libgit2), names(fast))
    };
    for version in ["2", "3", "4"] {
        s.ok(&repo, &["update-index", "--index-version", version]);
        let (slow, fast) = staged_by(&repo);
        assert_eq!(fast, slow, "index v{version}");
        assert_eq!(fast.len(), 4, "{fast:?}");
    }
    // A fully valid cache tree (as after `git commit`) then one invalidated path.
    s.ok(&repo, &["commit", "-qm", "two", "--no-verify"]);
    let (slow, fast) = staged_by(&repo);
    assert!(slow.is_empty() && fast.is_empty());
    write(&repo, "d1/sub1/f1.txt", "again\n");
    s.ok(&repo, &["add", "d1/sub1/f1.txt"]);
    let (slow, fast) = staged_by(&repo);
    assert_eq!(fast, slow);
    assert_eq!(fast.len(), 1);
}

/// Review findings: each of these once let content through the gate.
#[test]
fn fail_closed_corner_cases() {
    let s = Sandbox::new();
    let repo = s.repo();
    write(&repo, "sub/a.jsonl", SECRET_LINE);
    s.ok(&repo, &["add", "."]);
    // A relative GIT_INDEX_FILE (as git sets it) read from a subfolder by a wrapper.
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("privacy-audit"));
    s.env(&mut c);
    let out = c
        .current_dir(repo.join("sub"))
        .env("GIT_INDEX_FILE", ".git/index")
        .args(["hook", "run"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    // A named index that is not there is trouble, not "nothing staged".
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("privacy-audit"));
    s.env(&mut c);
    let out = c
        .current_dir(&repo)
        .env("GIT_INDEX_FILE", ".git/no-such-index")
        .args(["hook", "run"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    s.ok(&repo, &["rm", "-q", "--cached", "sub/a.jsonl"]);

    // Something that only starts like a git LFS pointer is scanned; a real one is not.
    let lfs = "version https://git-lfs.github.com/spec/v1\n";
    write(
        &repo,
        "fake.txt",
        format!("{lfs}contact ion.popescu@gmail.com\n"),
    );
    write(
        &repo,
        "real.bin",
        format!("{lfs}oid sha256:{}\nsize 12345\n", "ab".repeat(32)),
    );
    s.ok(&repo, &["add", "fake.txt", "real.bin"]);
    let run = s.bin(&repo, &["hook", "run", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).expect("json");
    assert_eq!(run.status.code(), Some(1));
    assert_eq!(report["findings"][0]["path"], "fake.txt");
    let real = report["files"]
        .as_array()
        .expect("files")
        .iter()
        .find(|f| f["path"] == "real.bin");
    assert_eq!(real.map(|f| f["status"].clone()), Some("skipped".into()));
    s.ok(&repo, &["rm", "-q", "--cached", "fake.txt", "real.bin"]);

    // Content too large to judge blocks (exit 2) rather than passing unseen.
    write(
        &repo,
        "privacy-audit.toml",
        "[scan]\nmax_file_bytes = 100\n",
    );
    s.ok(&repo, &["add", "privacy-audit.toml"]);
    s.ok(&repo, &["commit", "-qm", "limit"]);
    write(&repo, "big.jsonl", CLEAN_LINE.repeat(20));
    s.ok(&repo, &["add", "big.jsonl"]);
    let run = s.bin(&repo, &["hook", "run"]);
    assert_eq!(run.status.code(), Some(2), "{}", stderr(&run));
}

/// Content accepted at one path is judged again when it appears at another.
#[test]
fn an_allowed_blob_copied_elsewhere_is_judged_again() {
    let s = Sandbox::new();
    let repo = s.repo();
    write(
        &repo,
        "privacy-audit.toml",
        "[[allow]]\npath = \"tests/**\"\nrule = \"email.address\"\nreason = \"fixture\"\n",
    );
    write(&repo, "tests/p.jsonl", SECRET_LINE);
    s.commit_all(&repo, &["fixture", "--no-verify"]);
    let first = s.ok(&repo, &["rev-parse", "HEAD"]);
    write(&repo, "data/p.jsonl", SECRET_LINE);
    s.commit_all(&repo, &["copy", "--no-verify"]);
    let run = s.bin(&repo, &["scan-git", "--all", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).expect("json");
    assert_eq!(run.status.code(), Some(1));
    assert_eq!(report["findings"][0]["path"], "data/p.jsonl");
    assert_eq!(report["suppressed"][0]["path"], "tests/p.jsonl");
    assert_eq!(report["suppressed"][0]["commit"], first.as_str());
}
