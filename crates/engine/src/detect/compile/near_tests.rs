//! Tests of `near` rules: the pattern every form of a name takes, and the checks
//! made on a keyword before its window opens.

use super::*;

fn spec(near: &[&str], regex: &str) -> RuleSpec {
    let text = format!(
        "id = \"t\"\ncategory = \"secret\"\nseverity = \"high\"\ndescription = \"d\"\nnear = {near:?}\nregex = '''{regex}'''\n"
    );
    toml::from_str(&text).expect("spec")
}

fn finds(rule: &RuleSpec, text: &str) -> Option<String> {
    let re = regex::Regex::new(rule.regex.as_deref().expect("regex")).expect("compiles");
    re.captures(text)
        .and_then(|c| c.name("value"))
        .map(|m| m.as_str().to_string())
}

#[test]
fn every_form_of_a_name_finds_the_value() {
    let (rule, _) = expand("t", spec(&["dropbox"], "[a-z0-9]{15}")).expect("expands");
    let v = "k2q8x0vz4m7c1ba";
    for text in [
        format!("dropbox_token = \"{v}\""),
        format!("dropboxAppKey: {v}"),
        format!("DROPBOX.KEY={v}"),
        format!("export X_DROPBOX_SECRET='{v}'"),
        format!("[INFO] Using dropbox KEY={v} for sync"),
        format!("<dropbox_secret>{v}</dropbox_secret>"),
        format!("getenv(\"dropbox_token\", \"{v}\")"),
        format!("DROPBOX_TOKEN ?= {v}"),
        format!("dropbox_token := \"{v}\""),
        format!(r#"{{\"dropbox_key\": \"{v}\"}}"#),
        format!("dropbox token - '{v}'"),
        format!("- Dropbox API key - {v}"),
        format!("const key = process.env.DROPBOX_TOKEN || \"{v}\";"),
        format!("dropboxKey ?? '{v}'"),
        format!("sync --dropbox-token {v} --dry-run"),
        format!("sync -dropboxkey '{v}'"),
        format!("--x-dropbox-secret  {v}"),
        format!("settings[\"dropbox\"] = \"{v}\""),
        format!("assert.equal(x['DropboxKey'], '{v}');"),
    ] {
        assert_eq!(finds(&rule, &text).as_deref(), Some(v), "{text}");
    }
    assert_eq!(rule.keywords, vec!["dropbox".to_string()]);
    assert_eq!(rule.member_names, vec!["dropbox".to_string()]);
}

/// A word written with `_` names the provider in every style: joined up, camel case,
/// kebab or dotted, and is looked for joined up and in kebab case too.
#[test]
fn a_word_with_a_separator_is_read_in_every_style() {
    let (rule, _) = expand("t", spec(&["coda_key"], "[a-z0-9]{15}")).expect("expands");
    let v = "k2q8x0vz4m7c1ba";
    for text in [
        format!("CODA_KEY={v}"),
        format!("codaKey := \"{v}\""),
        format!("x-coda-key: {v}"),
        format!("coda.key={v}"),
        format!("codakey = '{v}'"),
    ] {
        assert_eq!(finds(&rule, &text).as_deref(), Some(v), "{text}");
    }
    assert!(finds(&rule, &format!("codaXkey={v}")).is_none());
    assert_eq!(rule.keywords, ["coda_key", "codakey", "coda-key"]);
}

#[test]
fn a_value_of_another_shape_or_with_no_operator_is_not_found() {
    let (rule, _) = expand("t", spec(&["dropbox"], "[a-z0-9]{15}")).expect("expands");
    assert_eq!(
        finds(&rule, "dropbox_token = k2q8x0vz4m7c1ba9"),
        None,
        "too long"
    );
    assert_eq!(
        finds(&rule, "dropbox_token = k2q8x0vz4m7c1b"),
        None,
        "too short"
    );
    assert_eq!(
        finds(&rule, "the dropbox is k2q8x0vz4m7c1ba"),
        None,
        "no operator"
    );
    assert_eq!(
        finds(&rule, "dropbox: K2Q8X0VZ4M7C1BA"),
        None,
        "another alphabet"
    );
    for text in [
        "myDropboxKey = k2q8x0vz4m7c1ba",
        "DROPBOXAPPKEY=k2q8x0vz4m7c1ba",
        "dropboxapikey=k2q8x0vz4m7c1ba",
    ] {
        assert!(finds(&rule, text).is_some(), "{text}");
    }
    // The name inside another word, or running on into one, is not the name.
    for text in [
        "undropboxed = k2q8x0vz4m7c1ba",
        "airdropbox = k2q8x0vz4m7c1ba",
        "dropboxes = k2q8x0vz4m7c1ba",
        "xDropboxy = k2q8x0vz4m7c1ba",
    ] {
        assert_eq!(finds(&rule, text), None, "{text}");
    }
}

/// The keyword pass's check agrees with the pattern: where it says no, the
/// pattern finds nothing either.
#[test]
fn a_word_inside_a_longer_one_opens_no_window() {
    let at = |text: &str, word: &str| {
        let start = text.to_ascii_lowercase().find(word).expect("word");
        stands_as_name(text.as_bytes(), start, start + word.len())
    };
    for (text, word) in [
        ("COHERE_API_KEY=x", "cohere"),
        ("myCohereKey=x", "cohere"),
        ("coheretoken=x", "cohere"),
        ("x-okta-key: x", "okta"),
        ("okta", "okta"),
    ] {
        assert!(at(text, word), "{text}");
    }
    for (text, word) in [
        ("coherence matters", "cohere"),
        ("rookTable = x", "okta"),
        ("SetSysctl = x", "etsy"),
        ("incoherent", "cohere"),
    ] {
        assert!(!at(text, word), "{text}");
    }
}

/// The tree put together from parts says what parsing the whole pattern says, for
/// every built-in `near` rule: where windows open, how far a match reaches, which
/// bytes it needs.
#[test]
fn a_window_needs_an_operator_and_room_for_the_value_after_the_name() {
    let shape = super::super::pattern::parse("[a-z0-9]{15}").expect("parses");
    let value = AssignedValue::near(&shape);
    let follows = |t: &str| {
        let start = t.to_ascii_lowercase().find("dropbox").expect("word");
        value.can_follow(t.as_bytes(), start, start + "dropbox".len())
    };
    let v = "k2q8x0vz4m7c1ba";
    for t in [
        format!("dropbox_token = {v}"),
        format!("[INFO] Using dropbox app KEY={v}"),
        format!(r#"{{\"dropbox_key\": \"{v}\"}}"#),
        format!("<dropbox_secret>{v}"),
        format!("DROPBOX_TOKEN ?= {v}"),
        format!("getenv(\"dropbox_token\", \"{v}\")"),
        format!("dropbox:\t  '{v}'"),
        format!("DROPBOX_KEY ::= {v}"),
        format!("dropbox token - '{v}'"),
    ] {
        assert!(follows(&t), "{t}");
    }
    for t in [
        "we sync with dropbox and more",
        "dropbox's folders",
        "dropbox\n\nkey = k2q8x0vz4m7c1ba",
        "dropbox and a key idea: short",
        "dropbox, and then more",
        "dropbox: K2Q8X0VZ4M7C1BA",
    ] {
        assert!(!follows(t), "{t}");
    }
}

/// The provider named a little before a bare credential name: on the line, or the
/// line before, as logs, config blocks and records name a service once.
#[test]
fn the_provider_named_before_a_bare_credential_name_finds_the_value() {
    let (rule, tree) = expand("t", spec(&["dropbox"], "[a-z0-9]{15}")).expect("expands");
    let (_, value) = tree.expect("tree");
    let v = "k2q8x0vz4m7c1ba";
    let end = |t: &str| t.to_ascii_lowercase().find("dropbox").expect("word") + 7;
    for text in [
        format!("[INFO] Sending request to the dropbox API\n[DEBUG] Using Key={v}"),
        format!(r#"{{"service": "dropbox", "key": "{v}"}}"#),
        format!("# dropbox\napi_key: {v}"),
        format!("You can find a dropbox secret {v} within"),
        format!("You can find a dropboxkey secret {v} within"),
        format!("a DropboxApiKey secret {v}"),
        format!("dropbox (sync, authToken = '{v}')"),
        format!("dropbox\nPASSWORD_PROD={v}"),
        format!("2024-11-05T14:22:31Z INFO  dropbox client: using api key {v}"),
    ] {
        assert_eq!(finds(&rule, &text).as_deref(), Some(v), "{text}");
        let e = end(&text);
        assert!(value.can_follow(text.as_bytes(), e - 7, e), "{text}");
    }
    for text in [
        // Too far: two lines down, or past the lead on the line.
        format!("dropbox\n\nkey = {v}"),
        format!("dropbox {} key = {v}", "x".repeat(60)),
        // A credential word in prose, or running on into a longer word.
        format!("dropbox keyword is not close to the real key in the data = '{v}'"),
        format!("dropbox\nkeyboard = {v}"),
        format!("the dropboxer secret {v}"),
        // A value of another shape.
        format!("dropbox: Using Key={v}9"),
        // A name that says what kind of key it is, or an attribute: not the provider's.
        format!("dropbox sync\nrow_key = {v}"),
        format!("dropbox\nsort key = {v}"),
        format!("dropbox client: using sort key {v}"),
        format!("dropbox\nself.key = {v}"),
        format!("dropbox call keeps dropping\nAssistant: The error token: {v}"),
        format!("dropbox\nnextPageToken: {v}"),
        // A blank is an operator only after an option's dashes.
        format!("the dropbox project {v}"),
        format!("non-dropbox {v}"),
    ] {
        assert_eq!(finds(&rule, &text), None, "{text}");
    }
}

/// The keyword's check lets an option's argument through (more than four blanks make
/// no option's argument). Prose is refused by the pattern, above.
#[test]
fn an_options_argument_passes_the_keywords_check() {
    let (_, parts) = expand("t", spec(&["dropbox"], "[a-z0-9]{15}")).expect("expands");
    let (_, value) = parts.expect("a near rule");
    let v = "k2q8x0vz4m7c1ba";
    let follows = |t: &str| {
        let start = t.find("dropbox").expect("keyword");
        value.can_follow(t.as_bytes(), start, start + "dropbox".len())
    };
    assert!(follows(&format!("sync --dropbox {v}")));
    assert!(follows(&format!("sync -x-dropbox  '{v}'")));
    assert!(!follows(&format!("sync --dropbox{}{v}", " ".repeat(6))));
}

#[test]
fn a_declared_assignment_reads_its_value_group() {
    let tree = super::super::pattern::parse(r"(?i:api_?key)\s*[:=]\s*(?P<value>[A-Za-z0-9]{20,})")
        .expect("parses");
    let value = AssignedValue::declared(&tree).expect("a value group");
    let follows = |t: &str| {
        let start = t.to_ascii_lowercase().find("key").expect("keyword");
        value.can_follow(t.as_bytes(), start, start + 3)
    };
    assert!(follows("API_KEY = Qm9vW3xZpL8rT2vN6kJ4"));
    assert!(!follows("the key idea: keep it short"));
    // Prose's `is` is an operator; a short word after it is no value.
    assert!(follows("my api_key is Qm9vW3xZpL8rT2vN6kJ4 thanks"));
    assert!(!follows("the api_key is here"));
    // A log's `using` names the value with a blank; other prose does not.
    assert!(follows(
        "INFO acme client: using api key Qm9vW3xZpL8rT2vN6kJ4"
    ));
    assert!(!follows("the api key Qm9vW3xZpL8rT2vN6kJ4"));
    let none = super::super::pattern::parse(r"api_key=\w+").expect("parses");
    assert!(AssignedValue::declared(&none).is_none());
}

#[test]
fn the_tree_from_parts_is_the_parsed_pattern() {
    let specs = crate::rules::collect_specs(Vec::new(), &[]).expect("built-in rules");
    let mut seen = 0;
    for s in specs.into_iter().filter(|s| !s.spec.near.is_empty()) {
        let keywords = s.spec.near.clone();
        let (rule, tree) = expand(&s.origin, s.spec).expect("expands");
        let source = rule.regex.as_deref().expect("regex");
        let (tree, _) = tree.expect("tree");
        let parts = super::super::pattern::Pattern::deferred(source.to_string(), tree);
        assert!(parts.is_deferred());
        let whole =
            super::super::pattern::compile_lazy("t", &rule.id, source, &keywords).expect("parses");
        let facts = |p: &super::super::pattern::Pattern| format!("{:?}", p.facts());
        assert_eq!(facts(&parts), facts(&whole), "{}", rule.id);
        seen += 1;
    }
    assert!(seen > 300, "{seen} near rules");
}

#[test]
fn a_near_rule_must_give_a_shape_without_its_own_value_group() {
    let err = expand_err(spec(&["dropbox"], "(?P<value>[a-z]{4})"));
    assert!(err.to_string().contains("shape alone"), "{err}");
    let err = expand_err(spec(&["db"], "[a-z]{4}"));
    assert!(err.to_string().contains("too short"), "{err}");
    let err = expand_err(spec(&["dropbox"], "([a-z]{4}|[0-9]{8})"));
    assert!(err.to_string().contains("(?:"), "{err}");
    assert!(expand("f.toml", spec(&["dropbox"], r"\([a-z]{4}\)")).is_ok());
}

fn expand_err(spec: RuleSpec) -> crate::error::Error {
    match expand("f.toml", spec) {
        Ok(_) => panic!("expands"),
        Err(e) => e,
    }
}
