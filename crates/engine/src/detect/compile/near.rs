//! `near` rules: a provider known by its name near a value of its shape.
//!
//! Most small providers issue keys with no prefix of their own (32 hex digits, 40
//! letters and digits); what marks one is the provider's name on the left of it. A rule
//! says so as data (`near = ["dropbox"]`, `regex` = the value's shape) and this module
//! writes the one pattern every such rule shares, so the forms a credential takes are
//! learnt once rather than copied into every rule:
//!
//! - the name in any naming style: `dropbox_token`, `dropboxToken`, `DROPBOX.KEY`,
//!   `x-dropbox-key`, `--dropbox-token`, and a word or two after it (`Using dropbox
//!   KEY=…`, `dropbox app secret: …`);
//! - quoted or not, with an escaped quote when the text is itself a quoted string;
//! - any assignment operator: `=`, `:`, `:=`, `::=`, `?=`, `=>`, `->`, an XML element's
//!   `>`, or the `,` between a name and a value passed as arguments.
//!
//! In a JSON record the name is a member's key: the words are also the rule's member
//! names, so `{"dropbox_token": "…"}` is read as `dropbox_token=…`.

use crate::error::{Error, Result};
use crate::rules::RuleSpec;

/// A quote as written, or escaped inside a quoted string.
const QUOTE: &str = r#"(?:\\?["'`])?"#;

/// Rewrites a `near` rule into a plain one: its regex wrapped, its words added to its
/// keywords and (unless it names its own) its member names. Other rules pass through.
pub(super) fn expand(origin: &str, mut spec: RuleSpec) -> Result<RuleSpec> {
    if spec.near.is_empty() {
        return Ok(spec);
    }
    let bad = |why: &str| Error::rules(origin, format!("rule `{}`: {why}", spec.id));
    let Some(shape) = spec.regex.take() else {
        return Err(bad("`near` needs `regex`, the shape of the value"));
    };
    if shape.contains("(?P<value>") {
        return Err(bad(
            "with `near`, `regex` is the value's shape alone; the rule makes the `value` group",
        ));
    }
    if let Some(w) = spec.near.iter().find(|w| w.trim().len() < 3) {
        return Err(bad(&format!(
            "`near` word `{w}` is too short to name a provider"
        )));
    }
    spec.regex = Some(pattern(&spec.near, &shape));
    for w in &spec.near {
        if !spec.keywords.iter().any(|k| k.eq_ignore_ascii_case(w)) {
            spec.keywords.push(w.clone());
        }
    }
    if spec.member_names.is_empty() {
        spec.member_names = spec.near.clone();
    }
    Ok(spec)
}

/// A provider's name runs on into these words without a break (`snykapikey`,
/// `dropboxtoken`); any other lower-case letter means a longer word (`oktaxyz`).
const RUN_ON: [&str; 10] = [
    "api", "key", "token", "secret", "access", "auth", "client", "app", "pat", "id",
];

/// Whether the word found at `text[start..end]` (ASCII case-insensitively) stands as a
/// word of a name the way [`pattern`] requires: starting after a separator or at a
/// camel-case hump, and not running on into a longer lower-case word. The keyword pass
/// asks this before opening a window, so prose holding a provider's name as part of a
/// word (`coherence`, `rookTable`) costs no regex search.
pub fn stands_as_name(text: &[u8], start: usize, end: usize) -> bool {
    let starts = match start.checked_sub(1).map(|i| text[i]) {
        None => true,
        Some(b) if !b.is_ascii_alphanumeric() => true,
        Some(b) => {
            (b.is_ascii_lowercase() || b.is_ascii_digit())
                && text.get(start).is_some_and(u8::is_ascii_uppercase)
        }
    };
    starts
        && match text.get(end) {
            Some(b) if b.is_ascii_lowercase() => RUN_ON.iter().any(|w| {
                text.get(end..end + w.len())
                    .is_some_and(|t| t.eq_ignore_ascii_case(w.as_bytes()))
            }),
            _ => true,
        }
}

/// The shared pattern: name, up to two more words, operator, value, end of value.
///
/// A name counts only where a word of its naming style starts and ends: after a
/// separator or at the start (`x_okta_key`), or at a camel-case hump (`myOktaKey`,
/// written capitalised); and before a separator, a capital, a digit, a quote or one of
/// [`RUN_ON`]. So `rookTable` and `SetSysctl` hold no `okta` or `etsy`.
fn pattern(words: &[String], shape: &str) -> String {
    let any_case = words
        .iter()
        .map(|w| regex::escape(w))
        .collect::<Vec<_>>()
        .join("|");
    let humped = words
        .iter()
        .filter_map(|w| {
            let mut chars = w.chars();
            let first = chars.next().filter(char::is_ascii_alphabetic)?;
            Some(format!(
                "{}(?i:{})",
                first.to_ascii_uppercase(),
                regex::escape(chars.as_str())
            ))
        })
        .collect::<Vec<_>>()
        .join("|");
    let start = r"(?:^|[^A-Za-z0-9])";
    let name = if humped.is_empty() {
        format!(r"{start}(?:[A-Za-z0-9_.-]{{0,24}}?[_.-])?(?i:{any_case})")
    } else {
        format!(
            r"(?:{start}(?:[A-Za-z0-9_.-]{{0,24}}?[_.-])?(?i:{any_case})|{start}[A-Za-z0-9_.-]{{0,23}}?[a-z0-9](?:{humped}))"
        )
    };
    format!(
        concat!(
            "{name}",
            // The rest of the name, which must not run on as a longer lower-case word.
            r"(?:(?:[A-Z0-9_.-]|(?i:{run_on}))[A-Za-z0-9_.-]{{0,32}}?)?",
            // A word or two more, as in a log line's `Using dropbox KEY=…`.
            r"(?:[ \t]{{1,4}}[A-Za-z0-9_.-]{{1,24}}){{0,2}}?",
            "{q}[ \\t]{{0,8}}",
            r"(?::{{1,3}}=|\?=|=>|->|[:=>,])",
            "[ \\t]{{0,8}}{q}",
            r"(?P<value>{shape})(?:[^A-Za-z0-9_-]|$)",
        ),
        name = name,
        run_on = RUN_ON.join("|"),
        shape = shape,
        q = QUOTE,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(near: &[&str], regex: &str) -> RuleSpec {
        let text = format!(
            "id = \"t\"\ncategory = \"secret\"\nseverity = \"high\"\ndescription = \"d\"\nnear = {near:?}\nregex = '''{regex}'''\n"
        );
        toml::from_str(&text).expect("spec")
    }

    fn finds(rule: &RuleSpec, text: &str) -> Option<String> {
        let re = regex::Regex::new(rule.regex.as_deref().expect("regex")).expect("compiles");
        re.captures(text)
            .and_then(|c| c.name("value"))
            .map(|m| m.as_str().to_string())
    }

    #[test]
    fn every_form_of_a_name_finds_the_value() {
        let rule = expand("t", spec(&["dropbox"], "[a-z0-9]{15}")).expect("expands");
        let v = "k2q8x0vz4m7c1ba";
        for text in [
            format!("dropbox_token = \"{v}\""),
            format!("dropboxAppKey: {v}"),
            format!("DROPBOX.KEY={v}"),
            format!("export X_DROPBOX_SECRET='{v}'"),
            format!("[INFO] Using dropbox KEY={v} for sync"),
            format!("<dropbox_secret>{v}</dropbox_secret>"),
            format!("getenv(\"dropbox_token\", \"{v}\")"),
            format!("DROPBOX_TOKEN ?= {v}"),
            format!("dropbox_token := \"{v}\""),
            format!(r#"{{\"dropbox_key\": \"{v}\"}}"#),
        ] {
            assert_eq!(finds(&rule, &text).as_deref(), Some(v), "{text}");
        }
        assert_eq!(rule.keywords, vec!["dropbox".to_string()]);
        assert_eq!(rule.member_names, vec!["dropbox".to_string()]);
    }

    #[test]
    fn a_value_of_another_shape_or_with_no_operator_is_not_found() {
        let rule = expand("t", spec(&["dropbox"], "[a-z0-9]{15}")).expect("expands");
        assert_eq!(
            finds(&rule, "dropbox_token = k2q8x0vz4m7c1ba9"),
            None,
            "too long"
        );
        assert_eq!(
            finds(&rule, "dropbox_token = k2q8x0vz4m7c1b"),
            None,
            "too short"
        );
        assert_eq!(
            finds(&rule, "the dropbox is k2q8x0vz4m7c1ba"),
            None,
            "no operator"
        );
        assert_eq!(
            finds(&rule, "dropbox: K2Q8X0VZ4M7C1BA"),
            None,
            "another alphabet"
        );
        for text in [
            "myDropboxKey = k2q8x0vz4m7c1ba",
            "DROPBOXAPPKEY=k2q8x0vz4m7c1ba",
            "dropboxapikey=k2q8x0vz4m7c1ba",
        ] {
            assert!(finds(&rule, text).is_some(), "{text}");
        }
        // The name inside another word, or running on into one, is not the name.
        for text in [
            "undropboxed = k2q8x0vz4m7c1ba",
            "airdropbox = k2q8x0vz4m7c1ba",
            "dropboxes = k2q8x0vz4m7c1ba",
            "xDropboxy = k2q8x0vz4m7c1ba",
        ] {
            assert_eq!(finds(&rule, text), None, "{text}");
        }
    }

    /// The keyword pass's check agrees with the pattern: where it says no, the
    /// pattern finds nothing either.
    #[test]
    fn a_word_inside_a_longer_one_opens_no_window() {
        let at = |text: &str, word: &str| {
            let start = text.to_ascii_lowercase().find(word).expect("word");
            stands_as_name(text.as_bytes(), start, start + word.len())
        };
        for (text, word) in [
            ("COHERE_API_KEY=x", "cohere"),
            ("myCohereKey=x", "cohere"),
            ("coheretoken=x", "cohere"),
            ("x-okta-key: x", "okta"),
            ("okta", "okta"),
        ] {
            assert!(at(text, word), "{text}");
        }
        for (text, word) in [
            ("coherence matters", "cohere"),
            ("rookTable = x", "okta"),
            ("SetSysctl = x", "etsy"),
            ("incoherent", "cohere"),
        ] {
            assert!(!at(text, word), "{text}");
        }
    }

    #[test]
    fn a_near_rule_must_give_a_shape_without_its_own_value_group() {
        let err = expand("f.toml", spec(&["dropbox"], "(?P<value>[a-z]{4})")).unwrap_err();
        assert!(err.to_string().contains("shape alone"), "{err}");
        let err = expand("f.toml", spec(&["db"], "[a-z]{4}")).unwrap_err();
        assert!(err.to_string().contains("too short"), "{err}");
    }
}
