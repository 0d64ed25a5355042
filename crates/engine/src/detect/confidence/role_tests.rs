//! Who wrote a value, read from records' shapes.
use super::*;
use crate::formats::json;

fn roles_in(doc: &str) -> Vec<(String, Role)> {
    let roles = Roles::builtin();
    let mut unit = Unit::default();
    assert!(json::tokenize(doc.as_bytes(), 0, &mut unit).is_ok());
    let shape = Shape::of(&unit, &roles);
    unit.segments
        .iter()
        .filter(|s| !s.is_key)
        .filter_map(|s| s.node)
        .map(|n| (unit.paths.pointer(n), shape.role(&unit, &roles, n)))
        .collect()
}

fn role_at(doc: &str, pointer: &str) -> Role {
    roles_in(doc)
        .into_iter()
        .find(|(p, _)| p == pointer)
        .map(|(_, r)| r)
        .unwrap_or_else(|| panic!("no value at {pointer}"))
}

#[test]
fn turns_inside_a_string() {
    assert_eq!(turn_before(b"\n\nHuman: mail me at "), Some(Role::Person));
    assert_eq!(
        turn_before(b"\n\nHuman: hi\n\nAssistant: write to "),
        Some(Role::Model)
    );
    assert_eq!(turn_before(b"no turns here "), None);
}

#[test]
fn the_vocabulary_ships() {
    assert!(toml::from_str::<RolesFile>(BUILTIN_ROLES).is_ok());
}

#[test]
fn speakers_name_who_wrote_a_message() {
    let doc = r#"{"messages": [{"role": "user", "content": "a"},
        {"role": "assistant", "content": "b"}, {"role": "tool", "content": "c"},
        {"role": "system", "content": "d"}]}"#;
    assert_eq!(role_at(doc, "/messages/0/content"), Role::Person);
    assert_eq!(role_at(doc, "/messages/1/content"), Role::Model);
    assert_eq!(role_at(doc, "/messages/2/content"), Role::Machine);
    // A system prompt is the harness's, and may carry the real machine's folders.
    assert_eq!(role_at(doc, "/messages/3/content"), Role::Unknown);
}

#[test]
fn member_names_say_it_nearest_first() {
    let doc = r#"{"choices": [{"turns": [{"content": "a"}]}], "instruction": "b",
        "trajectory": [{"observation": "c", "thought": "d"}],
        "init": {"code": "e"}, "ground_truth": "f", "tool_output": "g",
        "expected_output": "h", "setup_log": "i", "input_schema": {"x": "j"}}"#;
    assert_eq!(role_at(doc, "/choices/0/turns/0/content"), Role::Model);
    assert_eq!(role_at(doc, "/instruction"), Role::Person);
    assert_eq!(role_at(doc, "/trajectory/0/observation"), Role::Machine);
    assert_eq!(role_at(doc, "/trajectory/0/thought"), Role::Model);
    assert_eq!(role_at(doc, "/init/code"), Role::Task);
    assert_eq!(role_at(doc, "/ground_truth"), Role::Task);
    assert_eq!(role_at(doc, "/tool_output"), Role::Machine);
    assert_eq!(role_at(doc, "/expected_output"), Role::Task);
    assert_eq!(role_at(doc, "/setup_log"), Role::Machine);
    assert_eq!(role_at(doc, "/input_schema/x"), Role::Task);
}

/// `output` is an answer where the record names a model, a program's output where
/// it names a command, and just a field elsewhere.
#[test]
fn an_output_is_whose_the_record_says() {
    let eval = r#"{"instruction": "q", "output": "a", "generator": "m"}"#;
    assert_eq!(role_at(eval, "/output"), Role::Model);
    let pair = r#"{"instruction": "q", "output_1": "a", "generator_1": "m"}"#;
    assert_eq!(role_at(pair, "/output_1"), Role::Model);
    let run = r#"{"command": "ls", "output": "a", "exit_code": 0}"#;
    assert_eq!(role_at(run, "/output"), Role::Machine);
    let field = r#"{"id": "x", "form": "json", "output": "a"}"#;
    assert_eq!(role_at(field, "/output"), Role::Unknown);
    // A step of an agent run: the action's output is the machine's, the response
    // the model's.
    let step = r#"{"model_name": "m", "trajectory": [{"action": "curl x", "output": "a",
        "response": "b"}], "config": {"model": {"base_url": "c"}}}"#;
    assert_eq!(role_at(step, "/trajectory/0/output"), Role::Machine);
    assert_eq!(role_at(step, "/trajectory/0/response"), Role::Model);
    assert_eq!(role_at(step, "/config/model/base_url"), Role::Unknown);
}

#[test]
fn a_credential_name_is_no_role_of_its_own() {
    // `db` says which password it is; the record above says who wrote it.
    assert_eq!(
        role_at(r#"{"DB_PASSWORD": "x"}"#, "/DB_PASSWORD"),
        Role::Unknown
    );
    assert_eq!(
        role_at(r#"{"seed_token": "x"}"#, "/seed_token"),
        Role::Unknown
    );
    let fixture = r#"{"fixtures": {"db_password": "x"}}"#;
    assert_eq!(role_at(fixture, "/fixtures/db_password"), Role::Task);
    // Other heads keep the compound rule: `db_url` is the database's.
    assert_eq!(role_at(r#"{"db_url": "x"}"#, "/db_url"), Role::Task);
}
