//! Confidence from reasons that carry over, through the real binary: who wrote a value
//! (read from the record's shape), what the data defines for itself, the value's own
//! rules and its context; every finding names its reasons in `why`. And one decision
//! per table: a group per rule and pointer pattern, accepted with one `[[allow]]`.
//!
//! The records are written here in the shapes eval data takes (chat transcripts,
//! evaluation outputs, operating-system tasks, fixture tables), not copied from any
//! dataset.

use crate::util::git::{Sandbox, stderr};
use crate::util::*;
use serde_json::{Value, json};

/// `(pointer, rule, confidence, why)` of every finding, at `--min-confidence low`.
fn judged(dir: &std::path::Path) -> Vec<(String, String, String, Vec<String>)> {
    let home = tempfile::tempdir().expect("t");
    let run = scan_json(
        home.path(),
        dir,
        &["--no-baseline", "--min-confidence", "low"],
    );
    let report = run.json();
    report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            (
                f["json_pointer"].as_str().unwrap_or_default().to_string(),
                f["rule_id"].as_str().unwrap_or_default().to_string(),
                f["confidence"].as_str().unwrap_or_default().to_string(),
                f["why"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|w| w.as_str().map(str::to_string))
                    .collect(),
            )
        })
        .collect()
}

fn at<'a>(
    all: &'a [(String, String, String, Vec<String>)],
    pointer: &str,
    rule: &str,
) -> &'a (String, String, String, Vec<String>) {
    all.iter()
        .find(|f| f.0 == pointer && f.1 == rule)
        .unwrap_or_else(|| panic!("no {rule} at {pointer}: {all:?}"))
}

fn assert_judged(f: &(String, String, String, Vec<String>), confidence: &str, reason: &str) {
    assert_eq!(f.2, confidence, "{f:?}");
    assert!(f.3.iter().any(|w| w == reason), "{reason} not in {f:?}");
}

#[test]
fn who_wrote_a_value_decides_how_sure_it_is() {
    let dir = tempfile::tempdir().expect("t");
    let transcript = json!({"messages": [
        {"role": "user", "content": "Mail ana.popescu@contoso-labs.ro about the run."},
        {"role": "assistant", "content": "Write to mihai.ionescu@contoso-labs.ro or ana.popescu@contoso-labs.ro."},
        {"role": "tool", "content": "connected to 10.42.7.19 as deploy"}
    ]});
    let evaluation = json!({"instruction": "Draft a signature.", "generator": "some-model",
        "output": "Dr. Radu Vasile, radu.vasile@contoso-labs.ro, +1 (555) 867-5309"});
    write(dir.path(), "chat.jsonl", jsonl(&[transcript]));
    write(dir.path(), "outputs.json", json!([evaluation]).to_string());
    let all = judged(dir.path());
    // A person typed it: kept.
    assert_judged(
        at(&all, "/messages/0/content", "email.address"),
        "medium",
        "typed_by_user",
    );
    // A model invented one and repeated the user's own: the first low, the second kept.
    let model: Vec<_> = all
        .iter()
        .filter(|f| f.0 == "/messages/1/content" && f.1 == "email.address")
        .collect();
    assert_eq!(model.len(), 2, "{all:?}");
    assert!(
        model
            .iter()
            .any(|f| f.2 == "low" && f.3.contains(&"written_by_model".into()))
    );
    assert!(
        model
            .iter()
            .any(|f| f.2 == "medium" && f.3.contains(&"echoed".into()))
    );
    // A machine printed a private address: kept.
    assert_judged(
        at(&all, "/messages/2/content", "ip.v4"),
        "medium",
        "printed_by_machine",
    );
    // An evaluation record that names its generator: the output is the model's.
    assert_judged(
        at(&all, "/0/output", "email.address"),
        "low",
        "written_by_model",
    );
}

#[test]
fn users_the_data_creates_are_the_tasks_and_others_are_not() {
    let dir = tempfile::tempdir().expect("t");
    let tasks = json!([
        {"create": {"init": "useradd -m -d /home/jake jake && mkdir -p /home/examdata/in"},
         "question": "Which files in /home/jake/reports can sarah read? Count /home/examdata/in."},
        {"question": "Why does /home/tkowalski/runs/log.txt fail to open?"}
    ]);
    write(dir.path(), "tasks.json", tasks.to_string());
    let all = judged(dir.path());
    assert_judged(
        at(&all, "/0/question", "local_path.posix_home"),
        "low",
        "defined_in_record",
    );
    assert_judged(
        at(&all, "/1/question", "local_path.posix_home"),
        "medium",
        "user_segment",
    );
    // The task's own set-up script names its sandbox.
    let init = at(&all, "/0/create/init", "local_path.posix_home");
    assert_eq!(init.2, "low", "{init:?}");
}

#[test]
fn values_by_their_own_rules_and_their_context() {
    let dir = tempfile::tempdir().expect("t");
    let records = [
        json!({"text": "Call our desk at (555) 234-5678 or 212-555-0143."}),
        json!({"text": "Card 4111 1111 1111 1111 was declined."}),
        json!({"text": "Reach me on (702) 383-0281 after six."}),
        json!({"text": "Give the phone in international format, e.g. '+40 721 123 456'."}),
        json!({"text": "assert check_email(\"ana.popescu@gmail.com\") == 'ok'"}),
        json!({"text": "Patient: (555) 010-2233, mihai.ionescu@contoso-labs.ro"}),
    ];
    write(dir.path(), "values.jsonl", jsonl(&records));
    let all = judged(dir.path());
    let by_line = |needle: &str| {
        all.iter()
            .filter(|f| f.3.iter().any(|w| w == needle))
            .count()
    };
    assert!(
        by_line("invalid_number") + by_line("fiction_number") >= 2,
        "{all:?}"
    );
    assert_eq!(by_line("test_card"), 1, "{all:?}");
    assert_eq!(by_line("example_context"), 1, "{all:?}");
    assert_eq!(by_line("code_literal"), 1, "{all:?}");
    assert_eq!(by_line("fictional_record"), 1, "{all:?}");
    let real: Vec<_> = all.iter().filter(|f| f.2 != "low").collect();
    assert_eq!(real.len(), 1, "only the direct line stands: {real:?}");
}

fn fixture_table(n: usize) -> String {
    let users: Vec<Value> = (0..n)
        .map(|i| {
            json!({"name": format!("Customer {i}"),
                   "email": format!("c{i}.vasilescu@contoso-labs.ro"),
                   "city": "Cluj"})
        })
        .collect();
    json!({ "users": users }).to_string()
}

#[test]
fn a_table_is_one_group_shown_once_and_accepted_with_one_entry() {
    let s = Sandbox::new();
    let repo = s.repo();
    write(&repo, "db/users.json", fixture_table(30));
    write(
        &repo,
        "notes.json",
        r#"{"contact": "ana.popescu@contoso-labs.ro"}"#,
    );
    let out = s.bin(&repo, &["init", "--no-hook"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json_out = s.bin(&repo, &["scan", ".", "--format", "json", "--no-progress"]);
    let report: Value = serde_json::from_slice(&json_out.stdout).expect("json");
    let groups: std::collections::BTreeSet<&str> = report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["path"] == "db/users.json")
        .filter_map(|f| f["group"].as_str())
        .collect();
    assert_eq!(groups.len(), 1, "one table, one group: {report}");
    assert_eq!(
        report["summary"]["findings"], 31,
        "every occurrence is kept"
    );
    let human = s.bin(&repo, &["scan", ".", "--no-progress"]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.contains("+ 29 more at /users/*/email (30 distinct values)"),
        "{text}"
    );
    assert_eq!(text.matches("db/users.json:1:").count(), 1, "{text}");
    let out = s.bin(
        &repo,
        &[
            "allow",
            "db/users.json:1",
            "--rule",
            "email.address",
            "--group",
            "--reason",
            "fixture of fictional customers",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let config = std::fs::read_to_string(repo.join("privacy-audit.toml")).expect("config");
    let entries = config.lines().filter(|l| *l == "[[allow]]").count();
    assert_eq!(entries, 1, "{config}");
    assert!(config.contains("pointer = \"/users/*/email\""), "{config}");
    let after = s.bin(&repo, &["scan", ".", "--format", "json", "--no-progress"]);
    let report: Value = serde_json::from_slice(&after.stdout).expect("json");
    assert_eq!(report["summary"]["allowed"], 30, "{report}");
    // The entry holds for that table only: the other file's address still fails.
    assert_eq!(report["summary"]["findings"], 1, "{report}");
    assert_eq!(after.status.code(), Some(1));
    // A record added to the table later is the same decision.
    write(&repo, "db/users.json", fixture_table(40));
    std::fs::remove_file(repo.join("notes.json")).expect("rm");
    let grown = s.bin(&repo, &["scan", ".", "--format", "json", "--no-progress"]);
    assert_eq!(
        grown.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&grown.stdout)
    );
}

#[test]
fn low_hides_a_finding_it_does_not_lose_it() {
    let dir = tempfile::tempdir().expect("t");
    write(
        dir.path(),
        "t.json",
        json!([{"init": "useradd -m jack", "q": "ls /home/jack/docs"}]).to_string(),
    );
    let home = tempfile::tempdir().expect("t");
    let default = scan_json(home.path(), dir.path(), &["--no-baseline"]).json();
    assert_eq!(default["summary"]["findings"], 0, "{default}");
    assert_eq!(default["summary"]["below_min_confidence"], 1, "{default}");
    let all = judged(dir.path());
    assert_eq!(all.len(), 1, "{all:?}");
}
