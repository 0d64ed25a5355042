//! The second form of a `near` rule's match: the provider named a little before a bare
//! credential name rather than inside it.
//!
//! A log, a config block or a JSON record often names the service once and the key
//! plainly after it: `Sending request to the acme API` on one line and `Using Key=…` on
//! the next, `{"service": "acme", "key": "…"}`, `# acme\napi_key: …`, or prose's `the
//! acme secret …`. The credential name (`key`, `token`, `secret`, `password`, in any
//! naming style) then says a key follows, the provider's word says whose, and the
//! rule's shape must still fit the value exactly. The provider's word must stand within
//! [`LEAD`] bytes of the credential name, on its line or the line before.

use super::alphabet::ByteSet;

/// How far before the credential name the provider's word may stand, on each of two
/// lines: about a log line's prefix or a short comment.
pub(super) const LEAD: usize = 48;

/// Credential names, lower-case; matched in any case, as a word of a name.
const CREDENTIAL_WORDS: [&str; 5] = ["key", "token", "secret", "password", "passwd"];

/// The words that may qualify a bare credential name and keep it one (`api_key`,
/// `authToken`, `client-secret`). Any other word says what kind of key it is (`row_key`,
/// `sort key`, `pageToken`, `release key`): not the provider's.
const QUALIFIERS: &str = "api|access|auth|client|app|secret|private|bearer|service|master|signing";

/// The regex from the end of the provider's word to the start of the value.
pub(super) fn pattern(operator: &str, quote: &str, run_on: &str) -> String {
    format!(
        concat!(
            // Either the credential name right after the provider's word (`the acme
            // secret …`, `an acmekey secret …`: the word may run on), or after a little
            // text on its line or the next one, where the name starts a member, an
            // argument, a line or a log's `Using …`.
            r"(?:(?i:{run_on}){{0,2}}[ \t]{{1,4}}|[^\r\n]{{0,{lead}}}?(?:\r?\n[^\r\n]{{0,{lead}}}?)?",
            r#"(?:[\[\]{{}}(,;"'`][ \t]{{0,4}}|(?m:^)[ \t]{{0,16}}(?:-[ \t]{{1,4}}|export[ \t]{{1,4}})?|(?i:using)[ \t]{{1,4}}))"#,
            // The name: qualified only as a credential is (`api_key`, `API_KEY`,
            // `authToken`, a log's `using api key …`), never by what the key is for.
            r"(?:(?:(?i:{qual})[ _.-]?)?(?i:{words})",
            r"|(?i:{qual})(?:Key|KEY|Token|TOKEN|Secret|SECRET|Password|PASSWORD))",
            // The rest of the name (`_PROD`, `V2`), never a longer lower-case word.
            r"(?:[_.-][A-Za-z0-9]{{1,12}}|[A-Z0-9][A-Za-z0-9]{{0,12}})?",
            // An operator, or in prose a blank: `the acme secret …`.
            r"{q}(?:[ \t]{{0,8}}{op}|[ \t]{{1,4}}{q})",
        ),
        lead = LEAD,
        run_on = run_on,
        qual = QUALIFIERS,
        words = CREDENTIAL_WORDS.join("|"),
        q = quote,
        op = operator,
    )
}

/// Whether the text after a provider's word ending at `text[end]` may hold this form:
/// a credential word within reach, then a run of at least `min_len` bytes of the
/// value's alphabet soon after it. Looser than [`pattern`], never stricter: the keyword
/// pass asks it before opening a window, so a provider's name in prose with no key
/// after it costs no regex search.
pub(super) fn may_follow(text: &[u8], end: usize, alphabet: &ByteSet, min_len: usize) -> bool {
    // Where the credential word may start, on the provider's line or the next: the
    // gap, what opens the name (`    export `), its qualifier (`secret_`).
    const STARTS: usize = LEAD + 40;
    // Where the line from `from` ends, looking no further than a word start can be.
    let line_end = |from: usize| {
        let reach = text.len().min(from + STARTS);
        memchr::memchr(b'\n', text.get(from..reach).unwrap_or_default()).map(|n| from + n)
    };
    let first = line_end(end);
    let same_line = end..first.unwrap_or(text.len()).min(end + STARTS);
    let next_line = match first {
        Some(nl) => nl + 1..line_end(nl + 1).unwrap_or(text.len()).min(nl + 1 + STARTS),
        None => 0..0,
    };
    same_line.chain(next_line).any(|i| {
        credential_word_at(text, i).is_some_and(|e| run_within(text, e, alphabet, min_len))
    })
}

/// The end of a credential word starting at `text[i]`, if one does and does not run
/// on into a longer lower-case word (`keyboard`, `tokens` is still `token` + `s`).
fn credential_word_at(text: &[u8], i: usize) -> Option<usize> {
    let first = text[i].to_ascii_lowercase();
    if !matches!(first, b'k' | b't' | b's' | b'p') {
        return None;
    }
    CREDENTIAL_WORDS.iter().find_map(|w| {
        let end = i + w.len();
        let word = text.get(i..end)?;
        (word.eq_ignore_ascii_case(w.as_bytes())
            && !text.get(end).is_some_and(u8::is_ascii_lowercase))
        .then_some(end)
    })
}

/// Whether a run of `min_len` bytes of `alphabet` starts within the reach of the rest
/// of a name, quotes, blanks and an operator after `from`.
fn run_within(text: &[u8], from: usize, alphabet: &ByteSet, min_len: usize) -> bool {
    const REACH: usize = 40;
    let latest = from + REACH;
    let mut run_start = from;
    for (i, &b) in text.iter().enumerate().skip(from) {
        if run_start > latest || b == b'\n' {
            return false;
        }
        if !alphabet.contains(b) {
            run_start = i + 1;
        } else if i + 1 - run_start >= min_len {
            return true;
        }
    }
    false
}

/// Whether `using`, and at most a qualifier (`api `, `access_`), stands just before a
/// credential name starting at `text[start]`: a log's `using api key …`, `Using access
/// token …`, which name their value with a blank instead of an operator.
pub(super) fn after_using(text: &[u8], start: usize) -> bool {
    const LOOK: usize = "using ".len() + "private ".len();
    let from = start.saturating_sub(LOOK);
    let before = text.get(from..start).unwrap_or_default();
    before
        .windows(6)
        .any(|w| w[..5].eq_ignore_ascii_case(b"using") && matches!(w[5], b' ' | b'\t'))
}
