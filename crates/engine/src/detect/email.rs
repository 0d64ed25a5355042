//! E-mail addresses: everything but reserved and allowed domains.

use super::domains::{self, DomainPolicy};
use super::validators::Candidate;

pub fn is_reportable(c: &Candidate<'_>, policy: &DomainPolicy) -> bool {
    let Ok(addr) = std::str::from_utf8(c.value) else {
        return false;
    };
    let Some((local, domain)) = addr.rsplit_once('@') else {
        return false;
    };
    let domain = domain.trim_end_matches('.').to_lowercase();
    // `git@github.com:org/repo` is an SSH remote, not a mailbox.
    if local.eq_ignore_ascii_case("git") && c.after.first() == Some(&b':') {
        return false;
    }
    // `scheme://user:password@host`: URL userinfo, not a mailbox.
    if in_url_userinfo(c.before) {
        return false;
    }
    if policy.is_reserved(&domain) {
        return false;
    }
    // `icon@2x.png`, `pkg@1.2.3` are not addresses: the suffix must exist somewhere.
    domains::has_public_suffix(&domain)
        || domains::internal_suffix(&domain).is_some()
        || policy.is_org(&domain)
}

/// The current token (since the last blank or quote) holds `://` and nothing since
/// it ends the authority (`/`, `?`): `scheme://user:pass@host`, not an address in a
/// URL's path or query (`https://x/users/a@b.com`).
pub fn in_url_userinfo(before: &[u8]) -> bool {
    let start = before
        .iter()
        .rposition(|b| b.is_ascii_whitespace() || b"\"'<>()".contains(b))
        .map_or(0, |i| i + 1);
    let token = &before[start..];
    match memchr::memmem::rfind(token, b"://") {
        Some(i) => !token[i + 3..].iter().any(|b| matches!(b, b'/' | b'?')),
        None => false,
    }
}
