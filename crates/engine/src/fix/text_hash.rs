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
    // A hash worth making true is 64 hex digits that the fix left as they were: text
    // without such a run has none, and no record of it needs parsing.
    if !has_hex64(after) {
        return after.to_vec();
    }
    if let Some(fixed) = record(binds, before, after)
        && (!after.contains(&b'\n') || Node::parse(after).is_ok())
    {
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
        let fixed = (old != new && has_hex64(new))
            .then(|| record(binds, old, new))
            .flatten();
        match fixed {
            Some(fixed) => out.extend_from_slice(&fixed),
            None => out.extend_from_slice(new),
        }
    }
    out
}

/// Whether `bytes` hold 64 hex digits in a row. A run that long covers every 64th
/// byte, so only those are looked at first, and a run is measured back from one.
fn has_hex64(bytes: &[u8]) -> bool {
    let mut from = 0;
    while let Some(&last) = bytes.get(from + 63) {
        if !last.is_ascii_hexdigit() {
            from += 64;
            continue;
        }
        let end = from + 63;
        match bytes[from..end]
            .iter()
            .rposition(|b| !b.is_ascii_hexdigit())
        {
            None => return true,
            Some(i) => from += i + 1,
        }
    }
    false
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
            if let Some(at) = place(&out, written, &pointer) {
                out[at..at + written.len()].copy_from_slice(new_hex.as_bytes());
                changed = true;
            }
        }
    }
    changed.then_some(out)
}

/// Where the hash at `pointer` is written in `record`: the one occurrence of `hex`
/// that is the value of the pointer's last member (`"text_sha256": "sha256:<hex>"`),
/// else the first. The same hash may stand elsewhere in the record (a copy under
/// another name) and must keep its bytes.
fn place(record: &[u8], hex: &str, pointer: &str) -> Option<usize> {
    let name = pointer.rsplit('/').next().unwrap_or_default();
    let name = name.replace("~1", "/").replace("~0", "~");
    let all: Vec<usize> = memchr::memmem::find_iter(record, hex.as_bytes()).collect();
    let named = |&&at: &&usize| {
        let head = &record[..at];
        let head = head.strip_suffix(b"sha256:").unwrap_or(head);
        let head = head.strip_suffix(b"\"").map(<[u8]>::trim_ascii_end);
        let head = head
            .and_then(|h| h.strip_suffix(b":"))
            .map(<[u8]>::trim_ascii_end);
        let key = format!("\"{name}\"");
        head.is_some_and(|h| h.ends_with(key.as_bytes()))
    };
    all.iter().find(named).or(all.first()).copied()
}

#[cfg(test)]
mod tests {
    use super::{has_hex64, place};

    #[test]
    fn the_hash_rewritten_is_the_one_under_its_own_name() {
        let hex = "ab".repeat(32);
        let record = format!(r#"{{"copy":"{hex}","text_sha256": "sha256:{hex}"}}"#);
        let at = place(record.as_bytes(), &hex, "/text_sha256").expect("found");
        assert_eq!(&record[at - 23..at], "\"text_sha256\": \"sha256:");
        assert_eq!(place(record.as_bytes(), &hex, "/other"), Some(9));
    }

    #[test]
    fn a_run_of_64_hex_digits_is_found_wherever_it_starts() {
        let hash = "ab".repeat(32);
        for before in 0..70 {
            let text = format!("{}{hash}\"", "x".repeat(before));
            assert!(has_hex64(text.as_bytes()), "{before}");
            let short = format!("{}{}\"", "x".repeat(before), &hash[1..]);
            assert!(!has_hex64(short.as_bytes()), "{before}");
        }
        assert!(!has_hex64(
            format!("{}g{}", &hash[..40], &hash[..40]).as_bytes()
        ));
    }
}
