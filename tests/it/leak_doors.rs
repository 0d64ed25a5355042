//! No leak through the doors, as a property: a generated value (an address, a key, an
//! IP, a home path, an internal host) planted in what git and files carry besides
//! content — a file name, a gzip header, a pushed branch, an author's name, a config
//! value that makes an error — is stopped or reported, and never printed in full.

use crate::util::git::*;
use proptest::prelude::*;

fn gzip_with_name(name: &str) -> Vec<u8> {
    use std::io::Write;
    let mut enc = flate2::GzBuilder::new()
        .filename(name)
        .write(Vec::new(), flate2::Compression::fast());
    let _ = enc.write_all(CLEAN_LINE.as_bytes());
    enc.finish().unwrap_or_default()
}

/// Whether `v` can stand in a file or ref name: an absolute path cannot (in a name its
/// slashes make relative folders, which name no machine).
fn nameable(v: &str) -> bool {
    !v.contains('/')
}

fn shows(out: &std::process::Output, v: &str) -> bool {
    String::from_utf8_lossy(&out.stdout).contains(v) || stderr(out).contains(v)
}

proptest! {
    // No shrinking: a shrunk value (`aaa.aaa@gmail.com`) reads as a placeholder and is
    // rightly let through, which would hide the value that failed.
    #![proptest_config(ProptestConfig { cases: 10, max_shrink_iters: 0, .. ProptestConfig::default() })]

    #[test]
    fn a_value_in_a_name_a_header_a_ref_an_identity_or_a_config_is_never_shown(v in crate::util::values::any_value()) {
        let s = Sandbox::new();
        let repo = s.installed_repo();
        // A file name, then a gzip header: the installed pre-commit hook stops each.
        let names = [
            (format!("{v}.jsonl"), CLEAN_LINE.as_bytes().to_vec()),
            ("run.jsonl.gz".to_string(), gzip_with_name(&format!("{v}.jsonl"))),
        ];
        for (name, bytes) in names.into_iter().filter(|_| nameable(&v)) {
            write(&repo, &name, bytes);
            s.ok(&repo, &["add", "-A"]);
            let out = s.git(&repo, &["commit", "-qm", "x"]);
            prop_assert!(!out.status.success(), "{name}: committed");
            prop_assert!(!shows(&out, &v), "{name}: shown\n{}", stderr(&out));
            s.ok(&repo, &["rm", "-qf", "--cached", &name]);
            std::fs::remove_file(repo.join(&name)).expect("remove");
        }
        // A branch name and an author's name, pushed to a server that runs the gate.
        write(&repo, "ok.jsonl", CLEAN_LINE);
        s.ok(&repo, &["add", "-A"]);
        s.ok(&repo, &["commit", "-qm", "clean"]);
        let server = s.server("server.git", "");
        s.ok(&repo, &["remote", "add", "origin", &server.to_string_lossy()]);
        if nameable(&v) {
            let branch = format!("feature/{v}");
            let to = format!("HEAD:refs/heads/{branch}");
            let out = s.git(&repo, &["push", "-q", "origin", &to]);
            prop_assert!(!out.status.success(), "branch {branch}: accepted");
            let gate: String = stderr(&out).lines().filter(|l| l.starts_with("remote:")).collect();
            prop_assert!(!gate.contains(&v), "branch: shown\n{gate}");
        }
        write(&repo, "more.jsonl", CLEAN_LINE);
        s.ok(&repo, &["add", "-A"]);
        let author = format!("--author=deploy {v} <t@example.com>");
        s.ok(&repo, &["commit", "-qm", "more", &author]);
        let out = s.git(&repo, &["push", "-q", "origin", "HEAD:refs/heads/main"]);
        prop_assert!(!out.status.success(), "author: accepted");
        let gate: String = stderr(&out).lines().filter(|l| l.starts_with("remote:")).collect();
        prop_assert!(!gate.contains(&v), "author: shown\n{gate}");
        // A config value the program cannot use: the error names the key, not the value.
        for config in [
            format!("[scan]\nmin_confidence = \"{v}\"\n"),
            format!("[scan]\nexclude = [\"{v}/[x\"]\n"),
            format!("[privacy]\ndenylist_files = [\"{v}.txt\"]\n"),
            format!("[rules]\ndisable = [\"{v}\"]\n"),
        ] {
            let cfg = s.home.path().join("bad.toml");
            write(s.home.path(), "bad.toml", &config);
            let out = s.bin(&repo, &["--config", &cfg.to_string_lossy(), "scan", "."]);
            prop_assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
            prop_assert!(!shows(&out, &v), "{config}: shown\n{}", stderr(&out));
        }
    }
}
