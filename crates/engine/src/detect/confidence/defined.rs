//! Users the data creates for itself. An operating-system task that runs
//! `useradd -m jack` or `mkdir -p /home/jack/docs` and then works in `/home/jack`
//! names the task's account, not a person's: the data defined the name before using
//! it. Read from shell commands in the text: `useradd` and `adduser`; and entries the
//! data makes right under a home root (`mkdir`, `touch`, `mv`, `cp`, a `>`
//! redirection), which are its own folders and files.
//!
//! Using a path is not defining it: `cd /home/ana` or `echo x > /home/ana/notes.txt`
//! writes into a home that was already there.

use std::collections::HashSet;

/// Commands that create accounts (`usermod`, `chown`, `passwd` only change one that
/// was there before).
const ACCOUNT_COMMANDS: &[&[u8]] = &[b"useradd", b"adduser"];

/// Adds to `out` every account the shell commands in `text` create.
pub fn created_users(text: &[u8], out: &mut HashSet<String>) {
    for cmd in ACCOUNT_COMMANDS {
        for at in memchr::memmem::find_iter(text, cmd) {
            if at > 0 && text[at - 1].is_ascii_alphanumeric() {
                continue;
            }
            let args = command_args(&text[at + cmd.len()..]);
            // `adduser sarah jake` adds a user to a group: both are the data's.
            let mut tokens = args
                .split(|b| b.is_ascii_whitespace())
                .map(trim_quotes)
                .filter(|t| !t.is_empty());
            while let Some(arg) = tokens.next() {
                if matches!(arg, b"-d" | b"--home" | b"--home-dir") {
                    if let Some(user) = tokens.next().and_then(home_user) {
                        insert(out, user);
                    }
                    continue;
                }
                if arg.starts_with(b"-") {
                    continue;
                }
                if is_account_name(arg) {
                    insert(out, arg);
                }
            }
        }
    }
    // `mkdir -p /home/jack/docs`, `touch /home/notes`, `echo x > /home/out.txt`,
    // `mv a /home/b`: a folder or file the data makes under a home root.
    for cmd in [&b"mkdir"[..], b"touch", b"mv", b"cp"] {
        for at in memchr::memmem::find_iter(text, cmd) {
            if at > 0 && text[at - 1].is_ascii_alphanumeric() {
                continue;
            }
            // `mkdir -p` makes every folder on the way; the others make the last.
            let deep = cmd == b"mkdir";
            for arg in command_args(&text[at + cmd.len()..]).split(|b| b.is_ascii_whitespace()) {
                if let Some(made) = home_entry(trim_quotes(arg), deep) {
                    insert_expanded(out, made);
                }
            }
        }
    }
    for at in memchr::memchr_iter(b'>', text) {
        let rest = &text[at + 1..];
        let rest = rest.strip_prefix(b">").unwrap_or(rest);
        let start = rest.iter().position(|b| *b != b' ').unwrap_or(rest.len());
        let arg = rest[start..]
            .split(|b| b.is_ascii_whitespace() || matches!(b, b';' | b'&' | b'|'))
            .next()
            .unwrap_or_default();
        if let Some(made) = home_entry(trim_quotes(arg), false) {
            insert_expanded(out, made);
        }
    }
}

/// `/home/<entry>`: the entry right under a home root, whatever its name; with
/// `deep`, also when the path goes on below it.
fn home_entry(arg: &[u8], deep: bool) -> Option<&[u8]> {
    let rest = arg
        .strip_prefix(b"/home/")
        .or_else(|| arg.strip_prefix(b"/Users/"))?;
    // `cp a /home/ana/` copies into a home that was there.
    if rest.ends_with(b"/") && !deep {
        return None;
    }
    let rest = rest.strip_suffix(b"/").unwrap_or(rest);
    let mut parts = rest.split(|&b| b == b'/');
    let entry = parts.next().filter(|e| !e.is_empty())?;
    (deep || parts.next().is_none()).then_some(entry)
}

/// Inserts `name`, and each name a shell brace range spells (`dir{1..3}`).
fn insert_expanded(out: &mut HashSet<String>, name: &[u8]) {
    let Ok(name) = std::str::from_utf8(name) else {
        return;
    };
    let expanded = name.split_once('{').and_then(|(head, rest)| {
        let (range, tail) = rest.split_once('}')?;
        let (a, b) = range.split_once("..")?;
        let (a, b): (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
        (a <= b && b - a < 100).then(|| {
            (a..=b)
                .map(|i| format!("{head}{i}{tail}"))
                .collect::<Vec<_>>()
        })
    });
    match expanded {
        Some(names) => out.extend(names),
        None => {
            out.insert(name.to_string());
        }
    }
}

/// The arguments of a command: up to the next `&&`, `;`, `|`, newline or backtick.
fn command_args(rest: &[u8]) -> &[u8] {
    let end = rest
        .iter()
        .position(|b| matches!(b, b'&' | b';' | b'|' | b'\n' | b'`' | b')' | b'>'))
        .unwrap_or(rest.len())
        .min(200);
    &rest[..end]
}

fn trim_quotes(arg: &[u8]) -> &[u8] {
    let is_quote = |b: &u8| matches!(b, b'"' | b'\'' | b'\\');
    let start = arg.iter().position(|b| !is_quote(b)).unwrap_or(arg.len());
    let end = arg
        .iter()
        .rposition(|b| !is_quote(b))
        .map_or(start, |i| i + 1);
    &arg[start..end.max(start)]
}

/// `/home/<user>…` or `~<user>…`: the user.
fn home_user(arg: &[u8]) -> Option<&[u8]> {
    let rest = arg
        .strip_prefix(b"/home/")
        .or_else(|| arg.strip_prefix(b"/Users/"))
        .or_else(|| arg.strip_prefix(b"~").filter(|r| !r.starts_with(b"/")))?;
    let user = rest.split(|&b| b == b'/').next()?;
    is_account_name(user).then_some(user)
}

/// What `useradd` accepts as a name: a letter or `_`, then letters, digits, `_.-`.
fn is_account_name(s: &[u8]) -> bool {
    !s.is_empty()
        && s.len() <= 32
        && (s[0].is_ascii_alphabetic() || s[0] == b'_')
        && s.iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

fn insert(out: &mut HashSet<String>, user: &[u8]) {
    if let Ok(u) = std::str::from_utf8(user) {
        out.insert(u.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn users(text: &str) -> Vec<String> {
        let mut out = HashSet::new();
        created_users(text.as_bytes(), &mut out);
        let mut v: Vec<String> = out.into_iter().collect();
        v.sort();
        v
    }

    #[test]
    fn accounts_a_task_creates() {
        assert_eq!(
            users("useradd -s /bin/bash -d /home/jack -m jack && cd /home/jack && ls"),
            ["jack"]
        );
        assert_eq!(users("adduser sarah jake"), ["jake", "sarah"]);
        assert_eq!(
            users("chown mark:users /home/mark/a.txt"),
            Vec::<String>::new()
        );
        assert_eq!(users("usermod -aG docker ana"), Vec::<String>::new());
        assert_eq!(users("cp id_rsa.pub /home/ana/"), Vec::<String>::new());
        assert_eq!(
            users("mkdir -p /home/student/test_dir && touch x"),
            ["student"]
        );
        assert_eq!(users("echo 'x' > /home/notes.txt"), ["notes.txt"]);
        assert_eq!(users("mkdir -p /home/dir{1..2}"), ["dir1", "dir2"]);
        assert_eq!(users("mv /home/john /home/john_old"), ["john", "john_old"]);
        assert_eq!(users("cd /home/ana && python run.py"), Vec::<String>::new());
        assert_eq!(
            users("echo 'x' > /home/ana/notes.txt"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn words_that_only_hold_a_command_name_are_not_commands() {
        assert_eq!(users("mybuseradd jack"), Vec::<String>::new());
        assert_eq!(users("the passwd file of /home/ana"), Vec::<String>::new());
    }
}
