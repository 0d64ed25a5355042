//! A git sandbox for the gate's tests: real repositories made with the git CLI in temp
//! dirs, with no user or system git config and an isolated key and cache.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub const SECRET_LINE: &str = "{\"note\": \"write to ion.popescu@gmail.com\"}\n";
pub const CLEAN_LINE: &str = "{\"note\": \"all clear\"}\n";

/// A sandbox: its own HOME (no user git config), fingerprint key and hash cache.
pub struct Sandbox {
    pub home: tempfile::TempDir,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        Sandbox {
            home: tempfile::tempdir().expect("home"),
        }
    }

    pub fn env(&self, c: &mut Command) {
        for (k, _) in std::env::vars_os() {
            if k.to_string_lossy().starts_with("GIT_") {
                c.env_remove(k);
            }
        }
        c.env("HOME", self.home.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .env("PRIVACY_AUDIT_KEY_FILE", self.home.path().join("key"))
            .env("PRIVACY_AUDIT_CACHE_DIR", self.home.path().join("cache"))
            .env("NO_COLOR", "1");
    }

    pub fn git(&self, dir: &Path, args: &[&str]) -> Output {
        let mut c = Command::new("git");
        self.env(&mut c);
        c.current_dir(dir).args(args).output().expect("git runs")
    }

    /// Runs git and insists it succeeded.
    pub fn ok(&self, dir: &Path, args: &[&str]) -> String {
        let out = self.git(dir, args);
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    pub fn bin(&self, dir: &Path, args: &[&str]) -> Output {
        let mut c = Command::new(assert_cmd::cargo::cargo_bin("privacy-audit"));
        self.env(&mut c);
        c.current_dir(dir).args(args).output().expect("binary runs")
    }

    pub fn repo(&self) -> PathBuf {
        let dir = self.home.path().join(format!("repo{}", rand_suffix()));
        std::fs::create_dir_all(&dir).expect("mkdir");
        self.ok(&dir, &["init", "-q", "-b", "main"]);
        dir
    }

    /// `git add .` then `git commit -qm <args...>`, insisting both succeed.
    pub fn commit_all(&self, dir: &Path, args: &[&str]) {
        self.ok(dir, &["add", "."]);
        let mut commit = vec!["commit", "-qm"];
        commit.extend_from_slice(args);
        self.ok(dir, &commit);
    }

    /// A bare repository to push to.
    pub fn bare(&self, name: &str) -> PathBuf {
        let dir = self.home.path().join(name);
        let path = dir.to_str().expect("utf-8 temp path");
        self.ok(
            self.home.path(),
            &["init", "-q", "--bare", "-b", "main", path],
        );
        dir
    }

    /// A bare repository whose `pre-receive` hook is the gate (with `extra` arguments).
    pub fn server(&self, name: &str, extra: &str) -> PathBuf {
        let remote = self.bare(name);
        let exe = assert_cmd::cargo::cargo_bin("privacy-audit");
        write(
            &remote,
            "hooks/pre-receive",
            format!(
                "#!/bin/sh\nexec '{}' hook run --pre-receive {extra}\n",
                exe.display()
            ),
        );
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            remote.join("hooks/pre-receive"),
            std::fs::Permissions::from_mode(0o755),
        )
        .expect("chmod");
        remote
    }

    pub fn installed_repo(&self) -> PathBuf {
        let dir = self.repo();
        let out = self.bin(&dir, &["hook", "install"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        dir
    }

    pub fn commits(&self, dir: &Path) -> usize {
        let out = self.git(dir, &["rev-list", "--count", "HEAD"]);
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .unwrap_or(0)
    }
}

pub fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

pub use super::write;

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
