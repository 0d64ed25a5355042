//! `fields`: JSON Pointer globs that limit a rule to some values, and where `rules test`
//! places such a rule's examples.

use crate::error::{Error, Result};
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// Restricts a rule to JSON values whose pointer matches.
pub struct FieldFilter {
    globs: GlobSet,
    /// The last pointer step every glob requires, when all globs end in a literal: lets
    /// detection skip building a pointer for values under any other key.
    last_keys: Option<Vec<String>>,
}

impl FieldFilter {
    pub fn may_match_key(&self, key: Option<&str>) -> bool {
        match (&self.last_keys, key) {
            (None, _) => true,
            (Some(keys), Some(k)) => keys.iter().any(|x| x == k),
            (Some(_), None) => false,
        }
    }

    pub fn matches(&self, pointer: &str) -> bool {
        self.globs.is_match(pointer)
    }
}

/// Where `rules test` places a field rule's examples: the first glob without wildcards,
/// else the first glob with a leading `**` dropped (`**/password` → `/password`).
pub(super) fn example_field(fields: &[String]) -> Option<String> {
    fields
        .iter()
        .find(|f| !f.contains(['*', '?', '[', '{']))
        .cloned()
        .or_else(|| {
            let f = fields.first()?.strip_prefix("**")?;
            (!f.contains(['*', '?', '[', '{'])).then(|| f.to_string())
        })
}

pub(super) fn field_filter(origin: &str, id: &str, fields: &[String]) -> Result<FieldFilter> {
    let mut set = GlobSetBuilder::new();
    let mut last_keys = Some(Vec::new());
    for f in fields {
        let glob = GlobBuilder::new(f)
            .literal_separator(true)
            .build()
            .map_err(|e| Error::rules(origin, format!("rule `{id}`: bad field glob: {e}")))?;
        set.add(glob);
        let last = f.rsplit('/').next().unwrap_or("");
        match (&mut last_keys, last.contains(['*', '?', '[', '{'])) {
            (Some(keys), false) => keys.push(last.replace("~1", "/").replace("~0", "~")),
            _ => last_keys = None,
        }
    }
    let globs = set
        .build()
        .map_err(|e| Error::rules(origin, format!("rule `{id}`: {e}")))?;
    Ok(FieldFilter { globs, last_keys })
}
