//! `fields`: JSON Pointer globs that limit a rule to some values, and where `rules test`
//! places such a rule's examples.

use crate::error::{Error, Result};
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// Restricts a rule to JSON values whose pointer matches. Keys compare ignoring ASCII
/// case: `Password`, `PASSWORD` and `password` hold the same thing.
pub struct FieldFilter {
    globs: GlobSet,
    /// The last pointer step every glob requires, when all globs end in a literal: lets
    /// detection skip building a pointer for values under any other key.
    last_keys: Option<LastKeys>,
}

/// Asked of every value in a record: most keys are told apart by their length alone,
/// before any comparison of bytes (the comparisons were 3% of a scan).
#[derive(Default, Clone)]
struct LastKeys {
    /// Bit `min(len, 63)` for each key's length.
    lengths: u64,
    keys: Vec<String>,
    /// Last steps written `*name` (`**/*api_key`): any key that ends with the name.
    suffixes: Vec<String>,
    /// The last two bytes of each suffix, lowercased: most keys end otherwise and are
    /// turned away with no comparison of the rest.
    suffix_tails: Vec<[u8; 2]>,
}

impl LastKeys {
    fn length_bit(len: usize) -> u64 {
        1 << len.min(63)
    }

    fn contains(&self, key: &str) -> bool {
        let key = key.as_bytes();
        (self.lengths & LastKeys::length_bit(key.len()) != 0
            && self
                .keys
                .iter()
                .any(|k| k.as_bytes().eq_ignore_ascii_case(key)))
            || (key.len() >= 2
                && self.suffix_tails.contains(&[
                    key[key.len() - 2].to_ascii_lowercase(),
                    key[key.len() - 1].to_ascii_lowercase(),
                ])
                && self.suffixes.iter().any(|s| {
                    key.len() >= s.len()
                        && key[key.len() - s.len()..].eq_ignore_ascii_case(s.as_bytes())
                }))
    }
}

/// The last keys of every field rule at once: a value under none of them is passed
/// over with one question instead of one per rule.
pub struct AnyFieldKey(Option<LastKeys>);

impl AnyFieldKey {
    /// `None` inside when some rule's last step is a wildcard (every key may match).
    pub fn of<'a>(filters: impl Iterator<Item = &'a FieldFilter>) -> AnyFieldKey {
        let mut all = LastKeys::default();
        for f in filters {
            let Some(k) = &f.last_keys else {
                return AnyFieldKey(None);
            };
            all.lengths |= k.lengths;
            all.keys.extend(k.keys.iter().cloned());
            all.suffixes.extend(k.suffixes.iter().cloned());
            all.suffix_tails.extend(k.suffix_tails.iter().copied());
        }
        AnyFieldKey(Some(all))
    }

    pub fn may_match(&self, key: Option<&str>) -> bool {
        match (&self.0, key) {
            (None, _) => true,
            (Some(keys), Some(k)) => keys.contains(k),
            (Some(_), None) => false,
        }
    }
}

impl FieldFilter {
    pub fn may_match_key(&self, key: Option<&str>) -> bool {
        match (&self.last_keys, key) {
            (None, _) => true,
            (Some(keys), Some(k)) => keys.contains(k),
            (Some(_), None) => false,
        }
    }

    pub fn matches(&self, pointer: &str) -> bool {
        self.globs.is_match(pointer)
    }
}

/// Where `rules test` places a field rule's examples: the first glob without wildcards,
/// else the first glob made concrete: a leading `**` dropped, a `*` step named `x`, and
/// the star of a `*name` step dropped (`**/auths/*/auth` → `/auths/x/auth`).
pub(super) fn example_field(fields: &[String]) -> Option<String> {
    if let Some(plain) = fields.iter().find(|f| !f.contains(['*', '?', '[', '{'])) {
        return Some(plain.clone());
    }
    let first = fields.first()?;
    let rest = first.strip_prefix("**").unwrap_or(first);
    if rest.contains(['?', '[', '{']) || rest.contains("**") {
        return None;
    }
    let steps: Vec<String> = rest
        .split('/')
        .map(|step| match step {
            "*" => "x".to_string(),
            s => s.replace('*', ""),
        })
        .collect();
    Some(steps.join("/"))
}

pub(super) fn field_filter(origin: &str, id: &str, fields: &[String]) -> Result<FieldFilter> {
    let mut set = GlobSetBuilder::new();
    let mut last_keys = Some(LastKeys::default());
    for f in fields {
        let glob = GlobBuilder::new(f)
            .literal_separator(true)
            .case_insensitive(true)
            .build()
            .map_err(|e| Error::rules(origin, format!("rule `{id}`: bad field glob: {e}")))?;
        set.add(glob);
        let last = f.rsplit('/').next().unwrap_or("");
        let wild = |t: &str| t.contains(['*', '?', '[', '{']);
        let unescape = |t: &str| t.replace("~1", "/").replace("~0", "~");
        match (&mut last_keys, last.strip_prefix('*')) {
            (Some(keys), Some(tail)) if tail.len() >= 2 && !wild(tail) => {
                let suffix = unescape(tail).to_ascii_lowercase();
                let b = suffix.as_bytes();
                keys.suffix_tails.push([b[b.len() - 2], b[b.len() - 1]]);
                keys.suffixes.push(suffix);
            }
            (Some(keys), None) if !wild(last) => {
                let key = unescape(last);
                keys.lengths |= LastKeys::length_bit(key.len());
                keys.keys.push(key);
            }
            _ => last_keys = None,
        }
    }
    let globs = set
        .build()
        .map_err(|e| Error::rules(origin, format!("rule `{id}`: {e}")))?;
    Ok(FieldFilter { globs, last_keys })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_keys_match_exactly_whatever_their_length() {
        let long = "k".repeat(70);
        let fields = [
            "**/password".to_string(),
            "/a/api~1key".to_string(),
            format!("**/{long}"),
        ];
        let filter = field_filter("test", "r", &fields).expect("valid globs");
        for key in ["password", "api/key", long.as_str()] {
            assert!(filter.may_match_key(Some(key)), "{key}");
        }
        let longer = "k".repeat(71);
        assert!(filter.may_match_key(Some("PassWord")), "keys ignore case");
        for key in ["passwore", "api~1key", "pass", "", longer.as_str()] {
            assert!(!filter.may_match_key(Some(key)), "{key}");
        }
        assert!(!filter.may_match_key(None));
        let open = field_filter("test", "r", &["**/pass*".to_string()]).expect("valid");
        assert!(open.may_match_key(Some("anything")));
    }

    #[test]
    fn a_leading_star_matches_keys_by_their_end() {
        let filter = field_filter("test", "r", &["**/*api_key".to_string()]).expect("valid");
        for (key, pointer) in [("DD_API_KEY", "/env/DD_API_KEY"), ("api_key", "/api_key")] {
            assert!(filter.may_match_key(Some(key)), "{key}");
            assert!(filter.matches(pointer), "{pointer}");
        }
        for key in ["api_key_id", "key", "api"] {
            assert!(!filter.may_match_key(Some(key)), "{key}");
        }
        assert!(!filter.matches("/api_key_sha256"));
    }
}
