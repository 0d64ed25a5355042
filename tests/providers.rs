//! Provider credentials by their own shape: each found bare, assigned in a shell
//! export, inside a JSON string among escapes, and inside base64; placeholders shaped
//! like them are not.

mod common;
use common::*;

/// (rule id, a bare synthetic token) for every rule of `rules/providers.toml`.
fn tokens() -> Vec<(String, String)> {
    let file: toml::Table =
        toml::from_str(include_str!("../rules/providers.toml")).expect("providers.toml");
    let rules = file["rule"].as_array().expect("rules");
    rules
        .iter()
        .map(|r| {
            let id = r["id"].as_str().expect("id").to_string();
            let bare = r["examples"]["match"][1]
                .as_str()
                .expect("bare")
                .to_string();
            (id, bare)
        })
        .collect()
}

fn found(lines: &[String]) -> Vec<String> {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    std::fs::write(dir.path().join("t.jsonl"), lines.join("\n")).expect("write");
    let report = scan_json(home.path(), dir.path(), &["--no-baseline"]).json();
    report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["rule_id"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn each_provider_token_is_found_four_ways() {
    use base64::Engine;
    let tokens = tokens();
    assert!(tokens.len() >= 28);
    for (id, token) in &tokens {
        let b64 = base64::engine::general_purpose::STANDARD.encode(format!("token={token}\n"));
        let ways = [
            serde_json::json!({ "log": format!("{token}") }).to_string(),
            serde_json::json!({ "cmd": format!("export SERVICE_TOKEN=\"{token}\"") }).to_string(),
            serde_json::json!({ "out": format!("a\tb\n{token}\n\"done\"") }).to_string(),
            serde_json::json!({ "attachment": b64 }).to_string(),
        ];
        for way in ways {
            let got = found(std::slice::from_ref(&way));
            assert!(
                got.contains(id),
                "{id} not found in {}",
                way.replace(token.as_str(), "<token>")
            );
        }
    }
}

#[test]
fn placeholders_shaped_like_tokens_are_not_found() {
    let lines: Vec<String> = [
        "AKIAXXXXXXXXXXXXXXXX",
        "github_pat_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "sntryu_0000000000000000000000000000000000000000000000000000000000000000",
        "pplx-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "dckr_pat_abcdefghijklmnopqrstuvwxyza",
        "PMAK-000000000000000000000000-0000000000000000000000000000000000",
        "whsec_0123456789abcdefghijklmnopqrstuvwxyz",
    ]
    .iter()
    .map(|v| serde_json::json!({ "example": v }).to_string())
    .collect();
    assert_eq!(found(&lines), Vec::<String>::new());
}
