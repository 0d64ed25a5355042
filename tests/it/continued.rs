//! Assignments continued on the next line: what formatters do to a long literal
//! (prettier's `const apiKey =⏎  "…"`, black's `TOKEN = (⏎    "…"⏎)`, Java's operator
//! first) and how YAML writes a value under its key. Real files, the real binary: each
//! is found on the value's own line and column, once, without its value in the output;
//! lines that only look open (`.env` keys without values, a colon before prose, a
//! comparison) join nothing.

use crate::util::*;

/// Made-up values of a credential's look, none of any provider.
const VALUE: &str = "Qm7vT2kX9pL4wZ8rN3cF6hJ1yB5dS0aG";
const OTHER: &str = "Zr8Lq2Wm5Xn7Vb3Kc9Jd4Hf6Gs1Ta0Py";

/// `(file, line, column)` of every secret finding, and the report's text.
fn secrets(dir: &std::path::Path) -> (Vec<(String, u64, u64)>, String) {
    let home = tempfile::tempdir().expect("home");
    let run = scan_json(home.path(), dir, &["--no-baseline"]);
    let found = findings(&run.json())
        .into_iter()
        .filter(|f| f.4 == "secret")
        .map(|f| (f.0, f.1, f.2))
        .collect();
    (found, run.stdout)
}

/// Each `(file, text, line, column)` has one secret finding, at its line and column.
fn found_once_each(found: &[(String, u64, u64)], files: &[(&str, String, u64, u64)]) {
    for (name, _, line, column) in files {
        let here: Vec<_> = found.iter().filter(|f| f.0 == *name).collect();
        assert_eq!(
            here,
            [&(name.to_string(), *line, *column)],
            "{name}: {found:?}"
        );
    }
}

#[test]
fn an_assignment_continued_on_the_next_line_is_read_as_one() {
    let dir = tempfile::tempdir().expect("dir");
    let files = [
        (
            "a.ts",
            format!("export const apiKey =\n  \"{VALUE}\";\n"),
            2,
            4,
        ),
        ("b.py", format!("API_KEY = (\n    \"{VALUE}\"\n)\n"), 2, 6),
        ("c.py", format!("CLIENT_SECRET = \\\n    '{VALUE}'\n"), 2, 6),
        (
            "D.java",
            format!("class D {{\n  static final String CLIENT_SECRET\n      = \"{VALUE}\";\n}}\n"),
            3,
            10,
        ),
        (
            "e.yaml",
            format!("auth:\n  api_key: >-\n    {VALUE}\n"),
            3,
            5,
        ),
        (
            "f.yaml",
            format!("auth:\n  client_secret:\n    {VALUE}\n"),
            3,
            5,
        ),
    ];
    for (name, text, _, _) in &files {
        write(dir.path(), name, text);
    }
    let (found, report) = secrets(dir.path());
    found_once_each(&found, &files);
    assert!(!report.contains(VALUE), "a value in the report");
}

#[test]
fn a_value_found_on_its_own_line_is_not_found_again_joined() {
    let dir = tempfile::tempdir().expect("dir");
    // A JSON string's escaped quotes shift the file's columns from the decoded text's.
    let token = format!("xoxb-2849385934-2849385934123-{}", &OTHER[..24]);
    let code = format!("SLACK_BOT_TOKEN = (\n    \"{token}\"\n)\n");
    write(dir.path(), "bot.py", &code);
    write(
        dir.path(),
        "t.jsonl",
        jsonl(&[serde_json::json!({ "content": code })]),
    );
    let (found, _) = secrets(dir.path());
    assert_eq!(
        found.iter().filter(|f| f.0 == "bot.py").count(),
        1,
        "{found:?}"
    );
    assert_eq!(
        found.iter().filter(|f| f.0 == "t.jsonl").count(),
        1,
        "{found:?}"
    );
}

#[test]
fn lines_that_only_look_open_join_nothing() {
    let dir = tempfile::tempdir().expect("dir");
    // `.env` keys without values, one under the other.
    write(
        dir.path(),
        "a.env",
        "GITHUB_API_KEY=\nDATADOG_API_KEY=\nSTRIPE_SECRET_KEY=\n",
    );
    // A colon before prose, a list under a key, a comparison, a nested mapping.
    write(
        dir.path(),
        "b.md",
        format!("The api key:\nis rotated every {VALUE} days\n"),
    );
    write(
        dir.path(),
        "c.yaml",
        format!("secrets:\n  - {VALUE}\napi_key:\n  vault: {OTHER}\n"),
    );
    write(
        dir.path(),
        "d.py",
        format!("ok = token ==\n    \"{VALUE}\"\n"),
    );
    let (found, _) = secrets(dir.path());
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn paths_slugs_images_and_token_headers_are_no_credentials_joined_or_not() {
    let dir = tempfile::tempdir().expect("dir");
    let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
    write(
        dir.path(),
        "a.py",
        format!(
            "content_key = \\\n    \"datasets/eval/v3/shard-00017-of-00128.parquet\"\n\
             reward_model_key = \"OpenAssistant/reward-model-deberta-v3-large-v2\"\n\
             icon_key = (\n    \"{png}\"\n)\n\
             GOOGLE_APPLICATION_CREDENTIALS = \"./config/service-account.json\"\n"
        ),
    );
    write(
        dir.path(),
        "b.md",
        "The token:\n`eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9`\n",
    );
    let (found, _) = secrets(dir.path());
    assert!(found.is_empty(), "{found:?}");
}

/// A setting's fallback is its value when the setting is unset: found after `||`, `??`
/// and Python's `or`, on one line or with the literal on the next, once, where the file
/// holds it. A fallback to another name, or to words, is no value.
#[test]
fn a_fallback_after_a_settings_name_is_its_value() {
    let dir = tempfile::tempdir().expect("dir");
    let files = [
        (
            "a.js",
            format!("const token = process.env.ACME_TOKEN || \"{VALUE}\";\n"),
            1,
            42,
        ),
        (
            "b.ts",
            format!("export const key =\n  process.env.ACME_API_KEY ||\n  \"{VALUE}\";\n"),
            3,
            4,
        ),
        (
            "c.py",
            format!("api_key = os.environ.get(\"ACME_API_KEY\") or '{VALUE}'\n"),
            1,
            46,
        ),
        (
            "d.ts",
            format!("const secret = config.clientSecret ?? '{VALUE}';\n"),
            1,
            40,
        ),
    ];
    for (name, text, _, _) in &files {
        write(dir.path(), name, text);
    }
    write(
        dir.path(),
        "e.js",
        "const token = process.env.ACME_TOKEN || DEFAULT_ACME_TOKEN_VALUE;\n\
         label = token or 'first-page-of-the-results'\n",
    );
    let (found, report) = secrets(dir.path());
    found_once_each(&found, &files);
    assert!(!found.iter().any(|f| f.0 == "e.js"), "{found:?}");
    assert!(!report.contains(VALUE), "a value in the report");
}

/// A line ending in base64's padding is no quoted-printable soft break: the next
/// setting's key is found once, on its own line.
#[test]
fn padding_at_a_line_end_does_not_join_the_next_setting() {
    let dir = tempfile::tempdir().expect("dir");
    write(
        dir.path(),
        "a.env",
        format!(
            "ACME_PUBLIC_KEY=xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=\nACME_API_KEY={VALUE}\n"
        ),
    );
    let (found, _) = secrets(dir.path());
    assert_eq!(found, [("a.env".to_string(), 2, 14)], "{found:?}");
}
