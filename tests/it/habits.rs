//! What a user of ripgrep, gitleaks and a well-run service expects of the command line:
//! config found where they would look, a report format that a pipe does not change,
//! quiet and completions, a daemon that refuses a missing folder, errors said once.

use crate::util::*;
use std::path::Path;

const EMAIL_LINE: &str = "{\"note\": \"write to ion.popescu@gmail.com\"}\n";

fn in_dir(home: &Path, dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> Run {
    let mut c = cmd(home);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.current_dir(dir).args(args).output().expect("binary runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn the_nearest_config_up_to_the_repository_root_is_used() {
    let home = tempfile::tempdir().expect("tempdir");
    let top = home.path().join("top");
    let repo = top.join("repo");
    write(&repo, "data/sub/a.jsonl", EMAIL_LINE);
    std::fs::create_dir_all(repo.join(".git")).expect(".git");
    // Above the repository: never read.
    write(
        &top,
        "privacy-audit.toml",
        "[scan]\nfail_on = \"critical\"\n",
    );
    let sub = repo.join("data/sub");
    let scan = ["scan", ".", "--no-progress"];
    assert_eq!(in_dir(home.path(), &sub, &scan, &[]).code, 1);
    // At the repository root: read from a folder below it.
    write(
        &repo,
        "privacy-audit.toml",
        "[scan]\nfail_on = \"critical\"\n",
    );
    assert_eq!(in_dir(home.path(), &sub, &scan, &[]).code, 0);
}

#[test]
fn the_users_config_is_used_when_the_repository_has_none() {
    let home = tempfile::tempdir().expect("tempdir");
    let data = home.path().join("data");
    write(&data, "a.jsonl", EMAIL_LINE);
    let xdg = home.path().join("xdg");
    let scan = ["scan", ".", "--no-progress"];
    let env = [("XDG_CONFIG_HOME", xdg.as_path())];
    assert_eq!(in_dir(home.path(), &data, &scan, &env).code, 1);
    write(
        &xdg,
        "privacy-audit/config.toml",
        "[scan]\nfail_on = \"critical\"\n",
    );
    assert_eq!(in_dir(home.path(), &data, &scan, &env).code, 0);
}

#[test]
fn a_pipe_keeps_the_human_format_and_an_output_file_names_its_own() {
    let home = tempfile::tempdir().expect("tempdir");
    let data = home.path().join("data");
    write(&data, "a.jsonl", EMAIL_LINE);
    let piped = in_dir(home.path(), &data, &["scan", ".", "--no-progress"], &[]);
    assert_eq!(piped.code, 1);
    assert!(piped.stdout.contains("email.address"), "{}", piped.stdout);
    assert!(serde_json::from_str::<serde_json::Value>(&piped.stdout).is_err());
    let out = home.path().join("r.sarif");
    let o = out.to_string_lossy().into_owned();
    let run = in_dir(
        home.path(),
        &data,
        &["scan", ".", "--no-progress", "-o", &o],
        &[],
    );
    assert_eq!(run.code, 1);
    let sarif: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&out).expect("written")).expect("json");
    assert_eq!(sarif["version"], "2.1.0");
}

#[test]
fn sarif_locations_are_repository_relative() {
    let home = tempfile::tempdir().expect("tempdir");
    let repo = home.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).expect(".git");
    write(&repo, "data/evals/x.jsonl", EMAIL_LINE);
    let run = in_dir(
        home.path(),
        &repo,
        &["scan", "data/", "--format", "sarif", "--no-progress"],
        &[],
    );
    let v: serde_json::Value = serde_json::from_str(&run.stdout).expect("sarif");
    let location = &v["runs"][0]["results"][0]["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "data/evals/x.jsonl");
    assert_eq!(location["artifactLocation"]["uriBaseId"], "%SRCROOT%");
    let base = v["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        .as_str()
        .expect("base");
    assert!(
        base.starts_with("file:///") && base.ends_with("/repo/"),
        "{base}"
    );
}

#[test]
fn a_manifest_mismatch_names_the_file_and_both_hashes() {
    let home = tempfile::tempdir().expect("tempdir");
    let data = home.path().join("data");
    write(&data, "a.txt", "hello\n");
    let wrong = "1f".repeat(32);
    write(&data, "SHA256SUMS", format!("{wrong}  a.txt\n"));
    let run = in_dir(home.path(), &data, &["verify", ".", "--no-progress"], &[]);
    assert_eq!(run.code, 1);
    // sha256("hello\n")
    let actual = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";
    assert!(run.stdout.contains("a.txt"), "{}", run.stdout);
    assert!(run.stdout.contains(&wrong), "{}", run.stdout);
    assert!(run.stdout.contains(actual), "{}", run.stdout);
}

#[test]
fn quiet_prints_nothing_and_the_exit_code_tells() {
    let home = tempfile::tempdir().expect("tempdir");
    let data = home.path().join("data");
    write(&data, "a.jsonl", EMAIL_LINE);
    let run = in_dir(home.path(), &data, &["scan", ".", "--quiet"], &[]);
    assert_eq!(run.code, 1);
    assert_eq!((run.stdout.as_str(), run.stderr.as_str()), ("", ""));
}

#[test]
fn completions_and_a_man_page_are_printed() {
    let home = tempfile::tempdir().expect("tempdir");
    let bash = run(home.path(), &["completions", "bash"]);
    assert_eq!(bash.code, 0);
    assert!(bash.stdout.contains("privacy-audit") && bash.stdout.contains("complete"));
    let man = run(home.path(), &["man"]);
    assert_eq!(man.code, 0);
    assert!(
        man.stdout.starts_with(".ie") || man.stdout.contains(".TH"),
        "{}",
        &man.stdout[..80.min(man.stdout.len())]
    );
    let no_color = run(
        home.path(),
        &[
            "scan",
            "--no-color",
            "--quiet",
            &home.path().to_string_lossy(),
        ],
    );
    assert_eq!(no_color.code, 0, "{}", no_color.stderr);
}

#[test]
fn a_missing_path_is_reported_once() {
    let home = tempfile::tempdir().expect("tempdir");
    let run = in_dir(home.path(), home.path(), &["scan", "nope"], &[]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr.matches("No such file").count(),
        1,
        "{}",
        run.stderr
    );
}

#[test]
fn the_daemon_refuses_a_watch_folder_that_is_not_there() {
    let home = tempfile::tempdir().expect("tempdir");
    let state = home.path().join("state");
    let config = format!(
        "[daemon]\nwatch = [\"{}\"]\nstate = \"{}\"\nreports = \"{}\"\n",
        home.path().join("missing").display(),
        state.display(),
        home.path().join("reports").display()
    );
    write(home.path(), "c.toml", &config);
    let cfg = home.path().join("c.toml");
    let run = run(home.path(), &["daemon", "--config", &cfg.to_string_lossy()]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("daemon.watch[0]") && run.stderr.contains("wait_for_watch"),
        "{}",
        run.stderr
    );
    assert!(
        !state.exists(),
        "state was created for a daemon that did not start"
    );
}

#[test]
fn gen_corpus_help_writes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/gen-corpus.py");
    let out = std::process::Command::new("python3")
        .arg(&script)
        .arg("--help")
        .current_dir(dir.path())
        .output()
        .expect("python3 runs");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("OUT_DIR"));
    assert_eq!(std::fs::read_dir(dir.path()).expect("ls").count(), 0);
}
