//! The whole scan of one in-memory file, with the format picked by the first byte:
//! no panic, and no finding outside the file's lines.
#![no_main]
use libfuzzer_sys::fuzz_target;
use privacy_audit::config::Config;
use privacy_audit::finding::fingerprint::FingerprintKey;
use privacy_audit::scan::Scanner;
use std::sync::LazyLock;

static SCANNER: LazyLock<Scanner> = LazyLock::new(|| {
    let config = Config::default();
    Scanner::from_config(config, FingerprintKey::from_bytes([9; 32])).expect("scanner")
});

const NAMES: [&str; 7] = [
    "a.json",
    "a.jsonl",
    "notes.txt",
    "run.jsonl.gz",
    "SHA256SUMS",
    "evidence_pack.json",
    "cases.ndjson",
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let name = NAMES[pick as usize % NAMES.len()];
    let outcome = SCANNER.scan_blob(name, body.to_vec());
    for f in &outcome.findings {
        if let Some(line) = f.location.line {
            assert!(line >= 1);
        }
    }
});
