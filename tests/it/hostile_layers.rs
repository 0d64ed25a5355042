//! More hostile input: nested encodings, odd file names, and sheer counts.
//! Each case ends with a clear outcome — a finding or a listed skip — not a hang.

use crate::util::*;
use std::io::Write;

#[test]
fn gzip_inside_base64_inside_json_is_opened() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(b"{\"owner\": \"ion.popescu@gmail.com\"}")
        .expect("gzip");
    let payload = b64(gz.finish().expect("gzip"));
    std::fs::write(
        dir.path().join("a.json"),
        serde_json::json!({"attachment": payload}).to_string(),
    )
    .expect("write");
    let r = scan_json(home.path(), dir.path(), &[]);
    let rules: Vec<String> = findings(&r.json()).into_iter().map(|f| f.5).collect();
    assert_eq!(rules, vec!["email.address"]);
    assert!(
        r.json()["findings"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("base64"))
    );
}

/// Fifty layers of base64: the first layers are peeled (depth is bounded, documented),
/// and the scan ends promptly either way.
#[test]
fn a_base64_chain_fifty_deep_is_bounded() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    let secret = "contact ion.popescu@gmail.com now";
    let mut shallow = secret.to_string();
    for _ in 0..3 {
        shallow = b64(shallow.as_bytes());
    }
    let mut deep = secret.to_string();
    for _ in 0..50 {
        deep = b64(deep.as_bytes());
    }
    std::fs::write(dir.path().join("shallow.txt"), &shallow).expect("write");
    std::fs::write(dir.path().join("deep.txt"), &deep).expect("write");
    let started = std::time::Instant::now();
    let r = scan_json(home.path(), dir.path(), &[]);
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
    let found: Vec<(String, String)> = findings(&r.json())
        .into_iter()
        .map(|f| (f.0, f.5))
        .collect();
    assert_eq!(
        found,
        vec![("shallow.txt".to_string(), "email.address".to_string())]
    );
    assert_eq!(r.json()["summary"]["files_scanned"], 2);
}

#[cfg(unix)]
#[test]
fn non_utf8_file_names_are_scanned_and_named() {
    use std::os::unix::ffi::OsStrExt;
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9-notes.txt");
    std::fs::write(dir.path().join(name), "mail ion.popescu@gmail.com\n").expect("write");
    let r = scan_json(home.path(), dir.path(), &[]);
    assert_eq!(r.code, 1);
    let path = r.json()["findings"][0]["path"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        path.starts_with("caf") && path.ends_with("-notes.txt"),
        "{path}"
    );
}

#[test]
fn a_hundred_thousand_empty_files() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    for d in 0..100 {
        let sub = dir.path().join(format!("d{d:03}"));
        std::fs::create_dir(&sub).expect("mkdir");
        for f in 0..1000 {
            std::fs::File::create(sub.join(format!("{f:04}.jsonl"))).expect("create");
        }
    }
    let r = scan_json(home.path(), dir.path(), &["--no-cache"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.json()["summary"]["files_scanned"], 100_000);
}
