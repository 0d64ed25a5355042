//! Redaction is a property: for every planted value, no byte-for-byte copy appears in
//! the JSON, human or SARIF report, nor on stderr with logging at its most verbose.

use crate::util::*;
use std::io::Write;

const PLANTED: &[&str] = &[
    "ion.popescu@gmail.com",
    "ana.silva@outlook.pt",
    "radu.marin@yahoo.com",
    "AKIAPYCDYBK377OXTZQ6",
    "ghp_BRkirAgsXOhyl9F6sn23DSp8kVzjliKE1Quf",
    "Xk9#mP2vLq",
    "sk_live_pwdmnu4LEqCI9jsl6OUmbXzY",
    "/home/jdoe/evals/run.py",
    "C:\\Users\\ana\\reports\\q3.docx",
    "gpu-17.ml.internal",
    "db.acme.lan",
    "10.0.3.17",
    "+40 721 234 567",
    "4111 1111 1111 1111",
    "GB82 WEST 1234 5698 7654 32",
    "536-22-1844",
    "1800101221144",
    "Globex",
];

fn plant(dir: &std::path::Path) {
    let text = PLANTED.join("\n");
    std::fs::write(dir.join("notes.txt"), &text).expect("write");
    let json = serde_json::json!({ "values": PLANTED, "Globex": "key is a denylisted term" });
    std::fs::write(dir.join("values.json"), json.to_string()).expect("write");
    let lines: Vec<String> = PLANTED
        .iter()
        .map(|v| serde_json::json!({ "content": format!("see {v} here") }).to_string())
        .collect();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(lines.join("\n").as_bytes()).expect("gzip");
    std::fs::write(dir.join("run.jsonl.gz"), gz.finish().expect("gzip")).expect("write");
    std::fs::write(dir.join("deny.txt"), "# client names\nGlobex\n").expect("write");
    std::fs::write(
        dir.join("privacy-audit.toml"),
        "[privacy]\ndenylist_files = [\"deny.txt\"]\n[scan]\nexclude = [\"privacy-audit.toml\", \"deny.txt\"]\n",
    )
    .expect("write");
}

#[test]
fn no_output_holds_a_planted_value() {
    let home = tempfile::tempdir().expect("tempdir");
    let data = tempfile::tempdir().expect("tempdir");
    plant(data.path());
    let config = data.path().join("privacy-audit.toml");
    let config = config.to_string_lossy();
    let root = data.path().to_string_lossy();
    let mut outputs = Vec::new();
    for format in ["json", "human", "sarif"] {
        let run = run(
            home.path(),
            &[
                "-vvv",
                "--config",
                &config,
                "scan",
                "--no-progress",
                "--format",
                format,
                &root,
            ],
        );
        assert_eq!(run.code, 1, "{format}: {}", run.stderr);
        outputs.push((format, run.stdout, run.stderr));
    }
    let report: serde_json::Value = serde_json::from_str(&outputs[0].1).expect("json");
    let cats: Vec<&str> = report["findings"]
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|f| f["category"].as_str())
        .collect();
    for c in [
        "email",
        "secret",
        "local_path",
        "hostname",
        "ip_address",
        "pii",
        "denylist",
    ] {
        assert!(cats.contains(&c), "planted {c} was not found: {cats:?}");
    }
    for (format, stdout, stderr) in &outputs {
        for v in PLANTED {
            assert!(!stdout.contains(v), "{format} report leaks a planted value");
            assert!(!stderr.contains(v), "{format} logs leak a planted value");
        }
    }
}

/// A key that is itself a leak must not reach a report through the pointer of a format
/// or provenance finding.
#[test]
fn keys_in_the_pointers_of_audit_findings_are_masked() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    let doc = serde_json::json!({
        "ion.popescu@gmail.com": {"trace_hash": "sha256:abc123..."},
        "AKIAPYCDYBK377OXTZQ6": {"stop_entities_hash": "sha256:ABCD"}
    });
    std::fs::write(dir.path().join("meta.json"), doc.to_string()).expect("write");
    let r = scan_json(home.path(), dir.path(), &[]);
    let pointers: Vec<String> = findings(&r.json())
        .into_iter()
        .filter(|f| f.4 == "provenance")
        .filter_map(|f| f.3)
        .collect();
    assert_eq!(pointers.len(), 2, "{}", r.stdout);
    for text in [r.stdout.as_str(), r.stderr.as_str()] {
        assert!(!text.contains("ion.popescu@gmail.com"));
        assert!(!text.contains("AKIAPYCDYBK377OXTZQ6"));
    }
}

/// The daemon's trail (every report, `audit.jsonl`) and its own log at trace level hold
/// no planted value either.
#[test]
fn the_daemon_trail_and_its_trace_log_hold_no_planted_value() {
    let env = vec![("RUST_LOG".to_string(), "trace".to_string())];
    let d = daemon::Daemon::start_with_env(tempfile::tempdir().expect("tmp"), "", env);
    plant(&d.data());
    for name in ["notes.txt", "values.json", "run.jsonl.gz"] {
        assert!(!d.wait_verdict(name).is_empty(), "{name} has findings");
    }
    // The log line follows its report: wait for it rather than race it.
    d.wait_for("the audit log", || {
        d.reports_dir().join("audit.jsonl").exists()
    });
    let mut outputs = vec![("daemon log".to_string(), d.log())];
    let macs = std::fs::read_dir(d.reports_dir().join("macs")).expect("macs");
    for entry in std::fs::read_dir(d.reports_dir())
        .expect("reports")
        .chain(macs)
    {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read");
        outputs.push((path.display().to_string(), text));
    }
    assert!(outputs.iter().any(|(p, _)| p.ends_with("audit.jsonl")));
    assert!(
        outputs[0].1.contains("TRACE") || outputs[0].1.contains("DEBUG"),
        "verbose log"
    );
    for (what, text) in &outputs {
        for v in PLANTED {
            assert!(!text.contains(v), "{what} leaks a planted value");
        }
    }
}
