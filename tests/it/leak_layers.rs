//! A value a rule found in one spelling must not show in another spelling beside a
//! neighbour's finding: decoded (a Docker credential's password after its e-mail user,
//! a URL's password once `%20` is a blank), defanged, disguised with a combining mark
//! or a hidden control character, or named in a provenance message.

use crate::util::run;
use base64::Engine;

fn leaks(files: &[(&str, String)], needles: &[&str]) {
    let home = tempfile::tempdir().expect("tempdir");
    let data = tempfile::tempdir().expect("tempdir");
    for (name, text) in files {
        let path = data.path().join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
        std::fs::write(path, text).expect("write");
    }
    let root = data.path().to_string_lossy();
    for format in ["json", "human", "sarif"] {
        let args = [
            "scan",
            "--no-progress",
            "--no-baseline",
            "--min-confidence",
            "low",
            "--format",
            format,
            &root,
        ];
        let out = run(home.path(), &args);
        assert_eq!(out.code, 1, "{format}: something is found: {}", out.stderr);
        for needle in needles {
            assert!(
                !out.stdout.contains(needle) && !out.stderr.contains(needle),
                "{format} shows {needle}"
            );
        }
    }
}

#[test]
fn a_decoded_credentials_password_is_not_shown_beside_its_user() {
    let auth = base64::engine::general_purpose::STANDARD.encode("ci-bot@acme-corp.com:Dock3rPw77");
    let docker = format!(r#"{{"auths":{{"registry.acme-corp.com":{{"auth":"{auth}"}}}}}}"#);
    let url = "DATABASE_URL=postgres://svc:Secr3tPassw0rd%20q@pg1.acme-prod.com:5432/app";
    leaks(
        &[("config.json", docker), ("a.env", url.to_string())],
        &["Dock3rPw77", "Secr3tPassw0rd"],
    );
}

#[test]
fn defanged_and_disguised_values_are_not_shown_beside_a_neighbour() {
    let text = "contact alice.popescu@gmail[.]com from 185.199.108.153\n\
                ssh build-07[.]corp[.]internal as bob.marley@gmail.com\n\
                c2 at 185[.]199[.]108[.]153 reported by carol.jones@gmail.com\n\
                ssh build-07.corp.inte\u{301}rnal and 185.199.108.154\n";
    let json = r#"{"m":"mail dana.popescu\u0001@gmail.com and 185.199.108.155, call +40 721\u0002 234 567"}"#;
    leaks(
        &[("a.txt", text.to_string()), ("b.json", json.to_string())],
        &[
            "popescu@gmail[.]com",
            "07[.]corp[.]internal",
            "185[.]199[.]108[.]153",
            "corp.inte\u{301}rnal",
            "dana.popescu",
            "234 567",
        ],
    );
}

#[test]
fn a_manifest_message_does_not_name_an_address_or_a_phone() {
    let sums = format!(
        "{}  185.199.108.153.json\n{}  calls/+40721234567.wav\n",
        "ab".repeat(32),
        "cd".repeat(32)
    );
    leaks(
        &[
            ("SHA256SUMS", sums),
            ("185.199.108.153.json", "{}".to_string()),
        ],
        &["185.199.108.153", "40721234567"],
    );
}

/// A password written percent-encoded in a URL is reported in that spelling; the
/// decoded layer's findings on the same URL (its host) must not show it decoded.
#[test]
fn a_password_is_not_shown_decoded_beside_a_neighbours_finding() {
    let text = "postgres://app:p%40ssW0rd9x@db.internal:5432/app\n\
                mysql://ci:S3cr%21tPw9q@mysql.corp.lan/x\n";
    leaks(
        &[("urls.txt", text.to_string())],
        &["p@ssW0rd9x", "p%40ssW0rd9x", "S3cr!tPw9q", "S3cr%21tPw9q"],
    );
}

#[test]
fn a_password_is_masked_to_its_ends_past_a_byte_its_rule_stops_at() {
    // The password rules read a value up to `&` (HTML's `&amp;` is no password's); the
    // rest of the token must not show beside the masked part.
    let files = [
        ("a.py", "password = \"h7Qx2m&KuvNjR8pLw3Zt\"\n".to_string()),
        (
            "b.java",
            "String dbPassword = \"u9%Wba&Tq4ZrXe7Lm2\";\n".to_string(),
        ),
    ];
    leaks(&files, &["KuvNjR8pLw3Zt", "Tq4ZrXe7Lm2"]);
}
