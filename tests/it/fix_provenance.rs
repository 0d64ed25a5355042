//! `fix` keeps every kind of recorded hash true: each convention `verify` checks (a
//! `*.sha256` beside its file, `path` + `sha256` lists, `contentUrl` + `sha256`,
//! `X` + `X_sha256`, an EXAID run log's stoplist hashes bound by `[[provenance.bind]]`
//! inside a `.jsonl.gz`), and manifests in the folders above the fixed path, up to the
//! repository's top and no further.

use crate::fix::{read, sha, write};
use crate::util::{gzip, run};

const EMAIL: &str = "ion.popescu@gmail.com";

fn inflate(bytes: &[u8]) -> String {
    use std::io::Read;
    let mut out = String::new();
    flate2::read::MultiGzDecoder::new(bytes)
        .read_to_string(&mut out)
        .expect("gzip");
    out
}

#[test]
fn every_hash_convention_is_made_true_again() {
    let home = tempfile::tempdir().expect("home");
    let data = tempfile::tempdir().expect("data");
    let d = data.path();
    let config = d.join("privacy-audit.toml");
    std::fs::write(
        &config,
        r#"
[[provenance.bind]]
pointer = "/stoplists_provenance/stop_entities_hash"
record_type = "run_meta"
file = "../stoplists/stop_entities.txt"
"#,
    )
    .expect("config");
    let root = d.join("data");
    // Each file holds the value, so each changes, and each is named by one convention.
    let stoplist = format!("aspirin\n{EMAIL}\n");
    write(&root, "stoplists/stop_entities.txt", stoplist.as_bytes());
    let doc = format!("# notes\nwrite to {EMAIL}\n");
    write(&root, "docs/notes.md", doc.as_bytes());
    write(
        &root,
        "docs/notes.md.sha256",
        format!("{}\n", sha(doc.as_bytes())).as_bytes(),
    );
    let case = format!("{{\"q\":\"mail {EMAIL}\"}}\n");
    write(&root, "cases/a.jsonl", case.as_bytes());
    write(&root, "cases/b.jsonl", case.replace('q', "p").as_bytes());
    write(&root, "cases/c.jsonl", case.replace('q', "r").as_bytes());
    let index = serde_json::json!({
        "files": [{"path": "cases/a.jsonl", "sha256": sha(case.as_bytes())}],
        "distribution": [{"contentUrl": "cases/b.jsonl",
                          "sha256": sha(case.replace('q', "p").as_bytes())}],
        "cases": "cases/c.jsonl",
        "cases_sha256": format!("sha256:{}", sha(case.replace('q', "r").as_bytes())),
    });
    write(&root, "index.json", index.to_string().as_bytes());
    let meta = serde_json::json!({
        "record_type": "run_meta", "schema_name": "exaid.run", "schema_version": "1.5.0",
        "case_id": "case-00000001", "variant_id": "V0", "mas_run_id": "mas_1",
        "eval_run_id": "eval-1", "history_k": 3,
        "concept_extractor": {"spacy_version": "3.7.4"},
        "timestamp_derivation": {"source": "t_emitted_ms"},
        "determinism": {"gzip_mtime": 0},
        "stoplists_provenance": {"stop_entities_hash": format!("sha256:{}", sha(stoplist.as_bytes()))},
    });
    write(&root, "runs/run.jsonl.gz", &gzip(&format!("{meta}\n")));

    let dir = root.to_str().expect("utf-8");
    let cfg = config.to_str().expect("utf-8");
    let verify = || run(home.path(), &["verify", dir, "--config", cfg]);
    let before = verify();
    assert_eq!(before.code, 0, "true before: {}", before.stdout);
    let out = run(home.path(), &["fix", dir, "--write", "--config", cfg]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let after = verify();
    assert_eq!(after.code, 0, "true after: {}", after.stdout);

    // Each claim names the new bytes, and the value is gone from each file.
    let now = |name: &str| sha(&read(&root, name));
    let stop = now("stoplists/stop_entities.txt");
    assert_ne!(stop, sha(stoplist.as_bytes()), "the stoplist changed");
    let meta: serde_json::Value =
        serde_json::from_str(inflate(&read(&root, "runs/run.jsonl.gz")).trim()).expect("json");
    assert_eq!(
        meta["stoplists_provenance"]["stop_entities_hash"],
        format!("sha256:{stop}")
    );
    let side = String::from_utf8(read(&root, "docs/notes.md.sha256")).expect("utf-8");
    assert_eq!(side.trim(), now("docs/notes.md"));
    let index: serde_json::Value =
        serde_json::from_slice(&read(&root, "index.json")).expect("index parses");
    assert_eq!(index["files"][0]["sha256"], now("cases/a.jsonl"));
    assert_eq!(index["distribution"][0]["sha256"], now("cases/b.jsonl"));
    assert_eq!(
        index["cases_sha256"],
        format!("sha256:{}", now("cases/c.jsonl"))
    );
    let scan = run(
        home.path(),
        &[
            "scan",
            dir,
            "--no-baseline",
            "--config",
            cfg,
            "--format",
            "json",
        ],
    );
    assert_eq!(scan.code, 0, "{}", scan.stdout);
}

/// `fix data/sub` rewrites a file that `data/SHA256SUMS` names: that line is made true
/// again. A manifest above the repository's top is not the repository's, and stays.
#[test]
fn a_manifest_above_the_fixed_folder_is_kept_true_up_to_the_repository_top() {
    let home = tempfile::tempdir().expect("home");
    let outside = tempfile::tempdir().expect("outside");
    let repo = outside.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).expect(".git");
    let line = format!("{{\"q\":\"mail {EMAIL}\"}}\n");
    write(&repo, "data/sub/a.jsonl", line.as_bytes());
    write(&repo, "data/sub/b.jsonl", b"{\"q\":\"clean\"}\n");
    let sums = format!(
        "{}  sub/a.jsonl\n{}  sub/b.jsonl\n",
        sha(line.as_bytes()),
        sha(b"{\"q\":\"clean\"}\n")
    );
    write(&repo, "data/SHA256SUMS", sums.as_bytes());
    let above = format!("{}  repo/data/sub/a.jsonl\n", sha(line.as_bytes()));
    write(outside.path(), "SHA256SUMS", above.as_bytes());
    // A manifest whose name is itself a value: it is kept true, and shown masked.
    let named = format!("{}  sub/a.jsonl\n", sha(line.as_bytes()));
    write(&repo, "data/ana.popescu@gmail.com.sha256", named.as_bytes());

    let data = repo.join("data");
    let whole = data.to_str().expect("utf-8");
    assert_eq!(run(home.path(), &["verify", whole]).code, 0, "true before");
    let sub = data.join("sub");
    let dry = run(home.path(), &["fix", sub.to_str().expect("utf-8")]);
    assert_eq!(dry.code, 1, "{}", dry.stdout);
    assert!(dry.stdout.contains("../SHA256SUMS"), "{}", dry.stdout);
    assert!(
        !dry.stdout.contains("ana.popescu@gmail.com"),
        "{}",
        dry.stdout
    );
    assert_eq!(read(&repo, "data/SHA256SUMS"), sums.as_bytes(), "a dry run");

    let out = run(
        home.path(),
        &["fix", sub.to_str().expect("utf-8"), "--write"],
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let verified = run(home.path(), &["verify", whole]);
    assert_eq!(verified.code, 0, "true after: {}", verified.stdout);
    let kept = String::from_utf8(read(&repo, "data/ana.popescu@gmail.com.sha256")).expect("utf-8");
    assert!(
        kept.starts_with(&sha(&read(&repo, "data/sub/a.jsonl"))),
        "{kept}"
    );
    let now = String::from_utf8(read(&repo, "data/SHA256SUMS")).expect("utf-8");
    assert!(
        now.starts_with(&sha(&read(&repo, "data/sub/a.jsonl"))),
        "{now}"
    );
    assert!(now.ends_with(&sums[sums.find('\n').expect("2 lines") + 1..]));
    assert_eq!(
        read(outside.path(), "SHA256SUMS"),
        above.as_bytes(),
        "above the repository: not touched"
    );
}
