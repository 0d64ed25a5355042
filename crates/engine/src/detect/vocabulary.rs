//! The placeholder vocabulary (`rules/vocabulary/placeholders.toml`, compiled in) and
//! everything else confidence is judged against.

use crate::rules::machine::Machine;
use serde::Deserialize;
use std::collections::HashSet;

/// The placeholder vocabulary, lowercased.
#[derive(Debug, Default, Clone)]
pub struct Vocabulary {
    pub(super) users: HashSet<String>,
    pub(super) sandbox_roots: Vec<String>,
    pub(super) domains: HashSet<String>,
    pub(super) locals: HashSet<String>,
    /// Card numbers issuers publish for tests, digits only.
    pub(super) test_cards: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VocabularyFile {
    users: Vec<String>,
    sandbox_roots: Vec<String>,
    domains: Vec<String>,
    locals: Vec<String>,
    secret_words: Vec<String>,
    test_cards: Vec<String>,
}

const BUILTIN_VOCABULARY: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/rules/vocabulary/placeholders.toml"
));

impl Vocabulary {
    /// The shipped vocabulary plus `extra` words (users and e-mail locals alike).
    pub fn load(extra: &[String]) -> Vocabulary {
        // The shipped file is checked by a test; a parse failure here cannot happen in
        // a released binary, and would only make every finding medium.
        let file: Option<VocabularyFile> = toml::from_str(BUILTIN_VOCABULARY).ok();
        let lower = |v: &[String]| {
            v.iter()
                .map(|s| s.to_ascii_lowercase())
                .collect::<HashSet<_>>()
        };
        let Some(f) = file else {
            return Vocabulary::default();
        };
        let mut v = Vocabulary {
            users: lower(&f.users),
            sandbox_roots: f.sandbox_roots,
            domains: lower(&f.domains),
            locals: lower(&f.locals),
            test_cards: f.test_cards,
        };
        for w in extra {
            v.users.insert(w.to_ascii_lowercase());
            v.locals.insert(w.to_ascii_lowercase());
        }
        v
    }
}

/// The words that make a credential-shaped value a placeholder, lowercased.
pub fn secret_words() -> Vec<String> {
    toml::from_str::<VocabularyFile>(BUILTIN_VOCABULARY)
        .map(|f| {
            f.secret_words
                .iter()
                .map(|w| w.to_ascii_lowercase())
                .collect()
        })
        .unwrap_or_default()
}

/// Everything the judgement reads besides the match.
#[derive(Debug, Default, Clone)]
pub struct Knowledge {
    pub vocabulary: Vocabulary,
    pub machine: Machine,
    /// Who wrote a string, by member names (see [`super::confidence::role`]).
    pub roles: super::confidence::role::Roles,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vocabulary_ships() {
        assert!(toml::from_str::<VocabularyFile>(BUILTIN_VOCABULARY).is_ok());
        assert!(Vocabulary::load(&[]).users.contains("ubuntu"));
        assert!(secret_words().iter().any(|w| w == "changeme"));
    }
}
