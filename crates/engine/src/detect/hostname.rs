//! Host names that identify a private network or the operator's organisation.

use super::domains::{self, DomainPolicy};
use super::validators::Candidate;

pub fn is_internal(c: &Candidate<'_>, policy: &DomainPolicy) -> bool {
    let Some(host) = plausible_host(c) else {
        return false;
    };
    !policy.is_reserved(&host) && domains::internal_suffix(&host).is_some() && !placeholder(&host)
}

/// `hostname.internal`, `myhost.local`: a generic word for a host right under the
/// private suffix names no machine; it is how documentation, templates and this tool's
/// own rule ids (in a config or a baseline) spell "some host".
fn placeholder(host: &str) -> bool {
    let mut labels = host.split('.');
    let (Some(first), Some(_), None) = (labels.next(), labels.next(), labels.next()) else {
        return false;
    };
    matches!(
        first,
        "host" | "hostname" | "myhost" | "yourhost" | "server" | "servername" | "machine"
    )
}

pub fn is_org(c: &Candidate<'_>, policy: &DomainPolicy) -> bool {
    let Some(host) = plausible_host(c) else {
        return false;
    };
    !policy.is_reserved(&host) && policy.is_org(&host)
}

/// Lower-cases the candidate and rejects what is really a file name or part of a path:
/// `settings.local.json`, `/etc/hosts.local`, `C:\cfg\app.corp`.
fn plausible_host(c: &Candidate<'_>) -> Option<String> {
    let host = std::str::from_utf8(c.value)
        .ok()?
        .trim_end_matches('.')
        .to_lowercase();
    if let [b'.', next, ..] = c.after
        && next.is_ascii_alphanumeric()
    {
        return None;
    }
    match c.before {
        [.., b'/', b'/'] => {}
        // After `@` it is an e-mail domain, which the e-mail rule reports.
        // …unless the `@` ends URL userinfo (`postgres://u:p@db.acme.lan`).
        [.., b'@'] if super::email::in_url_userinfo(c.before) => {}
        [.., b'/' | b'\\' | b'.' | b'@' | b'_'] => return None,
        _ => {}
    }
    let labels: Vec<&str> = host.split('.').collect();
    if labels.len() < 2 {
        return None;
    }
    let valid = labels.iter().all(|l| {
        !l.is_empty()
            && l.len() <= 63
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    });
    valid.then_some(host)
}
