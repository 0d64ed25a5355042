//! Helpers shared by the integration tests: run the real binary with an isolated
//! fingerprint key and parse its JSON report.
#![allow(dead_code)]

pub mod daemon;
pub mod git;
pub mod values;

use assert_cmd::Command;
use serde_json::Value;
use std::path::Path;

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.stdout))
    }
}

/// The binary, with its key file and hash cache inside `home` so tests never touch the
/// real ones.
pub fn cmd(home: &Path) -> Command {
    let mut c = Command::cargo_bin("privacy-audit").expect("binary built");
    c.env("PRIVACY_AUDIT_KEY_FILE", home.join("key"))
        .env("PRIVACY_AUDIT_CACHE_DIR", home.join("cache"))
        .env_remove("RUST_LOG")
        .env("NO_COLOR", "1");
    c
}

pub fn run(home: &Path, args: &[&str]) -> Run {
    let out = cmd(home).args(args).output().expect("binary runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

pub fn scan_json(home: &Path, path: &Path, extra: &[&str]) -> Run {
    let p = path.to_string_lossy().into_owned();
    let mut args = vec!["scan", "--format", "json", "--no-progress"];
    args.extend_from_slice(extra);
    args.push(&p);
    run(home, &args)
}

/// `(path, line, column, pointer, category, rule_id)` of every finding.
pub fn findings(report: &Value) -> Vec<(String, u64, u64, Option<String>, String, String)> {
    report["findings"]
        .as_array()
        .expect("findings array")
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap_or_default().to_string(),
                f["line"].as_u64().unwrap_or(0),
                f["column"].as_u64().unwrap_or(0),
                f["json_pointer"].as_str().map(str::to_string),
                f["category"].as_str().unwrap_or_default().to_string(),
                f["rule_id"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

pub fn sample_dataset() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sample-dataset")
}

/// Writes `bytes` at `dir/rel`, making the folders on the way.
pub fn write(dir: &Path, rel: &str, bytes: impl AsRef<[u8]>) {
    let path = dir.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(path, bytes).expect("write fixture");
}

pub fn gzip(text: &str) -> Vec<u8> {
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(text.as_bytes()).expect("gzip");
    enc.finish().expect("gzip")
}

/// One JSON record per line.
pub fn jsonl(records: &[Value]) -> String {
    records.iter().map(|r| format!("{r}\n")).collect()
}

pub fn b64(bytes: impl AsRef<[u8]>) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The library's scanner with the built-in defaults and a fixed key, for tests that
/// drive the engine directly.
pub fn scanner(key_byte: u8) -> privacy_audit::scan::Scanner {
    privacy_audit::scan::Scanner::from_config(
        privacy_audit::config::Config::default(),
        privacy_audit::finding::fingerprint::FingerprintKey::from_bytes([key_byte; 32]),
    )
    .expect("the built-in rules compile")
}
