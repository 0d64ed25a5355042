//! Provider credentials, every rule of `rules/providers*.toml` through the real binary:
//! each example found bare in a log line, assigned in a shell export, inside a JSON
//! string among escapes and inside base64; the `"name": "value"` form of a keyed rule
//! also as a real JSON member; and each placeholder-shaped negative not found.

use crate::util::*;
use std::collections::{BTreeMap, BTreeSet};

const FILES: [&str; 8] = [
    include_str!("../../rules/providers.toml"),
    include_str!("../../rules/providers-ai.toml"),
    include_str!("../../rules/providers-cloud.toml"),
    include_str!("../../rules/providers-code.toml"),
    include_str!("../../rules/providers-comms.toml"),
    include_str!("../../rules/providers-business.toml"),
    include_str!("../../rules/providers-near.toml"),
    include_str!("../../rules/providers-extra.toml"),
];

struct Rule {
    id: String,
    matches: Vec<String>,
    no_match: Vec<String>,
}

fn rules() -> Vec<Rule> {
    let strings = |v: &toml::Value| -> Vec<String> {
        v.as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect()
    };
    FILES
        .iter()
        .flat_map(|text| {
            let file: toml::Table = toml::from_str(text).expect("provider rules parse");
            file["rule"].as_array().expect("rules").clone()
        })
        .map(|r| Rule {
            id: r["id"].as_str().expect("id").to_string(),
            matches: strings(&r["examples"]["match"]),
            no_match: strings(&r["examples"]["no_match"]),
        })
        .collect()
}

/// Scans `lines` as one JSONL file: the rule ids found on each line (1-based).
fn found_by_line(lines: &[String]) -> BTreeMap<u64, BTreeSet<String>> {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    std::fs::write(dir.path().join("t.jsonl"), lines.join("\n")).expect("write");
    let report = scan_json(home.path(), dir.path(), &["--no-baseline"]).json();
    let mut out: BTreeMap<u64, BTreeSet<String>> = BTreeMap::new();
    for (_, line, _, _, _, id) in findings(&report) {
        out.entry(line).or_default().insert(id);
    }
    out
}

/// Every `(rule, example)` written one way per line; each must be found by its rule.
fn assert_each_found(way: &str, wrap: impl Fn(&str) -> String) {
    let rules = rules();
    let cases: Vec<(&str, &str)> = rules
        .iter()
        .flat_map(|r| r.matches.iter().map(move |m| (r.id.as_str(), m.as_str())))
        .collect();
    let lines: Vec<String> = cases.iter().map(|(_, m)| wrap(m)).collect();
    let found = found_by_line(&lines);
    let missed: Vec<&str> = cases
        .iter()
        .enumerate()
        .filter(|(i, (id, _))| !found.get(&(*i as u64 + 1)).is_some_and(|s| s.contains(*id)))
        .map(|(_, (id, _))| *id)
        .collect();
    assert!(missed.is_empty(), "{way}: not found by {missed:?}");
}

#[test]
fn there_are_at_least_150_provider_rules_each_with_examples() {
    let rules = rules();
    assert!(rules.len() >= 150, "{} provider rules", rules.len());
    for r in &rules {
        assert!(r.matches.len() >= 2, "{}: two positive examples", r.id);
        assert!(!r.no_match.is_empty(), "{}: a negative example", r.id);
    }
}

#[test]
fn found_in_a_log_line() {
    assert_each_found("log line", |m| serde_json::json!({ "log": m }).to_string());
}

#[test]
fn found_in_a_shell_export() {
    assert_each_found("export", |m| {
        serde_json::json!({ "cmd": format!("export SERVICE_CONFIG='{m}'") }).to_string()
    });
}

#[test]
fn found_among_json_escapes() {
    assert_each_found("escapes", |m| {
        serde_json::json!({ "out": format!("a\tb\n{m}\n\"done\"") }).to_string()
    });
}

#[test]
fn found_inside_base64() {
    use base64::Engine;
    assert_each_found("base64", |m| {
        let b64 = base64::engine::general_purpose::STANDARD.encode(format!("{m}\n"));
        serde_json::json!({ "attachment": b64 }).to_string()
    });
}

/// `"datadog_api_key": "…"` written as a real member of a record (not as text) is
/// still a credential: found by the provider's rule or the credential-field rules.
#[test]
fn keyed_examples_are_found_as_json_members() {
    let members: Vec<(String, String)> = rules()
        .iter()
        .flat_map(|r| r.matches.iter())
        .filter_map(|m| {
            let (k, v) = m.strip_prefix('"')?.split_once("\": \"")?;
            Some((k.to_string(), v.strip_suffix('"')?.to_string()))
        })
        .collect();
    assert!(members.len() >= 50, "{} keyed examples", members.len());
    let lines: Vec<String> = members
        .iter()
        .map(|(k, v)| serde_json::json!({ "env": { k: v } }).to_string())
        .collect();
    let found = found_by_line(&lines);
    let missed: Vec<&str> = members
        .iter()
        .enumerate()
        .filter(|(i, _)| {
            !found
                .get(&(*i as u64 + 1))
                .is_some_and(|s| s.iter().any(|id| id.starts_with("secret.")))
        })
        .map(|(_, (k, _))| k.as_str())
        .collect();
    assert!(missed.is_empty(), "members not found: {missed:?}");
}

#[test]
fn placeholder_negatives_are_not_found() {
    let rules = rules();
    let cases: Vec<(&str, &str)> = rules
        .iter()
        .flat_map(|r| r.no_match.iter().map(move |m| (r.id.as_str(), m.as_str())))
        .collect();
    let lines: Vec<String> = cases
        .iter()
        .map(|(_, m)| serde_json::json!({ "example": m }).to_string())
        .collect();
    let found = found_by_line(&lines);
    let flagged: Vec<(&str, &BTreeSet<String>)> = found
        .iter()
        .map(|(line, ids)| (cases[*line as usize - 1].0, ids))
        .collect();
    assert!(flagged.is_empty(), "placeholders flagged: {flagged:?}");
}

#[test]
fn placeholder_kinds_are_not_found() {
    let lines: Vec<String> = [
        "AKIAXXXXXXXXXXXXXXXX",
        "github_pat_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "xoxp-0000000000-0000000000-#####",
        "SLACK_TOKEN=xoxp-123-456-YourAccessTokenHere",
        "sk-ant-api03-abc123xyzabc123xyzabc123xyzabc123xyzabc123xyzabc123xyzabc123xyzabc123xyzabc123xyzabc123xyzAA",
        "sntryu_0000000000000000000000000000000000000000000000000000000000000000",
        "pplx-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "dckr_pat_abcdefghijklmnopqrstuvwxyza",
        "DD_API_KEY=<your-datadog-api-key>",
        "DD_API_KEY=${DATADOG_API_KEY}",
        "WANDB_API_KEY={{ secrets.WANDB_API_KEY }}",
        "OPENAI_API_KEY=sk-your-key-here",
        "api_key: changeme",
        "token = dummy-token-for-tests",
        "pcsk_aaaaa_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "HEROKU_API_KEY=00000000-0000-0000-0000-000000000000",
        "GITHUB_API_KEY=\nDYNATRACE_API_KEY=",
        "implementation 'io.jsonwebtoken:jjwt-jackson-extension:0.12.6'",
    ]
    .iter()
    .map(|v| serde_json::json!({ "example": v }).to_string())
    .collect();
    let found = found_by_line(&lines);
    let flagged: Vec<(&String, &BTreeSet<String>)> = found
        .iter()
        .map(|(line, ids)| (&lines[*line as usize - 1], ids))
        .collect();
    assert!(flagged.is_empty(), "placeholders flagged: {flagged:?}");
}

/// Each `near` rule's words and the value of its first example (`NAME=value`,
/// `"name": "value"`).
fn near_rules() -> Vec<(String, String, String)> {
    let value = regex::Regex::new(r#"[=:]\s*"?([^"\s]+)"?$"#).expect("regex");
    FILES
        .iter()
        .flat_map(|text| {
            let file: toml::Table = toml::from_str(text).expect("provider rules parse");
            file["rule"].as_array().expect("rules").clone()
        })
        .filter_map(|r| {
            let word = r.get("near")?.as_array()?.first()?.as_str()?.to_string();
            let example = r["examples"]["match"].as_array()?.first()?.as_str()?;
            let v = value.captures(example)?.get(1)?.as_str().to_string();
            Some((r["id"].as_str()?.to_string(), word, v))
        })
        .collect()
}

/// A log or a record names the service once and the key plainly after it: found by the
/// provider's rule. The same words with the value far from any credential name are not.
#[test]
fn found_when_the_provider_is_named_before_a_bare_credential_name() {
    let rules = near_rules();
    assert!(rules.len() >= 200, "{} near rules", rules.len());
    let forms: [fn(&str, &str) -> String; 3] = [
        |w, v| {
            format!("[INFO] Sending request to the {w} API\n[DEBUG] Using Key={v}\n[INFO] 200 OK")
        },
        |w, v| format!("{{\"service\": \"{w}\", \"key\": \"{v}\"}}"),
        |w, v| format!("You can find a {w} secret {v} within"),
    ];
    for (n, form) in forms.iter().enumerate() {
        let lines: Vec<String> = rules
            .iter()
            .map(|(_, w, v)| serde_json::json!({ "log": form(w, v) }).to_string())
            .collect();
        let found = found_by_line(&lines);
        let missed: Vec<&str> = rules
            .iter()
            .enumerate()
            .filter(|(i, (id, _, _))| !found.get(&(*i as u64 + 1)).is_some_and(|s| s.contains(id)))
            .map(|(_, (id, _, _))| id.as_str())
            .collect();
        assert!(missed.is_empty(), "form {n}: not found by {missed:?}");
    }
    let far: Vec<String> = rules
        .iter()
        .map(|(_, w, v)| {
            let text = format!("{w} is named here, and only much later, in the data = '{v}'");
            serde_json::json!({ "log": text }).to_string()
        })
        .collect();
    let found = found_by_line(&far);
    let flagged: Vec<&str> = rules
        .iter()
        .enumerate()
        .filter(|(i, (id, _, _))| found.get(&(*i as u64 + 1)).is_some_and(|s| s.contains(id)))
        .map(|(_, (id, _, _))| id.as_str())
        .collect();
    assert!(
        flagged.is_empty(),
        "found with no credential name: {flagged:?}"
    );
}
