//! A rule's regex, compiled once, and what its syntax tree says about where a match can
//! be: how long it can be, whether it can run across a line, and (for rules without
//! keywords) which byte every match must contain. Detection uses these facts to run
//! the regex only in small windows around the places a match could be.

use super::alphabet::{ByteSet, alphabet};
pub use super::required::Required;
use crate::error::{Error, Result};
use regex_automata::meta::{self, Regex};
use regex_automata::util::syntax;
use regex_syntax::hir::{Class, Hir, HirKind};
use std::sync::OnceLock;

/// Compiled program size cap per regex: generous for real rules, fatal for `(a{1000}){1000}`.
pub const REGEX_SIZE_LIMIT: usize = 4 << 20;
/// Most a lazy DFA cache grows to, per regex and thread.
const HYBRID_CACHE: usize = 512 << 10;

/// How far a match of an unbounded rule (`[^\s]+`) is looked for on each side of the
/// keyword that let it run. A longer match is still reported, cut at this distance.
pub const UNBOUNDED_REACH: usize = 64 << 10;

/// Bytes that, when a keyword-less rule's every match must hold one, make a cheap
/// trigger: searched with `memchr`, rarest first.
pub(super) const TRIGGER_BYTES: &[u8] = b"@\\~+:=/%";

/// Where a rule can match, relative to a keyword (or trigger) it contains.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reach {
    /// Longest possible match in bytes; `None` when unbounded.
    pub max_len: Option<usize>,
    /// No match holds a newline except as its first or last byte (a consumed boundary
    /// such as `(?:^|[^\w])`): the line around a keyword holds every match through it.
    pub single_line: bool,
}

impl Reach {
    pub fn span(&self) -> usize {
        self.max_len.unwrap_or(UNBOUNDED_REACH).min(UNBOUNDED_REACH)
    }
}

/// What lets a rule run on a piece of text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// One of the rule's keywords, found inside the match.
    Keywords,
    /// An ASCII digit: every match holds one.
    Digit,
    /// This byte: every match holds it.
    Byte(u8),
    /// Nothing narrower is known: the rule runs over all text.
    Always,
}

pub struct Pattern {
    /// Built on first use for a built-in rule (see [`compile_lazy`]).
    built: OnceLock<Regex>,
    /// The gate (see [`Pattern::gate`]), when the regex has wide gaps: worked out on
    /// first use, like the regex.
    gate: OnceLock<Option<Regex>>,
    pub source: String,
    /// What the syntax tree says: known at load, or worked out on first use.
    analysis: Analysis,
}

/// A pattern's facts, worked out when it was made or put off until first asked for.
enum Analysis {
    Known(Facts),
    /// The tree is built, and the facts worked out, the first time they are asked for.
    Deferred {
        facts: OnceLock<Facts>,
        tree: LazyTree,
    },
}

/// Builds a syntax tree on demand (see [`Pattern::deferred`]).
pub(super) type LazyTree = Box<dyn Fn() -> (Hir, Vec<String>) + Send + Sync>;

/// What a pattern's syntax tree says about where its matches can be.
#[derive(Debug)]
pub struct Facts {
    pub value_group: Option<usize>,
    /// The most bytes the `value` group can hold (`None`: no group, or no bound).
    pub value_max: Option<usize>,
    pub reach: Reach,
    /// The trigger the pattern alone implies; a rule with keywords uses those instead.
    pub implied_trigger: Trigger,
    /// Rare bytes of which every match holds at least one (`[:=]` in a key/value
    /// rule): a keyword's window without any of them cannot hold a match.
    pub required: Option<Required>,
    /// Every byte a match can hold (see [`super::alphabet`]).
    pub alphabet: ByteSet,
    /// For each trigger byte (one-byte keyword or implied trigger) after which every
    /// match holds one of a few bytes: those bytes (see [`super::follow`]).
    pub follow: Vec<(u8, ByteSet)>,
    /// Bytes between a leading word boundary and the first digit (see [`super::lead`]).
    pub digit_lead: Option<usize>,
    /// When the value is flanked by word boundaries (see [`super::lead::bounded_value`]):
    /// its least and greatest length.
    pub bounded_value: Option<(usize, Option<usize>)>,
    /// For a regex anchored at both ends (`^…$`, as field rules are written): the least
    /// and greatest length of what it matches, so a value outside them is never searched.
    pub whole_len: Option<(usize, Option<usize>)>,
    /// Whether the regex has wide gaps, and so a gate (see [`Pattern::gate`]).
    pub gapped: bool,
}

impl Facts {
    /// Whether an occurrence of trigger byte `byte` followed by `next` can lie in a
    /// match through it (see [`super::follow`]).
    pub fn wakes_at(&self, byte: u8, next: Option<u8>) -> bool {
        match self.follow.iter().find(|(b, _)| *b == byte) {
            Some((_, set)) => next.is_some_and(|n| set.contains(n)),
            None => true,
        }
    }
}

/// Rules triggered by digits, searched together: PII numbers, IPs and phone numbers
/// share their trigger, and digits are everywhere in data (ids, counters, digests). One
/// multi-pattern pass over a range around a digit run says which of them match there;
/// each rule's own regex then runs only in those ranges.
pub struct DigitGroup {
    pub rules: Vec<usize>,
    /// Leftmost-first: finds the next place any member matches (when `lead` is `None`).
    pub any: Regex,
    /// Every-match semantics: says which members match near that place.
    pub which: Regex,
    /// Covers every member: the longest reach, single-line only if all are.
    pub reach: Reach,
    /// The largest member's [`Pattern::digit_lead`]; `None` if any member has none.
    pub lead: Option<usize>,
    /// Says which runs no match can start around (see [`super::digit_start`]).
    pub starts: Option<super::digit_start::StartFilter>,
}

impl DigitGroup {
    pub fn new(members: &[(usize, &Pattern)]) -> Result<Option<DigitGroup>> {
        if members.is_empty() {
            return Ok(None);
        }
        let sources: Vec<&str> = members.iter().map(|(_, p)| p.source.as_str()).collect();
        let bad = |e: meta::BuildError| Error::rules("digit-triggered rules", e.to_string());
        let any = builder().build_many(&sources).map_err(bad)?;
        let which = builder()
            .configure(meta::Config::new().match_kind(regex_automata::MatchKind::All))
            .build_many(&sources)
            .map_err(bad)?;
        let reach = Reach {
            max_len: members
                .iter()
                .try_fold(0, |n, (_, p)| p.facts().reach.max_len.map(|m| n.max(m))),
            single_line: members.iter().all(|(_, p)| p.facts().reach.single_line),
        };
        let lead = members
            .iter()
            .try_fold(0, |k, (_, p)| p.facts().digit_lead.map(|l| k.max(l)));
        Ok(Some(DigitGroup {
            rules: members.iter().map(|(i, _)| *i).collect(),
            any,
            which,
            reach,
            starts: lead.and_then(|k| super::digit_start::StartFilter::new(&sources, k)),
            lead,
        }))
    }
}

impl Pattern {
    /// A pattern whose tree is built, and its facts worked out, the first time a
    /// window asks for them: three hundred `near` rules share most of one long
    /// pattern, and analysing each at load was most of a hook's start-up while a
    /// given commit wakes few of them.
    pub(super) fn deferred(source: String, tree: LazyTree) -> Pattern {
        Pattern {
            built: OnceLock::new(),
            gate: OnceLock::new(),
            source,
            analysis: Analysis::Deferred {
                facts: OnceLock::new(),
                tree,
            },
        }
    }

    pub fn facts(&self) -> &Facts {
        match &self.analysis {
            Analysis::Known(facts) => facts,
            Analysis::Deferred { facts, tree } => facts.get_or_init(|| {
                let (hir, keywords) = tree();
                facts_of(&hir, &keywords)
            }),
        }
    }

    /// Whether the facts wait for first use (see [`Pattern::deferred`]).
    pub fn is_deferred(&self) -> bool {
        matches!(&self.analysis, Analysis::Deferred { facts, .. } if facts.get().is_none())
    }

    /// The regex as written: every match any search reports comes from it. A gated
    /// rule's is built only when its gate first lets a window through.
    pub fn regex(&self) -> &Regex {
        self.built.get_or_init(|| {
            build(&self.source).unwrap_or_else(|e| {
                // Only a built-in regex is built here, and a test builds each one.
                tracing::error!(pattern = %self.source, error = %e, "a built-in regex does not build");
                Regex::new_many::<&str>(&[]).unwrap_or_else(|_| unreachable!("no patterns"))
            })
        })
    }

    /// The same regex with its wide gaps open (see [`super::gaps`]), when it has any:
    /// a window it does not match cannot hold a match of [`Pattern::regex`].
    pub fn gate(&self) -> Option<&Regex> {
        if !self.facts().gapped {
            return None;
        }
        self.gate
            .get_or_init(|| {
                let hir = parse(&self.source).ok()?;
                super::gaps::gate(hir, builder).unwrap_or_else(|e| {
                    // Opening gaps only shrinks a regex that builds; a test builds each.
                    tracing::error!(pattern = %self.source, error = %e, "a gate does not build");
                    None
                })
            })
            .as_ref()
    }
}

/// The capture group called `name`: its syntax tree.
pub(super) fn capture<'h>(hir: &'h Hir, name: &str) -> Option<&'h Hir> {
    match hir.kind() {
        HirKind::Capture(c) if c.name.as_deref() == Some(name) => Some(&c.sub),
        HirKind::Capture(c) => capture(&c.sub, name),
        HirKind::Repetition(r) => capture(&r.sub, name),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => {
            subs.iter().find_map(|h| capture(h, name))
        }
        _ => None,
    }
}

/// The index of the capture group called `name`, as the built regex numbers it (the
/// syntax tree's numbering: left to right by opening parenthesis, the whole match 0).
fn capture_index(hir: &Hir, name: &str) -> Option<usize> {
    match hir.kind() {
        HirKind::Capture(c) if c.name.as_deref() == Some(name) => Some(c.index as usize),
        HirKind::Capture(c) => capture_index(&c.sub, name),
        HirKind::Repetition(r) => capture_index(&r.sub, name),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => {
            subs.iter().find_map(|h| capture_index(h, name))
        }
        _ => None,
    }
}

fn builder() -> meta::Builder {
    let mut b = Regex::builder();
    b.syntax(syntax::Config::new().unicode(false).utf8(false))
        .configure(
            meta::Config::new()
                .utf8_empty(false)
                .nfa_size_limit(Some(REGEX_SIZE_LIMIT))
                .onepass_size_limit(Some(REGEX_SIZE_LIMIT))
                .dfa_size_limit(Some(REGEX_SIZE_LIMIT))
                .hybrid_cache_capacity(HYBRID_CACHE),
        );
    b
}

/// Patterns are byte-oriented (`unicode(false)`): `\w`, `\d`, `\s` and `(?i)` mean
/// their ASCII forms. Every built-in rule is ASCII by nature (keys, tokens, paths), and
/// Unicode classes made compiling the rule set five times slower (34 ms → 7 ms), which
/// a git hook pays on every commit. A rule that needs Unicode says so with `(?u:...)`.
///
/// `keywords` are the rule's: a one-byte keyword is where the rule runs, so it makes no
/// gate (see [`Pattern::required`]).
pub fn compile(origin: &str, id: &str, source: &str, keywords: &[String]) -> Result<Pattern> {
    let pattern = compile_lazy(origin, id, source, keywords)?;
    let regex =
        build(source).map_err(|e| Error::rules(origin, format!("rule `{id}`: bad regex: {e}")))?;
    // Just made: the cell is empty, and `set` cannot fail.
    let _ = pattern.built.set(regex);
    Ok(pattern)
}

/// A rule's regex as written.
fn build(source: &str) -> std::result::Result<Regex, String> {
    builder()
        .build_from_hir(&parse(source)?)
        .map_err(|e| e.to_string())
}

/// A rule's regex as a syntax tree, parsed as the regex engine reads it (see
/// [`compile`]: bytes, ASCII classes).
pub(super) fn parse(source: &str) -> std::result::Result<Hir, String> {
    regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
        .parse(source)
        .map_err(|e| e.to_string())
}

/// [`compile`] without building the regex: it is built the first time a window asks
/// for it. For the built-in rules, whose regexes a test builds: most of them never see
/// their keyword in a given commit or folder, and building three hundred regexes was
/// most of a hook's start-up.
pub fn compile_lazy(origin: &str, id: &str, source: &str, keywords: &[String]) -> Result<Pattern> {
    let bad = |e: String| Error::rules(origin, format!("rule `{id}`: bad regex: {e}"));
    let hir = parse(source).map_err(bad)?;
    Ok(analysed(source, hir, keywords))
}

/// [`compile_lazy`] with the parse itself put off until a window asks for the
/// pattern's facts: for a built-in rule with keywords, whose regex a test parses and
/// builds, and which a given commit or folder seldom wakes.
pub(super) fn deferred_parse(origin: &str, id: &str, source: &str, keywords: &[String]) -> Pattern {
    let (origin, id, text, keywords) = (
        origin.to_string(),
        id.to_string(),
        source.to_string(),
        keywords.to_vec(),
    );
    Pattern::deferred(
        source.to_string(),
        Box::new(move || {
            let hir = parse(&text).unwrap_or_else(|e| {
                // A test parses every built-in regex: this is not met in a release.
                tracing::error!(%origin, rule = %id, error = %e, "a built-in regex does not parse");
                Hir::fail()
            });
            (hir, keywords.clone())
        }),
    )
}

/// [`compile_lazy`] given the syntax tree of `source`, put together by the caller (a
/// `near` rule's shared parts are parsed once, not once per rule).
pub(super) fn analysed(source: &str, hir: Hir, keywords: &[String]) -> Pattern {
    Pattern {
        built: OnceLock::new(),
        gate: OnceLock::new(),
        source: source.to_string(),
        analysis: Analysis::Known(facts_of(&hir, keywords)),
    }
}

fn facts_of(hir: &Hir, keywords: &[String]) -> Facts {
    Facts {
        value_group: capture_index(hir, "value"),
        value_max: capture(hir, "value").and_then(|v| v.properties().maximum_len()),
        reach: Reach {
            max_len: hir.properties().maximum_len(),
            single_line: single_line(hir),
        },
        implied_trigger: implied_trigger(hir),
        required: super::required::required_bytes(hir, &trigger_bytes(hir, keywords)),
        alphabet: alphabet(hir),
        follow: trigger_bytes(hir, keywords)
            .into_iter()
            .filter(|b| !b.is_ascii_alphanumeric())
            .filter_map(|b| super::follow::follow_set(hir, b).map(|set| (b, set)))
            .collect(),
        digit_lead: super::lead::digit_lead(hir),
        bounded_value: super::lead::bounded_value(hir),
        whole_len: whole_len(hir),
        gapped: super::gaps::has_gap(hir),
    }
}

/// The bytes whose occurrences open the rule's windows: its one-byte keywords, or
/// (with no keyword) its implied trigger byte.
fn whole_len(hir: &Hir) -> Option<(usize, Option<usize>)> {
    use regex_syntax::hir::Look;
    let p = hir.properties();
    let anchored = |set: regex_syntax::hir::LookSet| set.contains(Look::Start);
    (anchored(p.look_set_prefix()) && p.look_set_suffix().contains(Look::End))
        .then(|| (p.minimum_len().unwrap_or(0), p.maximum_len()))
}

fn trigger_bytes(hir: &Hir, keywords: &[String]) -> Vec<u8> {
    let mut bytes: Vec<u8> = keywords
        .iter()
        .filter_map(|k| match k.as_bytes() {
            [b] => Some(*b),
            _ => None,
        })
        .collect();
    if keywords.is_empty()
        && let Trigger::Byte(b) = implied_trigger(hir)
    {
        bytes.push(b);
    }
    bytes
}

fn implied_trigger(hir: &Hir) -> Trigger {
    if must_contain(hir, &|b| b.is_ascii_digit()) {
        return Trigger::Digit;
    }
    TRIGGER_BYTES
        .iter()
        .find(|&&t| must_contain(hir, &|b| b == t))
        .map_or(Trigger::Always, |&t| Trigger::Byte(t))
}

/// Every match of `hir` holds at least one byte for which `wanted` is true.
pub(super) fn must_contain(hir: &Hir, wanted: &dyn Fn(u8) -> bool) -> bool {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => false,
        HirKind::Literal(lit) => lit.0.iter().any(|&b| wanted(b)),
        HirKind::Class(class) => class_within(class, wanted),
        HirKind::Repetition(rep) => rep.min >= 1 && must_contain(&rep.sub, wanted),
        HirKind::Capture(cap) => must_contain(&cap.sub, wanted),
        HirKind::Concat(parts) => parts.iter().any(|p| must_contain(p, wanted)),
        HirKind::Alternation(alts) => alts.iter().all(|a| must_contain(a, wanted)),
    }
}

/// Every byte (or character) the class matches satisfies `wanted`.
pub(super) fn class_within(class: &Class, wanted: &dyn Fn(u8) -> bool) -> bool {
    match class {
        Class::Bytes(c) => c.ranges().iter().all(|r| (r.start()..=r.end()).all(wanted)),
        Class::Unicode(c) => c.ranges().iter().all(|r| {
            u8::try_from(u32::from(r.end())).is_ok_and(|end| {
                let start = u32::from(r.start()) as u8;
                (start..=end).all(wanted)
            })
        }),
    }
}

fn single_line(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Capture(cap) => single_line(&cap.sub),
        HirKind::Concat(parts) if parts.len() >= 2 => {
            let last = parts.len() - 1;
            parts.iter().enumerate().all(|(i, p)| {
                let at_edge = i == 0 || i == last;
                !can_match_newline(p)
                    || (at_edge && p.properties().maximum_len().is_some_and(|n| n <= 1))
            })
        }
        _ => !can_match_newline(hir),
    }
}

fn can_match_newline(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => false,
        HirKind::Literal(lit) => lit.0.contains(&b'\n'),
        HirKind::Class(Class::Bytes(c)) => c
            .ranges()
            .iter()
            .any(|r| r.start() <= b'\n' && b'\n' <= r.end()),
        HirKind::Class(Class::Unicode(c)) => c
            .ranges()
            .iter()
            .any(|r| r.start() <= '\n' && '\n' <= r.end()),
        HirKind::Repetition(rep) => rep.max != Some(0) && can_match_newline(&rep.sub),
        HirKind::Capture(cap) => can_match_newline(&cap.sub),
        HirKind::Concat(parts) | HirKind::Alternation(parts) => parts.iter().any(can_match_newline),
    }
}

#[cfg(test)]
#[path = "pattern_tests.rs"]
mod tests;
