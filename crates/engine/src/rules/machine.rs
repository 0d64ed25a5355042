//! What the machine the gate runs on knows about its own people: the local accounts
//! that have a home folder, its host name, and the git user's name and e-mail. A value
//! tied to one of these is a leak of *this* machine, whatever the placeholder
//! vocabulary says, so its confidence is raised to high.

// unsafe here: the accounts database is read through libc's getpwent.
#![allow(unsafe_code)]

use std::collections::HashSet;

#[derive(Debug, Default, Clone)]
pub struct Machine {
    /// Login names of accounts whose home is under `/home` or `/Users`.
    pub users: HashSet<String>,
    /// The host name, lowercased, and its first label.
    pub hosts: HashSet<String>,
    /// The git user's e-mail, lowercased.
    pub emails: HashSet<String>,
}

impl Machine {
    /// Reads the accounts database, the host name and the user's git identity.
    pub fn discover(git_configs: &[std::path::PathBuf]) -> Machine {
        let mut m = Machine {
            users: local_users(),
            ..Machine::default()
        };
        if let Some(host) = host_name() {
            let host = host.to_ascii_lowercase();
            if let Some((first, _)) = host.split_once('.') {
                m.hosts.insert(first.to_string());
            }
            m.hosts.insert(host);
        }
        if let Some(email) = git_user_email(git_configs) {
            m.emails.insert(email.trim().to_ascii_lowercase());
        }
        m
    }

    pub fn is_user(&self, name: &str) -> bool {
        self.users.contains(name)
    }
}

#[cfg(unix)]
fn local_users() -> HashSet<String> {
    // The accounts database is read through getpwent, which is not thread-safe: it is
    // read once, at start, before any worker thread exists.
    let mut out = HashSet::new();
    // SAFETY: setpwent/getpwent/endpwent are called in sequence on one thread; each
    // returned pointer is read (name and home copied) before the next call.
    unsafe {
        libc::setpwent();
        loop {
            let entry = libc::getpwent();
            if entry.is_null() {
                break;
            }
            let name = std::ffi::CStr::from_ptr((*entry).pw_name);
            let home = std::ffi::CStr::from_ptr((*entry).pw_dir);
            let home = home.to_bytes();
            if (home.starts_with(b"/home/") || home.starts_with(b"/Users/"))
                && let Ok(name) = name.to_str()
            {
                out.insert(name.to_string());
            }
        }
        libc::endpwent();
    }
    out
}

#[cfg(not(unix))]
fn local_users() -> HashSet<String> {
    HashSet::new()
}

fn host_name() -> Option<String> {
    let text = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .ok()?;
    let host = text.trim();
    (!host.is_empty() && host != "localhost").then(|| host.to_string())
}

/// `user.email` of the user's git configuration files, the last value winning as in
/// git: read as the INI they are, so the engine needs no git library.
fn git_user_email(files: &[std::path::PathBuf]) -> Option<String> {
    let mut email = None;
    for file in files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let mut in_user = false;
        for line in text.lines().map(str::trim) {
            if line.starts_with('[') {
                in_user = line
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .trim()
                    .eq_ignore_ascii_case("user");
            } else if in_user
                && let Some((key, value)) = line.split_once('=')
                && key.trim().eq_ignore_ascii_case("email")
            {
                email = Some(value.trim().trim_matches('"').to_string());
            }
        }
    }
    email
}
