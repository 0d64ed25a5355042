//! Rules run only in windows around their keywords and trigger bytes, and the keyword
//! pass walks big texts in four lanes. These tests plant values where a windowing or
//! lane bug would lose them: on lane borders, at the ends of units and text chunks, on
//! a multi-megabyte line with no newline, and next to many decoy keywords.

use crate::util::*;
use std::collections::BTreeMap;

const PLANTS: &[(&str, &str)] = &[
    ("contact ion.popescu@gmail.com now", "email.address"),
    ("key AKIAPYCDYBK377OXTZQ6 here", "secret.aws_access_key_id"),
    ("peer 10.0.3.17 port", "ip.v4"),
    ("saved /home/jdoe/run.json ok", "local_path.posix_home"),
    ("host gpu-17.ml.internal up", "hostname.internal"),
    ("call +40 721 234 567 today", "pii.phone_international"),
    ("ssn 536-22-8391 filed", "pii.us_ssn"),
    (
        "api_key = \"Zk8qLm2Np4Rs6Tv8Xz0Bc3De5Fg7Hj9K\" set",
        "secret.generic_api_key",
    ),
];

fn counts(report: &serde_json::Value) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for f in findings(report) {
        *out.entry(f.5).or_insert(0) += 1;
    }
    out
}

/// The JSON report of a scan of one file named `name` holding `content`.
fn scan_one(name: &str, content: &str) -> serde_json::Value {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join(name), content).expect("write");
    let home = tempfile::tempdir().expect("tempdir");
    scan_json(home.path(), dir.path(), &[]).json()
}

/// Filler that is full of keywords and digits the rules must wade through.
fn filler(len: usize, newlines: bool) -> String {
    let words = [
        "token",
        "secret",
        "key",
        "pass",
        "task",
        "risk",
        "sha256",
        "v1.2.3",
        "2026-01-02",
        "case/0042",
        "value",
        "the",
        "model",
    ];
    let mut s = String::new();
    let mut i = 0usize;
    while s.len() < len {
        s.push_str(words[i % words.len()]);
        s.push(if newlines && i % 9 == 8 { '\n' } else { ' ' });
        i += 1;
    }
    s.truncate(len);
    s
}

/// Plants the values at many offsets, including just before each MiB, where the four
/// keyword lanes of a 4 MiB text chunk and the chunk itself are cut.
fn plant_everywhere(newlines: bool) -> (String, BTreeMap<String, usize>) {
    let mut text = String::new();
    let mut want: BTreeMap<String, usize> = BTreeMap::new();
    // Every 60 KiB, plus a few bytes before each MiB: lane borders of a 4 MiB text
    // chunk, the chunk border itself and the 1 MiB unit flushes.
    let mut targets: Vec<usize> = (0usize..(5 << 20)).step_by(61_440).collect();
    targets.extend((1..5).map(|k| (k << 20) - 12));
    targets.sort_unstable();
    for (k, target) in targets.into_iter().enumerate() {
        let gap = target.saturating_sub(text.len());
        text.push_str(&filler(gap, newlines));
        let (plant, rule) = PLANTS[k % PLANTS.len()];
        text.push(' ');
        text.push_str(plant);
        text.push(' ');
        *want.entry(rule.to_string()).or_insert(0) += 1;
    }
    (text, want)
}

#[test]
fn values_on_lane_and_chunk_borders_are_found_in_text_with_lines() {
    let (text, want) = plant_everywhere(true);
    let report = scan_one("notes.md", &text);
    assert_eq!(counts(&report), want);
}

#[test]
fn values_on_one_five_megabyte_line_are_found() {
    let (text, want) = plant_everywhere(false);
    assert!(!text.contains('\n'));
    let report = scan_one("one-line.txt", &text);
    assert_eq!(counts(&report), want);
}

#[test]
fn values_in_jsonl_strings_across_unit_flushes_are_found() {
    let mut out = String::new();
    let mut want: BTreeMap<String, usize> = BTreeMap::new();
    for i in 0..12_000 {
        let mut text = filler(300, false);
        if i % 97 == 0 {
            let (plant, rule) = PLANTS[(i / 97) % PLANTS.len()];
            text.push_str(plant);
            *want.entry(rule.to_string()).or_insert(0) += 1;
        }
        out.push_str(&serde_json::json!({"id": i, "text": text}).to_string());
        out.push('\n');
    }
    assert!(out.len() > 3 << 20, "spans several 1 MiB units");
    let report = scan_one("cases.jsonl", &out);
    assert_eq!(counts(&report), want);
}

/// `privacy-audit rules test` with `toml` as the only file of a rules folder the
/// configuration names.
fn rules_test(toml: &str) -> Run {
    let dir = tempfile::tempdir().expect("tempdir");
    let rules = dir.path().join("rules");
    std::fs::create_dir(&rules).expect("mkdir");
    std::fs::write(rules.join("mine.toml"), toml).expect("write");
    let config = dir.path().join("privacy-audit.toml");
    std::fs::write(&config, "[rules]\ndirs = [\"rules\"]\n").expect("write");
    let home = tempfile::tempdir().expect("tempdir");
    let cfg = config.to_string_lossy().into_owned();
    run(home.path(), &["--config", &cfg, "rules", "test"])
}

/// A rule's keywords must occur inside its match: `rules test` says so when an example
/// matches the regex but holds no keyword there, rather than passing a rule that a
/// scan would never run.
#[test]
fn rules_test_flags_a_keyword_outside_the_match() {
    let t = rules_test(
        r#"
[[rule]]
id = "custom.ticket"
category = "secret"
severity = "high"
description = "ticket number after the word ticket"
keywords = ["ticket"]
regex = '''ticket: (?P<value>T-\d{6})'''
examples.match = ["ticket: T-123456"]

[[rule]]
id = "custom.badge"
category = "secret"
severity = "high"
description = "badge number, keyword only in the surrounding text"
keywords = ["badge"]
regex = '''(?P<value>B-\d{6})'''
examples.match = ["badge no B-123456"]
"#,
    );
    assert_eq!(t.code, 1, "{}{}", t.stdout, t.stderr);
    let badge = t
        .stdout
        .lines()
        .find(|l| l.contains("custom.badge"))
        .expect("badge reported");
    assert!(badge.contains("keywords is inside the match"), "{badge}");
    assert!(!t.stdout.contains("custom.ticket"), "{}", t.stdout);
}

/// `assignment = true` is a promise the keyword check relies on: an example that
/// breaks it fails `rules test`, and a rule with no value group is refused at load,
/// naming its file.
#[test]
fn an_assignment_rule_is_held_to_its_promise() {
    let rule = |id: &str, regex: &str, example: &str| {
        format!(
            "[[rule]]\nid = \"{id}\"\ncategory = \"secret\"\nseverity = \"high\"\n\
             description = \"d\"\nkeywords = [\"ticket\"]\nassignment = true\n\
             regex = '''{regex}'''\nexamples.match = [\"{example}\"]\n"
        )
    };
    let kept = rule(
        "custom.kept",
        r"ticket_id: (?P<value>T-\d{6})",
        "ticket_id: T-123456",
    );
    let broken = rule(
        "custom.broken",
        r"ticket (?:no )?(?P<value>T-\d{6})",
        "ticket no T-123456",
    );
    let t = rules_test(&format!("{kept}\n{broken}"));
    assert_eq!(t.code, 1, "{}{}", t.stdout, t.stderr);
    assert!(t.stdout.contains("custom.broken"), "{}", t.stdout);
    assert!(!t.stdout.contains("custom.kept"), "{}", t.stdout);

    let valueless = rule("custom.valueless", r"ticket: T-\d{6}", "ticket: T-123456");
    let t = rules_test(&valueless);
    assert_eq!(t.code, 2, "{}{}", t.stdout, t.stderr);
    assert!(t.stderr.contains("mine.toml"), "{}", t.stderr);
    assert!(t.stderr.contains("`assignment` needs"), "{}", t.stderr);
}

/// Review findings: an empty first value shared its start with the next one (so the
/// next one's window was cut to nothing), and a greedy match running from one value
/// into its neighbour hid both values' own matches.
#[test]
fn neighbouring_and_empty_values_keep_their_matches() {
    let cases = [
        (r#"["", "+40 721 123 456"]"#, 1),
        (r#"["+40 721 123 456", "12 +44 20 7946 0958"]"#, 2),
        (
            r#"{"": "call +40 721 123 456", "b": "+44 20 7946 0958"}"#,
            2,
        ),
        // Adjacent values: the first match consumes the separator that the second
        // needs before it.
        (r#"["+40 721 123 456", "+44 20 7946 0958"]"#, 2),
        (r#"["call +40 721 123 456 +44 20 7946 0958 now"]"#, 2),
    ];
    for (doc, want) in cases {
        let report = scan_one("v.json", doc);
        let phones = findings(&report)
            .into_iter()
            .filter(|f| f.5 == "pii.phone_international")
            .count();
        assert_eq!(phones, want, "{doc}");
    }
}

/// A digit match may begin on the separator before its value (`(?:^|[^\w-])` consumes
/// it). The window of a neighbouring rule opened from that match must still reach into
/// the value: it was clamped to the key before it, and the SSN after the IP was lost.
#[test]
fn a_match_starting_on_a_separator_opens_windows_in_its_own_value() {
    for doc in [
        r#"{"k":"10.0.3.17 536-22-1844"}"#,
        r#"{"k":"10.0.3.17 (415) 867-5309"}"#,
    ] {
        let report = scan_one("v.json", doc);
        let rules: Vec<String> = findings(&report).into_iter().map(|f| f.5).collect();
        assert!(
            rules
                .iter()
                .any(|r| r == "pii.us_ssn" || r.starts_with("pii.phone")),
            "{doc}: {rules:?}"
        );
    }
}

/// A match consumes the byte after its value as a boundary; when the next value needs
/// that same byte before it (two numbers one space apart), both are still found.
#[test]
fn values_one_byte_apart_are_both_found() {
    for (name, doc, rule) in [
        ("a.txt", "ssn 536-22-1844 536-22-1845\n", "pii.us_ssn"),
        ("b.txt", "ip 10.0.3.17 10.0.3.18\n", "ip.v4"),
        ("c.json", r#"["536-22-1844", "536-22-1845"]"#, "pii.us_ssn"),
    ] {
        let report = scan_one(name, doc);
        let found = findings(&report)
            .into_iter()
            .filter(|f| f.5 == rule)
            .count();
        assert_eq!(found, 2, "{rule} in {name}");
    }
}

/// A rule's bounded gap (`Cookie:[^\n]{0,200}session…`) is searched first with the gap
/// open, which lets far more through, and windows can be far wider than the bound: the
/// rule as written must still decide. Each case is found with its parts close, and not
/// with them farther apart than the rule allows.
#[test]
fn a_gap_bound_holds_in_a_wide_window() {
    type Case = (&'static str, fn(usize) -> String);
    let cases: &[Case] = &[
        ("secret.session_cookie", |n| {
            format!(
                "Cookie: {}sessionid=Kq7vLm2x9ZtAbCdEf12345\n",
                "theme=dark; ".repeat(n)
            )
        }),
        ("secret.curl_user_password", |n| {
            format!(
                "curl https://api.example.org/v1 {}-u deploy:Zq8rT2vLx9Pw\n",
                "--header x ".repeat(n)
            )
        }),
        ("secret.connection_string_password", |n| {
            format!(
                "postgres://{}:Zq8rT2vLx9Pw@db.example.org:5432/app\n",
                "u".repeat(n * 7)
            )
        }),
    ];
    for (rule, make) in cases {
        let near = counts(&scan_one("near.txt", &make(4)));
        assert_eq!(near.get(*rule), Some(&1), "{rule} close: {near:?}");
        let far = counts(&scan_one("far.txt", &make(40)));
        assert_eq!(far.get(*rule), None, "{rule} beyond its bound: {far:?}");
    }
}

/// A long user name before the password (a service account, an encoded e-mail) does
/// not hide it: the user part of a URL or of `curl -u` runs to 256 bytes.
#[test]
fn a_long_user_name_does_not_hide_a_password() {
    for user in ["svc".repeat(30), "a".repeat(250)] {
        for (rule, line) in [
            (
                "secret.curl_user_password",
                format!("curl -u {user}:Zq8rT2vLx9Pw https://api.example.org\n"),
            ),
            (
                "secret.connection_string_password",
                format!("postgres://{user}:Zq8rT2vLx9Pw@db.example.org:5432/app\n"),
            ),
        ] {
            let found = counts(&scan_one("run.txt", &line));
            assert_eq!(
                found.get(rule),
                Some(&1),
                "{rule}, {}-byte user: {found:?}",
                user.len()
            );
        }
    }
}
