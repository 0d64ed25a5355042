//! eval-case v1: the seed JSON Schema itself, embedded, with a Draft 2020-12 validator.
//! A record the schema's [`Subset`] admits is valid without asking `jsonschema`.

use super::Issue;
use super::subset::Subset;
use crate::formats::tree::Node;
use serde_json::Value;
use std::sync::LazyLock;

const CHECK: &str = "eval_case_schema";

static SCHEMA: LazyLock<Option<Value>> = LazyLock::new(|| {
    serde_json::from_str(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/schemas/eval-case-v1.schema.json"
    )))
    .ok()
});

static VALIDATOR: LazyLock<Option<jsonschema::Validator>> =
    LazyLock::new(|| jsonschema::draft202012::new(SCHEMA.as_ref()?).ok());

static SUBSET: LazyLock<Option<Subset>> = LazyLock::new(|| Subset::compile(SCHEMA.as_ref()?));

pub fn check(doc: &Node, out: &mut Vec<Issue>) {
    let Some(validator) = VALIDATOR.as_ref() else {
        out.push(Issue::new(
            CHECK,
            "",
            "the embedded eval-case v1 schema failed to compile",
        ));
        return;
    };
    if SUBSET.as_ref().is_some_and(|subset| subset.admits(doc)) {
        return;
    }
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
    use proptest::prelude::*;
    use serde_json::json;

    fn complete_case() -> Value {
        json!({
            "spec": "eval-case-v1", "case_id": "case/0007", "family": "RF",
            "family_label": "recovery", "positive_control": false, "intent": "retry",
            "environment": {"surface": "cli", "runtime": "python"},
            "initial_state": "a", "action_observed": "b", "observed_state": "c",
            "final_claim": "d", "claim_supported": true, "human_risk": "e",
            "oracle": {"description": "f", "requires": ["g"], "gate": "require_evidence"},
            "replay": {"checkpoint": "h", "result": "pass", "reason": "i"},
            "provenance": {"capture": "metadata-only", "anonymization": "j", "source": "k"}
        })
    }

    /// Values to put anywhere: right and wrong types, enum members and near misses,
    /// nested objects valid or not for each object-typed property.
    fn any_value() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(json!(null)),
            any::<bool>().prop_map(Value::Bool),
            Just(json!(1)),
            Just(json!(1.5)),
            prop::sample::select(vec![
                "eval-case-v1",
                "case/0001",
                "case/001",
                "case/00012",
                "case/００01",
                "FCE",
                "TBC",
                "fce",
                "metadata-only",
                "full-transcript",
                "pass",
                "fail",
                "block_final_claim",
                "reinforce_behavior",
                "",
                "é",
            ])
            .prop_map(|s| json!(s)),
            Just(json!(["x", "y"])),
            Just(json!(["x", 2])),
            Just(json!({})),
            Just(json!({"description": "x", "gate": "require_evidence"})),
            Just(json!({"description": "x", "gate": "require_evidence", "why": "y"})),
            Just(json!({"surface": "a", "runtime": "b"})),
            Just(json!({"checkpoint": "c", "result": "fail"})),
            Just(json!({"capture": "metadata-only", "anonymization": "a", "source": "s"})),
            Just(json!({"capture": "metadata-only", "source": "s"})),
        ]
    }

    #[derive(Debug, Clone)]
    enum Edit {
        Set(Vec<String>, Value),
        Remove(Vec<String>),
    }

    fn edit() -> impl Strategy<Value = Edit> {
        let fields = complete_case()
            .as_object()
            .map(|o| o.keys().cloned().collect::<Vec<_>>())
            .unwrap_or_default();
        let nested = [
            "description",
            "requires",
            "gate",
            "surface",
            "result",
            "capture",
            "x",
        ];
        let path = (
            prop::sample::select(fields),
            prop::option::of(prop::sample::select(nested.map(String::from).to_vec())),
        )
            .prop_map(|(top, inner)| [Some(top), inner].into_iter().flatten().collect());
        prop_oneof![
            (path.clone(), any_value()).prop_map(|(p, v)| Edit::Set(p, v)),
            path.prop_map(Edit::Remove),
        ]
    }

    fn apply(doc: &mut Value, edit: &Edit) {
        let (path, value) = match edit {
            Edit::Set(p, v) => (p, Some(v)),
            Edit::Remove(p) => (p, None),
        };
        let (last, parents) = path.split_last().expect("paths are not empty");
        let mut at = doc;
        for key in parents {
            match at.get_mut(key) {
                Some(next) => at = next,
                None => return,
            }
        }
        if let Some(object) = at.as_object_mut() {
            match value {
                Some(v) => object.insert(last.clone(), v.clone()),
                None => object.remove(last),
            };
        }
    }

    #[test]
    fn the_embedded_schema_has_a_subset() {
        let subset = SUBSET.as_ref().expect("eval-case v1 stays in the subset");
        assert!(subset.admits(&Node::from_serde(&complete_case())));
    }

    proptest! {
        /// The subset admits a record exactly when `jsonschema` finds it valid.
        #[test]
        fn the_subset_agrees_with_jsonschema(edits in prop::collection::vec(edit(), 0..4)) {
            let mut doc = complete_case();
            for e in &edits {
                apply(&mut doc, e);
            }
            let subset = SUBSET.as_ref().expect("eval-case v1 stays in the subset");
            let validator = VALIDATOR.as_ref().expect("compiles");
            prop_assert_eq!(
                subset.admits(&Node::from_serde(&doc)),
                validator.is_valid(&doc),
                "{}", doc
            );
        }
    }

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
