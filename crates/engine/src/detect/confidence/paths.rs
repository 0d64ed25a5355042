//! Is a path a place of a person's? Only through a user segment (`/home/<user>`,
//! `C:\Users\<user>`, `~<user>`, the mangled `/__home__<user>__` forms) or a Windows
//! folder named like a person (`E:\Ana Popescu\…`). A sandbox or system path names
//! nobody; a user the data creates for itself names nobody either.

use super::{Assessment, Context, Knowledge, Record, is_template, words};
use crate::finding::Reason;

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

/// Words that make a user segment or host a slot, whatever else it holds:
/// `laptop_user`, `userA`, `server_b_user`, `network_computer`.
const SLOT_WORDS: &[&str] = &[
    "user", "username", "usr", "your", "yourname", "someone", "somebody", "name",
];

/// Words that name a thing, never a person's account: `/home/test_directory`,
/// `/home/tmp.john`, `/home/training_results` are folders made under a home root.
const THING_WORDS: &[&str] = &[
    "test",
    "tests",
    "tmp",
    "temp",
    "dir",
    "directory",
    "folder",
    "file",
    "files",
    "data",
    "results",
    "result",
    "output",
    "outputs",
    "backup",
    "old",
    "new",
    "shared",
    "share",
    "project",
    "projects",
    "logs",
    "log",
    "records",
    "docs",
    "documents",
    "downloads",
    "training",
    "dataset",
    "datasets",
    "sandbox",
    "workspace",
    "common",
    "public",
];

pub(super) fn path(cx: &Context<'_>, k: &Knowledge, record: &mut dyn Record) -> Assessment {
    let value = cx.value;
    // `GET /home/about`, `200 /home/about` in an access log: a web route, not a disk.
    if web_route(cx.before) {
        return Assessment::low(Reason::WebRoute);
    }
    // Regex syntax, not a path: `(?!C:\\)`, `\\.\d{1,3}`.
    // (`\data` is a folder, `\d{` or `\d+` a digit class.)
    let syntax = [
        "(?", "[^", "\\d{", "\\d+", "\\d*", "\\d)", "\\.\\d", "\\s+", "\\w+",
    ];
    if syntax.iter().any(|t| value.contains(t)) {
        return Assessment::low(Reason::CodeReference);
    }
    // `/path/to/file`, `C:\path\to\x`: the documentation's stand-in for any path.
    let lower = value.to_ascii_lowercase().replace('\\', "/");
    if lower.contains("/path/to/") || lower.ends_with("/path/to") {
        return Assessment::low(Reason::TemplateSlot);
    }
    if let Some(user) = user_of(value) {
        return user_path(value, user, k, record);
    }
    // No user segment: a sandbox or system folder names nobody; another root may be
    // an organisation's own (`/corp/finance/...`).
    let trimmed = value.strip_prefix("file://").unwrap_or(value);
    // `file:///` alone, `file:///project-name`: no folder of anyone's.
    let depth = trimmed.split('/').filter(|s| !s.is_empty()).count();
    if trimmed.starts_with('/') && depth < 2 {
        return Assessment::low(Reason::SandboxPath);
    }
    if trimmed.starts_with('/') {
        let sandbox = k.vocabulary.sandbox_roots.iter().any(|r| {
            trimmed
                .strip_prefix(r.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        });
        return match sandbox {
            true => Assessment::low(Reason::SandboxPath),
            false => Assessment::medium().because(Reason::PrivateRoot),
        };
    }
    if let Some(rest) = value.strip_prefix("\\\\") {
        return unc(rest);
    }
    windows_folder(value, cx.after)
}

fn user_path(value: &str, user: &str, k: &Knowledge, record: &mut dyn Record) -> Assessment {
    if k.machine.is_user(user) {
        return Assessment::high()
            .because(Reason::ThisMachine)
            .because(Reason::UserSegment);
    }
    let lower = user.to_ascii_lowercase();
    // A file, not a folder (`/home/info.txt`: nothing after it, and an extension);
    // `/home/j.wh` and `C:\Users\anna.k` are dotted account names.
    let last = value.trim_end_matches(['/', '\\']).ends_with(user);
    let extension = user.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && ((3..=4).contains(&ext.len())
                && ext
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
                || ["md", "py", "js", "sh", "rs", "go", "gz", "db", "ts", "rb"].contains(&ext))
    });
    if last && extension {
        return Assessment::low(Reason::SandboxPath);
    }
    // A placeholder or persona (`user123` is `user`), or a slot (`laptop_user`,
    // `userA`, anything naming a `username`).
    let stem = lower.trim_end_matches(|c: char| c.is_ascii_digit());
    let slot = lower.contains("username")
        || lower.contains("user_name")
        || words(user).any(|w| SLOT_WORDS.contains(&w.as_str()));
    if is_template(user) {
        return Assessment::low(Reason::TemplateSlot);
    }
    if slot || k.vocabulary.users.contains(stem) {
        return Assessment::low(Reason::Placeholder);
    }
    if words(user).any(|w| THING_WORDS.contains(&w.as_str())) {
        return Assessment::low(Reason::NotAnAccount);
    }
    if record.defines_user(user) {
        return Assessment::low(Reason::DefinedInRecord);
    }
    Assessment::medium().because(Reason::UserSegment)
}

/// A UNC share names a host: a placeholder one names nobody.
fn unc(rest: &str) -> Assessment {
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
        "network",
        "remote",
    ];
    let placeholder = host == "."
        || generic.iter().any(|g| host.starts_with(g))
        || words(&host).any(|w| generic.contains(&w.as_str()))
        || is_template(&host);
    match placeholder {
        true => Assessment::low(Reason::Placeholder),
        false => Assessment::medium().because(Reason::PrivateRoot),
    }
}

/// A Windows path outside `Users`: a person's only when its first folder reads as a
/// name (`E:\First Last\...`, `E:\First last\...`). The match may stop at the space,
/// so the folder's name is read on into `after`, up to the next separator.
fn windows_folder(value: &str, after: &[u8]) -> Assessment {
    let rest = value.get(3..).unwrap_or_default();
    let mut first = rest
        .split(['\\', '/'])
        .next()
        .unwrap_or_default()
        .to_string();
    if !rest.contains(['\\', '/']) {
        let more = after
            .iter()
            .position(|b| matches!(b, b'\\' | b'/' | b'"' | b'\'' | b'\n' | b'`'))
            .map_or(&after[..0], |i| &after[..i]);
        first.push_str(&String::from_utf8_lossy(more));
    }
    let first = first.trim();
    let words: Vec<&str> = first.split(' ').collect();
    // Words that open folder names on every Windows machine.
    let common = [
        "program",
        "files",
        "common",
        "windows",
        "kits",
        "visual",
        "studio",
        "microsoft",
        "office",
        "local",
        "settings",
        "application",
        "data",
        "new",
        "folder",
        "my",
        "documents",
        "backup",
        "projects",
        "shared",
        "temp",
        "users",
        "public",
        "steam",
        "games",
        "android",
        "sdk",
        "tools",
        "system",
        "volume",
        "information",
        "recycle",
    ];
    let name_like = |w: &str| {
        (2..=20).contains(&w.len())
            && w.chars().all(char::is_alphabetic)
            && w.chars().skip(1).all(char::is_lowercase)
            && !common.contains(&w.to_ascii_lowercase().as_str())
    };
    let named = (2..=3).contains(&words.len())
        && words[0].chars().next().is_some_and(char::is_uppercase)
        && words.iter().all(|w| name_like(w));
    match named {
        true => Assessment::medium().because(Reason::NamedFolder),
        false => Assessment::low(Reason::SandboxPath),
    }
}

/// The path follows an HTTP method or a status code, as in a request line or an
/// access log.
fn web_route(before: &[u8]) -> bool {
    let b = before.trim_ascii_end();
    if b.len() == before.len() {
        return false;
    }
    let word = b
        .rsplit(|c| c.is_ascii_whitespace() || *c == b'"')
        .next()
        .unwrap_or_default();
    let status = word.len() == 3 && word.iter().all(u8::is_ascii_digit) && word[0] <= b'5';
    let method = [&b"GET"[..], b"POST", b"PUT", b"DELETE", b"PATCH", b"HEAD"].contains(&word);
    status || method
}
