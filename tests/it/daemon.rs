//! The real daemon process on temp folders, driven with real files and real signals.
#![cfg(unix)]

use crate::util::daemon::{Daemon, write};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

#[test]
fn new_files_are_judged_and_new_folders_watched() {
    let mut d = Daemon::start("");
    write(
        &d.data().join("a.jsonl"),
        "{\"note\": \"mail ion.popescu@gmail.com\"}\n",
    );
    write(&d.data().join("clean.jsonl"), "{\"note\": \"fine\"}\n");
    // A folder made and filled at once: its files may predate its watch.
    write(
        &d.data().join("new/deeper/b.txt"),
        "host gpu-17.ml.internal\n",
    );
    assert_eq!(d.wait_verdict("a.jsonl"), vec!["email.address"]);
    assert_eq!(d.wait_verdict("clean.jsonl"), Vec::<String>::new());
    assert_eq!(
        d.wait_verdict("new/deeper/b.txt"),
        vec!["hostname.internal"]
    );
    // A folder moved in whole raises one rename event, not one per file.
    let staging = d.dir.path().join("staging/batch");
    write(&staging.join("c.txt"), "peer 10.0.3.17\n");
    std::fs::rename(&staging, d.data().join("batch")).expect("move in");
    assert_eq!(d.wait_verdict("batch/c.txt"), vec!["ip.v4"]);
    // Nothing in any output holds the value in full.
    let trail = std::fs::read_to_string(d.reports_dir().join("audit.jsonl")).expect("audit log");
    assert!(trail.contains("email.address"));
    for text in [trail, d.log()] {
        assert!(!text.contains("ion.popescu@gmail.com"));
    }
    // The journal names what each report judged.
    let log = d.log();
    assert!(
        log.lines()
            .any(|l| l.contains("report written") && l.contains("a.jsonl")),
        "{log}"
    );
    // A deletion is recorded.
    std::fs::remove_file(d.data().join("clean.jsonl")).expect("rm");
    let gone = d.data().join("clean.jsonl").to_string_lossy().into_owned();
    d.wait_for("the removal record", || {
        d.reports().iter().any(|r| {
            r["removed"]
                .as_array()
                .is_some_and(|a| a.iter().any(|x| x == gone.as_str()))
        })
    });
    d.signal(libc::SIGTERM);
    assert_eq!(d.wait_exit(), Some(0));
}

/// Written in pieces slower than nothing but faster than the debounce window: judged
/// once, complete.
#[test]
fn a_file_written_slowly_is_judged_once_and_whole() {
    let mut d = Daemon::start("");
    let path = d.data().join("slow.jsonl");
    let mut f = std::fs::File::create(&path).expect("create");
    let mut whole = String::new();
    for i in 0..8 {
        let line = if i == 7 {
            "{\"note\": \"last line mails ion.popescu@gmail.com\"}\n".to_string()
        } else {
            format!("{{\"i\": {i}}}\n")
        };
        std::io::Write::write_all(&mut f, line.as_bytes()).expect("write");
        whole.push_str(&line);
        std::thread::sleep(Duration::from_millis(120));
    }
    drop(f);
    assert_eq!(d.wait_verdict("slow.jsonl"), vec!["email.address"]);
    std::thread::sleep(Duration::from_millis(800));
    let name = path.to_string_lossy().into_owned();
    let entries: Vec<Value> = d
        .reports()
        .iter()
        .flat_map(|r| r["files"].as_array().cloned().unwrap_or_default())
        .filter(|f| f["path"] == name.as_str())
        .collect();
    assert_eq!(entries.len(), 1, "judged once");
    assert_eq!(entries[0]["bytes"], whole.len() as u64, "judged complete");
    d.signal(libc::SIGTERM);
    assert_eq!(d.wait_exit(), Some(0));
}

#[test]
fn sighup_reloads_and_a_broken_config_keeps_the_old_one() {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::write(dir.path().join("terms.txt"), "# none yet\n").expect("terms");
    let extra = "[privacy]\ndenylist_files = [\"terms.txt\"]\n";
    let mut d = Daemon::start_in(dir, extra);
    write(&d.data().join("one.txt"), "prepared for Zephyrion Labs\n");
    assert_eq!(d.wait_verdict("one.txt"), Vec::<String>::new());
    std::fs::write(d.dir.path().join("terms.txt"), "Zephyrion\n").expect("terms");
    d.signal(libc::SIGHUP);
    d.wait_for("the reload", || d.log().contains("reloaded"));
    write(&d.data().join("two.txt"), "prepared for Zephyrion Labs\n");
    assert_eq!(d.wait_verdict("two.txt"), vec!["denylist.term"]);
    // A broken config is refused; the daemon goes on with the one it has.
    std::fs::write(d.dir.path().join("config.toml"), "[daemon\nwatch = 3").expect("break");
    d.signal(libc::SIGHUP);
    d.wait_for("the failed reload", || d.log().contains("reload failed"));
    write(&d.data().join("three.txt"), "prepared for Zephyrion Labs\n");
    assert_eq!(d.wait_verdict("three.txt"), vec!["denylist.term"]);
    d.signal(libc::SIGTERM);
    assert_eq!(d.wait_exit(), Some(0));
}

/// kill -9 in the middle of a burst, then a restart: no partial report, the chain
/// verifies, and every file is judged exactly once across both runs. Then an edited
/// report is caught.
#[test]
fn crash_during_a_burst_then_restart_judges_each_file_once() {
    let mut d = Daemon::start("");
    let n = 3000;
    for i in 0..n {
        write(
            &d.data().join(format!("burst/f{i:05}.txt")),
            &format!("line {i}\n"),
        );
    }
    d.wait_for("a first report", || !d.reports().is_empty());
    d.signal(libc::SIGKILL);
    let _ = d.wait_exit();
    let leftovers: Vec<String> = std::fs::read_dir(d.reports_dir())
        .expect("reports")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| {
            !n.starts_with("report-")
                && n != "audit.jsonl"
                && n != "macs"
                && !n.starts_with(".report-")
        })
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    d.spawn();
    d.wait_for("every file judged", || d.judged().len() >= n);
    std::thread::sleep(Duration::from_millis(600));
    let mut paths: Vec<String> = d.judged().into_iter().map(|(p, _)| p).collect();
    let total = paths.len();
    paths.sort();
    paths.dedup();
    assert_eq!((paths.len(), total), (n, n), "each file exactly once");
    d.signal(libc::SIGTERM);
    assert_eq!(d.wait_exit(), Some(0));

    let bin = assert_cmd::cargo::cargo_bin("privacy-audit");
    let verify = |dir: &Path| {
        Command::new(&bin)
            .args(["report", "verify"])
            .arg(dir)
            .output()
            .expect("runs")
    };
    let ok = verify(&d.reports_dir());
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ok.stdout)
    );
    let first = d.reports_dir().join("report-0000000001.json");
    let text = std::fs::read_to_string(&first).expect("report");
    std::fs::write(
        &first,
        text.replacen("line", "LINE", 1)
            .replacen("\"bytes\": 7", "\"bytes\": 8", 1),
    )
    .expect("edit");
    let bad = verify(&d.reports_dir());
    assert_eq!(bad.status.code(), Some(1));
    let said = String::from_utf8_lossy(&bad.stdout);
    assert!(said.contains("report-0000000001.json: edited"), "{said}");
    // Put it back, then remove the newest report: the log still names it.
    std::fs::write(&first, text).expect("restore");
    assert_eq!(verify(&d.reports_dir()).status.code(), Some(0));
    let newest = d
        .reports()
        .last()
        .and_then(|r| r["sequence"].as_u64())
        .expect("a sequence");
    let newest = format!("report-{newest:010}.json");
    std::fs::remove_file(d.reports_dir().join(&newest)).expect("rm");
    let gone = verify(&d.reports_dir());
    assert_eq!(gone.status.code(), Some(1));
    let said = String::from_utf8_lossy(&gone.stdout);
    assert!(
        said.contains(&format!("{newest}: missing (removed)")),
        "{said}"
    );
}

#[test]
fn atomic_saves_are_judged_once_and_quarantine_moves_without_loss() {
    let mut d = Daemon::start("on_violation = \"quarantine\"\n");
    // An editor's save: write a temp file, rename it over the final name.
    let tmp = d.data().join(".save.tmp");
    let body = "{\"note\": \"mail ion.popescu@gmail.com\"}\n";
    write(&tmp, body);
    std::fs::rename(&tmp, d.data().join("saved.jsonl")).expect("rename");
    assert_eq!(d.wait_verdict("saved.jsonl"), vec!["email.address"]);
    let tmp_name = tmp.to_string_lossy().into_owned();
    assert!(
        d.judged().iter().all(|(p, _)| *p != tmp_name),
        "the temp name is never judged"
    );
    // Quarantine: moved out of the watched folder, byte for byte, and recorded.
    let report = d
        .reports()
        .into_iter()
        .find(|r| r["quarantined"].is_array())
        .expect("a report with the move");
    let to = PathBuf::from(report["quarantined"][0]["to"].as_str().expect("to"));
    assert!(!d.data().join("saved.jsonl").exists());
    assert_eq!(
        std::fs::read_to_string(&to).expect("quarantined copy"),
        body
    );
    d.signal(libc::SIGTERM);
    assert_eq!(d.wait_exit(), Some(0));
}

/// A file appended every 100 ms never settles: it is judged once it has been pending
/// `max_settle_ms`, while it is still growing.
#[test]
fn a_file_that_never_stops_growing_is_judged() {
    let mut d = Daemon::start("max_settle_ms = 1500\n");
    let path = d.data().join("grow.jsonl");
    write(&path, "{\"note\": \"mail ion.popescu@gmail.com\"}\n");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (path, stop) = (path.clone(), stop.clone());
        std::thread::spawn(move || {
            use std::io::Write;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                if let Ok(mut f) = std::fs::OpenOptions::new().append(true).open(&path) {
                    let _ = f.write_all(b"{\"note\": \"tick\"}\n");
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        })
    };
    let verdict = d.wait_verdict("grow.jsonl");
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let _ = writer.join();
    assert_eq!(verdict, vec!["email.address"]);
    d.signal(libc::SIGTERM);
    assert_eq!(d.wait_exit(), Some(0));
}

/// A write through a hard link outside the watched folders raises no event there; the
/// periodic reconcile walk finds the change.
#[test]
fn a_change_through_an_outside_hard_link_is_found_by_the_reconcile_walk() {
    let dir = tempfile::tempdir().expect("tmp");
    let outside = dir.path().join("outside.jsonl");
    write(&outside, "{\"note\": \"fine\"}\n");
    std::fs::create_dir_all(dir.path().join("data")).expect("data");
    std::fs::hard_link(&outside, dir.path().join("data/linked.jsonl")).expect("link");
    let mut d = Daemon::start_in(dir, "reconcile_secs = 1\n");
    assert_eq!(d.wait_verdict("linked.jsonl"), Vec::<String>::new());
    {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&outside)
            .expect("open outside");
        f.write_all(b"{\"note\": \"mail ion.popescu@gmail.com\"}\n")
            .expect("append");
    }
    d.wait_for("the change to be judged", || {
        d.verdict("linked.jsonl") == Some(vec!["email.address".to_string()])
    });
    assert!(d.log().contains("periodic reconcile"), "{}", d.log());
    d.signal(libc::SIGTERM);
    assert_eq!(d.wait_exit(), Some(0));
}

/// A name that is not UTF-8 is judged, reported with its bytes spelled out, and
/// quarantined like any other.
#[test]
fn a_name_that_is_not_utf8_is_judged_and_quarantined() {
    use std::os::unix::ffi::OsStrExt;
    let mut d = Daemon::start("on_violation = \"quarantine\"\n");
    let name = std::ffi::OsStr::from_bytes(b"odd\xff.jsonl");
    let path = d.data().join(name);
    std::fs::write(&path, "{\"note\": \"mail ion.popescu@gmail.com\"}\n").expect("write");
    let shown = format!("{}/odd\\xff.jsonl", d.data().display());
    d.wait_for("the quarantine of the odd name", || {
        d.reports().iter().any(|r| {
            r["quarantined"]
                .as_array()
                .is_some_and(|q| q.iter().any(|x| x["path"] == shown.as_str()))
        })
    });
    assert!(!path.exists(), "moved out of the watched folder");
    d.signal(libc::SIGTERM);
    assert_eq!(d.wait_exit(), Some(0));
}

/// The state folder names no file, not even reversibly (hex), and a folder removed
/// whole is still recorded file by file from the keyed state.
#[test]
fn the_state_names_no_file_and_a_removed_folder_is_recorded() {
    let mut d = Daemon::start("");
    let folder = "team-ionpopescu";
    let name = "ion.popescu@gmail.com.jsonl";
    write(&d.data().join(folder).join(name), "{\"note\": \"fine\"}\n");
    write(
        &d.data().join(folder).join("b.jsonl"),
        "{\"note\": \"fine\"}\n",
    );
    assert_eq!(
        d.wait_verdict(&format!("{folder}/b.jsonl")),
        Vec::<String>::new()
    );
    d.wait_for("the state", || {
        std::fs::read_dir(d.dir.path().join("state"))
            .map(|r| {
                r.flatten()
                    .any(|e| e.file_name().to_string_lossy().starts_with("index"))
            })
            .unwrap_or(false)
    });
    let hex = |s: &str| s.bytes().map(|b| format!("{b:02x}")).collect::<String>();
    for entry in std::fs::read_dir(d.dir.path().join("state"))
        .expect("state")
        .flatten()
    {
        let text = String::from_utf8_lossy(&std::fs::read(entry.path()).unwrap_or_default())
            .to_lowercase();
        for said in [
            name.to_string(),
            folder.to_string(),
            hex(name),
            hex(folder),
            hex("ionpopescu"),
        ] {
            assert!(!text.contains(&said), "{:?} holds {said}", entry.path());
        }
    }
    std::fs::remove_dir_all(d.data().join(folder)).expect("rm -r");
    d.wait_for("the removal record", || {
        d.reports().iter().any(|r| {
            r["removed"].as_array().is_some_and(|a| {
                a.iter()
                    .any(|x| x.as_str().is_some_and(|x| x.ends_with("b.jsonl")))
            })
        })
    });
    let removed: Vec<String> = d
        .reports()
        .iter()
        .flat_map(|r| r["removed"].as_array().cloned().unwrap_or_default())
        .filter_map(|x| x.as_str().map(str::to_string))
        .collect();
    assert_eq!(removed.len(), 2, "{removed:?}");
    assert!(
        removed.iter().all(|r| !r.contains("ion.popescu@gmail.com")),
        "{removed:?}"
    );
    d.signal(libc::SIGTERM);
    assert_eq!(d.wait_exit(), Some(0));
}
