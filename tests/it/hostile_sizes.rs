//! Hostile sizes: a 1 GB file with no newline, JSON nested 1,000,000 deep,
//! and a single JSON string of 100 MB. Each ends in a clear outcome (a finding, or a skip
//! with its reason) in bounded time and memory.

use crate::util::*;

fn file_entry<'a>(report: &'a serde_json::Value, path: &str) -> &'a serde_json::Value {
    report["files"]
        .as_array()
        .expect("files")
        .iter()
        .find(|f| f["path"] == path)
        .unwrap_or_else(|| panic!("{path} listed"))
}

/// Sparse, so the test costs no disk: the size alone decides, before any byte is read.
#[test]
fn a_one_gigabyte_file_with_no_newline_is_skipped_with_its_size() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    let file = std::fs::File::create(dir.path().join("huge.txt")).expect("create");
    file.set_len(1 << 30).expect("sparse 1 GiB");
    let run = scan_json(home.path(), dir.path(), &[]);
    // Not judged is not clean: the run fails (exit 2) unless `too_large` is allowed.
    assert_eq!(run.code, 2, "{}", run.stderr);
    let report = run.json();
    let entry = file_entry(&report, "huge.txt");
    assert_eq!(entry["status"], "skipped");
    assert_eq!(
        entry["reason"],
        "too large: 1073741824 bytes > max_file_bytes 268435456"
    );
}

#[test]
fn json_nested_a_million_deep_is_scanned() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    let depth = 1_000_000;
    let doc = format!(
        "{}\"ion.popescu@gmail.com\"{}",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    std::fs::write(dir.path().join("deep.json"), doc).expect("write");
    let report = scan_json(home.path(), dir.path(), &[]).json();
    let found = findings(&report);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].5, "email.address");
    assert_eq!((found[0].1, found[0].2), (1, depth as u64 + 2));
    let pointer = found[0].3.clone().unwrap_or_default();
    assert!(
        pointer.len() < 5000,
        "the pointer is bounded, not a million steps"
    );
}

#[test]
fn a_hundred_megabyte_json_string_is_scanned_to_its_end() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    let filler = "lorem ipsum ".repeat((100 << 20) / 12);
    let doc = format!("{{\"text\": \"{filler}ion.popescu@gmail.com\"}}");
    assert!(doc.len() > 100 << 20);
    std::fs::write(dir.path().join("big.json"), &doc).expect("write");
    let report = scan_json(home.path(), dir.path(), &[]).json();
    let found = findings(&report);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].5, "email.address");
    assert_eq!(found[0].3.as_deref(), Some("/text"));
    assert_eq!(found[0].2, 11 + filler.len() as u64);
}

/// A pattern too big to compile is rejected at load (exit 2, file and rule named); a
/// pattern that makes backtracking engines explode runs in linear time here.
#[test]
fn a_rule_file_with_a_pathological_regex_is_rejected_or_bounded() {
    let dir = tempfile::tempdir().expect("t");
    let home = tempfile::tempdir().expect("t");
    let rules = dir.path().join("rules");
    std::fs::create_dir(&rules).expect("mkdir");
    let rule = |id: &str, regex: &str| {
        format!(
            "[[rule]]\nid = \"{id}\"\ncategory = \"secret\"\nseverity = \"high\"\n\
             description = \"x\"\nregex = '''{regex}'''\n"
        )
    };
    std::fs::write(
        rules.join("huge.toml"),
        rule("custom.huge", "(a{1000}){1000}"),
    )
    .expect("w");
    let config = dir.path().join("privacy-audit.toml");
    std::fs::write(&config, "[rules]\ndirs = [\"rules\"]\n").expect("w");
    let cfg = config.to_string_lossy().into_owned();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).expect("mkdir");
    std::fs::write(data.join("x.txt"), format!("{}!", "a".repeat(100_000))).expect("w");
    let data_arg = data.to_string_lossy().into_owned();
    let r = run(
        home.path(),
        &["--config", &cfg, "scan", "--no-progress", &data_arg],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("huge.toml") && r.stderr.contains("custom.huge"),
        "{}",
        r.stderr
    );

    std::fs::write(rules.join("huge.toml"), rule("custom.nested", "(a+)+$")).expect("w");
    let start = std::time::Instant::now();
    let r = run(
        home.path(),
        &["--config", &cfg, "scan", "--no-progress", &data_arg],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        start.elapsed() < std::time::Duration::from_secs(60),
        "bounded"
    );
}

/// A long text file is read in chunks. A key block that a chunk's cut falls inside,
/// wherever the cut is, is still found whole and once.
#[test]
fn a_key_block_across_a_chunk_cut_in_a_long_text_file_is_found_once() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    // Key blocks whose first line ends at each MiB mark up to 5 MiB, in lines of
    // prose: where a chunk is cut at the last line break before a mark, the block's
    // lines fall in the next chunk, apart from the line that opens it.
    let line = "the run finished and the results were written down.\n";
    let begin = "-----BEGIN RSA PRIVATE KEY-----\n";
    let mut text = String::new();
    let mut keys = 0;
    for mark in 1..=5usize {
        let at = (mark << 20) - begin.len();
        while text.len() + line.len() + 1 < at {
            text.push_str(line);
        }
        text.push_str(&"-".repeat(at - text.len() - 1));
        text.push('\n');
        assert_eq!(text.len() + begin.len(), mark << 20);
        text.push_str(&crate::util::values::rsa_key_block(mark as u32));
        keys += 1;
    }
    std::fs::write(dir.path().join("notes.txt"), &text).expect("write");
    let report = scan_json(home.path(), dir.path(), &[]).json();
    let found: Vec<_> = findings(&report)
        .into_iter()
        .filter(|f| f.5 == "secret.private_key")
        .collect();
    assert_eq!(found.len(), keys, "{found:?}");
}
