//! The real daemon process on temp folders: start, signal, read its trail.
#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Daemon {
    pub dir: tempfile::TempDir,
    pub child: Option<Child>,
    /// Extra environment for the daemon process (e.g. a fake clock).
    pub env: Vec<(String, String)>,
}

impl Daemon {
    /// A daemon watching `<dir>/data` with its trail in `<dir>/reports`.
    pub fn start_in(dir: tempfile::TempDir, extra: &str) -> Daemon {
        Daemon::start_with_env(dir, extra, Vec::new())
    }

    pub fn start_with_env(
        dir: tempfile::TempDir,
        extra: &str,
        env: Vec<(String, String)>,
    ) -> Daemon {
        std::fs::create_dir_all(dir.path().join("data")).expect("data");
        let config = format!(
            "[daemon]\nwatch = [\"data\"]\nreports = \"reports\"\nstate = \"state\"\n\
             quarantine = \"quarantine\"\ndebounce_ms = 200\n{extra}"
        );
        std::fs::write(dir.path().join("config.toml"), config).expect("config");
        let mut d = Daemon {
            dir,
            child: None,
            env,
        };
        d.spawn();
        d
    }

    pub fn start(extra: &str) -> Daemon {
        Daemon::start_in(tempfile::tempdir().expect("tmp"), extra)
    }

    pub fn spawn(&mut self) {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.path().join("daemon.log"))
            .expect("log");
        let child = Command::new(assert_cmd::cargo::cargo_bin("privacy-audit"))
            .current_dir(self.dir.path())
            .args(["daemon", "--config", "config.toml"])
            .env_remove("RUST_LOG")
            .env("NOTIFY_SOCKET", "")
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdout(Stdio::null())
            .stderr(Stdio::from(log))
            .spawn()
            .expect("daemon starts");
        self.child = Some(child);
        let ready_count = self.log().matches(" ready ").count();
        self.wait_for("the daemon to be ready", || {
            self.log().matches(" ready ").count() > ready_count
        });
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("daemon.log")).unwrap_or_default()
    }

    pub fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    pub fn reports_dir(&self) -> PathBuf {
        self.dir.path().join("reports")
    }

    pub fn signal(&self, sig: i32) {
        let pid = self.child.as_ref().expect("running").id() as i32;
        // SAFETY: kill(2) on our own child's pid has no memory effects.
        assert_eq!(unsafe { libc::kill(pid, sig) }, 0);
    }

    pub fn wait_exit(&mut self) -> Option<i32> {
        let mut child = self.child.take().expect("running");
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = child.try_wait().expect("wait") {
                return status.code();
            }
            assert!(
                Instant::now() < deadline,
                "daemon did not exit: {}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Every report in the trail, oldest first.
    pub fn reports(&self) -> Vec<Value> {
        let mut names: Vec<PathBuf> = std::fs::read_dir(self.reports_dir())
            .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        names.retain(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("report-"))
        });
        names.sort();
        names
            .iter()
            .map(|p| serde_json::from_slice(&std::fs::read(p).expect("read")).expect("json"))
            .collect()
    }

    /// (path, rule ids) of every judged file across all reports.
    pub fn judged(&self) -> Vec<(String, Vec<String>)> {
        let mut out = Vec::new();
        for r in self.reports() {
            for f in r["files"].as_array().into_iter().flatten() {
                let path = f["path"].as_str().unwrap_or_default().to_string();
                let rules = r["findings"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|x| x["path"].as_str() == Some(&path))
                    .map(|x| x["rule_id"].as_str().unwrap_or_default().to_string())
                    .collect();
                out.push((path, rules));
            }
        }
        out
    }

    pub fn verdict(&self, name: &str) -> Option<Vec<String>> {
        let path = self.data().join(name);
        let path = path.to_string_lossy();
        self.judged()
            .into_iter()
            .rev()
            .find(|(p, _)| *p == path)
            .map(|(_, r)| r)
    }

    pub fn wait_for(&self, what: &str, mut done: impl FnMut() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !done() {
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}: {}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn wait_verdict(&self, name: &str) -> Vec<String> {
        let mut got = None;
        self.wait_for(name, || {
            got = self.verdict(name);
            got.is_some()
        });
        got.unwrap_or_default()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

pub fn write(path: &Path, text: &str) {
    if let Some(p) = path.parent() {
        std::fs::create_dir_all(p).expect("mkdir");
    }
    std::fs::write(path, text).expect("write");
}
