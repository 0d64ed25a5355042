//! Credentials found by where they stand: hex and UUID keys under credential names,
//! Docker `auths`, `.netrc`, `curl -u`, connection strings, a service-account key
//! pasted inside a string, `Authorization: Basic` judged decoded. Real files, the real
//! binary; each negative is a shape a data set holds without leaking anything.

use crate::util::*;
use std::path::Path;

/// Every secret finding in `dir`, as `findings` gives it.
fn secret_findings(dir: &Path) -> Vec<(String, u64, u64, Option<String>, String, String)> {
    let home = tempfile::tempdir().expect("home");
    let report = scan_json(home.path(), dir, &["--no-baseline"]).json();
    findings(&report)
        .into_iter()
        .filter(|f| f.4 == "secret")
        .collect()
}

/// `(file, pointer, rule id)` of every secret finding in `dir`.
fn secrets(dir: &Path) -> Vec<(String, Option<String>, String)> {
    secret_findings(dir)
        .into_iter()
        .map(|(path, _, _, pointer, _, id)| (path, pointer, id))
        .collect()
}

/// Writes `records` as one JSON Lines file in `dir` and checks each line holds a secret
/// finding.
fn assert_every_record_found(dir: &Path, records: &[serde_json::Value]) {
    std::fs::write(dir.join("t.jsonl"), jsonl(records)).expect("write");
    let expected: std::collections::BTreeSet<u64> = (1..=records.len() as u64).collect();
    assert_eq!(secret_lines(dir), expected, "lines with a secret finding");
}

/// The lines of `dir`'s files that hold a secret finding.
fn secret_lines(dir: &Path) -> std::collections::BTreeSet<u64> {
    secret_findings(dir).into_iter().map(|f| f.1).collect()
}

#[test]
fn hex_and_uuid_keys_count_under_credential_names_only() {
    let dir = tempfile::tempdir().expect("dir");
    let hex32 = "9f2c4e81b07d3a65c1e8f4b29a0d7c53";
    let hex40 = "3c9e1f07a4b82d65e0c7f19a84b3d26e5f0a1c97";
    let uuid = "e7a13c5f-9b2d-4e86-a0f1-3c7d5b9e2a64";
    let keyed = serde_json::json!({
        "DD_API_KEY": hex32, "WANDB_API_KEY": hex40, "service_token": uuid,
        "note": format!("export AZURE_OPENAI_API_KEY={hex32}"),
    });
    let named_as_ids = serde_json::json!({
        "GIT_COMMIT": hex40, "sha256": hex32, "etag": hex32, "api_key_id": uuid,
        "run_uuid": uuid, "token_hash": hex40,
        "note": format!("GITHUB_SHA={hex40} checksum: {hex32} request_id={uuid}"),
    });
    std::fs::write(dir.path().join("keyed.json"), keyed.to_string()).expect("write");
    std::fs::write(dir.path().join("ids.json"), named_as_ids.to_string()).expect("write");
    let found = secrets(dir.path());
    let pointers: Vec<&str> = found.iter().filter_map(|f| f.1.as_deref()).collect();
    for p in ["/DD_API_KEY", "/WANDB_API_KEY", "/service_token", "/note"] {
        assert!(pointers.contains(&p), "{p} not found in {found:?}");
    }
    assert!(
        found.iter().all(|f| f.0 == "keyed.json"),
        "ids and digests flagged: {found:?}"
    );
}

#[test]
fn docker_auths_are_judged_by_their_decoded_password() {
    let dir = tempfile::tempdir().expect("dir");
    let config = serde_json::json!({ "auths": {
        "registry.acme.lan": { "auth": b64("ci-bot:J7qM2xV9nL4w") },
        "ghcr.io": { "auth": b64("user:password") },
        "docker.io": { "auth": b64("deploy:${REGISTRY_TOKEN}") },
    }});
    std::fs::write(dir.path().join("config.json"), config.to_string()).expect("write");
    // The same config pasted into a transcript, as text inside a string.
    let pasted = serde_json::json!({ "content": format!("my docker config: {config}") });
    std::fs::write(dir.path().join("t.jsonl"), jsonl(&[pasted])).expect("write");
    let found = secrets(dir.path());
    let ids: Vec<(&str, &str)> = found.iter().map(|f| (f.0.as_str(), f.2.as_str())).collect();
    assert!(
        ids.contains(&("config.json", "secret.docker_auths")),
        "{found:?}"
    );
    assert!(ids.iter().any(|(f, _)| *f == "t.jsonl"), "{found:?}");
    assert_eq!(
        found.iter().filter(|f| f.0 == "config.json").count(),
        1,
        "stand-in and variable passwords flagged: {found:?}"
    );
}

#[test]
fn netrc_curl_and_basic_auth_passwords_are_found_and_stand_ins_are_not() {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(
        dir.path().join(".netrc"),
        "machine git.acme.lan\n  login svc-eval\n  password Kq7vLm2x9Zt\n\
         machine api.acme.lan login ci password Zr4-pW8qTn2\n\
         machine example.org login me password $NETRC_PASSWORD\n",
    )
    .expect("write");
    let records = [
        serde_json::json!({ "cmd": "curl -s -u svc-eval:Kq7-vLm2x9 https://api.acme.lan/v1/runs" }),
        serde_json::json!({ "cmd": "curl -u user:password https://example.org" }),
        serde_json::json!({ "cmd": "curl --user \"$USER:$TOKEN\" https://example.org" }),
        serde_json::json!({ "headers": format!("Authorization: Basic {}", b64("ana:S3cure!pw")) }),
        serde_json::json!({ "headers": format!("Authorization: Basic {}", b64("user:password")) }),
        serde_json::json!({ "headers": format!("Authorization: Basic {}", b64("admin:admin")) }),
    ];
    std::fs::write(dir.path().join("t.jsonl"), jsonl(&records)).expect("write");
    let found = secrets(dir.path());
    let count = |file: &str, id: &str| found.iter().filter(|f| f.0 == file && f.2 == id).count();
    assert_eq!(count(".netrc", "secret.netrc_password"), 2, "{found:?}");
    assert_eq!(
        count("t.jsonl", "secret.curl_user_password"),
        1,
        "{found:?}"
    );
    assert_eq!(count("t.jsonl", "secret.basic_auth"), 1, "{found:?}");
    assert_eq!(found.len(), 4, "stand-ins flagged: {found:?}");
}

#[test]
fn connection_strings_in_their_common_dialects() {
    let dir = tempfile::tempdir().expect("dir");
    let leaks = [
        "Driver={ODBC Driver 18 for SQL Server};Server=tcp:db.acme.lan,1433;Uid=evals;Pwd=Qx7-mV2pLk9;",
        "jdbc:postgresql://db.acme.lan:5432/evals?user=evals&password=Qx7mV2pLk9&ssl=true",
        "jdbc:oracle:thin:scott/Qx7-mV2pLk9@db.acme.lan:1521:ORCL",
        "mongodb+srv://evals:Qx7mV2pLk9@cluster0.acme.mongodb.net/runs",
        "redis://:Qx7mV2pLk9@cache.acme.lan:6379/0",
        "amqps://worker:Qx7mV2pLk9@mq.acme.lan:5671/evals",
        "postgresql://evals:Qx7-mV2pLk9@db.acme.lan/evals",
        "host=db.acme.lan user=evals password=Qx7-mV2pLk9 dbname=evals",
        "PGPASSWORD=Qx7-mV2pLk9 psql -h db.acme.lan",
    ];
    let clean = [
        "postgresql://evals:${DB_PASSWORD}@db/evals",
        "mongodb://localhost:27017/runs",
        "jdbc:postgresql://db:5432/evals?user=evals&password=<password>",
    ];
    let records: Vec<serde_json::Value> = leaks
        .iter()
        .chain(clean.iter())
        .map(|s| serde_json::json!({ "config": s }))
        .collect();
    std::fs::write(dir.path().join("c.jsonl"), jsonl(&records)).expect("write");
    let lines = secret_lines(dir.path());
    let expected: std::collections::BTreeSet<u64> = (1..=leaks.len() as u64).collect();
    assert_eq!(lines, expected, "lines with a secret finding");
}

#[test]
fn a_service_account_key_pasted_inside_a_string_is_found() {
    let dir = tempfile::tempdir().expect("dir");
    let key = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7kq3mP9vT2xLw\n\
               q8RbN4yZc1dHf7sPa4Ue6gVi0bQXo3vB9qLm2TzR8wKc5YjN1dHf7sPa4Ue6gVi0\n\
               -----END PRIVATE KEY-----\n";
    let account = serde_json::json!({
        "type": "service_account", "project_id": "evals-4821", "private_key": key,
    });
    // Pasted as text after a sentence: the key's newlines are `\n` escapes twice over.
    let record = serde_json::json!({ "content": format!("here is the key file: {account}") });
    std::fs::write(dir.path().join("t.jsonl"), jsonl(&[record])).expect("write");
    let found = secrets(dir.path());
    assert!(
        found.iter().any(|f| f.2 == "secret.private_key"),
        "{found:?}"
    );
}

/// Shapes from real tool output that look like credentials and are not: each was once
/// flagged. One record per line; no secret finding on any of them.
#[test]
fn cursors_ids_public_keys_and_settings_are_not_credentials() {
    let dir = tempfile::tempdir().expect("dir");
    let hex40 = "3c9e1f07a4b82d65e0c7f19a84b3d26e5f0a1c97";
    let uuid = "e7a13c5f-9b2d-4e86-a0f1-3c7d5b9e2a64";
    let records = [
        serde_json::json!({ "Contents": [{ "Key": "datasets/train-00003-of-00008.parquet" }] }),
        serde_json::json!({ "NextToken": "eyJOZXh0VG9rZW4iOiBudWxsLCAiYm90b190cnVuY2F0ZV9hbW91bnQiOiAyfQ==" }),
        serde_json::json!({ "ClientToken": uuid, "next_page_token": hex40 }),
        serde_json::json!({ "out": format!("\"ClientRequestToken\": \"Console-CreateStack-{uuid}\"") }),
        serde_json::json!({ "conf": "[Interface]\nPublicKey = xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=" }),
        serde_json::json!({ "dump": "GET /ws HTTP/1.1\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==" }),
        serde_json::json!({ "env": format!("GITHUB_HEAD={hex40}\nTRAVIS_BRANCH=feature-add-login-flow-v2") }),
        serde_json::json!({ "env": format!("HEROKU_TEAM={uuid}\nSNYK_ORG={uuid}") }),
        serde_json::json!({ "text": "Jira ticket API-01J8Z3Q4W5E6R7T8Y9V0A1B2C3 closed" }),
        serde_json::json!({ "html": "<link rel=\"icon\" href=\"/assets/ico-9f2c4e81b07d3a65c1e8f4b29a0d7c53.svg\">" }),
        serde_json::json!({ "embedding": format!("{}AAAAPzMzsz8AAIA/zczMPs3MTD8AAEA/AACAPwAAAD8AAAA/mpmZPs3MzD7NzEw+", "A".repeat(24)) }),
        serde_json::json!({ "headers": "Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==" }),
        serde_json::json!({ "profile": { "linkedin_handle": "mariagonzalez123" } }),
        // Azurite's published emulator key, under any name.
        serde_json::json!({ "storage": { "account_key": "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==" } }),
    ];
    std::fs::write(dir.path().join("t.jsonl"), jsonl(&records)).expect("write");
    let found = secrets(dir.path());
    assert!(found.is_empty(), "flagged: {found:?}");
}

/// Credentials in the places agents put them: members of a tool call's JSON, hex
/// passwords, command-line arguments.
#[test]
fn credentials_in_tool_calls_and_command_lines_are_found() {
    let dir = tempfile::tempdir().expect("dir");
    let hex32 = "9f2c4e81b07d3a65c1e8f4b29a0d7c53";
    let records = [
        serde_json::json!({ "input": { "env": { "POSTGRES_PASSWORD": "Kq7vLm2x9ZtR" } } }),
        serde_json::json!({ "input": { "headers": { "Authorization": "Bearer Zr4pW8qTn2XkLm7vQ9sD" } } }),
        serde_json::json!({ "input": { "env": { "DEPLOY_TOKEN": "Zr4pW8qTn2XkLm7vQ9sDx3Fh" } } }),
        serde_json::json!({ "cmd": format!("export REDIS_PASSWORD={hex32}") }),
        serde_json::json!({ "cmd": format!("curl -H 'Authorization: Token {hex32}' https://api.acme.lan") }),
        serde_json::json!({ "cmd": "mysql -h db.acme.lan -u app -pKq7vLm2x9ZtR evals" }),
        serde_json::json!({ "cmd": "sshpass -p 'Kq7vLm2x9ZtR' ssh ci@build.acme.lan" }),
        serde_json::json!({ "values": "auth:\n  rootPassword: Kq7vLm2x9ZtR" }),
        serde_json::json!({ "env": format!("SECRET_KEY_BASE={hex32}{hex32}{hex32}{hex32}") }),
        serde_json::json!({ "file": "<servers><server><id>acme</id><password>Kq7vLm2x9ZtR!</password></server></servers>" }),
        serde_json::json!({ "file": "<add key=\"ClearTextPassword\" value=\"Kq7vLm2x9ZtR\" />" }),
        serde_json::json!({ "file": "bind 127.0.0.1\nrequirepass Kq7vLm2x9ZtR\n" }),
        serde_json::json!({ "cmd": format!("git clone https://{hex32}@github.com/acme/private.git") }),
        serde_json::json!({ "cmd": "PsExec.exe \\\\10.0.4.12 -u Administrator -p h5wQ3XxRb cmd" }),
        serde_json::json!({ "cmd": "Connect-VIServer -Server vc01 -User admin -Password pT1Q^-fHo5Dy" }),
        serde_json::json!({ "cmd": format!("mvn verify -Dsonar.login={hex32}0a1b2c3d") }),
        serde_json::json!({ "file": "SECRET_KEY = '(k)7nw(^+2$qadz@*4rm%81hx#p#e^tyg-)vbc3j5ouf9l2s'" }),
        serde_json::json!({ "file": "JWT:\n  secret: \"-k4p8*2xLQmWv7Zr%3n\"" }),
        serde_json::json!({ "file": "jwtsecret: \"bQ7;kn>L2wJ33Gb>x\"" }),
        serde_json::json!({ "text": "The default password for the user \"app\" is \"6aiqXl8RsV\"." }),
        serde_json::json!({ "code": "var c = new NetworkCredential(\"mailer@acme.lan\", \"impejrjpitmqdqii\");" }),
        serde_json::json!({ "code": "$pw = ConvertTo-SecureString \"Kq7vLm2x9ZtR\" -AsPlainText -Force" }),
        serde_json::json!({ "code": "'password' => '$2y$10$B33TGPd3VInmhOl.PIGlyLoZcQqhH9k3t/2EzVjUu7gWMLwkunc.6'," }),
        serde_json::json!({ "file": "admin:$1$7XWg27Q/$GxY93Z4dsGIWPQNsugNQTo:19000:0:99999:7:::" }),
        // A provider's name as an option's, its argument after a blank.
        serde_json::json!({ "cmd": "Cleanup.exe -storagename acmelogs -storagekey zEBTMj0x0vAdSnnzjv+cPCWOoamAANlHB9X1fyzK0DCB/9VjLlRSHhaNx0KIeDQ5MRIU2DOyj+ZwmLSJExnWzQ== -container x" }),
    ];
    assert_every_record_found(dir.path(), &records);
}

/// Forms where the name and the value stand apart: a list of name/value objects, a
/// Terraform block, a build script's DSL, arguments on lines of their own; and names
/// in the styles of tools that own them (`VAULT_CLIENT_TOKEN`, `SUMO_ACCESS_ID`,
/// WireGuard's `PresharedKey`), numeric keys, newer password hashes.
#[test]
fn credentials_whose_name_stands_apart_from_the_value_are_found() {
    let dir = tempfile::tempdir().expect("dir");
    let records = [
        serde_json::json!({ "env": [{ "name": "DB_PASSWORD", "value": "Zq8vLm2Rt9Xw4Kp" }] }),
        serde_json::json!({ "file": "{\n  \"ParameterKey\": \"AdminPassword\",\n  \"ParameterValue\": \"Hj7#kLp2$qRs9vW\"\n}" }),
        serde_json::json!({ "file": "variable \"okta_api_token\" {\n  default = \"00Wq3RMO4C8ZTgOqG9R3BfQTaKBcZsYHDPcpAIk7\"\n}" }),
        serde_json::json!({ "file": "credentials {\n  username 'ci'\n  password '!wZRq0Lc%ngMq'\n}" }),
        serde_json::json!({ "code": "new DirectoryEntry(\"LDAP://DC.ACME.LAN\",\n  \"SVC@ACME.LAN\",\n  \"agykZx3pCW\");" }),
        serde_json::json!({ "file": "<add key=\"SmtpPassword\" value=\"!%wxcO0g1IbLwV\"/>" }),
        serde_json::json!({ "env": "VAULT_CLIENT_TOKEN=\"s.Xj8TPQxjq4i9DoV8gz4FkQ1o\"" }),
        serde_json::json!({ "file": "sumo.accessId = \"suWq8pLz3kR7vN\"" }),
        serde_json::json!({ "file": "[Peer]\nPresharedKey = k3Vq9ZtLm2Rw8XpB4nYc7dHf1sJ6gA0uEoKiWlMyTb8=" }),
        serde_json::json!({ "file": "discord_bot_token: 261768979177835624" }),
        serde_json::json!({ "code": "$password = \\\"9sBLKdPfXN\\\";" }),
        serde_json::json!({ "url": "mongodb+srv://app:tmqj@LjMf3k3!@cluster0.ab12c.mongodb.net/evals" }),
        serde_json::json!({ "shadow": "svc:$y$j9T$8vFI.qZTMoe4WWXWl7Xfwg$y2smPel.rkSbhyUrEQS6nm8577LiqlPF7saySqbKjFS:19700:0:99999:7:::" }),
        serde_json::json!({ "option": "a:1:{s:14:\"stripe_api_key\";s:24:\"Zr4pW8qTn2XkLm7vQ9sDx3Fh\";}" }),
        serde_json::json!({ "file": "buildConfigField 'String', 'MAPS_API_KEY', '\"b9c5c5Wq8vLm2x9ZtR4pN7kJ\"'" }),
    ];
    assert_every_record_found(dir.path(), &records);
}

/// A record that says what its value is: a provider's name or a compound credential
/// name as a sibling's value labels the others. Only a whole value counts, a label
/// word alone or in prose labels nothing, a digest's name still says digest, and a
/// value that starts as a provider's key does but fails its shape is the provider's.
#[test]
fn a_record_labelling_its_value_makes_it_a_credential() {
    let dir = tempfile::tempdir().expect("dir");
    let dd = "5e27a0f817c1fa9d6e3cc0608b2d4f11";
    let random = "Qm7vT2kX9pL4wZ8rN3cF6hJ1yB5dS0aG";
    let leaks = [
        serde_json::json!({"provider": "datadog", "output": dd}),
        serde_json::json!({"Name": "PAYMENTS_API_TOKEN", "Value": random}),
        serde_json::json!({"service": "Datadog API", "value": format!(" {dd} ")}),
        // A `value` member takes its object's name (Terraform outputs).
        serde_json::json!({"outputs": {"deploy_password": {"value": random, "sensitive": true}}}),
        // A parameter store names its value by a path.
        serde_json::json!({"Parameter": {"Name": "/prod/eval/DEPLOY_API_TOKEN", "Type": "SecureString", "Value": random}}),
    ];
    let clean = [
        // A provider's name labels only a whole value of the provider's shape.
        serde_json::json!({"provider": "datadog", "output": format!("see {dd} for details")}),
        // One word is prose; a sentence is no name for generic credential words.
        serde_json::json!({"answer": "secret", "type": random}),
        serde_json::json!({"question": "where is the api token kept", "hint": random}),
        // Under a digest's name the value is a digest, whatever the record says.
        serde_json::json!({"provider": "datadog", "sha256": dd}),
        // A file name, an assignment, a malformed provider key.
        serde_json::json!({"name": "TLS_KEY_FILE", "value": "certs/server.p12"}),
        serde_json::json!({"name": "api-key", "value": "API_VERSION=rc0.13.0_20230412"}),
        serde_json::json!({"name": "google-api-key", "value": "AIzaQm7vT2kX9pL4wZ8rN3cF6hJ1yB5dS0aGxx77"}),
        // A label's own name says no credential, or the member holding it names
        // nothing (an action, a tool).
        serde_json::json!({"name": "CACHE_KEY", "value": random}),
        serde_json::json!({"name": "FAKE_API_KEY", "value": random}),
        serde_json::json!({"action": "datadog", "screenshot": dd}),
        serde_json::json!({"tool": "get_access_token", "request": random}),
        serde_json::json!({"cache_key": {"value": random}, "token_sha256": {"value": dd}}),
        // Two labels are two names, not a name and its value.
        serde_json::json!({"kind": "slack-bot-token", "alias": "xoxb-Slack_BOT_TOKEN"}),
    ];
    let text = |records: &[serde_json::Value]| {
        records.iter().map(|r| format!("{r}\n")).collect::<String>()
    };
    std::fs::write(dir.path().join("leaks.jsonl"), text(&leaks)).expect("write");
    std::fs::write(dir.path().join("clean.jsonl"), text(&clean)).expect("write");
    let found = secret_findings(dir.path());
    let leak_lines: std::collections::BTreeSet<u64> = found
        .iter()
        .filter(|f| f.0 == "leaks.jsonl")
        .map(|f| f.1)
        .collect();
    assert_eq!(leak_lines, (1..=5).collect(), "{found:?}");
    assert!(
        found.iter().all(|f| f.0 == "leaks.jsonl"),
        "labels read too widely: {found:?}"
    );
}

/// Prose about a password and stand-ins in brackets hold none: only a quoted value
/// after `is` is one.
#[test]
fn prose_and_bracketed_stand_ins_are_not_credentials() {
    let dir = tempfile::tempdir().expect("dir");
    let records = [
        serde_json::json!({ "text": "the password is wrong, try again" }),
        serde_json::json!({ "text": "the password is 'required'" }),
        serde_json::json!({ "cmd": "curl --user neo4j:[PASSWORD] http://[IP]:7474/db/data/" }),
        serde_json::json!({ "file": "secret_key = '<your-secret-key>'" }),
        serde_json::json!({ "file": "secret: \"{{ .Values.secret }}\"" }),
        serde_json::json!({ "cmd": "Connect-VIServer -Server vc01 -Password $env:VI_PASSWORD" }),
        serde_json::json!({ "code": "new NetworkCredential(\"mailer@acme.lan\", password)" }),
        serde_json::json!({ "file": "root:*:19000:0:99999:7:::\necho $1$2 $6$HOME" }),
        serde_json::json!({ "cmd": "helm install --set global.licenseKey=a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8NRAL" }),
        serde_json::json!({ "file": "vault_token_ttl: s.AcceptanceTimeoutSeconds" }),
        serde_json::json!({ "file": "MasterUserPassword: !Ref DbPassword" }),
        serde_json::json!({ "request": { "ClientToken": "0f8fad5b-d9cb-469f-a165-70867728950e" } }),
        serde_json::json!({ "stats": { "session_token_count": "1700000000000000" } }),
    ];
    std::fs::write(dir.path().join("t.jsonl"), jsonl(&records)).expect("write");
    let found = secrets(dir.path());
    assert!(found.is_empty(), "{found:?}");
}

/// A function named for a credential that returns a literal: the name says what the
/// string is, as an assignment's would. A name that only starts with the word, an
/// environment lookup, a token's type and a page's token are not credentials; nor is
/// an id under a provider's name in a subscript or an option.
#[test]
fn a_getter_named_for_a_credential_returns_it() {
    let dir = tempfile::tempdir().expect("dir");
    let records = [
        serde_json::json!({ "code": "func getBetterStackToken() string {\n\treturn \"Hq7vNcR2kZp9WmX4tLs8YbD3\"\n}" }),
        serde_json::json!({ "code": "def get_api_key(self):\n    return 'Zp9WmX4tLs8YbD3Hq7vNcR2k'" }),
        serde_json::json!({ "code": "  getSecretKey(): string { return `q9WmX4tLs8YbD3Hq7vNcR2kZp` }" }),
    ];
    assert_every_record_found(dir.path(), &records);

    let clean = tempfile::tempdir().expect("dir");
    let code = "func getTokenizer() string { return \"Hq7vNcR2kZp9WmX4tLs8YbD3\" }\n\
                func getPasswordHash() string { return \"Zp9WmX4tLs8YbD3Hq7vNcR2k\" }\n\
                def get_api_key(self):\n    return os.environ[\"ACME_API_KEY\"]\n\
                def get_token_type(self):\n    return \"Bearer\"\n\
                func getNextPageToken() string { return \"Zp9WmX4tLs8YbD3Hq7vNcR2k\" }\n\
                ids[\"snyk_org_id\"] = \"6b0404f2-b094-40b8-ab01-a1c12a3a2107\"\n\
                run --heroku-release 886de8a9-1885-420a-9a50-4c81eefcd300\n";
    std::fs::write(clean.path().join("client.go"), code).expect("write");
    assert_eq!(secrets(clean.path()), vec![]);
}

/// A Kubernetes Secret keeps each value as base64 under its name: decoded, the value is
/// read under that name, as a provider's rule needs (a Snyk token is a bare UUID, an
/// Azure account key bare base64). A word decoded from under a name stays a word.
#[test]
fn a_secrets_base64_data_is_read_under_its_name() {
    use base64::Engine;
    let dir = tempfile::tempdir().expect("dir");
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    let azure =
        "zEBTMj0x0vAdSnnzjv+cPCWOoamAANlHB9X1fyzK0DCB/9VjLlRSHhaNx0KIeDQ5MRIU2DOyj+ZwmLSJExnWzQ==";
    let yaml = format!(
        "apiVersion: v1\nkind: Secret\ndata:\n  snyk-token: {}\n  azurestorageaccountkey: {}\n  username: {}\n",
        b64("6b0404f2-b094-40b8-ab01-a1c12a3a2107"),
        b64(azure),
        b64("admin"),
    );
    std::fs::write(dir.path().join("secret.yaml"), yaml).expect("write");
    let found: Vec<(u64, String)> = secret_findings(dir.path())
        .into_iter()
        .map(|f| (f.1, f.5))
        .collect();
    assert!(
        found.contains(&(4, "secret.snyk_token".to_string())),
        "{found:?}"
    );
    assert!(
        found.contains(&(5, "secret.azure_storage_key_named".to_string())),
        "{found:?}"
    );
    assert!(found.iter().all(|(line, _)| *line != 6), "{found:?}");
}
