//! The sha256sum manifest parser: no panic, columns inside their lines.
#![no_main]
use libfuzzer_sys::fuzz_target;
use privacy_audit::provenance::manifest::parse;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for name in ["SHA256SUMS", "model.tar.gz.sha256"] {
        let (entries, _bad) = parse(&text, name);
        for e in entries {
            assert!(e.line >= 1 && e.column >= 1);
        }
    }
});
