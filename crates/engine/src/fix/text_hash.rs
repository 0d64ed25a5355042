//! Hashes a record keeps of its own text (`text` + `text_sha256`, a stoplist and its
//! hash): when `fix` rewrote the text, a hash that was true of it before is made true
//! of it again, in the record's own bytes. A hash that was already false stays as it
//! was: that is a finding for a person.

use crate::formats::tree::Node;
use crate::provenance::bind::{self, BindRule, Target};
use crate::provenance::hygiene;
use sha2::{Digest, Sha256};

/// `after` with every text hash that `before` had right made right again. Records are
/// JSON lines, or the whole text as one document.
pub fn rehash(binds: &[BindRule], before: &[u8], after: &[u8]) -> Vec<u8> {
    if let (Some(fixed), true) = (
        record(binds, before, after),
        !after.contains(&b'\n') || Node::parse(after).is_ok(),
    ) {
        return fixed;
    }
    let (old_lines, new_lines): (Vec<&[u8]>, Vec<&[u8]>) = (
        before.split(|&b| b == b'\n').collect(),
        after.split(|&b| b == b'\n').collect(),
    );
    if old_lines.len() != new_lines.len() {
        return after.to_vec();
    }
    let mut out = Vec::with_capacity(after.len());
    for (i, (old, new)) in old_lines.iter().zip(&new_lines).enumerate() {
        if i > 0 {
            out.push(b'\n');
        }
        match (old != new).then(|| record(binds, old, new)).flatten() {
            Some(fixed) => out.extend_from_slice(&fixed),
            None => out.extend_from_slice(new),
        }
    }
    out
}

/// One record: `Some(new bytes)` when a text hash in it was made right.
fn record(binds: &[BindRule], before: &[u8], after: &[u8]) -> Option<Vec<u8>> {
    let (old, new) = (Node::parse(before).ok()?, Node::parse(after).ok()?);
    let texts = |doc: &Node| {
        let (mut bindings, mut hashes) = (Vec::new(), Vec::new());
        bind::extract(doc, binds, &mut bindings, &mut hashes);
        bindings
            .into_iter()
            .filter_map(|b| match b.target {
                Target::Text(text) => Some((b.pointer, b.hash, text)),
                Target::File(_) => None,
            })
            .collect::<Vec<_>>()
    };
    let was = texts(&old);
    let mut out = after.to_vec();
    let mut changed = false;
    for (pointer, hash, text) in texts(&new) {
        let hex = hygiene::hex_of(&hash).to_ascii_lowercase();
        let right = crate::hex::encode(&Sha256::digest(text.as_bytes()));
        let was_right = was.iter().any(|(p, h, t)| {
            *p == pointer
                && hygiene::hex_of(h).eq_ignore_ascii_case(&hex)
                && crate::hex::encode(&Sha256::digest(t.as_bytes())) == hex
        });
        if hex.len() == 64 && hex != right && was_right {
            let written = hygiene::hex_of(&hash);
            let new_hex = match written.bytes().any(|b| b.is_ascii_uppercase()) {
                true => right.to_ascii_uppercase(),
                false => right,
            };
            if let Some(at) = memchr::memmem::find(&out, written.as_bytes()) {
                out[at..at + written.len()].copy_from_slice(new_hex.as_bytes());
                changed = true;
            }
        }
    }
    changed.then_some(out)
}
