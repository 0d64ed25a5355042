//! LLM QA case v1 (`llm-qa-case-schema-v1.md`): required fields, `severity_expectation`
//! S0–S3, turn roles, `expected_behavior` subfields, `sources` shape.

use super::{Issue, is_string, require, string_array, string_in};
use crate::formats::tree::Node;

const CHECK: &str = "qa_case_schema";

pub fn check(doc: &Node, out: &mut Vec<Issue>) {
    for key in ["id", "title", "category"] {
        is_string(
            require(doc, String::new, key, CHECK, out),
            || format!("/{key}"),
            CHECK,
            out,
        );
    }
    string_array(
        require(doc, String::new, "tags", CHECK, out),
        || "/tags".into(),
        CHECK,
        out,
    );
    string_in(
        require(doc, String::new, "severity_expectation", CHECK, out),
        || "/severity_expectation".into(),
        &["S0", "S1", "S2", "S3"],
        CHECK,
        out,
    );
    match require(doc, String::new, "turns", CHECK, out) {
        Some(Node::Array(turns)) => {
            for (i, t) in turns.iter().enumerate() {
                let p = || format!("/turns/{i}");
                string_in(
                    require(t, p, "role", CHECK, out),
                    || format!("{}/role", p()),
                    &["system", "user", "assistant"],
                    CHECK,
                    out,
                );
                is_string(
                    require(t, p, "content", CHECK, out),
                    || format!("{}/content", p()),
                    CHECK,
                    out,
                );
            }
        }
        Some(_) => out.push(Issue::new(CHECK, "/turns", "must be an array of turns")),
        None => {}
    }
    match require(doc, String::new, "expected_behavior", CHECK, out) {
        Some(eb @ Node::Object(_)) => {
            for key in ["must_do", "must_not_do", "pass_criteria"] {
                string_array(
                    require(eb, || "/expected_behavior".into(), key, CHECK, out),
                    || format!("/expected_behavior/{key}"),
                    CHECK,
                    out,
                );
            }
        }
        Some(_) => out.push(Issue::new(CHECK, "/expected_behavior", "must be an object")),
        None => {}
    }
    match doc.get("sources") {
        Some(Node::Array(sources)) => {
            for (i, s) in sources.iter().enumerate() {
                let p = || format!("/sources/{i}");
                for key in ["source_id", "title", "text"] {
                    is_string(
                        require(s, p, key, CHECK, out),
                        || format!("{}/{key}", p()),
                        CHECK,
                        out,
                    );
                }
            }
        }
        Some(_) => out.push(Issue::new(CHECK, "/sources", "must be an array of sources")),
        None => {}
    }
    string_array(
        doc.get("tools_expected"),
        || "/tools_expected".into(),
        CHECK,
        out,
    );
    is_string(doc.get("language"), || "/language".into(), CHECK, out);
    is_string(doc.get("notes"), || "/notes".into(), CHECK, out);
}
