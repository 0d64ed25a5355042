//! Evasion: spellings of a leak that a reader still reads as the leak. Each
//! case is one file; the test asserts the rule that must fire on it.

use crate::util::*;

fn rules_for(name: &str, content: &str) -> Vec<String> {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    std::fs::write(dir.path().join(name), content).expect("write");
    let r = scan_json(home.path(), dir.path(), &[]);
    assert!(
        !r.stdout.contains("ion.popescu@gmail.com"),
        "never printed in full"
    );
    findings(&r.json())
        .into_iter()
        .map(|(_, _, _, _, _, rule)| rule)
        .collect()
}

fn assert_caught(name: &str, content: &str, rule: &str) {
    let got = rules_for(name, content);
    assert!(
        got.iter().any(|r| r == rule),
        "{rule} not found in {content:?}: {got:?}"
    );
}

#[test]
fn values_split_by_json_escapes() {
    assert_caught(
        "a.json",
        r#"{"note": "ion.popescu\u0040gmail\u002ecom"}"#,
        "email.address",
    );
    assert_caught(
        "b.json",
        r#"{"p": "\/home\/jdoe\/runs\/x.json"}"#,
        "local_path.posix_home",
    );
}

#[test]
fn mixed_case_and_full_width_emails_and_hosts() {
    assert_caught("a.txt", "mail Ion.Popescu@GMAIL.COM\n", "email.address");
    assert_caught(
        "b.txt",
        "mail ｉｏｎ.ｐｏｐｅｓｃｕ＠ｇｍａｉｌ.ｃｏｍ\n",
        "email.address",
    );
    assert_caught("c.txt", "host GPU-17.ML.Internal\n", "hostname.internal");
    assert_caught(
        "d.json",
        "{\"h\": \"gpu-17．ml．ｉｎｔｅｒｎａｌ\"}",
        "hostname.internal",
    );
}

#[test]
fn zero_width_characters_inside_a_value() {
    assert_caught(
        "a.json",
        "{\"note\": \"ion.popescu@gm\u{200b}ail.com\"}",
        "email.address",
    );
    assert_caught(
        "b.txt",
        "key AKIA\u{200d}PYCDYBK377OXTZQ6\n",
        "secret.aws_access_key_id",
    );
    assert_caught(
        "c.txt",
        "saved /home/j\u{ad}doe/run.json\n",
        "local_path.posix_home",
    );
}

#[test]
fn windows_paths_with_forward_slashes_and_url_encoded_paths() {
    assert_caught(
        "a.txt",
        "saved C:/Users/jdoe/x.json\n",
        "local_path.windows",
    );
    assert_caught(
        "b.txt",
        "GET /download?f=%2Fhome%2Fjdoe%2Fdata.csv\n",
        "local_path.posix_home",
    );
    assert_caught(
        "c.json",
        r#"{"f": "C%3A%5CUsers%5Cjdoe%5Cx.json"}"#,
        "local_path.windows",
    );
}

#[test]
fn the_same_secret_in_a_key_instead_of_a_value() {
    assert_caught(
        "a.json",
        r#"{"AKIAPYCDYBK377OXTZQ6": "seen in a log"}"#,
        "secret.aws_access_key_id",
    );
    assert_caught(
        "b.json",
        r#"{"ion.popescu@gmail.com": {"role": "owner"}}"#,
        "email.address",
    );
}

#[test]
fn folding_adds_no_noise() {
    // Full-width text with nothing behind it, and a BOM at the start of a file.
    assert!(rules_for("a.txt", "\u{feff}ｈｅｌｌｏ　ｗｏｒｌｄ ＡＢＣ １２３\n").is_empty());
    assert!(rules_for("b.json", "{\"t\": \"ｓｅｅ ｅｘａｍｐｌｅ．ｃｏｍ\"}").is_empty());
}

/// A token broken at a fixed width inside one value (`\n` escapes, then indentation),
/// as tools do when they wrap keys and base64 blobs, is joined back and caught.
#[test]
fn secrets_wrapped_across_a_json_line_join() {
    assert_caught(
        "w.json",
        r#"{"log": "export GH=ghp_8mZq2LkP0vX7rT4nB9sW1c\n    Y6dF3hJ5gA0eR2 done"}"#,
        "secret.github_token",
    );
    assert_caught(
        "w.jsonl",
        "{\"key\": \"AKIAPYCDYBK377OX\\nTZQ6\"}\n",
        "secret.aws_access_key_id",
    );
    assert_caught(
        "w.md",
        "token ghp_8mZq2LkP0vX7rT4nB9sW1cY6dF3\nhJ5gA0eR2 in a wrapped note\n",
        "secret.github_token",
    );
    assert_caught(
        "crlf.md",
        "token ghp_8mZq2LkP0vX7rT4nB9sW1cY6dF3\r\nhJ5gA0eR2 in a CRLF note\r\n",
        "secret.github_token",
    );
    // Prose whose lines end in ordinary words is not joined into anything.
    let got = rules_for(
        "prose.md",
        "the evaluation harness records\nlatency and the model answer\n",
    );
    assert!(got.is_empty(), "{got:?}");
    // A path that ends a line is reported once, not again joined to the next line's
    // first word (the generated corpus had 35 such doubles among 1,277 findings).
    let got = rules_for(
        "paths.md",
        "the run was saved /home/jdoe/run.json\nundersample other multireport vector\n",
    );
    assert_eq!(got, ["local_path.posix_home"], "{got:?}");
    // The next line of a `.env` or YAML file is a setting of its own: each credential
    // is reported once, not again joined to the name that follows it.
    for (name, text) in [
        (".env", "API_KEY=q8ZrT2vLx9Wk4NpB7sYd\nDB_HOST=db\n"),
        ("c.yaml", "api_key: q8ZrT2vLx9Wk4NpB7sYd\nregion: eu\n"),
        (
            "c.properties",
            "api.key=q8ZrT2vLx9Wk4NpB7sYd\nspring.datasource.url = jdbc\n",
        ),
        // Base64 padding ends the token: the next line's first word is not more of it.
        (
            "t.txt",
            "token=dGhpcyBpcyBub3QgYSByZWFsIHRva2Vu==\nmysql -u ro\n",
        ),
    ] {
        let got = rules_for(name, text);
        assert_eq!(got, ["secret.generic_api_key"], "{name}: {got:?}");
    }
}

#[test]
fn control_characters_a_json_escape_hides_inside_a_value() {
    for (i, content) in [
        r#"{"note": "mail ion.popescu\u0000@gmail.com"}"#,
        r#"{"note": "mail ion.popescu@\u001fgmail.com"}"#,
        r#"{"note": "mail ion.pope\bscu@gmail.com"}"#,
    ]
    .iter()
    .enumerate()
    {
        assert_caught(&format!("c{i}.json"), content, "email.address");
    }
    assert_caught(
        "k.json",
        r#"{"k": "AKIAZ7QW3RT5\u0000YU2IOPLM"}"#,
        "secret.aws_access_key_id",
    );
}

#[test]
fn a_generic_host_word_under_a_private_suffix_is_no_host() {
    // How templates, docs and this tool's own rule ids spell "some host".
    for text in [
        "rule = \"hostname.internal\"\n",
        "see myhost.local for the setup\n",
    ] {
        assert!(rules_for("c.toml", text).is_empty(), "{text}");
    }
    assert_caught("h.txt", "ssh gpu-07.corp.internal\n", "hostname.internal");
}

/// A value holding an escape (`%81`, `%2B`) is decoded for another look; the secret
/// its rule already found as written is reported once, not again decoded.
#[test]
fn a_value_with_an_escape_in_it_is_reported_once() {
    let got = rules_for(
        "settings.py",
        "SECRET_KEY = '(k)7nw(^+2$qadz@*4rm%81hx#p#e^tyg-)vbc3j5ouf9l2s'\n",
    );
    assert_eq!(got, ["secret.secret_phrase"], "{got:?}");
    let got = rules_for(
        "sas.txt",
        "https://acct.blob.core.windows.net/c?sv=2022-11-02&ss=b&srt=co&sp=rl&se=2025-04-04T15:24:52Z&sig=Qm8dK2%2B9xLr4Tz7vW1pN6yH3%2FbC5eF0gJ%3D\n",
    );
    assert_eq!(got, ["secret.azure_sas_token"], "{got:?}");
}
