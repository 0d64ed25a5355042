//! Eval dataset JSONL (`eval-dataset-schema.md`): core fields, their enums, tool-trace shapes.

use super::{Issue, is_string, require, string_array, string_in};
use crate::formats::tree::Node;

const CHECK: &str = "eval_dataset_schema";

pub fn check(doc: &Node, out: &mut Vec<Issue>) {
    if let Some(id) = require(doc, String::new, "case_id", CHECK, out) {
        let ok = id
            .as_str()
            .and_then(|s| s.rsplit_once('-'))
            .is_some_and(|(agent, n)| {
                !agent.is_empty() && n.len() == 3 && n.bytes().all(|b| b.is_ascii_digit())
            });
        if !ok {
            out.push(Issue::new(
                CHECK,
                "/case_id",
                "must look like `<agent>-<NNN>`",
            ));
        }
    }
    for key in ["scenario_id", "agent_name", "topic_family"] {
        is_string(
            require(doc, String::new, key, CHECK, out),
            || format!("/{key}"),
            CHECK,
            out,
        );
    }
    let enums: [(&str, &[&str]); 4] = [
        ("phase", &["preparation", "assessment"]),
        ("difficulty", &["easy", "medium", "hard"]),
        ("quality_band", &["excellent", "good", "mixed", "poor"]),
        ("learner_level", &["beginner", "intermediate", "advanced"]),
    ];
    for (key, allowed) in enums {
        string_in(
            require(doc, String::new, key, CHECK, out),
            || format!("/{key}"),
            allowed,
            CHECK,
            out,
        );
    }
    string_array(
        doc.get("available_tools"),
        || "/available_tools".into(),
        CHECK,
        out,
    );
    string_array(
        doc.get("required_evals"),
        || "/required_evals".into(),
        CHECK,
        out,
    );
    for (key, fields) in [
        ("expected_tool_calls", ["tool", "arguments", "reason"]),
        ("invoked_tool_calls", ["tool", "arguments", "outcome"]),
    ] {
        match doc.get(key) {
            None => {}
            Some(Node::Array(calls)) => {
                for (i, c) in calls.iter().enumerate() {
                    let p = || format!("/{key}/{i}");
                    if !c.is_object() {
                        out.push(Issue::new(CHECK, p(), "must be an object"));
                        continue;
                    }
                    for f in fields {
                        require(c, p, f, CHECK, out);
                    }
                    is_string(c.get("tool"), || format!("{}/tool", p()), CHECK, out);
                }
            }
            Some(_) => out.push(Issue::new(CHECK, format!("/{key}"), "must be an array")),
        }
    }
}
