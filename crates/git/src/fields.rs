//! What a git object carries besides files: the messages and identities on commits and
//! tags, and the names of the refs a push moves. Each is judged like content and
//! masked where it is shown.

use git2::Oid;
use privacy_audit_engine::finding::{Category, Finding};
use privacy_audit_engine::run::{Sink, Unit};
use privacy_audit_engine::scan::Scanner;

/// A commit or tag message, scanned as text and listed as a file named after it.
pub(crate) fn message(
    scanner: &Scanner,
    sink: &Sink<Option<Oid>>,
    what: &str,
    text: &[u8],
    id: Oid,
) {
    let outcome = scanner.scan_blob_as(&format!("({what} message)"), "message.txt", text.to_vec());
    sink.unit(Unit::new(outcome, None).in_commit(Some(id.to_string())));
}

/// Judges an author, committer or tagger: the name as text, the e-mail for anything
/// but being a commit identity's address (a key or a home path there is a leak; the
/// address itself, at whatever domain, is what git records of everyone).
pub(crate) fn identity(
    scanner: &Scanner,
    sink: &Sink<Option<Oid>>,
    what: &str,
    sig: &git2::Signature<'_>,
    id: Oid,
) {
    // Each on its own: the commit's own address beside the name is no sign that an
    // address in the name is an example (as neighbours in a file would be).
    let where_ = format!("({what})");
    let scan = |bytes: &[u8]| {
        scanner
            .scan_blob_as(&where_, "identity.txt", [bytes, b"\n"].concat())
            .findings
    };
    let address = |f: &Finding| matches!(f.category, Category::Email | Category::Hostname);
    let findings = scan(sig.name_bytes())
        .into_iter()
        .chain(scan(sig.email_bytes()).into_iter().filter(|f| !address(f)));
    sink.findings(
        findings
            .map(|mut f| {
                f.commit = Some(id.to_string());
                f
            })
            .collect(),
    );
}

/// Judges the names of the refs a push moves (branches, tags, notes): each is a name
/// like a file's, its values masked where it is shown.
pub(crate) fn refs(scanner: &Scanner, sink: &Sink<Option<Oid>>, names: &[String]) {
    for name in names {
        let short = name
            .strip_prefix("refs/heads/")
            .or_else(|| name.strip_prefix("refs/tags/"))
            .unwrap_or(name);
        let named = scanner.check_name(short);
        let shown = named.shown;
        sink.findings(
            named
                .findings
                .into_iter()
                .map(|mut f| {
                    f.location.path = format!("(pushed ref {shown})");
                    f.message = format!(
                        "{} (in a pushed ref's name)",
                        f.message.trim_end_matches(" (in the file name)")
                    );
                    f
                })
                .collect(),
        );
    }
}
