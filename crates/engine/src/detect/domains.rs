//! Which domain names are public, reserved, internal or the operator's own.

/// RFC 2606 / RFC 6761 names: documentation and testing, never a real party.
const RESERVED: &[&str] = &[
    "example",
    "example.com",
    "example.net",
    "example.org",
    "example.edu",
    "test",
    "invalid",
    "localhost",
];

/// Suffixes that only resolve inside a private network: a name under one identifies an
/// internal machine. `psl` does not know them, which is exactly the signal.
pub const INTERNAL_SUFFIXES: &[&str] = &[
    "internal",
    "local",
    "lan",
    "corp",
    "home",
    "home.arpa",
    "intranet",
    "localdomain",
    "private",
    "intra",
];

pub struct DomainPolicy {
    reserved: Vec<String>,
    org: Vec<String>,
}

impl Default for DomainPolicy {
    /// The reserved documentation domains only.
    fn default() -> Self {
        DomainPolicy::new(&[], &[])
    }
}

impl DomainPolicy {
    pub fn new(allowed: &[String], org: &[String]) -> Self {
        let norm = |d: &String| d.trim_matches('.').to_ascii_lowercase();
        let mut reserved: Vec<String> = RESERVED.iter().map(|s| s.to_string()).collect();
        reserved.extend(allowed.iter().map(norm));
        DomainPolicy {
            reserved,
            org: org.iter().map(norm).collect(),
        }
    }

    pub fn org(&self) -> &[String] {
        &self.org
    }

    /// `host` is lower-case. True for a reserved or operator-allowed name or any name under one.
    pub fn is_reserved(&self, host: &str) -> bool {
        self.reserved.iter().any(|d| is_under(host, d))
    }

    pub fn is_org(&self, host: &str) -> bool {
        self.org.iter().any(|d| is_under(host, d))
    }
}

/// `host` equals `domain` or is a subdomain of it.
pub fn is_under(host: &str, domain: &str) -> bool {
    host == domain
        || (host.len() > domain.len()
            && host.ends_with(domain)
            && host.as_bytes()[host.len() - domain.len() - 1] == b'.')
}

pub fn internal_suffix(host: &str) -> Option<&'static str> {
    INTERNAL_SUFFIXES
        .iter()
        .copied()
        .find(|s| is_under(host, s) && host != *s)
}

/// True when the last label is a real top-level domain.
pub fn has_public_suffix(host: &str) -> bool {
    psl::suffix(host.as_bytes()).is_some_and(|s| s.is_known())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_and_org_domains() {
        let p = DomainPolicy::new(&["docs.acme.io".into()], &["Acme-Corp.com".into()]);
        assert!(p.is_reserved("example.com"));
        assert!(p.is_reserved("mail.example.org"));
        assert!(p.is_reserved("foo.test"));
        assert!(p.is_reserved("a.docs.acme.io"));
        assert!(!p.is_reserved("notexample.com"));
        assert!(p.is_org("build.acme-corp.com"));
        assert!(!p.is_org("evilacme-corp.com"));
        assert_eq!(internal_suffix("gpu-17.ml.internal"), Some("internal"));
        assert_eq!(internal_suffix("local"), None);
        assert!(has_public_suffix("gmail.com"));
        assert!(!has_public_suffix("icon.png"));
    }
}
