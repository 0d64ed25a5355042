//! How sure a finding is: one model for every category, from small signals each
//! tested on its own. *Whose value is it?* — a placeholder or persona from the shared
//! vocabulary (`rules/vocabulary/placeholders.toml`) lowers it, this machine's own
//! accounts, host or git user raise it. *Is it a place?* — a path names a person or a
//! private machine only through a user segment; a sandbox or system path has none.
//! *Is it code or an example?* — an identifier, call or variable reference rather than
//! a literal, or digits that are part of a decimal fraction, lower it.

pub use super::vocabulary::{Knowledge, Vocabulary};
use crate::finding::{Category, Confidence};

/// A match and what surrounds it in its segment.
pub struct Context<'a> {
    pub rule_id: &'a str,
    pub category: Category,
    pub value: &'a str,
    pub before: &'a [u8],
    pub after: &'a [u8],
    /// The JSON key the value sits under, when there is one.
    pub key: Option<&'a str>,
}

pub fn judge(cx: &Context<'_>, k: &Knowledge) -> Confidence {
    match cx.category {
        Category::LocalPath => path(cx.value, k),
        Category::Email => email(cx.value, k),
        Category::Pii => number(cx),
        Category::IpAddress => ip(cx),
        Category::Hostname => host(cx, k),
        Category::Secret if cx.rule_id.ends_with("password_assignment") => password(cx.value),
        Category::Capture if cx.rule_id.ends_with("http_request_dump") => request(cx),
        // Secrets with a provider's shape, captures, denylisted terms: as sure as the
        // rule is.
        _ => Confidence::High,
    }
}

/// Looks like a template slot rather than a value: `<user>`, `$USER`, `%USERNAME%`,
/// `{user}`, `YourUsername`.
fn is_template(s: &str) -> bool {
    s.contains(['<', '>', '[', ']', '$', '%', '{', '}', '*', '…'])
        || s.to_ascii_lowercase().starts_with("your")
        || s.chars().all(|c| c == 'x' || c == 'X' || c == '.')
}

/// The user segment of a path, in any of the shapes one takes.
pub fn user_of(path: &str) -> Option<&str> {
    let p = path
        .strip_prefix("file://")
        .map(|r| r.strip_prefix("localhost").unwrap_or(r))
        .unwrap_or(path);
    for marker in ["__home__", "__Users__"] {
        if let Some(i) = p.find(marker) {
            let rest = &p[i + marker.len()..];
            return rest.split("__").next().filter(|u| !u.is_empty());
        }
    }
    if let Some(rest) = p.strip_prefix('~') {
        return rest.split('/').next().filter(|u| !u.is_empty());
    }
    let parts: Vec<&str> = p.split(['/', '\\']).filter(|s| !s.is_empty()).collect();
    // `home`/`Users` at the root (after a drive: `C:\Users`, WSL's `/mnt/c/Users`, Git
    // Bash's `/c/Users`, `/cygdrive/c/Users`; or `/export/home`), not an app's own
    // `users/` folder deep in a tree.
    let at_root = |i: usize| {
        i == 0
            || parts[..i].iter().all(|s| {
                s.len() <= 2 && s.trim_end_matches(':').len() == 1
                    || ["mnt", "cygdrive", "export", "Volumes"].contains(s)
            })
    };
    let home = parts.windows(2).enumerate().find_map(|(i, w)| {
        let home = w[0].eq_ignore_ascii_case("home") || w[0].eq_ignore_ascii_case("users");
        (home && at_root(i)).then_some(w[1])
    });
    if home.is_some() {
        return home;
    }
    // Shared HPC and NFS roots keep one folder per user: `/scratch/<user>/…`.
    let shared = ["scratch", "gpfs", "nfs", "lustre", "work"];
    if let [root, rest @ ..] = parts.as_slice()
        && shared.contains(root)
    {
        return rest
            .iter()
            .find(|s| !shared.contains(s) && **s != "scratch")
            .copied();
    }
    parts
        .iter()
        .find_map(|s| s.strip_prefix("pytest-of-"))
        .filter(|u| !u.is_empty())
}

fn path(value: &str, k: &Knowledge) -> Confidence {
    // Regex syntax, not a path: `(?!C:\\)`, `\\.\d{1,3}`.
    // (`\data` is a folder, `\d{` or `\d+` a digit class.)
    let syntax = [
        "(?", "[^", "\\d{", "\\d+", "\\d*", "\\d)", "\\.\\d", "\\s+", "\\w+",
    ];
    if syntax.iter().any(|t| value.contains(t)) {
        return Confidence::Low;
    }
    if let Some(user) = user_of(value) {
        if k.machine.is_user(user) {
            return Confidence::High;
        }
        let lower = user.to_ascii_lowercase();
        // A file, not a folder (`/home/info.txt`: nothing after it), or a placeholder
        // or persona (`user123` is `user`; anything naming a `username` is a slot).
        let last = value.trim_end_matches(['/', '\\']).ends_with(user);
        let is_file = last && user.contains('.') && !user.contains("..");
        let stem = lower.trim_end_matches(|c: char| c.is_ascii_digit());
        let slot = lower.contains("username") || lower.contains("user_name");
        if is_file || slot || is_template(user) || k.vocabulary.users.contains(stem) {
            return Confidence::Low;
        }
        return Confidence::Medium;
    }
    // No user segment: a sandbox or system folder names nobody; another root may be
    // an organisation's own (`/corp/finance/...`).
    let trimmed = value.strip_prefix("file://").unwrap_or(value);
    if trimmed.starts_with('/') {
        let sandbox = k.vocabulary.sandbox_roots.iter().any(|r| {
            trimmed
                .strip_prefix(r.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        });
        return if sandbox {
            Confidence::Low
        } else {
            Confidence::Medium
        };
    }
    // A UNC share names a host: a placeholder one is low.
    if let Some(rest) = value.strip_prefix("\\\\") {
        let host = rest
            .split('\\')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        let generic = [
            "server",
            "host",
            "computer",
            "machine",
            "localhost",
            "nas",
            "fileserver",
            "share",
            "pc",
            ".",
        ];
        let placeholder = generic.iter().any(|g| host.starts_with(g)) || is_template(&host);
        return if placeholder {
            Confidence::Low
        } else {
            Confidence::Medium
        };
    }
    // A Windows path outside `Users`: a person only when its first folder reads as a
    // name (`E:\First Last\...`).
    let first = value
        .get(3..)
        .unwrap_or_default()
        .split(['\\', '/'])
        .next()
        .unwrap_or_default();
    let words: Vec<&str> = first.split(' ').collect();
    let system = [
        "Program Files",
        "Common Files",
        "Windows Kits",
        "Visual Studio",
        "Microsoft Office",
        "Local Settings",
        "Application Data",
    ];
    let named = words.len() >= 2
        && !system.contains(&first)
        && words.iter().all(|w| {
            w.chars().next().is_some_and(char::is_uppercase)
                && w.chars().skip(1).all(char::is_lowercase)
        });
    if named {
        Confidence::Medium
    } else {
        Confidence::Low
    }
}

/// Words that make `x at y dot com` prose rather than an address.
const PROSE: &[&str] = &[
    "look", "looking", "looked", "the", "a", "an", "me", "us", "him", "her", "them", "it", "this",
    "that", "at", "is", "was", "are", "be", "and", "or", "of", "to", "in", "on", "out", "up",
    "point", "arrive", "arrived", "stay", "stayed", "work", "home", "least", "most", "once", "all",
    "best", "first", "last", "time", "noon", "night",
];

/// `name at domain dot com`: an address unless its words are prose.
fn spelled_email(lower: &str) -> Confidence {
    if lower.contains("[at]") || lower.contains("(at)") || lower.contains("{at}") {
        return Confidence::Medium;
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
        Confidence::Low
    } else {
        Confidence::Medium
    }
}

fn email(value: &str, k: &Knowledge) -> Confidence {
    let lower = value.to_ascii_lowercase();
    if !lower.contains('@') {
        return spelled_email(&lower);
    }
    if k.machine.emails.contains(&lower) {
        return Confidence::High;
    }
    let Some((local, domain)) = lower.rsplit_once('@') else {
        return Confidence::Medium;
    };
    let stem = local.trim_end_matches(|c: char| c.is_ascii_digit());
    // A persona local part is a persona at a free-mail or placeholder domain; at a
    // domain of its own (`me@ana-popescu.ro`) the domain names the person.
    let free_mail = [
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
    let persona = k.vocabulary.locals.contains(stem)
        && (free_mail.contains(&domain) || k.vocabulary.domains.contains(domain));
    if k.vocabulary.domains.contains(domain) || persona || is_template(local) {
        return Confidence::Low;
    }
    Confidence::Medium
}

/// Digits that are a decimal fraction's, a version's or a date's, not a number of
/// their own.
fn number(cx: &Context<'_>) -> Confidence {
    let b = cx.before;
    let fraction = b.last() == Some(&b'.') && b.len() >= 2 && b[b.len() - 2].is_ascii_digit();
    let continues =
        cx.after.first() == Some(&b'.') && cx.after.get(1).is_some_and(u8::is_ascii_digit);
    if fraction || continues {
        return Confidence::Low;
    }
    // Date-shaped (`04-31-3000`, `2024-13-01`), valid or not: a date or a test
    // fixture, not a number of a person's.
    let groups: Vec<usize> = cx.value.split(['-', '/', '.']).map(str::len).collect();
    if matches!(groups.as_slice(), [2, 2, 4] | [4, 2, 2]) {
        return Confidence::Low;
    }
    let digits: String = cx.value.chars().filter(char::is_ascii_digit).collect();
    // North-American fictional numbers (555-0100..0199, and 555 exchanges in fiction)
    // and templates of zeros.
    let nanp = digits.len() == 10 || (digits.len() == 11 && digits.starts_with('1'));
    let fictional = nanp && digits[digits.len() - 7..].starts_with("555");
    let phone = cx.rule_id.contains("phone");
    let zeros = digits.chars().filter(|&c| c == '0').count() * 10 >= digits.len() * 7;
    if fictional || zeros || (!phone && key_says_not_personal(cx.key)) {
        return Confidence::Low;
    }
    Confidence::Medium
}

/// Keys under which a number is a measurement or an identifier, not personal data.
fn key_says_not_personal(key: Option<&str>) -> bool {
    let Some(key) = key else { return false };
    let k = key.to_ascii_lowercase();
    [
        "id", "sha", "hash", "version", "latency", "score", "time", "duration", "count", "seed",
        "step", "index", "token", "cost", "size", "mean", "std", "loss",
    ]
    .iter()
    .any(|w| k == *w || k.ends_with(&format!("_{w}")) || k.starts_with(&format!("{w}_")))
}

fn ip(cx: &Context<'_>) -> Confidence {
    let b = cx.before;
    // `brotlicffi-1.0.9.2`, `v1.2.3.4`, `EC 6.5.1.1`: a version or a catalogue number.
    let versioned = b
        .last()
        .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'-')
        || b.ends_with(b"EC ")
        || b.ends_with(b"version ");
    let octets: Vec<u32> = cx.value.split('.').filter_map(|o| o.parse().ok()).collect();
    let small = octets.len() == 4 && octets.iter().all(|&o| o < 10);
    // Router defaults every tutorial shows.
    // Router defaults every tutorial shows, Docker's bridge, VirtualBox's NAT guest,
    // the cloud metadata address; a CIDR block names a range, not a host.
    let default = matches!(
        cx.value,
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
    ) || cx.after.first() == Some(&b'/')
        && cx.after.get(1).is_some_and(u8::is_ascii_digit);
    if versioned || small || default {
        Confidence::Low
    } else {
        Confidence::Medium
    }
}

fn host(cx: &Context<'_>, k: &Knowledge) -> Confidence {
    let lower = cx.value.to_ascii_lowercase();
    if k.machine.hosts.contains(&lower)
        || lower
            .split('.')
            .next()
            .is_some_and(|h| k.machine.hosts.contains(h))
    {
        return Confidence::High;
    }
    // `threading.local()`, `from werkzeug.local import`: code, not a host; well-known
    // defaults and placeholder domains name no private machine.
    let call = cx.after.first() == Some(&b'(');
    let before = String::from_utf8_lossy(cx.before);
    let import = before.trim_end().ends_with("from") || before.trim_end().ends_with("import");
    let generic = lower.ends_with(".svc.cluster.local")
        || ["homeassistant.local", "raspberrypi.local", "printer.local"].contains(&lower.as_str())
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
        });
    if import || generic {
        return Confidence::Low;
    }
    let code = lower.split('.').any(|l| {
        [
            "self",
            "this",
            "threading",
            "jax",
            "np",
            "torch",
            "os",
            "sys",
        ]
        .contains(&l)
    });
    if call || code || lower == "host.docker.internal" || lower.ends_with(".docker.internal") {
        return Confidence::Low;
    }
    Confidence::Medium
}

/// A request to a documentation or local host is a textbook example, not a capture.
fn request(cx: &Context<'_>) -> Confidence {
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
    if textbook {
        Confidence::Low
    } else {
        Confidence::High
    }
}

/// `password = db.Column(...)`, `password=hashed_password`, `--password=%X%`, prose:
/// code and templates rather than a literal secret.
fn password(value: &str) -> Confidence {
    let v = value
        .trim_matches(|c| c == '"' || c == '\'')
        .trim_end_matches([')', ']', '}']);
    let identifier = v
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.'))
        && v.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && !v.chars().any(|c| c.is_ascii_digit())
        && (v.contains('_') || v.contains('.') || v.chars().all(|c| c.is_ascii_lowercase()));
    // A call or a subscript (`sys.argv[2]`, `request.POST['password']`).
    let call = v.contains('(') || v.contains('[');
    let reference =
        v.starts_with(['$', '%', '{', '<', '!', '/', '~']) || v.contains("${") || v.contains("{{");
    // "password: Create a strong one": an instruction, not a password.
    let prose = [
        "Create", "Choose", "Enter", "Use", "Set", "Change", "Make", "Type", "Provide", "Generate",
        "Pick", "Select", "Reset", "Remember",
    ]
    .contains(&v);
    if identifier || call || reference || prose {
        Confidence::Low
    } else {
        Confidence::Medium
    }
}

#[cfg(test)]
#[path = "confidence_tests.rs"]
mod tests;
