//! Addresses by their own rules: an e-mail's local part and domain, an IP address's
//! purpose, a host name's labels, a request's host.

use super::{Assessment, Context, Knowledge, is_template, words};
use crate::finding::Reason;

/// Words that make `x at y dot com` prose rather than an address.
const PROSE: &[&str] = &[
    "look", "looking", "looked", "the", "a", "an", "me", "us", "him", "her", "them", "it", "this",
    "that", "at", "is", "was", "are", "be", "and", "or", "of", "to", "in", "on", "out", "up",
    "point", "arrive", "arrived", "stay", "stayed", "work", "home", "least", "most", "once", "all",
    "best", "first", "last", "time", "noon", "night",
];

/// `name at domain dot com`: an address unless its words are prose.
fn spelled_email(lower: &str) -> Assessment {
    if lower.contains("[at]") || lower.contains("(at)") || lower.contains("{at}") {
        return Assessment::medium();
    }
    let words: Vec<&str> = lower.split_whitespace().collect();
    let local = words.first().copied().unwrap_or_default();
    let domain = words
        .iter()
        .skip_while(|w| **w != "at")
        .nth(1)
        .copied()
        .unwrap_or_default();
    if PROSE.contains(&local) || PROSE.contains(&domain) {
        Assessment::low(Reason::Prose)
    } else {
        Assessment::medium()
    }
}

/// Mail services anyone can sign up to: a persona there is nobody in particular.
const FREE_MAIL: &[&str] = &[
    "gmail.com",
    "googlemail.com",
    "yahoo.com",
    "hotmail.com",
    "outlook.com",
    "live.com",
    "aol.com",
    "icloud.com",
    "mail.com",
    "proton.me",
    "protonmail.com",
    "gmx.com",
    "yandex.com",
    "qq.com",
    "163.com",
];

/// Local parts that stand for a slot, at any domain: `username@`, `your.name@`,
/// `firstname.lastname@`.
const SLOT_LOCALS: &[&str] = &[
    "user",
    "username",
    "name",
    "yourname",
    "your",
    "firstname",
    "lastname",
    "first",
    "last",
    "someone",
    "somebody",
    "email",
    "noreply",
];

pub(super) fn email(cx: &Context<'_>, k: &Knowledge) -> Assessment {
    let lower = cx.value.to_ascii_lowercase();
    if !lower.contains('@') {
        return spelled_email(&lower);
    }
    if k.machine.emails.contains(&lower) {
        return Assessment::high().because(Reason::ThisMachine);
    }
    let Some((local, domain)) = lower.rsplit_once('@') else {
        return Assessment::medium();
    };
    let stem = local.trim_end_matches(|c: char| c.is_ascii_digit());
    // A no-reply address belongs to a service, not a person.
    let no_reply = local.starts_with("noreply")
        || local.starts_with("no-reply")
        || local.starts_with("no_reply")
        || local.starts_with("donotreply")
        || local.contains("+noreply")
        || domain.starts_with("users.noreply.");
    if k.vocabulary.domains.contains(domain) || no_reply {
        return Assessment::low(Reason::Placeholder);
    }
    if is_template(local) || words(local).any(|w| SLOT_LOCALS.contains(&w.as_str())) {
        return Assessment::low(Reason::TemplateSlot);
    }
    // Doe is the stand-in surname of English-speaking law and of every form's
    // example (`joe_doe@`, `jane.doe@`).
    if words(local).any(|w| w == "doe") {
        return Assessment::low(Reason::Placeholder);
    }
    // A persona local part is a persona at a free-mail or placeholder domain; at a
    // domain of its own (`me@ana-popescu.ro`) the domain names the person.
    if k.vocabulary.locals.contains(stem) && FREE_MAIL.contains(&domain) {
        return Assessment::low(Reason::Placeholder);
    }
    Assessment::medium()
}

pub(super) fn ip(cx: &Context<'_>) -> Assessment {
    let b = cx.before;
    // `brotlicffi-1.0.9.2`, `v1.2.3.4`, `EC 6.5.1.1`: a version or a catalogue number.
    let versioned = b
        .last()
        .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'-')
        || b.ends_with(b"EC ")
        || b.ends_with(b"version ");
    let addr = cx.value.split('/').next().unwrap_or(cx.value);
    let octets: Vec<u32> = addr.split('.').filter_map(|o| o.parse().ok()).collect();
    if versioned || (octets.len() == 4 && octets.iter().all(|&o| o < 10)) {
        return Assessment::low(Reason::VersionString);
    }
    // Router defaults every tutorial shows, Docker's bridge, VirtualBox's NAT guest,
    // the cloud metadata address.
    let default = matches!(
        addr,
        "192.168.0.1"
            | "192.168.1.1"
            | "192.168.1.254"
            | "10.0.0.1"
            | "10.0.0.138"
            | "172.17.0.1"
            | "172.17.0.2"
            | "10.0.2.15"
            | "10.0.2.2"
            | "169.254.169.254"
    );
    if default {
        return Assessment::low(Reason::Placeholder);
    }
    // A CIDR block names a range, not a host (a `/32` is one host).
    let prefix = match cx.value.split_once('/') {
        Some((_, p)) => p.parse::<u8>().ok(),
        None if cx.after.first() == Some(&b'/') => {
            let digits: String = cx.after[1..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .map(|&b| b as char)
                .collect();
            digits.parse::<u8>().ok()
        }
        None => None,
    };
    if prefix.is_some_and(|p| p < 32) {
        return Assessment::low(Reason::AddressRange);
    }
    // Private, shared and link-local ranges are reachable only inside one network: an
    // address there says little in what a person typed (a tutorial, a question). A
    // machine's output, or text whose writer the record does not tell (a run log's
    // own fields), keeps it.
    let private = match octets.as_slice() {
        [10, ..] | [192, 168, ..] | [169, 254, ..] => true,
        [172, b, ..] => (16..32).contains(b),
        [100, b, ..] => (64..128).contains(b),
        _ => addr.contains(':') && private_v6(addr),
    };
    if private && !matches!(cx.role, super::Role::Machine | super::Role::Unknown) {
        return Assessment::low(Reason::PrivateRange);
    }
    // `123.45.67.89`, `98.76.54.32`: digits counted up or down, the address every
    // example shows.
    if super::numbers::counted(addr.split(['.', ':'])) {
        return Assessment::low(Reason::TemplateSlot);
    }
    Assessment::medium()
}

/// Unique-local (`fc00::/7`) and link-local (`fe80::/10`) IPv6.
fn private_v6(v: &str) -> bool {
    let l = v.to_ascii_lowercase();
    l.starts_with("fc") || l.starts_with("fd") || l.starts_with("fe8") || l.starts_with("fe9")
}

pub(super) fn host(cx: &Context<'_>, k: &Knowledge) -> Assessment {
    let lower = cx.value.to_ascii_lowercase();
    if k.machine.hosts.contains(&lower)
        || lower
            .split('.')
            .next()
            .is_some_and(|h| k.machine.hosts.contains(h))
    {
        return Assessment::high().because(Reason::ThisMachine);
    }
    // `threading.local()`, `from werkzeug.local import`, `self.cfg.local`: code, not a
    // host. Only on an import line and before a call's bracket: "a reply from
    // mx2.corp.internal" and "mailhub.corp.lan(10.4.0.2)" are hosts.
    let line = cx
        .before
        .rsplit(|b| *b == b'\n')
        .next()
        .unwrap_or_default()
        .trim_ascii_start();
    let import = line.starts_with(b"from ") || line.starts_with(b"import ");
    let call =
        cx.after.first() == Some(&b'(') && !cx.after.get(1).is_some_and(|b| b.is_ascii_digit());
    let first = lower.split('.').next().unwrap_or_default();
    let code = [
        "self",
        "this",
        "threading",
        "jax",
        "np",
        "torch",
        "os",
        "sys",
        "game",
        "window",
        "document",
    ]
    .contains(&first);
    if import || call || code {
        return Assessment::low(Reason::CodeReference);
    }
    // A kind of machine under a bare local suffix names no one machine:
    // `myserver.local`, `nas.lan`, `router.home` (`api.payments.svc.cluster.local`
    // names a real cluster's service).
    let kinds = [
        "server",
        "myserver",
        "host",
        "myhost",
        "nas",
        "router",
        "printer",
        "pc",
        "mypc",
        "laptop",
        "desktop",
        "machine",
        "computer",
        "homeassistant",
        "raspberrypi",
        "node",
        "db",
        "database",
        "web",
        "app",
        "api",
    ];
    let generic = (kinds.contains(&first) && lower.split('.').count() == 2)
        || lower.split('.').any(|l| {
            [
                "contoso",
                "yourdomain",
                "example",
                "mydomain",
                "domain",
                "fabrikam",
            ]
            .contains(&l)
        })
        || lower == "host.docker.internal"
        || lower.ends_with(".docker.internal");
    if generic {
        return Assessment::low(Reason::Placeholder);
    }
    Assessment::medium()
}

/// A request to a documentation or local host is a textbook example, not a capture;
/// every other capture is as sure as its rule.
pub(super) fn capture(cx: &Context<'_>) -> Assessment {
    if !cx.rule_id.ends_with("http_request_dump") {
        return Assessment::high();
    }
    let text = format!("{}{}", cx.value, String::from_utf8_lossy(cx.after)).to_ascii_lowercase();
    let host = text
        .split("host:")
        .nth(1)
        .map(|h| {
            h.trim_start()
                .split(['\r', '\n', ':', ' '])
                .next()
                .unwrap_or_default()
                .to_string()
        })
        .unwrap_or_default();
    let textbook = [
        "example.com",
        "example.org",
        "example.net",
        "localhost",
        "127.0.0.1",
        "httpbin.org",
    ]
    .iter()
    .any(|d| host == *d || host.ends_with(&format!(".{d}")));
    match textbook {
        true => Assessment::low(Reason::TextbookRequest),
        false => Assessment::high(),
    }
}
