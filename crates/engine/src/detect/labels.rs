//! Records that say what their values are. A JSON object holding a short label that
//! names a provider (`{"provider": "dropbox-api-token", "value": "…"}`, `{"service":
//! "Datadog", "key": "…"}`) defines its sibling values as that provider's: each sibling
//! is read as `label=value` by the provider's `near` rule, so a value of exactly the
//! provider's shape is found even under a member name that says nothing (`value`,
//! `output`). The sibling's own name still counts: under `sha256` or `commit_id` it is
//! no credential (the `named_key` check sees the member name).
//!
//! A label written as a compound name (`"name": "DB_PASSWORD"`, `"key": "apiToken"`:
//! the name/value pairs of container environments, parameter stores and tag lists)
//! labels with every credential word as a member name would; a single word (`"answer":
//! "secret"`) is prose, and a label in words (`"Stripe API key"`) counts only by a
//! provider's name. Either way only a sibling that is all of the value found counts:
//! the record claims a value, not a place inside some text. Read by a credential word
//! alone, the value must also be one plain token, and not one that starts as some
//! provider's key does while failing that provider's shape (a shortened or made-up
//! `AIza…`, `xoxb-…`): the provider's own rule is the judge of its prefix.

use super::members::{name_value, search_member_rules, search_named};
use super::{RuleSet, Scratch};
use crate::formats::{NodeId, Unit};

/// Longer than this, a string is text, not a label.
const MAX_LABEL: usize = 64;

/// A record with more provider labels than this is a list of names, not one value's
/// label; the cap also bounds the work one object can ask for.
const MAX_LABELS_PER_RECORD: usize = 4;

/// One label: the object it labels, the segment holding it, a rule it names.
pub(super) type Label = (NodeId, usize, usize);

pub(super) fn detect_labelled(
    rules: &RuleSet,
    unit: &Unit,
    scratch: &mut Scratch,
    out: &mut Vec<super::RawMatch>,
) {
    let (Some(names), Some(words)) = (&rules.members, &rules.labels) else {
        return;
    };
    let labels = &mut scratch.labels;
    labels.clear();
    for (i, seg) in unit.segments.iter().enumerate() {
        if seg.is_key || seg.end - seg.start > MAX_LABEL {
            continue;
        }
        let Some(object) = member_of(unit, seg.node) else {
            continue;
        };
        // A parameter store's name is a path (`/prod/eval/db_password`): its last
        // step is the name.
        let whole = &unit.text[seg.start..seg.end];
        let label = whole
            .iter()
            .rposition(|&b| b == b'/')
            .map_or(whole, |i| &whole[i + 1..]);
        // Only a member that names things labels (`"provider": …`, `"Name": …`): an
        // action, an instruction or an answer holding a provider's word is no label.
        // Asked first, of a memo: a record's member names repeat in every record, and
        // most short values sit under names that label nothing (`role`, `id`).
        let Some(key) = seg.node.and_then(|n| unit.paths.last_key(n)) else {
            continue;
        };
        if !scratch.naming_keys.names_things(key) {
            continue;
        }
        let index = if is_compound_name(label) {
            names
        } else if label.iter().filter(|b| b.is_ascii_whitespace()).count() > 3 {
            // A sentence, not a name in words (`Stripe API key`).
            continue;
        } else {
            words
        };
        // The keyword search before the checks below, which split names into words:
        // most short strings name no provider or credential.
        index.rules_for(label, &mut scratch.member_rules);
        if scratch.member_rules.is_empty() {
            continue;
        }
        // A label says what its own name says: `CACHE_KEY`, `nextPageToken` or
        // `FAKE_API_KEY` label no credential, as the same names do assigned.
        if crate::detect::names::named_as_not_secret(label, None)
            || crate::detect::names::named_as_not_real(label, None)
        {
            continue;
        }
        labels.extend(scratch.member_rules.iter().map(|&ri| (object, i, ri)));
    }
    if labels.is_empty() {
        return;
    }
    labels.sort_unstable_by_key(|&(object, seg, _)| (object.index(), seg));
    for (i, value) in unit.segments.iter().enumerate() {
        if value.is_key {
            continue;
        }
        let Some(object) = member_of(unit, value.node) else {
            continue;
        };
        let text = &unit.text[value.start..value.end];
        let start = value.start + text.iter().take_while(|b| b.is_ascii_whitespace()).count();
        let end = value.end
            - text
                .iter()
                .rev()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
        if start >= end {
            continue;
        }
        let first = labels.partition_point(|l| l.0.index() < object.index());
        let last = labels.partition_point(|l| l.0.index() <= object.index());
        let of_record = &labels[first..last];
        // Sorted by segment within a record: count the distinct label segments.
        let distinct = 1 + of_record.windows(2).filter(|w| w[0].1 != w[1].1).count();
        if of_record.is_empty() || distinct > MAX_LABELS_PER_RECORD {
            continue;
        }
        // A label is a name, not a value: of two labels, neither is the other's value.
        if of_record.iter().any(|l| l.1 == i) {
            continue;
        }
        let value_text = &unit.text[start..end];
        let generic_ok = is_plain_token(value_text) && !rules.has_provider_prefix(value_text);
        for &(_, label, ri) in of_record {
            if rules.rules[ri].near.is_empty() && !generic_ok {
                continue;
            }
            let l = &unit.segments[label];
            let (name, value) = (&unit.text[l.start..l.end], &unit.text[start..end]);
            let offset = name_value(&mut scratch.member_text, name, value);
            search_named(
                rules,
                ri,
                (&scratch.member_text, offset),
                start,
                true,
                unit,
                &mut scratch.engines,
                out,
            );
        }
    }
}

/// `{"DB_PASSWORD": {"value": "…"}}`, Terraform's `{"db_password": {"value": "…",
/// "sensitive": true}}`: a `value` member takes its object's name, and is read as
/// `DB_PASSWORD=…` the way a member of that name would be (the whole value only).
pub(super) fn detect_wrapped(
    rules: &RuleSet,
    unit: &Unit,
    scratch: &mut Scratch,
    out: &mut Vec<super::RawMatch>,
) {
    let Some(names) = &rules.members else {
        return;
    };
    for value in &unit.segments {
        let Some(node) = value.node.filter(|_| !value.is_key) else {
            continue;
        };
        if !unit
            .paths
            .last_key(node)
            .is_some_and(|k| k.eq_ignore_ascii_case("value"))
        {
            continue;
        }
        let Some(name) = unit.paths.parent(node).and_then(|o| unit.paths.last_key(o)) else {
            continue;
        };
        // The checks a member's name gets from its rule's validator, which here sees
        // only `value`.
        if crate::detect::names::named_as_not_secret(name.as_bytes(), None)
            || crate::detect::names::named_as_not_real(name.as_bytes(), None)
        {
            continue;
        }
        names.rules_for(name.as_bytes(), &mut scratch.member_rules);
        let span = (value.start, value.end);
        search_member_rules(rules, name.as_bytes(), span, true, unit, scratch, out);
    }
}

/// The object whose member `node` is, if it is one.
fn member_of(unit: &Unit, node: Option<NodeId>) -> Option<NodeId> {
    let node = node?;
    unit.paths.last_key(node)?;
    unit.paths.parent(node)
}

/// The words of a member name that say its value names something: the provider or
/// service a record is about, or the name of a name/value pair.
const NAMING_WORDS: &[&str] = &[
    "provider",
    "service",
    "vendor",
    "platform",
    "integration",
    "type",
    "kind",
    "name",
    "key",
    "label",
    "variable",
    "var",
    "env",
    "parameter",
    "param",
    "field",
    "setting",
    "detector",
    "rule",
    "title",
];

/// [`names_things`] by member name, remembered for the worker's later records.
#[derive(Default)]
pub(super) struct NamingKeys(std::collections::HashMap<Box<str>, bool>);

impl NamingKeys {
    /// Distinct member names kept; past this the memo starts over, so a file of
    /// generated keys cannot grow it without bound.
    const CAP: usize = 4096;

    fn names_things(&mut self, key: &str) -> bool {
        if let Some(&known) = self.0.get(key) {
            return known;
        }
        let verdict = names_things(key);
        if self.0.len() >= Self::CAP {
            self.0.clear();
        }
        self.0.insert(key.into(), verdict);
        verdict
    }
}

fn names_things(key: &str) -> bool {
    crate::detect::names::name_words(key)
        .iter()
        .any(|w| NAMING_WORDS.contains(&w.as_str()))
}

/// Written as a name of two words or more: letters, digits and `_.-` only, with a
/// separator inside or a camel-case hump (`DB_PASSWORD`, `api-token`, `apiKey`).
fn is_compound_name(label: &[u8]) -> bool {
    let inner = label
        .get(1..label.len().saturating_sub(1))
        .unwrap_or_default();
    label
        .iter()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
        && (inner.iter().any(|b| matches!(b, b'_' | b'.' | b'-'))
            || label
                .windows(2)
                .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase()))
}

/// One token as keys are written: letters, digits, `+/_.~-=%`; not a path or file name
/// (a `/` first, or a short extension after the last `.`, as `cert.p12` and
/// `corp.example.com` end) and not an assignment of its own (`NAME=value`: one `=`
/// inside, after a name; a token's alphabet may hold `=` anywhere and often).
fn is_plain_token(value: &[u8]) -> bool {
    let body = value
        .strip_suffix(b"==")
        .or_else(|| value.strip_suffix(b"="))
        .unwrap_or(value);
    let token = body.iter().all(|b| {
        b.is_ascii_alphanumeric()
            || matches!(b, b'+' | b'/' | b'_' | b'.' | b'~' | b'-' | b'=' | b'%')
    });
    let named_file = body.rsplit(|&b| b == b'.').next().is_some_and(|ext| {
        ext.len() < body.len()
            && (1..=5).contains(&ext.len())
            && ext[0].is_ascii_alphabetic()
            && ext.iter().all(u8::is_ascii_alphanumeric)
    });
    token
        && !named_file
        && !body.starts_with(b"/")
        && !body.starts_with(b"./")
        && !is_assignment(body)
}

/// `NAME=value`: exactly one `=`, after something written as a name (or an option:
/// `-Dname=`, `--name=`).
fn is_assignment(body: &[u8]) -> bool {
    let start = body.iter().take_while(|&&b| b == b'-').count();
    let mut parts = body[start..].split(|&b| b == b'=');
    let (Some(name), Some(_), None) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    name.first()
        .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
        && name
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_may_hold_equals_signs_an_assignment_holds_one() {
        for token in [
            "Qm7vT2kX9pL4wZ8rN3cF6hJ1yB5dS0aG",
            "c3ZjLWV2YWw6cVc3LXhMMm1aOQ==",
            "r4q8v0pq=u3uofbc=qkst4zy_0",
            "01-66m=bekg2ope6-mtsb",
            "ab%2Fcd9Xk2mQ7vT2kX9pL4",
        ] {
            assert!(is_plain_token(token.as_bytes()), "{token}");
        }
        for not in [
            "API_VERSION=rc0.13.0_20230412",
            "MantleAPI_version=9a038989604e8da62ecd",
            "certs/server.p12",
            "/run/secrets/token",
            "corp.example.com",
            "two words",
            "-DKEYTAB_FILE=/srv/app.keytab",
        ] {
            assert!(!is_plain_token(not.as_bytes()), "{not}");
        }
    }

    #[test]
    fn compound_names_label_single_words_do_not() {
        for name in ["DB_PASSWORD", "api-token", "apiKey", "slack.bot.token"] {
            assert!(is_compound_name(name.as_bytes()), "{name}");
        }
        for not in ["secret", "passwd", "_token", "api key", "Token"] {
            assert!(!is_compound_name(not.as_bytes()), "{not}");
        }
    }
}
