//! What a keyword of a rule that finds an assigned value needs after it before its
//! window opens: the rest of a name and an operator, then room for the value. Checked
//! on the keyword, before any regex runs (see [`AssignedValue::can_follow`]).

use super::alphabet::{ByteSet, alphabet};
use super::near::{name_rest, operator};
use regex_syntax::hir::Hir;
use std::sync::OnceLock;

/// What a keyword needs after it before its window opens, for a rule that finds a value
/// assigned to a name (every `near` rule, and rules with `assignment = true`): only the
/// rest of a name, a word or two, quotes and blanks up to an operator, within `rest`
/// bytes; then, within `operator` bytes of it, a run of at least `min_len` bytes of the
/// value's alphabet. Prose naming a provider or a credential (`work together with`,
/// `the key idea`) has none, and costs no regex search: a check on the keyword, as
/// [`super::near::stands_as_name`] is.
#[derive(Debug, Clone, Copy)]
pub struct AssignedValue {
    alphabet: ByteSet,
    min_len: usize,
    rest: usize,
    operator: usize,
    /// Whether the provider's word may also stand a little before a bare credential
    /// name (see [`super::named_before`]): `near` rules only.
    named_before: bool,
}

/// What `assignment = true` promises of a rule's matches (see [`AssignedValue`]).
const DECLARED_REST: usize = 128;
const DECLARED_OPERATOR: usize = 32;

impl AssignedValue {
    /// A `near` rule's: its value is `shape`, the reaches are the shared pattern's.
    pub(super) fn near(shape: &Hir) -> AssignedValue {
        let r = reaches();
        AssignedValue {
            alphabet: alphabet(shape),
            min_len: shape.properties().minimum_len().unwrap_or(0),
            rest: r.rest,
            operator: r.operator,
            named_before: true,
        }
    }

    /// A rule's that declares `assignment = true`: its value is its `value` group.
    pub(super) fn declared(regex: &Hir) -> Option<AssignedValue> {
        let value = super::pattern::capture(regex, "value")?;
        Some(AssignedValue {
            alphabet: alphabet(value),
            min_len: value.properties().minimum_len().unwrap_or(0),
            rest: DECLARED_REST,
            operator: DECLARED_OPERATOR,
            named_before: false,
        })
    }

    /// Whether a match can have its name's keyword at `text[start..end]`.
    pub fn can_follow(&self, text: &[u8], start: usize, end: usize) -> bool {
        operator_after(text, end, self.rest).is_some_and(|op| self.value_after(text, op))
            || self.named_before
                && super::named_before::may_follow(text, end, &self.alphabet, self.min_len)
            // A log's `using api key …` names its value with no operator.
            || !self.named_before
                && super::named_before::after_using(text, start)
                && self.value_after(text, end)
            // A command-line option's argument: `--snyk-token …` (see `option_rest`).
            || self.named_before
                && in_option_name(text, start)
                && blanks_after_name(text, end, self.rest).is_some_and(|at| self.value_after(text, at))
    }

    /// Whether a value of this shape can start after the operator at `text[op]`.
    fn value_after(&self, text: &[u8], op: usize) -> bool {
        let latest = op + self.operator;
        let mut run_start = op;
        for (i, &b) in text.iter().enumerate().skip(op) {
            if run_start > latest {
                return false;
            }
            if !self.alphabet.contains(b) {
                run_start = i + 1;
            } else if i + 1 - run_start >= self.min_len {
                return true;
            }
        }
        self.min_len == 0 && run_start <= latest
    }
}

/// Where an operator follows `text[end]` after only name characters, quotes and
/// blanks, within `reach` bytes (`is` and `was` count: a rule may read prose's).
fn operator_after(text: &[u8], end: usize, reach: usize) -> Option<usize> {
    let tail = text.get(end..)?;
    for (i, &b) in tail.iter().enumerate().take(reach.saturating_add(1)) {
        match b {
            // `(`: a setter's or builder's argument (`setApiKey("…")`).
            b':' | b'?' | b'=' | b'>' | b',' | b'(' => return Some(end + i),
            // A fallback: `process.env.ACME_KEY || "…"`.
            b'|' if tail.get(i + 1) == Some(&b'|') => return Some(end + i + 1),
            // ` - ` between a name and its value (see [`operator`]), or a dash right
            // after the name (`Client Secret- …`, a declared rule's).
            b'-' if (i == 0 || matches!(tail[i - 1], b' ' | b'\t'))
                && matches!(tail.get(i + 1), Some(b' ' | b'\t')) =>
            {
                return Some(end + i);
            }
            // Prose's operator: `my api key is …`.
            b' ' if [&b"is "[..], b"was "]
                .iter()
                .any(|w| tail[i + 1..].starts_with(w)) =>
            {
                return Some(end + i + 1);
            }
            // Python's fallback after a call, `getenv("…") or "…"`; prose's `key or
            // token` is no operator.
            b' ' if i > 0 && tail[i - 1] == b')' && tail[i + 1..].starts_with(b"or ") => {
                return Some(end + i + 1);
            }
            b'_' | b'.' | b'-' | b' ' | b'\t' | b'\\' | b'"' | b'\'' | b'`' | b']' | b')' => {}
            b if b.is_ascii_alphanumeric() => {}
            _ => return None,
        }
    }
    None
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')
}

/// Whether the word at `text[start]` is part of a command-line option's name: the
/// argument it stands in starts with a dash, at the text's start or after a blank or
/// a quote (`--x-snyk-token`, `-storagekey`; not `non-snyk`).
fn in_option_name(text: &[u8], start: usize) -> bool {
    let before = &text[..start];
    let from = before
        .iter()
        .rposition(|&b| !is_name_byte(b))
        .map_or(0, |i| i + 1);
    before.get(from) == Some(&b'-')
        && (from == 0
            || matches!(
                text[from - 1],
                b' ' | b'\t' | b'\n' | b'\r' | b'"' | b'\'' | b'`'
            ))
}

/// Where an option's argument may start: after the rest of its name (at most `reach`
/// bytes) and one to four blanks.
fn blanks_after_name(text: &[u8], end: usize, reach: usize) -> Option<usize> {
    let tail = text.get(end..)?;
    let name = tail.iter().take_while(|&&b| is_name_byte(b)).count();
    if name > reach {
        return None;
    }
    let blanks = tail[name..]
        .iter()
        .take_while(|&&b| matches!(b, b' ' | b'\t'))
        .count();
    (1..=4).contains(&blanks).then_some(end + name + blanks)
}

/// The most bytes [`name_rest`] and [`operator`] can match.
struct Reaches {
    rest: usize,
    operator: usize,
}

fn reaches() -> &'static Reaches {
    static REACHES: OnceLock<Reaches> = OnceLock::new();
    REACHES.get_or_init(|| {
        // Unknown only if a shared part lost its bounds: then never refuse.
        let most = |source: &str| {
            super::pattern::parse(source)
                .ok()
                .and_then(|h| h.properties().maximum_len())
                .unwrap_or(usize::MAX / 4)
        };
        Reaches {
            rest: most(name_rest()),
            operator: most(&operator()),
        }
    })
}
