//! The daemon's audit trail against someone who can write the reports folder but not
//! the daemon's state: cutting the chain's front, wiping it, or rewriting it with the
//! findings removed is said by `report verify`, never passed quietly.
#![cfg(unix)]

use crate::util::daemon::{Daemon, write};
use sha2::{Digest, Sha256};
use std::path::Path;
use std::process::{Command, Output};

fn verify(d: &Daemon, keyed: bool) -> (Option<i32>, String) {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("privacy-audit"));
    c.current_dir(d.dir.path());
    // With the daemon's config, its state folder's key is found; without, no key is.
    if keyed {
        c.args(["--config", "config.toml"]);
    }
    let out: Output = c
        .args(["report", "verify", "reports"])
        .output()
        .expect("runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

/// A daemon that judged two files in two reports, then stopped.
fn two_reports() -> Daemon {
    let mut d = Daemon::start("");
    write(
        &d.data().join("a.jsonl"),
        "{\"note\": \"mail ion.popescu@gmail.com\"}\n",
    );
    assert_eq!(d.wait_verdict("a.jsonl"), vec!["email.address"]);
    write(&d.data().join("b.jsonl"), "{\"note\": \"fine\"}\n");
    assert_eq!(d.wait_verdict("b.jsonl"), Vec::<String>::new());
    d.signal(libc::SIGTERM);
    assert_eq!(d.wait_exit(), Some(0));
    d
}

fn audit_lines(d: &Daemon) -> Vec<serde_json::Value> {
    std::fs::read_to_string(d.reports_dir().join("audit.jsonl"))
        .expect("audit log")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

fn write_audit(d: &Daemon, lines: &[serde_json::Value]) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(d.reports_dir().join("audit.jsonl"), text).expect("write log");
}

#[test]
fn a_chain_cut_from_the_front_is_refused() {
    let d = two_reports();
    assert_eq!(verify(&d, true).0, Some(0), "{}", verify(&d, true).1);
    std::fs::remove_file(d.reports_dir().join("report-0000000001.json")).expect("rm");
    let lines: Vec<_> = audit_lines(&d)
        .into_iter()
        .filter(|l| l["report"] != "report-0000000001.json")
        .collect();
    write_audit(&d, &lines);
    let (code, said) = verify(&d, false);
    assert_eq!(code, Some(1), "{said}");
    assert!(said.contains("earlier reports were removed"), "{said}");
}

#[test]
fn a_wiped_chain_is_recorded_when_the_daemon_goes_on() {
    let mut d = two_reports();
    std::fs::remove_dir_all(d.reports_dir()).expect("wipe");
    d.spawn();
    write(&d.data().join("c.jsonl"), "{\"note\": \"later\"}\n");
    d.wait_verdict("c.jsonl");
    d.signal(libc::SIGTERM);
    assert_eq!(d.wait_exit(), Some(0));
    assert!(d.log().contains("reports vanished"), "{}", d.log());
    let (code, said) = verify(&d, true);
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains("recorded by the daemon") && said.contains("vanished"),
        "{said}"
    );
}

#[test]
fn a_chain_rewritten_without_its_findings_fails_the_keyed_check() {
    let d = two_reports();
    // Rewrite every report with its findings dropped, and the chain and log to match.
    let mut prev: Option<String> = None;
    let mut lines = Vec::new();
    for seq in 1..=2u64 {
        let name = format!("report-{seq:010}.json");
        let path = d.reports_dir().join(&name);
        let mut doc: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("json");
        doc["findings"] = serde_json::json!([]);
        doc["prev_report_sha256"] = prev.clone().map_or(serde_json::Value::Null, Into::into);
        let mut bytes = serde_json::to_vec_pretty(&doc).expect("json");
        bytes.push(b'\n');
        std::fs::write(&path, &bytes).expect("rewrite");
        let sha = hex(&Sha256::digest(&bytes));
        lines.push(serde_json::json!({"report": name, "sha256": sha, "files": 1, "findings": 0}));
        prev = Some(sha);
    }
    write_audit(&d, &lines);
    // Without the key the forgery passes, and verify says what it did not check.
    let (code, said) = verify(&d, false);
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("MACs NOT checked"), "{said}");
    // With the daemon's key it does not.
    let (code, said) = verify(&d, true);
    assert_eq!(code, Some(1), "{said}");
    assert!(
        said.contains("not vouched for by the daemon's key"),
        "{said}"
    );
    assert!(
        !Path::new(&d.reports_dir())
            .join("report-0000000003.json")
            .exists()
    );
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn a_chain_cut_at_its_end_is_refused_when_the_state_is_at_hand() {
    let d = two_reports();
    std::fs::remove_file(d.reports_dir().join("report-0000000002.json")).expect("rm");
    let _ = std::fs::remove_file(d.reports_dir().join("macs/report-0000000002.json.hmac"));
    let lines: Vec<_> = audit_lines(&d)
        .into_iter()
        .filter(|l| l["report"] != "report-0000000002.json")
        .collect();
    write_audit(&d, &lines);
    let (code, said) = verify(&d, true);
    assert_eq!(code, Some(1), "{said}");
    assert!(
        said.contains("the daemon's state records 2 reports"),
        "{said}"
    );
}

/// The trail covers its own log: `audit.jsonl` deleted, emptied, cut before a report's
/// anchor, or with a finding line removed or edited, fails `report verify`; the finding
/// lines are vouched for by their anchor, keyed.
#[test]
fn a_deleted_emptied_cut_or_edited_log_fails() {
    let d = two_reports();
    let log = d.reports_dir().join("audit.jsonl");
    let original = std::fs::read_to_string(&log).expect("log");
    assert_eq!(verify(&d, true).0, Some(0), "{}", verify(&d, true).1);
    let lines: Vec<&str> = original.lines().collect();
    let finding = lines
        .iter()
        .position(|l| l.contains("\"rule_id\""))
        .expect("a finding line");
    let edited = original.replacen("email.address", "email.spelled_out", 1);
    let dropped: String = lines
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != finding)
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    let cut: String = lines[..lines.len() - 1]
        .iter()
        .map(|l| format!("{l}\n"))
        .collect();
    for (what, text) in [
        ("emptied", Some(String::new())),
        ("deleted", None),
        ("cut", Some(cut)),
        ("a finding line removed", Some(dropped)),
        ("a finding line edited", Some(edited)),
    ] {
        match &text {
            Some(t) => std::fs::write(&log, t).expect("write"),
            None => std::fs::remove_file(&log).expect("rm"),
        }
        for keyed in [false, true] {
            let (code, said) = verify(&d, keyed);
            assert_eq!(code, Some(1), "{what} (keyed: {keyed}) passed: {said}");
        }
        std::fs::write(&log, &original).expect("restore");
    }
    assert_eq!(verify(&d, true).0, Some(0));
}
