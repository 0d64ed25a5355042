//! The JSON tokenizer's tests: decoding, pointers, placement, depth, pieces.

use super::*;

fn strings(doc: &str) -> Vec<(String, String, usize)> {
    let mut unit = Unit::default();
    tokenize(doc.as_bytes(), 0, &mut unit).expect("valid json");
    unit.segments
        .iter()
        .map(|s| {
            let text = String::from_utf8_lossy(&unit.text[s.start..s.end]).into_owned();
            let ptr = s.node.map(|n| unit.paths.pointer(n)).unwrap_or_default();
            (text, ptr, s.raw_start)
        })
        .collect()
}

#[test]
fn decodes_escapes_and_tracks_pointers() {
    let got = strings(r#"{"a":{"b":["x\u0040y.com","\/home\/j"]},"n":12345678}"#);
    assert_eq!(got[0], ("a".into(), "/a".into(), 2));
    assert_eq!(got[2].0, "x@y.com");
    assert_eq!(got[2].1, "/a/b/0");
    assert_eq!(got[3], ("/home/j".into(), "/a/b/1".into(), 27));
    assert_eq!(got[5], ("12345678".into(), "/n".into(), 44));
}

#[test]
fn maps_decoded_offsets_back_through_escapes() {
    let doc = r#"["ab\u0040cd"]"#;
    let mut unit = Unit::default();
    tokenize(doc.as_bytes(), 100, &mut unit).expect("valid json");
    // decoded "ab@cd": 'c' is decoded offset 3, raw offset 2 + 8 = 10 within string.
    assert_eq!(unit.raw_offset(0, 3), 100 + 2 + 8);
    assert_eq!(unit.raw_offset(0, 1), 100 + 2 + 1);
}

#[test]
fn locates_any_value_by_pointer() {
    let doc = br#"{"a": [1, {"b": true}], "c": null}"#;
    assert_eq!(locate(doc, 10, "/a/1/b"), 10 + 16);
    assert_eq!(locate(doc, 10, "/c"), 10 + 29);
    assert_eq!(locate(doc, 10, "/missing"), 10);
    assert_eq!(locate(doc, 10, ""), 10);
}

#[test]
fn surrogate_pairs_and_lone_surrogates() {
    let got = strings(r#"["\ud83d\ude00","\ud800x"]"#);
    assert_eq!(got[0].0, "😀");
    assert_eq!(got[1].0, "\u{FFFD}x");
}

#[test]
fn deep_nesting_uses_no_call_stack() {
    let depth = 200_000;
    let doc = format!("{}\"deep\"{}", "[".repeat(depth), "]".repeat(depth));
    let mut unit = Unit::default();
    let end = tokenize(doc.as_bytes(), 0, &mut unit).expect("valid json");
    assert_eq!(end, doc.len());
    assert_eq!(unit.segments.len(), 1);
}

/// Past the tracked depth, levels cost a bit, not a frame and a node: the arena
/// holds about `TRACKED_DEPTH` nodes however deep the document, and mixed deep
/// objects and arrays still parse (and mismatched closers still fail).
#[test]
fn deep_levels_cost_a_bit_each() {
    let depth = 100_000;
    let open: String = (0..depth)
        .map(|i| if i % 3 == 0 { "{\"k\":" } else { "[1," })
        .collect();
    let close: String = (0..depth)
        .rev()
        .map(|i| if i % 3 == 0 { "}" } else { "]" })
        .collect();
    let doc = format!("{open}\"bottom\"{close}");
    let mut unit = Unit::default();
    let end = tokenize(doc.as_bytes(), 0, &mut unit).expect("valid json");
    assert_eq!(end, doc.len());
    assert!(
        unit.segments
            .iter()
            .any(|s| &unit.text[s.start..s.end] == b"bottom")
    );
    // A deep object's keys still get a node each (a key is text to judge): linear.
    assert!(
        unit.paths.len() < 2 * TRACKED_DEPTH + depth / 3,
        "{} nodes",
        unit.paths.len()
    );
    let arrays = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    let mut unit = Unit::default();
    tokenize(arrays.as_bytes(), 0, &mut unit).expect("valid json");
    assert!(
        unit.paths.len() <= TRACKED_DEPTH + 1,
        "{} nodes",
        unit.paths.len()
    );
    let bad = format!("{open}\"bottom\"{}", close.replacen('}', "]", 1));
    let mut unit = Unit::default();
    assert!(tokenize(bad.as_bytes(), 0, &mut unit).is_err());
}

#[test]
fn reports_errors_with_offsets() {
    let mut unit = Unit::default();
    let err = tokenize(br#"{"a": tru}"#, 10, &mut unit).unwrap_err();
    assert_eq!(err.offset, 16);
    let err = tokenize(br#"{"a": "x"#, 0, &mut unit).unwrap_err();
    assert_eq!(err.message, "unterminated string");
}

/// Every string of `doc` with its pointer and file offset, read in pieces of about
/// `piece` bytes: the unit is cleared at each pause, as a scanner does after detecting.
fn pieces(doc: &str, piece: usize) -> (Vec<(String, String, usize)>, usize) {
    let mut unit = Unit::default();
    let mut tokenizer = Tokenizer::new(doc.as_bytes(), 7, false);
    let mut got = Vec::new();
    let mut pauses = 0;
    loop {
        let progress = tokenizer
            .resume(&mut unit, None, None, piece)
            .expect("valid json");
        for s in &unit.segments {
            let text = String::from_utf8_lossy(&unit.text[s.start..s.end]).into_owned();
            let ptr = s.node.map(|n| unit.paths.pointer(n)).unwrap_or_default();
            got.push((text, ptr, s.raw_start));
        }
        match progress {
            Progress::Done(end) => {
                assert_eq!(end, doc.len());
                return (got, pauses);
            }
            Progress::Paused => {
                pauses += 1;
                unit.clear_piece(tokenizer.keep());
            }
        }
    }
}

#[test]
fn pieces_give_the_same_strings_pointers_and_offsets_as_one_pass() {
    let record = |i: usize| {
        format!(r#"{{"id": "r{i}", "text": "mail a\u0040b.example", "n": [1, "x{i}"]}}"#)
    };
    let records: Vec<String> = (0..200).map(record).collect();
    let list = records.join(", ");
    for doc in [
        format!("[{list}]"),
        format!(r#"{{"meta": {{"k": "v"}}, "data": [{list}], "tail": "end"}}"#),
        format!(r#"{{"a": {{"b": [[{list}]]}}}}"#),
    ] {
        let mut whole = Unit::default();
        tokenize(doc.as_bytes(), 7, &mut whole).expect("valid json");
        let one: Vec<_> = whole
            .segments
            .iter()
            .map(|s| {
                let text = String::from_utf8_lossy(&whole.text[s.start..s.end]).into_owned();
                (
                    text,
                    whole.paths.pointer(s.node.expect("json")),
                    s.raw_start,
                )
            })
            .collect();
        let (got, pauses) = pieces(&doc, 200);
        assert!(pauses >= 3, "{pauses} pauses");
        assert_eq!(got, one);
    }
}

#[test]
fn a_piece_ends_between_the_outermost_elements_first() {
    // Records of ~600 bytes: with pieces of 1000 bytes every pause falls between two
    // records of the outer list, never inside one.
    let record = format!(
        r#"{{"a": "{}", "b": "{}"}}"#,
        "x".repeat(300),
        "y".repeat(300)
    );
    let doc = format!("[{}]", vec![record; 20].join(","));
    let mut unit = Unit::default();
    let mut tokenizer = Tokenizer::new(doc.as_bytes(), 0, false);
    while tokenizer
        .resume(&mut unit, None, None, 1000)
        .expect("valid")
        == Progress::Paused
    {
        assert_eq!(
            &doc.as_bytes()[tokenizer.pos() - 1..=tokenizer.pos()],
            b"},"
        );
        assert_eq!(unit.segments.len() % 4, 0, "whole records only");
        unit.clear_piece(tokenizer.keep());
    }
}
