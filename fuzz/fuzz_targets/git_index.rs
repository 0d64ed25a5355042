//! The git index reader on arbitrary bytes: `None` or a value, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(index) = privacy_audit::git::index::parse(data) {
        for e in &index.entries {
            let _ = index.path(e);
        }
    }
});
