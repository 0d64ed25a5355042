//! Hostile and awkward input: every case ends with a clear outcome (a finding or a skip
//! with its reason), never a crash or a hang.

use crate::util::*;
use std::io::Write;

fn file_status(report: &serde_json::Value, path: &str) -> (String, String) {
    let f = report["files"]
        .as_array()
        .expect("files")
        .iter()
        .find(|f| f["path"] == path)
        .unwrap_or_else(|| panic!("{path} not listed: {}", report["files"]));
    (
        f["status"].as_str().unwrap_or_default().to_string(),
        f["reason"].as_str().unwrap_or_default().to_string(),
    )
}

#[test]
fn binary_and_invalid_utf8() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    write(dir.path(), "blob.bin", b"\x00\x01ion.popescu@gmail.com\x00");
    write(
        dir.path(),
        "latin1.txt",
        b"caf\xe9 \xff\xfe contact ion.popescu@gmail.com\n",
    );
    let report = scan_json(home.path(), dir.path(), &[]).json();
    // Binary: listed as skipped (its structure is not read), its printable text scanned.
    assert_eq!(
        file_status(&report, "blob.bin"),
        (
            "skipped".into(),
            "binary (its printable text was scanned)".into()
        )
    );
    assert_eq!(file_status(&report, "latin1.txt").0, "scanned");
    // Columns count invalid bytes one each: "caf\xe9 \xff\xfe contact " is 16 columns.
    let email = |path: &str, column| {
        (
            path.to_string(),
            1,
            column,
            None,
            "email".to_string(),
            "email.address".to_string(),
        )
    };
    assert_eq!(
        findings(&report),
        vec![email("blob.bin", 3), email("latin1.txt", 17)]
    );
}

#[test]
fn fifty_megabyte_single_line() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    let mut line = "a ".repeat(25 << 20);
    line.push_str("ion.popescu@gmail.com");
    write(dir.path(), "long.txt", line);
    let report = scan_json(home.path(), dir.path(), &[]).json();
    let found = findings(&report);
    assert_eq!(found.len(), 1);
    assert_eq!((found[0].1, found[0].2), (1, (50 << 20) + 1));
}

#[test]
fn json_nested_100000_deep() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    let depth = 100_000;
    let doc = format!(
        "{}\"ion.popescu@gmail.com\"{}",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    write(dir.path(), "deep.json", doc);
    let report = scan_json(home.path(), dir.path(), &[]).json();
    let found = findings(&report);
    assert_eq!(found.len(), 1);
    assert_eq!((found[0].1, found[0].2), (1, depth as u64 + 2));
    let pointer = found[0].3.clone().unwrap_or_default();
    // Bounded, with the steps nearest the value kept and the root's elided.
    assert!(
        pointer.starts_with("/…/0/0") && pointer.len() < 1200,
        "pointer is bounded: {} bytes",
        pointer.len()
    );
}

#[test]
fn gzip_bomb_is_skipped_not_read() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let zeros = vec![b'a'; 1 << 20];
    for _ in 0..64 {
        gz.write_all(&zeros).expect("gzip");
    }
    let bomb = gz.finish().expect("gzip");
    assert!(bomb.len() < 200_000);
    write(dir.path(), "bomb.jsonl.gz", &bomb);
    let cfg = dir.path().join("cfg.toml");
    std::fs::write(
        &cfg,
        "[scan]\nmax_file_bytes = 1048576\nexclude = [\"cfg.toml\"]\n",
    )
    .expect("write");
    let run = run(
        home.path(),
        &[
            "--config",
            &cfg.to_string_lossy(),
            "scan",
            "--format",
            "json",
            &dir.path().to_string_lossy(),
        ],
    );
    let (status, reason) = file_status(&run.json(), "bomb.jsonl.gz");
    assert_eq!(status, "skipped");
    assert!(reason.contains("decompression bomb"), "{reason}");
}

#[test]
fn multi_member_gzip_is_read_whole() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    let member = |s: &str| {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(s.as_bytes()).expect("gzip");
        gz.finish().expect("gzip")
    };
    let mut both = member("{\"a\":\"clean\"}\n");
    both.extend(member("{\"a\":\"mail ion.popescu@gmail.com\"}\n"));
    write(dir.path(), "log.jsonl.gz", both);
    let report = scan_json(home.path(), dir.path(), &[]).json();
    assert_eq!(
        findings(&report),
        vec![(
            "log.jsonl.gz".into(),
            2,
            12,
            Some("/a".into()),
            "email".into(),
            "email.address".into()
        )]
    );
}

#[cfg(unix)]
#[test]
fn symlinks_fifos_and_loops_are_never_followed_or_opened() {
    let (home, dir, outside) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    write(outside.path(), "secret.txt", "ion.popescu@gmail.com");
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        dir.path().join("out.txt"),
    )
    .expect("symlink");
    std::os::unix::fs::symlink(dir.path(), dir.path().join("loop")).expect("symlink");
    let fifo = dir.path().join("pipe");
    let c = std::ffi::CString::new(fifo.to_string_lossy().as_bytes()).expect("cstring");
    // SAFETY: a valid NUL-terminated path; mkfifo has no other preconditions.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let run = scan_json(home.path(), dir.path(), &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report = run.json();
    assert_eq!(
        file_status(&report, "out.txt"),
        ("skipped".into(), "symlink (not followed)".into())
    );
    assert_eq!(file_status(&report, "loop").0, "skipped");
    assert_eq!(
        file_status(&report, "pipe"),
        ("skipped".into(), "not a regular file: fifo".into())
    );
    assert_eq!(findings(&report), vec![]);
}

#[cfg(unix)]
#[test]
fn unreadable_file_makes_the_scan_incomplete() {
    use std::os::unix::fs::PermissionsExt;
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    let path = dir.path().join("locked.txt");
    write(dir.path(), "locked.txt", "x");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    if std::fs::read(&path).is_ok() {
        // Running as root: permissions do not bind, so make the file vanish between
        // listing and opening instead, through the library's own entry point.
        let scanner = crate::util::scanner(7);
        let outcome = scanner.scan_path(&dir.path().join("vanished.txt"), "vanished.txt".into());
        assert!(outcome.record.error);
        assert!(
            outcome
                .record
                .reason
                .unwrap_or_default()
                .starts_with("unreadable")
        );
        return;
    }
    let run = scan_json(home.path(), dir.path(), &[]);
    assert_eq!(run.code, 2, "unreadable input is exit 2");
    let (status, reason) = file_status(&run.json(), "locked.txt");
    assert_eq!(status, "skipped");
    assert!(reason.starts_with("unreadable"), "{reason}");
    assert!(
        run.stderr.contains("locked.txt"),
        "the error names the file"
    );
}

#[test]
fn bad_jsonl_line_is_reported_and_still_scanned() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    write(
        dir.path(),
        "cases.jsonl",
        "{\"a\":\"ok\"}\n{\"a\": \"broken ion.popescu@gmail.com\n{\"b\":\"host gpu-17.ml.internal\"}\n",
    );
    let report = scan_json(home.path(), dir.path(), &[]).json();
    assert_eq!(
        findings(&report),
        vec![
            (
                "cases.jsonl".into(),
                2,
                15,
                None,
                "email".into(),
                "email.address".into()
            ),
            (
                "cases.jsonl".into(),
                2,
                36,
                None,
                "schema".into(),
                "format.invalid_json".into()
            ),
            (
                "cases.jsonl".into(),
                3,
                12,
                Some("/b".into()),
                "hostname".into(),
                "hostname.internal".into()
            ),
        ]
    );
}

#[test]
fn excludes_prune_but_dotfiles_are_scanned() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    std::fs::create_dir_all(dir.path().join("target/x")).expect("mkdir");
    write(
        &dir.path().join("target/x"),
        "a.txt",
        "ion.popescu@gmail.com",
    );
    write(dir.path(), ".env", "password=Tr0ub4dor&3x");
    write(dir.path(), ".gitignore", ".env\n");
    let report = scan_json(home.path(), dir.path(), &[]).json();
    let found = findings(&report);
    assert_eq!(found.len(), 1);
    assert_eq!(
        (found[0].0.as_str(), found[0].4.as_str()),
        (".env", "secret")
    );
    assert!(
        report["files"]
            .as_array()
            .expect("files")
            .iter()
            .all(|f| f["path"] != "target/x/a.txt")
    );
}

#[test]
fn config_errors_exit_2_and_name_the_problem() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    let cfg = dir.path().join("bad.toml");
    std::fs::write(&cfg, "[scan]\nfail_on = \"low\"\nexclued = []\n").expect("write");
    let r = run(
        home.path(),
        &[
            "--config",
            &cfg.to_string_lossy(),
            "scan",
            &dir.path().to_string_lossy(),
        ],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("exclued") && r.stderr.contains("line 3"),
        "{}",
        r.stderr
    );
    let r = run(
        home.path(),
        &["scan", &dir.path().join("missing").to_string_lossy()],
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("missing"), "{}", r.stderr);
}

#[test]
fn too_large_files_are_listed_with_the_limit() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    write(dir.path(), "big.txt", vec![b'a'; 4096]);
    let cfg = dir.path().join("cfg.toml");
    let scan_with = |extra: &str| {
        let text = format!("[scan]\nmax_file_bytes = 1024\nexclude = [\"cfg.toml\"]\n{extra}");
        std::fs::write(&cfg, text).expect("write");
        let (cfg, dir) = (cfg.to_string_lossy(), dir.path().to_string_lossy());
        run(
            home.path(),
            &["--config", &cfg, "scan", "--format", "json", &dir],
        )
    };
    // Not judged is not clean: exit 2 unless the operator lets that kind pass.
    let r = scan_with("");
    assert_eq!(r.code, 2);
    let (status, reason) = file_status(&r.json(), "big.txt");
    assert_eq!(status, "skipped");
    assert_eq!(reason, "too large: 4096 bytes > max_file_bytes 1024");
    assert_eq!(scan_with("allow_unjudged = [\"too_large\"]\n").code, 0);
}

#[test]
fn org_domains_and_denylist_from_config() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    write(dir.path(), "terms.txt", "# clients\nGlobex Corp\n");
    write(
        dir.path(),
        "privacy-audit.toml",
        "[privacy]\norg_domains = [\"acme-corp.com\"]\ndenylist_files = [\"terms.txt\"]\n[scan]\nexclude = [\"*.toml\", \"terms.txt\"]\n",
    );
    write(
        dir.path(),
        "a.txt",
        "build.acme-corp.com for GLOBEX CORP; not globex corporation or example.com\n",
    );
    let cfg = dir.path().join("privacy-audit.toml");
    let r = run(
        home.path(),
        &[
            "--config",
            &cfg.to_string_lossy(),
            "scan",
            "--format",
            "json",
            &dir.path().to_string_lossy(),
        ],
    );
    let found: Vec<(u64, String)> = findings(&r.json())
        .into_iter()
        .map(|f| (f.2, f.5))
        .collect();
    assert_eq!(
        found,
        vec![
            (1, "hostname.org_domain".into()),
            (25, "denylist.term".into())
        ]
    );
}
