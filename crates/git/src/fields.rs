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
    pub(crate) fn judge_identity(
        &self,
        report: &mut Report,
        what: &str,
        sig: &git2::Signature<'_>,
        id: Oid,
    ) {
        let text = [sig.name_bytes(), b"\n", sig.email_bytes(), b"\n"].concat();
        let outcome = self
            .scanner
            .scan_blob_as(&format!("({what})"), "identity.txt", text);
        let expected = |f: &Finding| {
            f.location.line == Some(2) && matches!(f.category, Category::Email | Category::Hostname)
        };
        let findings = outcome.findings.into_iter().filter(|f| !expected(f));
        report.findings.extend(findings.map(|mut f| {
            f.commit = Some(id.to_string());
            f
        }));
    }

    /// Judges the names of the refs a push moves (branches, tags, notes): each is a
    /// name like a file's, its values masked where it is shown.
    pub fn judge_refs(&self, report: &mut Report, names: &[String]) {
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
