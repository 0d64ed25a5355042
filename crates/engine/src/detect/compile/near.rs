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
use regex_syntax::hir::{Capture, Class, ClassBytes, ClassBytesRange, Hir};
use std::sync::OnceLock;

/// A quote as written, or escaped inside a quoted string.
const QUOTE: &str = r#"(?:\\?["'`])?"#;

/// Rewrites a `near` rule into a plain one: its regex wrapped, its words added to its
/// keywords and (unless it names its own) its member names, with the wrapped regex's
/// syntax tree. Other rules pass through, with no tree.
pub(super) fn expand(origin: &str, mut spec: RuleSpec) -> Result<(RuleSpec, Option<Hir>)> {
    if spec.near.is_empty() {
        return Ok((spec, None));
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
    if shape
        .match_indices('(')
        .any(|(i, _)| !shape[i + 1..].starts_with('?') && !shape[..i].ends_with('\\'))
    {
        return Err(bad(
            "with `near`, group the shape with `(?:…)`: the rule makes the only capture",
        ));
    }
    if let Some(w) = spec.near.iter().find(|w| w.trim().len() < 3) {
        return Err(bad(&format!(
            "`near` word `{w}` is too short to name a provider"
        )));
    }
    let tree = syntax_tree(&spec.near, &shape).map_err(|e| bad(&format!("bad regex: {e}")))?;
    spec.regex = Some(pattern(&spec.near, &shape));
    for w in &spec.near {
        if !spec.keywords.iter().any(|k| k.eq_ignore_ascii_case(w)) {
            spec.keywords.push(w.clone());
        }
    }
    if spec.member_names.is_empty() {
        spec.member_names = spec.near.clone();
    }
    Ok((spec, Some(tree)))
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
    format!("{}{}(?P<value>{shape}){END}", name(words), after_name())
}

/// The provider's name in any of its styles.
fn name(words: &[String]) -> String {
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
    if humped.is_empty() {
        format!("{START}{PREFIX}(?i:{any_case})")
    } else {
        format!("(?:{START}{PREFIX}(?i:{any_case})|{START}{HUMP_PREFIX}(?:{humped}))")
    }
}

/// Where a name may start: the start of the text or a byte that is no letter or digit.
const START: &str = r"(?:^|[^A-Za-z0-9])";
/// Words of the name before the provider's, ending in a separator (`x_`, `my.`).
const PREFIX: &str = r"(?:[A-Za-z0-9_.-]{0,24}?[_.-])?";
/// Words of the name before the provider's capitalised one (`my` of `myOktaKey`).
const HUMP_PREFIX: &str = r"[A-Za-z0-9_.-]{0,23}?[a-z0-9]";

/// Everything between the name and the value, the same for every rule.
fn after_name() -> &'static str {
    static AFTER: OnceLock<String> = OnceLock::new();
    AFTER.get_or_init(|| {
        format!(
            concat!(
                // The rest of the name, which must not run on as a longer lower-case word.
                r"(?:(?:[A-Z0-9_.-]|(?i:{run_on}))[A-Za-z0-9_.-]{{0,32}}?)?",
                // A word or two more, as in a log line's `Using dropbox KEY=…`.
                r"(?:[ \t]{{1,4}}[A-Za-z0-9_.-]{{1,24}}){{0,2}}?",
                "{q}[ \\t]{{0,8}}",
                r"(?::{{1,3}}=|\?=|=>|->|[:=>,])",
                "[ \\t]{{0,8}}{q}",
            ),
            run_on = RUN_ON.join("|"),
            q = QUOTE,
        )
    })
}

/// Where the value ends.
const END: &str = r"(?:[^A-Za-z0-9_-]|$)";

/// The syntax tree of [`pattern`]`(words, shape)`, put together from parsed parts: the
/// parts every rule shares are parsed once, so three hundred rules cost three hundred
/// small parses at start-up rather than three hundred of the whole pattern.
fn syntax_tree(words: &[String], shape: &str) -> std::result::Result<Hir, String> {
    let shared = SHARED
        .get_or_init(Shared::parse)
        .as_ref()
        .map_err(Clone::clone)?;
    let value = Hir::capture(Capture {
        index: 1,
        name: Some("value".into()),
        sub: Box::new(super::pattern::parse(shape)?),
    });
    Ok(Hir::concat(vec![
        shared.name(words),
        shared.after.clone(),
        value,
        shared.end.clone(),
    ]))
}

static SHARED: OnceLock<std::result::Result<Shared, String>> = OnceLock::new();

/// The parsed parts of [`pattern`] that hold no provider word.
struct Shared {
    start: Hir,
    prefix: Hir,
    hump_prefix: Hir,
    after: Hir,
    end: Hir,
}

impl Shared {
    fn parse() -> std::result::Result<Shared, String> {
        let parse = super::pattern::parse;
        Ok(Shared {
            start: parse(START)?,
            prefix: parse(PREFIX)?,
            hump_prefix: parse(HUMP_PREFIX)?,
            after: parse(after_name())?,
            end: parse(END)?,
        })
    }

    /// [`name`]'s tree, built rather than parsed: a provider's words are literals,
    /// matched ASCII case-insensitively, or with the first letter a capital.
    fn name(&self, words: &[String]) -> Hir {
        let any_case = Hir::alternation(
            words
                .iter()
                .map(|w| Hir::concat(w.bytes().map(any_case_byte).collect()))
                .collect(),
        );
        let humped: Vec<Hir> = words
            .iter()
            .filter(|w| w.as_bytes().first().is_some_and(u8::is_ascii_alphabetic))
            .map(|w| {
                let b = w.as_bytes();
                let mut parts = vec![Hir::literal([b[0].to_ascii_uppercase()])];
                parts.extend(b[1..].iter().copied().map(any_case_byte));
                Hir::concat(parts)
            })
            .collect();
        let plain = Hir::concat(vec![self.start.clone(), self.prefix.clone(), any_case]);
        if humped.is_empty() {
            return plain;
        }
        let humped = Hir::concat(vec![
            self.start.clone(),
            self.hump_prefix.clone(),
            Hir::alternation(humped),
        ]);
        Hir::alternation(vec![plain, humped])
    }
}

/// One byte of a word, either case when it is a letter.
fn any_case_byte(b: u8) -> Hir {
    if !b.is_ascii_alphabetic() {
        return Hir::literal([b]);
    }
    let (lo, up) = (b.to_ascii_lowercase(), b.to_ascii_uppercase());
    Hir::class(Class::Bytes(ClassBytes::new([
        ClassBytesRange::new(up, up),
        ClassBytesRange::new(lo, lo),
    ])))
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
        let (rule, _) = expand("t", spec(&["dropbox"], "[a-z0-9]{15}")).expect("expands");
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
        let (rule, _) = expand("t", spec(&["dropbox"], "[a-z0-9]{15}")).expect("expands");
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

    /// The tree put together from parts says what parsing the whole pattern says, for
    /// every built-in `near` rule: where windows open, how far a match reaches, which
    /// bytes it needs.
    #[test]
    fn the_tree_from_parts_is_the_parsed_pattern() {
        let specs = crate::rules::collect_specs(Vec::new(), &[]).expect("built-in rules");
        let mut seen = 0;
        for s in specs.into_iter().filter(|s| !s.spec.near.is_empty()) {
            let keywords = s.spec.near.clone();
            let (rule, tree) = expand(&s.origin, s.spec).expect("expands");
            let source = rule.regex.as_deref().expect("regex");
            let parts = super::super::pattern::analysed(source, tree.expect("tree"), &keywords);
            let whole = super::super::pattern::compile_lazy("t", &rule.id, source, &keywords)
                .expect("parses");
            let facts = |p: &super::super::pattern::Pattern| {
                format!(
                    "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
                    p.value_group,
                    p.reach,
                    p.implied_trigger,
                    p.required,
                    p.alphabet,
                    p.digit_lead,
                    p.bounded_value,
                    p.whole_len
                )
            };
            assert_eq!(facts(&parts), facts(&whole), "{}", rule.id);
            seen += 1;
        }
        assert!(seen > 300, "{seen} near rules");
    }

    #[test]
    fn a_near_rule_must_give_a_shape_without_its_own_value_group() {
        let err = expand("f.toml", spec(&["dropbox"], "(?P<value>[a-z]{4})")).unwrap_err();
        assert!(err.to_string().contains("shape alone"), "{err}");
        let err = expand("f.toml", spec(&["db"], "[a-z]{4}")).unwrap_err();
        assert!(err.to_string().contains("too short"), "{err}");
        let err = expand("f.toml", spec(&["dropbox"], "([a-z]{4}|[0-9]{8})")).unwrap_err();
        assert!(err.to_string().contains("(?:"), "{err}");
        assert!(expand("f.toml", spec(&["dropbox"], r"\([a-z]{4}\)")).is_ok());
    }
}
