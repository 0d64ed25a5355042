//! The decoding layers (gzip, base64, percent, folding) on arbitrary bytes, with a small
//! budget: bounded output, no panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use privacy_audit::formats::Unit;
use privacy_audit::scan::{decode, disguise};
use privacy_audit::source::{gzip, read};

fuzz_target!(|data: &[u8]| {
    if let Ok(out) = gzip::gunzip(data, 1 << 20) {
        assert!(out.len() <= 1 << 20);
    }
    let _ = read::decode_bytes(data.to_vec(), 1 << 20);
    let _ = decode::percent_decode(data);
    let mut unit = Unit::default();
    unit.push_plain(data, 0, None);
    let mut budget = 1 << 20;
    for layer in [
        decode::base64_layer(&unit, &mut budget),
        decode::percent_layer(&unit, &mut budget),
        disguise::fold_layer(&unit, &mut budget),
    ]
    .into_iter()
    .flatten()
    {
        for seg in &layer.segments {
            assert!(seg.end <= layer.text.len());
        }
    }
});
