//! eval-case v1: the seed JSON Schema itself, embedded, with a Draft 2020-12 validator.

use super::Issue;
use crate::formats::tree::Node;
use serde_json::Value;
use std::sync::LazyLock;

const CHECK: &str = "eval_case_schema";

static VALIDATOR: LazyLock<Option<jsonschema::Validator>> = LazyLock::new(|| {
    let schema: Value =
        serde_json::from_str(include_str!("../../schemas/eval-case-v1.schema.json")).ok()?;
    jsonschema::draft202012::new(&schema).ok()
});

pub fn check(doc: &Node, out: &mut Vec<Issue>) {
    let Some(validator) = VALIDATOR.as_ref() else {
        out.push(Issue::new(
            CHECK,
            "",
            "the embedded eval-case v1 schema failed to compile",
        ));
        return;
    };
    let doc = doc.to_serde();
    for error in validator.iter_errors(&doc) {
        // The message quotes the offending value; name the rule broken, not the value.
        let pointer = error.instance_path().to_string();
        let kind = error.schema_path().to_string();
        let keyword = kind.rsplit('/').next().unwrap_or("schema");
        out.push(Issue::new(
            CHECK,
            pointer,
            format!("eval-case v1: violates `{keyword}` ({kind})"),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn schema_violations_have_pointers() {
        let mut out = Vec::new();
        check(
            &Node::from_serde(
                &json!({"spec": "eval-case-v1", "case_id": "case/12", "family": "XX", "extra": 1}),
            ),
            &mut out,
        );
        let pointers: Vec<&str> = out.iter().map(|i| i.pointer.as_str()).collect();
        assert!(pointers.contains(&"/case_id"), "{out:?}");
        assert!(pointers.contains(&"/family"), "{out:?}");
        assert!(
            pointers.contains(&""),
            "missing required fields and the unknown one: {out:?}"
        );
    }
}
