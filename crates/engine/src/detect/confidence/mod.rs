//! How sure a finding is: one model for every category, built from reasons that carry
//! over to data nobody has labelled, each tested on its own and named in the finding's
//! `why`.
//!
//! - *The value's own rules*: a phone number its numbering plan cannot hold, a card
//!   number an issuer publishes for tests, a private-range address, a path with no
//!   user in it ([`numbers`], [`network`], [`paths`]).
//! - *Who wrote the string*: a model's answer invents contacts; a person's question and
//!   a machine's output carry real ones; a task's own definition defines them
//!   ([`role`]).
//! - *What the data defines for itself*: a user that the same data creates with
//!   `useradd` or `mkdir /home/<name>` is the task's, not a person's ([`defined`]).
//! - *Context*: "e.g." or "such as" before a value, a literal handed to a function in
//!   code, a list whose neighbours are example addresses ([`context`]).
//!
//! The shared placeholder vocabulary is kept for true conventions only (`/home/user`,
//! `jovyan`); this machine's own accounts, host and git user raise a finding to high.

mod context;
pub mod defined;
mod network;
mod numbers;
mod paths;
pub mod role;
mod secrets;

pub use super::vocabulary::{Knowledge, Vocabulary};
pub use paths::user_of;
pub use role::Role;

use crate::finding::{Category, Confidence, Reason, Why};

/// A match and what surrounds it in its segment.
pub struct Context<'a> {
    pub rule_id: &'a str,
    pub category: Category,
    pub value: &'a str,
    pub before: &'a [u8],
    pub after: &'a [u8],
    /// The JSON key the value sits under, when there is one.
    pub key: Option<&'a str>,
    /// Who wrote the string the value sits in.
    pub role: Role,
    /// The rule names a provider: the value has that provider's shape.
    pub provider: bool,
}

/// How sure, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Assessment {
    pub confidence: Confidence,
    pub why: Why,
}

impl Assessment {
    pub fn low(r: Reason) -> Assessment {
        Assessment {
            confidence: Confidence::Low,
            why: Why::default().with(r),
        }
    }

    pub fn medium() -> Assessment {
        Assessment {
            confidence: Confidence::Medium,
            why: Why::default(),
        }
    }

    pub fn high() -> Assessment {
        Assessment {
            confidence: Confidence::High,
            why: Why::default(),
        }
    }

    pub fn because(mut self, r: Reason) -> Assessment {
        self.why.add(r);
        self
    }
}

/// Where else in its record a value stands (its own string aside).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Elsewhere {
    /// In text no model wrote: a model repeating it echoes the record.
    pub not_model: bool,
    /// In the task's own definition (its ground truth, its set-up): the question was
    /// written around a value the task made up.
    pub task: bool,
}

/// Facts about the record that cost a search, asked for only when a signal needs them.
pub trait Record {
    fn elsewhere(&mut self) -> Elsewhere;
    /// The record's other contact details are fiction by convention (a 555 number,
    /// an `example.com` address, `123 Main St, Anytown`).
    fn fiction_nearby(&mut self) -> bool;
    /// The data creates this user for itself (see [`defined`]).
    fn defines_user(&mut self, user: &str) -> bool;
}

/// A record that knows nothing more: for judging a value on its own.
pub struct Alone;

impl Record for Alone {
    fn elsewhere(&mut self) -> Elsewhere {
        Elsewhere::default()
    }
    fn fiction_nearby(&mut self) -> bool {
        false
    }
    fn defines_user(&mut self, _: &str) -> bool {
        false
    }
}

pub fn assess(cx: &Context<'_>, k: &Knowledge, record: &mut dyn Record) -> Assessment {
    // A key whose text goes on in filler (`xoxp-1234-…-####…`, `sk_live_****`) is the
    // shape of one with its secret part blanked: a stand-in, whatever its provider.
    if cx.category == Category::Secret
        && (filler_follows(cx.after, cx.provider) || (!cx.provider && cut_short(cx.value)))
    {
        return Assessment::low(Reason::Placeholder);
    }
    let base = match cx.category {
        Category::LocalPath => {
            // A path a model writes may echo the user's own (a truth no echo search
            // across files can see), so only a task's own scripts lower a path.
            let a = paths::path(cx, k, record);
            return match (a.confidence, cx.role) {
                (Confidence::Medium, Role::Task) => Assessment::low(Reason::DefinedByTask),
                _ => a,
            };
        }
        Category::Email => network::email(cx, k),
        Category::Pii => numbers::number(cx, &k.vocabulary.test_cards),
        Category::IpAddress => network::ip(cx),
        Category::Hostname => network::host(cx, k),
        Category::Secret if !cx.provider => secrets::credential(cx),
        Category::Capture => network::capture(cx),
        // Secrets with a provider's shape, denylisted terms, format and provenance
        // checks: as sure as the rule is.
        _ => return Assessment::high(),
    };
    if base.confidence == Confidence::Low || base.why.has(Reason::ThisMachine) {
        return base;
    }
    who_and_where(cx, base, record)
}

/// A value whose own alphabet took in the ellipsis that cut it short for display
/// (`ops_eyJzaW...`, `AKIA..`): a prefix, not a credential that works.
fn cut_short(value: &str) -> bool {
    value.ends_with("...") || value.ends_with("..") || value.ends_with('…')
}

/// Four or more blanking characters right after a value (`#`, `*`, `•`), eight `x`, or
/// an ellipsis (`…`, `...`, `..[`): random key material never goes on so.
fn filler_follows(after: &[u8], provider: bool) -> bool {
    let text = String::from_utf8_lossy(&after[..after.len().min(32)]);
    let mut chars = text.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    let run = 1 + chars.clone().take_while(|&c| c == first).count();
    match first {
        // Cut short for display (`ops_eyJzaW…`, `sk-…...`, `..[Redacted]`): what is
        // left is a prefix, not a credential that works.
        // A provider's key has its whole length whatever follows (`ghp_…36…...`).
        '…' => !provider,
        '.' => !provider && (run >= 3 || (run == 2 && chars.nth(1) == Some('['))),
        '#' | '*' | '•' | '●' => run >= 4,
        'x' | 'X' => run >= 8,
        _ => false,
    }
}

/// The signals every made-up value shares, whatever its category: who wrote it and
/// what stands around it.
fn who_and_where(cx: &Context<'_>, base: Assessment, record: &mut dyn Record) -> Assessment {
    match cx.role {
        // What a real machine printed is evidence, whatever it looks like: a test
        // address in a real repository's setup.py is still the maintainer's.
        Role::Machine => return base.because(Reason::PrintedByMachine),
        Role::Model => {
            if record.elsewhere().not_model {
                return base.because(Reason::Echoed);
            }
            return Assessment::low(Reason::WrittenByModel);
        }
        Role::Task => return Assessment::low(Reason::DefinedByTask),
        Role::Person | Role::Unknown => {}
    }
    let base = match cx.role {
        Role::Person => base.because(Reason::TypedByUser),
        _ => base,
    };
    // A capture is output by nature: "e.g." before a traceback does not make it one.
    // A credential set in code or named as a test one (`TEST_API_KEY=`) is the
    // classic leak: its own shape decides, not the words around it.
    if matches!(cx.category, Category::Capture | Category::Secret) {
        return base;
    }
    // A numbered line (`55:    author_email="…"`) is a file a tool printed, even when
    // a person pasted it.
    if context::listing_line(cx.before) {
        return base.because(Reason::PrintedByMachine);
    }
    if context::example_words(cx.before) {
        return Assessment::low(Reason::ExampleContext);
    }
    if context::code_literal(cx.before, cx.after) {
        return Assessment::low(Reason::CodeLiteral);
    }
    if cx.category == Category::Email && context::example_neighbours(cx.before, cx.after) {
        return Assessment::low(Reason::ExampleNeighbours);
    }
    // A question built around a value the task's own ground truth uses.
    if record.elsewhere().task {
        return Assessment::low(Reason::DefinedByTask);
    }
    // A record whose other contact details are fiction is a made-up person.
    if matches!(cx.category, Category::Email | Category::Pii) && record.fiction_nearby() {
        return Assessment::low(Reason::FictionalRecord);
    }
    base
}

/// Looks like a template slot rather than a value: `<user>`, `$USER`, `%USERNAME%`,
/// `{user}`, `YourUsername`.
fn is_template(s: &str) -> bool {
    s.contains(['<', '>', '[', ']', '$', '%', '{', '}', '*', '…'])
        || s.to_ascii_lowercase().starts_with("your")
        || s.chars().all(|c| c == 'x' || c == 'X' || c == '.')
}

/// The words of an identifier or name, lowercased: `laptop_user` → laptop, user;
/// `userA` → user, a; `model_output2` → model, output.
pub fn words(s: &str) -> impl Iterator<Item = String> + '_ {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in s.chars() {
        if !c.is_alphabetic() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out.into_iter()
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod filler_tests {
    #[test]
    fn blanked_tails_are_filler_and_random_ones_are_not() {
        assert!(super::filler_follows(b"####################\"", true));
        assert!(super::filler_follows("••••••".as_bytes(), true));
        assert!(super::filler_follows(b"xxxxxxxxxxxx", true));
        assert!(!super::filler_follows(b"\", \"next\": 1", false));
        assert!(!super::filler_follows(b"xx9f", false));
        // Cut short for display.
        assert!(super::filler_follows("…".as_bytes(), false));
        assert!(super::filler_follows(b"...\n", false));
        assert!(super::filler_follows(b"..[Redacted]", false));
        assert!(!super::filler_follows(b". Then run it.", false));
        assert!(!super::filler_follows(b".. next", false));
        assert!(super::cut_short("ops_eyJzaWduSW5BZGRyZXNzIjoi..."));
        // A provider's whole key followed by an ellipsis is still the key.
        assert!(!super::filler_follows(b"... doesn't work", true));
        assert!(!super::cut_short("c2VjcmV0LmtleS52YWx1ZQ=="));
    }
}
