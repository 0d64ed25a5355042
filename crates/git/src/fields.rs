//! What a git object carries besides files: the identities on commits and tags, and
//! the names of the refs a push moves. Each is judged like content and masked where it
//! is shown.

use super::GitScan;
use git2::Oid;
use privacy_audit_engine::finding::{Category, Finding};
use privacy_audit_engine::report::Report;

impl GitScan<'_> {
    /// Judges an author, committer or tagger: the name as text, the e-mail for anything
    /// but being a commit identity's address (a key or a home path there is a leak; the
    /// address itself, at whatever domain, is what git records of everyone).
    pub(crate) fn scan_identity(
        &self,
        report: &mut Report,
        what: &str,
        sig: &git2::Signature<'_>,
        id: Oid,
    ) {
        // Each on its own: the commit's own address beside the name is no sign that
        // an address in the name is an example (as neighbours in a file would be).
        let where_ = format!("({what})");
        let scan = |bytes: &[u8]| {
            self.scanner
                .scan_blob_as(&where_, "identity.txt", [bytes, b"\n"].concat())
                .findings
        };
        let address = |f: &Finding| matches!(f.category, Category::Email | Category::Hostname);
        let findings = scan(sig.name_bytes())
            .into_iter()
            .chain(scan(sig.email_bytes()).into_iter().filter(|f| !address(f)));
        report.findings.extend(findings.map(|mut f| {
            f.commit = Some(id.to_string());
            f
        }));
    }

    /// Judges the names of the refs a push moves (branches, tags, notes): each is a
    /// name like a file's, its values masked where it is shown.
    pub fn scan_refs(&self, report: &mut Report, names: &[String]) {
        for name in names {
            let short = name
                .strip_prefix("refs/heads/")
                .or_else(|| name.strip_prefix("refs/tags/"))
                .unwrap_or(name);
            let named = self.scanner.check_name(short);
            for mut f in named.findings {
                f.location.path = format!("(pushed ref {})", named.shown);
                f.message = format!(
                    "{} (in a pushed ref's name)",
                    f.message.trim_end_matches(" (in the file name)")
                );
                report.findings.push(f);
            }
        }
        report.refresh();
    }
}
