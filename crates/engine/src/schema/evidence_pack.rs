//! Evidence packs (harness contract v0.1): `findings` empty exactly when `pass` is true,
//! `turn_index` 0-based and inside the transcript, `http_audit` aligned with the
//! assistant turns, and the audit block the target calls for.

use super::{Issue, Transcript};
use crate::formats::tree::Node;

const CHECK: &str = "evidence_pack";

/// `sibling`: the `transcript.json` beside the pack, when there is one; a transcript
/// inside the pack wins.
pub fn check(doc: &Node, sibling: Option<Transcript>, out: &mut Vec<Issue>) {
    let transcript = doc.get("transcript").and_then(Transcript::of).or(sibling);
    let turns = transcript.map(|t| t.entries);
    let assistant_turns = transcript.map(|t| t.assistant);
    let in_range = |v: &Node, ptr: String, out: &mut Vec<Issue>| match v.as_i64() {
        Some(i) if i < 0 => out.push(Issue::new(
            CHECK,
            ptr,
            "turn_index is 0-based: it cannot be negative",
        )),
        Some(i) => {
            if let Some(n) = turns
                && i as u64 >= n as u64
            {
                out.push(Issue::new(
                    CHECK,
                    ptr,
                    format!("turn_index {i} is past the transcript's {n} entries"),
                ));
            }
        }
        None => out.push(Issue::new(CHECK, ptr, "turn_index must be an integer")),
    };
    let findings = doc.get("findings").and_then(Node::as_array);
    match (doc.get("pass").and_then(Node::as_bool), findings) {
        (Some(true), Some(f)) if !f.is_empty() => {
            out.push(Issue::new(
                CHECK,
                "/findings",
                "`pass` is true but `findings` is not empty",
            ));
        }
        (Some(false), Some([])) => {
            out.push(Issue::new(
                CHECK,
                "/findings",
                "`findings` is empty but `pass` is false",
            ));
        }
        _ => {}
    }
    for (i, f) in findings.into_iter().flatten().enumerate() {
        if let Some(t) = f.get("turn_index") {
            in_range(t, format!("/findings/{i}/turn_index"), out);
        }
    }
    if let Some(t) = doc.pointer("/mock_audit/turn_index") {
        in_range(t, "/mock_audit/turn_index".into(), out);
    }
    match doc.get("http_audit") {
        Some(Node::Array(audit)) => {
            if let Some(n) = assistant_turns
                && audit.len() != n
            {
                out.push(Issue::new(
                    CHECK,
                    "/http_audit",
                    format!(
                        "{} entries for {n} assistant turns: must be aligned",
                        audit.len()
                    ),
                ));
            }
        }
        Some(_) => out.push(Issue::new(
            CHECK,
            "/http_audit",
            "must be a list aligned to assistant turns",
        )),
        None => {}
    }
    let target = doc.get("target").and_then(Node::as_str).unwrap_or("");
    if target.contains("mock") && doc.get("mock_audit").is_none() {
        out.push(Issue::new(
            CHECK,
            "",
            "the mock target was used but `mock_audit` is missing",
        ));
    }
    if target.contains("http") && doc.get("http_audit").is_none() {
        out.push(Issue::new(
            CHECK,
            "",
            "the HTTP target was used but `http_audit` is missing",
        ));
    }
}
