//! The daemon loses nothing when its report folder fills up or turns
//! read-only. The report folder is a real, tiny tmpfs: a full disk is a real ENOSPC and
//! a read-only remount a real EROFS, which root cannot write through either.
#![cfg(target_os = "linux")]

use crate::util::daemon::{Daemon, write};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Unmounts (after the daemon that uses it is gone) and removes what is left.
struct Tmpfs(PathBuf);

impl Tmpfs {
    /// `None` when this user may not mount (not root): the test says so and stops.
    fn mount(at: &Path, size: &str) -> Option<Tmpfs> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipped: mounting a tmpfs needs root");
            return None;
        }
        std::fs::create_dir_all(at).expect("mountpoint");
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(at)
            .status()
            .expect("mount runs");
        assert!(
            ok.success(),
            "root could not mount a tmpfs at {}",
            at.display()
        );
        Some(Tmpfs(at.to_path_buf()))
    }

    fn remount(&self, mode: &str) {
        let ok = Command::new("mount")
            .args(["-o", &format!("remount,{mode}")])
            .arg(&self.0)
            .status()
            .expect("mount runs");
        assert!(ok.success(), "remount {mode}");
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

fn fill(dir: &Path) -> PathBuf {
    let filler = dir.join("filler");
    let mut f = std::fs::File::create(&filler).expect("filler");
    let block = vec![0u8; 4096];
    while std::io::Write::write_all(&mut f, &block).is_ok() {}
    filler
}

/// Every line of `audit.jsonl` is whole JSON, and every report has its anchor line.
fn audit_is_whole(reports: &Path, count: usize) -> Vec<Value> {
    let text = std::fs::read_to_string(reports.join("audit.jsonl")).expect("audit.jsonl");
    assert!(text.ends_with('\n'), "no torn last line");
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("torn line {l:?}: {e}")))
        .collect();
    let anchors = lines.iter().filter(|l| l.get("sha256").is_some()).count();
    assert_eq!(anchors, count, "one anchor per report");
    lines
}

fn verify(dir: &Path) {
    let out = Command::new(assert_cmd::cargo::cargo_bin("privacy-audit"))
        .current_dir(dir)
        .args(["report", "verify", "reports"])
        .output()
        .expect("verify runs");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_full_then_read_only_report_folder_delays_reports_and_loses_nothing() {
    let dir = tempfile::tempdir().expect("tmp");
    let reports = dir.path().join("reports");
    let Some(fs) = Tmpfs::mount(&reports, "1m") else {
        return;
    };
    let d = Daemon::start_in(dir, "");
    write(
        &d.data().join("a.jsonl"),
        "{\"n\": \"ion.popescu@gmail.com\"}\n",
    );
    assert_eq!(d.wait_verdict("a.jsonl"), vec!["email.address"]);

    // Disk full: the batch fails and is retried, not dropped.
    let filler = fill(&reports);
    let errors = d.log().matches("cannot write the report").count();
    write(
        &d.data().join("b.jsonl"),
        "{\"n\": \"ana.ionescu@yahoo.com\"}\n",
    );
    write(&d.data().join("c.txt"), "nothing to see\n");
    d.wait_for("a failed report write", || {
        d.log().matches("cannot write the report").count() > errors
    });
    assert_eq!(d.verdict("b.jsonl"), None, "no report could be written");
    std::fs::remove_file(&filler).expect("free the space");
    assert_eq!(d.wait_verdict("b.jsonl"), vec!["email.address"]);
    assert_eq!(d.wait_verdict("c.txt"), Vec::<String>::new());

    // Read-only: the same, with EROFS.
    fs.remount("ro");
    let errors = d.log().matches("cannot write the report").count();
    write(
        &d.data().join("d.jsonl"),
        "{\"n\": \"mihai.pop@outlook.com\"}\n",
    );
    d.wait_for("a refused report write", || {
        d.log().matches("cannot write the report").count() > errors
    });
    fs.remount("rw");
    assert_eq!(d.wait_verdict("d.jsonl"), vec!["email.address"]);

    // Each file judged exactly once, the chain intact, the log whole.
    let mut judged: Vec<String> = d.judged().into_iter().map(|(p, _)| p).collect();
    judged.sort();
    let names: Vec<String> = ["a.jsonl", "b.jsonl", "c.txt", "d.jsonl"]
        .iter()
        .map(|n| d.data().join(n).to_string_lossy().into_owned())
        .collect();
    assert_eq!(judged, names);
    verify(d.dir.path());
    let lines = audit_is_whole(&reports, d.reports().len());
    let emails = lines
        .iter()
        .filter(|l| l["rule_id"] == "email.address")
        .count();
    assert_eq!(
        emails, 3,
        "one finding line per address, none lost, none twice"
    );
    drop(d);
    drop(fs);
}

/// A crash or a full disk can leave `audit.jsonl` with a torn last line and without the
/// lines of the newest report. The next report brings the log level: the torn line is
/// cut and the missing lines are rebuilt from the report on disk.
#[test]
fn a_torn_audit_log_is_repaired_and_caught_up_on_the_next_report() {
    let mut d = Daemon::start("");
    write(
        &d.data().join("a.jsonl"),
        "{\"n\": \"ion.popescu@gmail.com\"}\n",
    );
    assert_eq!(d.wait_verdict("a.jsonl"), vec!["email.address"]);
    d.signal(libc::SIGTERM);
    assert_eq!(d.wait_exit(), Some(0));
    let log = d.reports_dir().join("audit.jsonl");
    std::fs::write(&log, "{\"time\": \"2026-11-23T10:00").expect("tear the log");
    d.spawn();
    write(
        &d.data().join("b.jsonl"),
        "{\"n\": \"ana.ionescu@yahoo.com\"}\n",
    );
    assert_eq!(d.wait_verdict("b.jsonl"), vec!["email.address"]);
    let lines = audit_is_whole(&d.reports_dir(), d.reports().len());
    let emails = lines
        .iter()
        .filter(|l| l["rule_id"] == "email.address")
        .count();
    assert_eq!(emails, 2, "the first report's line was rebuilt");
    verify(d.dir.path());
}

/// A watched folder removed (its files recorded as removed) and made again is watched
/// anew: a file written into the new folder is judged.
#[test]
fn a_watched_folder_removed_and_recreated_is_watched_again() {
    let d = Daemon::start("");
    write(
        &d.data().join("a.jsonl"),
        "{\"n\": \"ion.popescu@gmail.com\"}\n",
    );
    assert_eq!(d.wait_verdict("a.jsonl"), vec!["email.address"]);
    std::fs::remove_dir_all(d.data()).expect("remove the watched folder");
    let a = d.data().join("a.jsonl").to_string_lossy().into_owned();
    d.wait_for("the removal to be recorded", || {
        d.reports().iter().any(|r| {
            r["removed"]
                .as_array()
                .is_some_and(|v| v.iter().any(|p| p.as_str() == Some(a.as_str())))
        })
    });
    std::fs::create_dir(d.data()).expect("recreate it");
    std::thread::sleep(std::time::Duration::from_millis(400));
    write(
        &d.data().join("b.jsonl"),
        "{\"n\": \"ana.ionescu@yahoo.com\"}\n",
    );
    assert_eq!(d.wait_verdict("b.jsonl"), vec!["email.address"]);
    verify(d.dir.path());
}

const FAKETIME: &str = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1";

/// The wall clock jumps back a month and then forward a year under the running daemon
/// (libfaketime; the monotonic clock is left alone, as NTP and suspend leave it).
/// Debouncing runs on the monotonic clock, so files are judged as usual; the chain is
/// ordered by sequence, not by time, so it still verifies. The report times show the
/// jumps really happened.
#[test]
fn clock_jumps_change_report_times_and_nothing_else() {
    if !Path::new(FAKETIME).exists() {
        eprintln!("skipped: libfaketime is not installed (.ci/run installs it)");
        return;
    }
    let dir = tempfile::tempdir().expect("tmp");
    let clock = dir.path().join("clock");
    std::fs::write(&clock, "+0\n").expect("clock");
    let env = vec![
        ("LD_PRELOAD".to_string(), FAKETIME.to_string()),
        (
            "FAKETIME_TIMESTAMP_FILE".to_string(),
            clock.to_string_lossy().into_owned(),
        ),
        ("FAKETIME_NO_CACHE".to_string(), "1".to_string()),
        ("FAKETIME_DONT_FAKE_MONOTONIC".to_string(), "1".to_string()),
    ];
    let d = Daemon::start_with_env(dir, "", env);
    for (name, offset) in [("a.jsonl", "+0"), ("b.jsonl", "-30d"), ("c.jsonl", "+365d")] {
        std::fs::write(&clock, format!("{offset}\n")).expect("jump");
        write(&d.data().join(name), "{\"n\": \"ion.popescu@gmail.com\"}\n");
        assert_eq!(d.wait_verdict(name), vec!["email.address"], "{name}");
    }
    let reports = d.reports();
    let when = |name: &str| -> String {
        let path = d.data().join(name).to_string_lossy().into_owned();
        reports
            .iter()
            .find(|r| {
                r["files"]
                    .as_array()
                    .is_some_and(|f| f.iter().any(|x| x["path"].as_str() == Some(&path)))
            })
            .and_then(|r| r["finished_at"].as_str())
            .unwrap_or_default()
            .to_string()
    };
    let (a, b, c) = (when("a.jsonl"), when("b.jsonl"), when("c.jsonl"));
    assert!(b < a, "the clock went back: {a} then {b}");
    assert!(c > a, "then forward: {c}");
    assert_eq!(d.judged().len(), 3, "each file judged once");
    verify(d.dir.path());
}
