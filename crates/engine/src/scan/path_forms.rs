//! Spellings of a local path that name the same place as a plain one: doubled
//! separators and `.`/`..` steps (`//home//ana`, `/home/./ana`), the home folders
//! other systems mount elsewhere (`/usr/home` on FreeBSD, `/var/home` on
//! Fedora Atomic, `/System/Volumes/Data/Users` on macOS), a WSL distribution seen from
//! Windows (`\\wsl$\Ubuntu\home\ana`, `\\wsl.localhost\…`) and a remote editor's URI
//! (`vscode-remote://ssh-remote+box/home/ana`). Each such token is rewritten to the
//! plain path in a layer of its own, judged like the file's text.

use super::token_layer::{Rewrite, token_layer};
use crate::formats::{Encoding, Unit};

/// Where other systems keep the folders a plain path spells `/home` or `/Users`.
const MOUNTED_HOMES: [(&str, &str); 3] = [
    ("/usr/home/", "/home/"),
    ("/var/home/", "/home/"),
    ("/System/Volumes/Data/Users/", "/Users/"),
];

/// Text that may hold a spelling [`normalise`] changes: one pass over its separators,
/// before any other work.
fn may_hold(b: &[u8]) -> bool {
    first_hold(b).is_some()
}

/// Where the first separator that may open such a spelling is.
fn first_hold(b: &[u8]) -> Option<usize> {
    let starts = |s: &[u8], with: &[u8]| {
        s.get(..with.len())
            .is_some_and(|p| p.eq_ignore_ascii_case(with))
    };
    memchr::memchr2_iter(b'/', b'\\', b).find(|&i| {
        let (before, next) = (&b[..i], &b[i + 1..]);
        if b[i] == b'\\' {
            return starts(next, b"\\wsl") || next.starts_with(b".\\") || next.starts_with(b"..\\");
        }
        let scheme = || {
            REMOTE_SCHEMES.iter().any(|s| {
                before.len() >= s.len() && starts(&before[before.len() - s.len()..], s.as_bytes())
            })
        };
        (next.first() == Some(&b'/') && (!before.ends_with(b":") || scheme()))
            || next.starts_with(b"./")
            || next.starts_with(b"../")
            || starts(next, b"/wsl")
            || starts(next, b"cygdrive/")
            || drive_folder(next).is_some()
            || MOUNTED_HOMES
                .iter()
                .any(|(m, _)| before.ends_with(&m.as_bytes()[..m.len() - 1]))
    })
}

/// The path a token spells once its prefix is a plain absolute path, if it changes.
/// Called on every token of a text that [`may_hold`] one: each step looks before it
/// allocates.
fn normalise(token: &str) -> Option<String> {
    let bytes = token.as_bytes();
    memchr::memchr2(b'/', b'\\', bytes)?;
    let has = |needle: &[u8]| memchr::memmem::find(bytes, needle).is_some();
    let remote = has(b"wsl") || has(b"WSL") || has(b"Wsl") || has(b"://") || has(b"remote:");
    let mut path = remote.then(|| unprefix(token)).flatten();
    if let Some(windows) = as_windows(path.as_deref().unwrap_or(token)) {
        path = Some(windows);
    }
    if has(b"home/") || has(b"Users/") {
        for (mounted, plain) in MOUNTED_HOMES {
            let p = path.get_or_insert_with(|| token.to_string());
            if let Some(at) = p.find(mounted) {
                p.replace_range(at..at + mounted.len(), plain);
            }
        }
    }
    let current = path.as_deref().unwrap_or(token);
    if needs_collapse(current.as_bytes()) {
        path = Some(collapse(current));
    }
    path.filter(|p| p != token)
}

/// A doubled separator (not a scheme's `://`) or a `.`/`..` step.
fn needs_collapse(b: &[u8]) -> bool {
    memchr::memchr_iter(b'/', b)
        .any(|i| b.get(i + 1) == Some(&b'/') && (i == 0 || b[i - 1] != b':'))
        || memchr::memmem::find(b, b"/./").is_some()
        || memchr::memmem::find(b, b"/../").is_some()
}

/// A WSL share or a remote editor's URI with its machine part taken off: the path it
/// names on that machine, with `/` separators.
fn unprefix(token: &str) -> Option<String> {
    let lower = token.to_ascii_lowercase();
    for share in [
        "\\\\wsl$\\",
        "\\\\wsl.localhost\\",
        "//wsl$/",
        "//wsl.localhost/",
    ] {
        if let Some(at) = lower.find(share) {
            let rest = &token[at + share.len()..];
            // The distribution's name, then the path inside it.
            let inside = rest.find(['\\', '/']).map_or("", |s| &rest[s..]);
            return Some(inside.replace('\\', "/"));
        }
    }
    // `vscode-remote://ssh-remote+box/home/ana`, `sftp://box/home/ana`: the scheme,
    // the machine, then the path on it.
    let (at, scheme) = REMOTE_SCHEMES
        .iter()
        .filter_map(|s| lower.find(s).map(|at| (at, s.len())))
        .min()?;
    let rest = token[at + scheme..].trim_start_matches('/');
    // `file:///x` names a local path already; its rule reads it as it is.
    if token[at + scheme..].starts_with("///") {
        return None;
    }
    rest.find('/').map(|s| rest[s..].to_string())
}

/// URI schemes whose authority is a machine and whose path is a path on it.
const REMOTE_SCHEMES: [&str; 7] = [
    "vscode-remote:",
    "sftp:",
    "ssh:",
    "scp:",
    "smb:",
    "fish:",
    "file:",
];

/// `c/Users/…` after a `/` (Git Bash, MSYS): the drive letter, if that is what it is.
fn drive_folder(next: &[u8]) -> Option<u8> {
    let (&drive, rest) = next.split_first()?;
    (drive.is_ascii_alphabetic()
        && rest.first() == Some(&b'/')
        && rest
            .get(1..7)
            .is_some_and(|u| u.eq_ignore_ascii_case(b"users/")))
    .then_some(drive)
}

/// A Windows home path another shell spells (`/c/Users/ana`, `/cygdrive/c/Users/ana`,
/// `C:\Users\.\ana`) as `C:/Users/ana`, if the token holds one.
fn as_windows(token: &str) -> Option<String> {
    let b = token.as_bytes();
    for prefix in ["/cygdrive/", "/"] {
        if let Some(at) = token.find(prefix)
            && let Some(drive) = drive_folder(&b[at + prefix.len()..])
        {
            let rest = &token[at + prefix.len() + 1..];
            return Some(format!("{}:{rest}", char::from(drive).to_ascii_uppercase()));
        }
    }
    // Backslash steps that a Windows path resolves (`\.\`, `\x\..\`).
    let drive = b
        .windows(3)
        .position(|w| w[0].is_ascii_alphabetic() && w[1] == b':' && w[2] == b'\\')?;
    let tail = &token[drive..];
    (tail.contains("\\.\\") || tail.contains("\\..\\")).then(|| tail.replace('\\', "/"))
}

/// `/a//b/./c/../d` as `/a/b/d`; a scheme's `://` is kept.
fn collapse(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let mut parts = path.split('/').peekable();
    let mut first = true;
    while let Some(part) = parts.next() {
        let last = parts.peek().is_none();
        match part {
            "" if !first && !last && !out.last().is_some_and(|p| p.ends_with(':')) => {}
            "." if !first && !last => {}
            ".." if !first && out.len() > 1 && !matches!(out.last(), Some(&"..") | Some(&"")) => {
                out.pop();
            }
            _ => out.push(part),
        }
        first = false;
    }
    out.join("/")
}

/// Copies of the tokens of `unit` that spell a path another way, each as the plain path.
pub fn path_form_layer(unit: &Unit, budget: &mut usize) -> Option<Unit> {
    // Segments before the first possible spelling are not looked at again.
    let first = first_hold(&unit.text)?;
    token_layer(
        unit,
        budget,
        first,
        Rewrite {
            encoding: Encoding::PathForm,
            bytes_may: may_hold,
            text_may: |_: &str| true,
            marks: |b: u8| b == b'/' || b == b'\\',
            token: normalise,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_spellings_of_a_home_path_are_made_plain() {
        let n = |t: &str| normalise(t);
        assert_eq!(n("//home//ana/x").as_deref(), Some("/home/ana/x"));
        assert_eq!(n("///home/ana/x").as_deref(), Some("/home/ana/x"));
        assert_eq!(n("//home/ana/x").as_deref(), Some("/home/ana/x"));
        assert!(may_hold(b"///home/ana/x"));
        assert_eq!(n("/home/./ana/x").as_deref(), Some("/home/ana/x"));
        assert_eq!(n("/home/../home/ana/x").as_deref(), Some("/home/ana/x"));
        assert_eq!(n("/usr/home/ana/x").as_deref(), Some("/home/ana/x"));
        assert_eq!(n("/var/home/ana/x").as_deref(), Some("/home/ana/x"));
        assert_eq!(
            n(r"\\wsl$\Ubuntu\home\ana\x").as_deref(),
            Some("/home/ana/x")
        );
        assert_eq!(
            n(r"\\wsl.localhost\Debian\home\ana").as_deref(),
            Some("/home/ana")
        );
        assert_eq!(
            n("vscode-remote://ssh-remote+box/home/ana/x").as_deref(),
            Some("/home/ana/x")
        );
        assert_eq!(n("sftp://box/home/ana/x").as_deref(), Some("/home/ana/x"));
        assert_eq!(n("smb://box/Users/ana/x").as_deref(), Some("/Users/ana/x"));
        assert_eq!(n("file://box/home/ana/x").as_deref(), Some("/home/ana/x"));
        assert_eq!(n("/c/Users/ana/x").as_deref(), Some("C:/Users/ana/x"));
        assert_eq!(n("/cygdrive/d/Users/ana").as_deref(), Some("D:/Users/ana"));
        assert_eq!(n(r"C:\Users\.\ana\x").as_deref(), Some("C:/Users/ana/x"));
        assert_eq!(
            n(r"C:\Windows\..\Users\ana").as_deref(),
            Some("C:/Users/ana")
        );
    }

    #[test]
    fn plain_and_relative_paths_and_urls_are_left_alone() {
        for t in [
            "/home/ana/x",
            "../../data/x",
            "https://example.com/a/b",
            "a/b/",
            "/",
        ] {
            assert_eq!(normalise(t), None, "{t}");
        }
    }
}
