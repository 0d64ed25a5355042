//! IP addresses that identify a network: public and private ranges, not documentation,
//! loopback, unspecified or multicast addresses, and not version strings.

use super::validators::Candidate;
use std::net::{Ipv4Addr, Ipv6Addr};

pub fn is_identifying_v4(c: &Candidate<'_>) -> bool {
    let Ok(text) = std::str::from_utf8(c.value) else {
        return false;
    };
    let addr = text.split('/').next().unwrap_or(text);
    // Leading zeros (`01.02.03.04`) are how versions and dates look, not addresses.
    if addr.split('.').any(|o| o.len() > 1 && o.starts_with('0')) {
        return false;
    }
    let Ok(ip) = addr.parse::<Ipv4Addr>() else {
        return false;
    };
    !is_version_context(c) && is_identifying_addr_v4(ip)
}

fn is_identifying_addr_v4(ip: Ipv4Addr) -> bool {
    let o = ip.octets();
    let documentation = matches!(o, [192, 0, 2, _] | [198, 51, 100, _] | [203, 0, 113, _]);
    !(ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || o[0] == 0
        || o[0] >= 240
        || documentation)
}

/// `version 1.2.3.4`, `v10.0.0.1`, `"runtime_version": "3.7.4.1"`, `pkg==1.2.3.4`.
fn is_version_context(c: &Candidate<'_>) -> bool {
    if c.key
        .is_some_and(|k| k.to_ascii_lowercase().contains("version"))
    {
        return true;
    }
    let tail = &c.before[c.before.len().saturating_sub(12)..];
    let tail = String::from_utf8_lossy(tail).to_ascii_lowercase();
    // `v10.0.0.1`: a `v` glued to the number; `srv 81.196.12.7` is a server's address.
    let glued_v = tail.ends_with('v')
        && !tail[..tail.len() - 1]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphabetic());
    let tail = tail.trim_end_matches([' ', ':', '=']);
    let word = tail
        .rsplit(|c: char| c.is_whitespace() || c == '(' || c == '"' || c == '\'')
        .next()
        .unwrap_or_default();
    glued_v
        || ["v", "ver", "version", "release", "build"].contains(&word)
        || tail.ends_with("version")
        || tail.ends_with('@')
        || tail.ends_with("==")
        || tail.ends_with('>')
        || tail.ends_with('<')
        || tail.ends_with('~')
}

pub fn is_identifying_v6(c: &Candidate<'_>) -> bool {
    let Ok(text) = std::str::from_utf8(c.value) else {
        return false;
    };
    let addr = text.split(['%', '/']).next().unwrap_or(text);
    let Ok(ip) = addr.parse::<Ipv6Addr>() else {
        return false;
    };
    let groups = addr.split(':').filter(|g| !g.is_empty()).count();
    // `dead::beef` parses, but prose and code (`a::b`) rarely spell 4+ groups.
    if groups < 4 && !addr.to_ascii_lowercase().starts_with("fe80") {
        return false;
    }
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_identifying_addr_v4(v4);
    }
    let s = ip.segments();
    let documentation = (s[0] == 0x2001 && s[1] == 0x0db8) || (s[0] & 0xfff0) == 0x3ff0;
    !(ip.is_loopback() || ip.is_unspecified() || ip.is_multicast() || documentation)
}
