//! Operator denylists: literal terms (client names, user names, code names) matched
//! case-insensitively on word boundaries, all at once with Aho-Corasick.

use crate::error::{Error, Result};
use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use sha2::{Digest, Sha256};

pub struct Denylist {
    matcher: AhoCorasick,
    digest: [u8; 32],
}

impl Denylist {
    /// The matcher of `terms` (as [`crate::rules::read_denylists`] reads them); `None`
    /// when there is none.
    pub fn from_terms(mut terms: Vec<String>) -> Result<Option<Denylist>> {
        if terms.is_empty() {
            return Ok(None);
        }
        terms.sort();
        terms.dedup();
        let mut hasher = Sha256::new();
        for t in &terms {
            hasher.update(t.as_bytes());
            hasher.update([0u8]);
        }
        let matcher = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .build(&terms)
            .map_err(|e| Error::rules("denylist", e.to_string()))?;
        Ok(Some(Denylist {
            matcher,
            digest: hasher.finalize().into(),
        }))
    }

    pub fn digest(&self) -> &[u8] {
        &self.digest
    }

    /// Spans of whole-word term occurrences in `text`.
    pub fn find<'a>(&'a self, text: &'a [u8]) -> impl Iterator<Item = (usize, usize)> + 'a {
        self.matcher
            .find_iter(text)
            .map(|m| (m.start(), m.end()))
            .filter(move |&(s, e)| is_word_boundary(text, s, e))
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The characters just outside `[start, end)` are not letters, digits or `_`.
fn is_word_boundary(text: &[u8], start: usize, end: usize) -> bool {
    let before = text[..start]
        .utf8_chunks()
        .last()
        .and_then(|c| c.valid().chars().next_back());
    let after = std::str::from_utf8(&text[end..text.len().min(end + 4)]).map_or_else(
        |e| {
            std::str::from_utf8(&text[end..end + e.valid_up_to()])
                .ok()
                .and_then(|s| s.chars().next())
        },
        |s| s.chars().next(),
    );
    !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_words_only_any_case() {
        let d = Denylist::from_terms(vec!["Globex".into(), "Project Falcon".into()])
            .expect("builds")
            .expect("non-empty");
        let text = b"GLOBEX signed; globexian no; see project falcon.";
        let hits: Vec<_> = d.find(text).collect();
        assert_eq!(hits, vec![(0, 6), (33, 47)]);
    }
}
