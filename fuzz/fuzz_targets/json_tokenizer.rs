//! The JSON tokenizer and pointer tracking on arbitrary bytes: no panic, and every
//! segment it reports lies inside the decoded text and maps back inside the input.
//! The tree the tokenizer builds for the audit is the tree `Node::parse` reads from
//! the same document, whenever both accept it.
#![no_main]
use libfuzzer_sys::fuzz_target;
use privacy_audit::formats::Unit;
use privacy_audit::formats::json::{Locator, tokenize, tokenize_tree};
use privacy_audit::formats::tree::{Node, TreeBuilder};

fuzz_target!(|data: &[u8]| {
    let mut unit = Unit::default();
    let _ = tokenize(data, 0, &mut unit);
    for seg in &unit.segments {
        assert!(seg.start <= seg.end && seg.end <= unit.text.len());
        if let Some(node) = seg.node {
            let pointer = unit.paths.pointer(node);
            let at = Locator::new(data, 0).at(&pointer);
            assert!(at <= data.len());
        }
    }
    let mut unit = Unit::default();
    let mut builder = TreeBuilder::default();
    if let Ok(end) = tokenize_tree(data, 0, &mut unit, &mut builder)
        && let Some(built) = builder.finish()
        && let Ok(parsed) = Node::parse(&data[..end])
    {
        assert_eq!(built, parsed);
    }
});
