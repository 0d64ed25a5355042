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
//!   `>`, the `,` between a name and a value passed as arguments, a dash between
//!   blanks (`dropbox token - …`, as notes and lists write it), or the blank after a
//!   command-line option's name (`--dropbox-token …`).
//!
//! In a JSON record the name is a member's key: the words are also the rule's member
//! names, so `{"dropbox_token": "…"}` is read as `dropbox_token=…`.

pub use super::assigned::AssignedValue;
use super::pattern::LazyTree;
use crate::error::{Error, Result};
use crate::rules::RuleSpec;
use regex_syntax::hir::{Capture, Class, ClassBytes, ClassBytesRange, Hir};
use std::sync::OnceLock;

/// A quote as written, or escaped inside a quoted string.
const QUOTE: &str = r#"(?:\\?["'`])?"#;

/// Rewrites a `near` rule into a plain one: its regex wrapped, its words added to its
/// keywords and (unless it names its own) its member names, with the wrapped regex's
/// syntax tree. Other rules pass through, with no tree.
pub(super) fn expand(
    origin: &str,
    mut spec: RuleSpec,
) -> Result<(RuleSpec, Option<(LazyTree, AssignedValue)>)> {
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
    let shape_tree = super::pattern::parse(&shape).map_err(|e| bad(&format!("bad regex: {e}")))?;
    let value = AssignedValue::near(&shape_tree);
    let shared = shared().map_err(|e| bad(&format!("bad regex: {e}")))?;
    spec.regex = Some(pattern(&spec.near, &shape));
    // A word written with `_` is looked for joined up (`codaKey` for `coda_key`) and in
    // kebab case (`--coda-key`, `x-coda-key`) too; dotted (`coda.key`) it is matched
    // only where another of the rule's words opens the window. Not a word that only
    // ends in `_` (`lob_`), nor one short once joined (`ldsdk`): prose holds those
    // everywhere (`global`, `tornado`), and every hit is a check.
    let spelled: Vec<String> = spec
        .near
        .iter()
        .filter(|w| {
            let w = w.trim_matches('_');
            w.contains('_') && w.len() - w.matches('_').count() >= MIN_JOINED
        })
        .flat_map(|w| [w.replace('_', ""), w.replace('_', "-")])
        .collect();
    for w in spec.near.clone().into_iter().chain(spelled) {
        if !spec.keywords.iter().any(|k| k.eq_ignore_ascii_case(&w)) {
            spec.keywords.push(w);
        }
    }
    if spec.member_names.is_empty() {
        spec.member_names = spec.near.clone();
    }
    let (words, keywords) = (spec.near.clone(), spec.keywords.clone());
    let tree: LazyTree = Box::new(move || {
        (
            syntax_tree(shared, &words, shape_tree.clone()),
            keywords.clone(),
        )
    });
    Ok((spec, Some((tree, value))))
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
        Some(b'D') if start >= 2 && text[start - 2] == b'-' => {
            start == 2 || matches!(text[start - 3], b' ' | b'\t')
        }
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

/// The shared pattern: name, up to two more words, operator, value, end of value; or
/// name, a little text, a bare credential name, operator, value (see
/// [`super::named_before`]).
///
/// A name counts only where a word of its naming style starts and ends: after a
/// separator or at the start (`x_okta_key`), or at a camel-case hump (`myOktaKey`,
/// written capitalised); and before a separator, a capital, a digit, a quote or one of
/// [`RUN_ON`]. So `rookTable` and `SetSysctl` hold no `okta` or `etsy`.
fn pattern(words: &[String], shape: &str) -> String {
    format!(
        "(?:{}{}|{OPTION_START}{PREFIX}(?i:{}){})(?P<value>{shape}){END}",
        name(words),
        after_name(),
        any_case(words),
        option_rest()
    )
}

/// A command-line option's dashes, at the start of an argument.
const OPTION_START: &str = r#"(?:^|[\s"'`])--?"#;

/// From the provider's word in an option's name to its argument: the rest of the
/// name, then blanks (`--snyk-token …`, `-storagekey …`). Only after an option's dashes
/// is a blank the operator: in prose it is not (`the snyk project 3f1e…`).
pub(super) fn option_rest() -> &'static str {
    static REST: OnceLock<String> = OnceLock::new();
    REST.get_or_init(|| {
        format!(
            r"(?:(?:[A-Z0-9_.-]|(?i:{run_on}))[A-Za-z0-9_.-]{{0,32}}?)?[ \t]{{1,4}}{q}",
            run_on = RUN_ON.join("|"),
            q = QUOTE,
        )
    })
}

/// The provider's name in any of its styles.
fn name(words: &[String]) -> String {
    let any_case = any_case(words);
    let humped = words
        .iter()
        .filter_map(|w| {
            let mut chars = w.chars();
            let first = chars.next().filter(char::is_ascii_alphabetic)?;
            Some(format!(
                "{}(?i:{})",
                first.to_ascii_uppercase(),
                written(chars.as_str())
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

/// The provider's words as alternatives, each `_` any separator or none.
fn any_case(words: &[String]) -> String {
    words
        .iter()
        .map(|w| written(w))
        .collect::<Vec<_>>()
        .join("|")
}

/// A word as a pattern: its `_` stands for any separator or none (`coda_key`,
/// `coda-key`, `codaKey`).
fn written(w: &str) -> String {
    w.split('_')
        .map(regex::escape)
        .collect::<Vec<_>>()
        .join(SEPARATOR)
}

/// A word shorter than this once its `_` is dropped is not looked for joined up.
const MIN_JOINED: usize = 6;

/// What a `_` inside a provider's word matches: a name's separator in any style, or
/// none (a camel-case hump is matched case-blind).
const SEPARATOR: &str = "[_.-]?";

/// Where a name may start: the start of the text or a byte that is no letter or digit.
/// A JVM system property on a command line (`-Dsonar.login=…`) starts after its `-D`.
const START: &str = r"(?:^|[^A-Za-z0-9]|(?:^|[ \t])-D)";
/// Words of the name before the provider's, ending in a separator (`x_`, `my.`).
const PREFIX: &str = r"(?:[A-Za-z0-9_.-]{0,24}?[_.-])?";
/// Words of the name before the provider's capitalised one (`my` of `myOktaKey`).
const HUMP_PREFIX: &str = r"[A-Za-z0-9_.-]{0,23}?[a-z0-9]";

/// Everything between the name and the value, the same for every rule.
fn after_name() -> &'static str {
    static AFTER: OnceLock<String> = OnceLock::new();
    AFTER.get_or_init(|| {
        format!(
            "(?:{}{}|{})",
            name_rest(),
            operator(),
            super::named_before::pattern(&operator(), QUOTE, &RUN_ON.join("|"))
        )
    })
}

/// From the provider's word to the operator: the rest of the name, a word or two,
/// a quote (and a subscript's `]`) and blanks.
pub(super) fn name_rest() -> &'static str {
    static REST: OnceLock<String> = OnceLock::new();
    REST.get_or_init(|| {
        format!(
            concat!(
                // The rest of the name, which must not run on as a longer lower-case word.
                r"(?:(?:[A-Z0-9_.-]|(?i:{run_on}))[A-Za-z0-9_.-]{{0,32}}?)?",
                // A word or two more, as in a log line's `Using dropbox KEY=…`.
                r"(?:[ \t]{{1,4}}[A-Za-z0-9_.-]{{1,24}}){{0,2}}?",
                // The quote closing a subscript's key, and its bracket
                // (`settings["dropbox"] = …`, `assert.equal(x['AccountKey'], …)`).
                "{q}\\]?[ \\t]{{0,8}}",
            ),
            run_on = RUN_ON.join("|"),
            q = QUOTE,
        )
    })
}

/// Any assignment operator, and the blanks and quote before the value.
pub(super) fn operator() -> String {
    // ` - `, a dash between blanks: how notes and lists pair a name with its value
    // (`Datadog API key - 5f3e…`); a dash inside a name (`x-dropbox-key`) is no
    // operator. A fallback's `||` and `??` give the value a setting has when unset
    // (`process.env.ACME_KEY || "…"`).
    format!(r"(?::{{1,3}}=|\?=|=>|->|\|\||\?\?|[:=>,]|[ \t]-[ \t])[ \t]{{0,8}}{QUOTE}")
}

/// Where the value ends.
const END: &str = r"(?:[^A-Za-z0-9_-]|$)";

/// The syntax tree of [`pattern`]`(words, shape)`, put together from parsed parts: the
/// parts every rule shares are parsed once, so three hundred rules cost three hundred
/// small trees rather than three hundred parses of the whole pattern.
fn syntax_tree(shared: &Shared, words: &[String], shape: Hir) -> Hir {
    let value = Hir::capture(Capture {
        index: 1,
        name: Some("value".into()),
        sub: Box::new(shape),
    });
    let option = Hir::concat(vec![
        shared.option_start.clone(),
        shared.prefix.clone(),
        any_case_words(words),
        shared.option_rest.clone(),
    ]);
    Hir::concat(vec![
        Hir::alternation(vec![
            Hir::concat(vec![shared.name(words), shared.after.clone()]),
            option,
        ]),
        value,
        shared.end.clone(),
    ])
}

/// The shared parts, parsed on first use.
fn shared() -> std::result::Result<&'static Shared, String> {
    SHARED
        .get_or_init(Shared::parse)
        .as_ref()
        .map_err(Clone::clone)
}

static SHARED: OnceLock<std::result::Result<Shared, String>> = OnceLock::new();

/// The parsed parts of [`pattern`] that hold no provider word.
struct Shared {
    start: Hir,
    prefix: Hir,
    hump_prefix: Hir,
    after: Hir,
    option_start: Hir,
    option_rest: Hir,
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
            option_start: parse(OPTION_START)?,
            option_rest: parse(option_rest())?,
            end: parse(END)?,
        })
    }

    /// [`name`]'s tree, built rather than parsed: a provider's words are literals,
    /// matched ASCII case-insensitively, or with the first letter a capital.
    fn name(&self, words: &[String]) -> Hir {
        let any_case = any_case_words(words);
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

/// [`any_case`]'s tree: the words as alternatives, letters in either case.
fn any_case_words(words: &[String]) -> Hir {
    Hir::alternation(
        words
            .iter()
            .map(|w| Hir::concat(w.bytes().map(any_case_byte).collect()))
            .collect(),
    )
}

/// One byte of a word, either case when it is a letter; `_`, [`SEPARATOR`].
fn any_case_byte(b: u8) -> Hir {
    if b == b'_' {
        let class = ClassBytes::new([
            ClassBytesRange::new(b'-', b'.'),
            ClassBytesRange::new(b'_', b'_'),
        ]);
        return Hir::repetition(regex_syntax::hir::Repetition {
            min: 0,
            max: Some(1),
            greedy: true,
            sub: Box::new(Hir::class(Class::Bytes(class))),
        });
    }
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
#[path = "near_tests.rs"]
mod tests;
