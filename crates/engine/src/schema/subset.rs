//! A quick "this record plainly conforms" for a JSON Schema written in a small subset
//! of the language, read straight from the borrowed record tree.
//!
//! `jsonschema` wants a `serde_json::Value`: converting every eval-case record to one
//! (every string copied, every object a map) and dropping it again was about 6% of a
//! scan's CPU, spent on records that are almost all valid. [`Subset::admits`] answers
//! only "valid": a record it does not admit goes to `jsonschema`, which alone words the
//! errors. So the subset need not cover everything, only never admit what `jsonschema`
//! rejects; a schema using any keyword outside it gets no subset at all.

use crate::formats::tree::Node;
use regex::Regex;
use serde_json::Value;

/// Keywords with no effect on validity.
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$comment",
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// JSON types the subset checks (`integer` and `number` are left to `jsonschema`: their
/// equality and integrality rules are not worth repeating here).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Null,
    Boolean,
    String,
    Array,
    Object,
}

/// A `const` or `enum` member the subset can compare without number semantics.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Scalar {
    Null,
    Bool(bool),
    Str(String),
}

#[derive(Debug, Default)]
pub struct Subset {
    kinds: Option<Vec<Kind>>,
    /// `const` is held as a one-member `enum`.
    one_of_values: Option<Vec<Scalar>>,
    pattern: Option<Regex>,
    required: Vec<String>,
    properties: Vec<(String, Subset)>,
    /// `additionalProperties: false`.
    closed: bool,
    items: Option<Box<Subset>>,
}

impl Subset {
    /// The subset form of `schema`, or `None` when it uses anything outside the subset.
    pub fn compile(schema: &Value) -> Option<Subset> {
        let Value::Object(map) = schema else {
            return None;
        };
        let mut out = Subset::default();
        for (keyword, value) in map {
            match keyword.as_str() {
                k if ANNOTATIONS.contains(&k) => {}
                "type" => out.kinds = Some(kinds(value)?),
                "const" => out.one_of_values = Some(vec![scalar(value)?]),
                "enum" => {
                    let options = value.as_array()?.iter().map(scalar);
                    out.one_of_values = Some(options.collect::<Option<Vec<_>>>()?);
                }
                "pattern" => out.pattern = Some(pattern(value.as_str()?)?),
                "required" => {
                    let names = value
                        .as_array()?
                        .iter()
                        .map(|n| n.as_str().map(String::from));
                    out.required = names.collect::<Option<Vec<_>>>()?;
                }
                "properties" => {
                    let props = value.as_object()?.iter();
                    let compiled = props.map(|(k, v)| Some((k.clone(), Subset::compile(v)?)));
                    out.properties = compiled.collect::<Option<Vec<_>>>()?;
                }
                "additionalProperties" => out.closed = !value.as_bool()?,
                "items" => out.items = Some(Box::new(Subset::compile(value)?)),
                _ => return None,
            }
        }
        // Both `const` and `enum` would be an intersection; not worth holding.
        if map.contains_key("const") && map.contains_key("enum") {
            return None;
        }
        Some(out)
    }

    /// Whether `node` certainly satisfies the schema. `false` means "ask `jsonschema`".
    pub fn admits(&self, node: &Node) -> bool {
        if let Some(kinds) = &self.kinds
            && !kinds.iter().any(|&k| is_kind(node, k))
        {
            return false;
        }
        if let Some(options) = &self.one_of_values
            && !options.iter().any(|o| equals(node, o))
        {
            return false;
        }
        match node {
            Node::String(s) => self.pattern.as_ref().is_none_or(|p| {
                // ECMA-262 counts UTF-16 units and has its own `\d` and `.`; on ASCII
                // text with the plain syntax `pattern` allows, the two engines agree.
                s.is_ascii() && p.is_match(s)
            }),
            Node::Array(items) => self
                .items
                .as_ref()
                .is_none_or(|shape| items.iter().all(|i| shape.admits(i))),
            Node::Object(object) => {
                // Keys are unique in a record tree (a repeated key keeps its last value,
                // as in the `serde_json::Value` `jsonschema` would see).
                self.required.iter().all(|name| object.get(name).is_some())
                    && object.iter().all(|(key, value)| {
                        match self.properties.iter().find(|(name, _)| name == key) {
                            Some((_, shape)) => shape.admits(value),
                            None => !self.closed,
                        }
                    })
            }
            _ => true,
        }
    }
}

fn kinds(value: &Value) -> Option<Vec<Kind>> {
    let one = |name: &Value| match name.as_str()? {
        "null" => Some(Kind::Null),
        "boolean" => Some(Kind::Boolean),
        "string" => Some(Kind::String),
        "array" => Some(Kind::Array),
        "object" => Some(Kind::Object),
        _ => None,
    };
    match value {
        Value::Array(names) => names.iter().map(one).collect(),
        name => Some(vec![one(name)?]),
    }
}

fn scalar(value: &Value) -> Option<Scalar> {
    match value {
        Value::Null => Some(Scalar::Null),
        Value::Bool(b) => Some(Scalar::Bool(*b)),
        Value::String(s) => Some(Scalar::Str(s.clone())),
        _ => None,
    }
}

/// Plain patterns only: ASCII letters, digits and a few operators, no escapes, no `.`.
fn pattern(source: &str) -> Option<Regex> {
    let plain = source
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"^$[]{}()|?*+-_/,: ".contains(&b));
    if !plain {
        return None;
    }
    Regex::new(source).ok()
}

fn is_kind(node: &Node, kind: Kind) -> bool {
    matches!(
        (node, kind),
        (Node::Null, Kind::Null)
            | (Node::Bool(_), Kind::Boolean)
            | (Node::String(_), Kind::String)
            | (Node::Array(_), Kind::Array)
            | (Node::Object(_), Kind::Object)
    )
}

fn equals(node: &Node, want: &Scalar) -> bool {
    match (node, want) {
        (Node::Null, Scalar::Null) => true,
        (Node::Bool(a), Scalar::Bool(b)) => a == b,
        (Node::String(a), Scalar::Str(b)) => a.as_ref() == b.as_str(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keywords_outside_the_subset_give_no_subset() {
        for schema in [
            json!({"type": "integer"}),
            json!({"minLength": 3}),
            json!({"enum": [1, 2]}),
            json!({"pattern": "^\\d+$"}),
            json!({"pattern": "^a.b$"}),
            json!({"additionalProperties": {"type": "string"}}),
            json!({"properties": {"a": {"oneOf": []}}}),
            json!({"const": "a", "enum": ["a"]}),
            json!(true),
        ] {
            assert!(Subset::compile(&schema).is_none(), "{schema}");
        }
    }

    #[test]
    fn admits_only_what_conforms() {
        let schema = json!({
            "type": "object", "required": ["id"], "additionalProperties": false,
            "properties": {
                "id": {"type": "string", "pattern": "^case/[0-9]{2}$"},
                "tags": {"type": "array", "items": {"enum": ["a", "b"]}},
                "on": {"type": ["boolean", "null"]},
                "kind": {"const": "x"}
            }
        });
        let subset = Subset::compile(&schema).expect("in the subset");
        let admits = |v: Value| subset.admits(&Node::from_serde(&v));
        assert!(admits(
            json!({"id": "case/12", "tags": ["a", "b"], "on": null, "kind": "x"})
        ));
        assert!(admits(json!({"id": "case/12", "on": true})));
        assert!(!admits(json!({"id": "case/123"})));
        assert!(!admits(json!({"id": "case/１２"})));
        assert!(!admits(json!({"tags": []})));
        assert!(!admits(json!({"id": "case/12", "tags": ["c"]})));
        assert!(!admits(json!({"id": "case/12", "on": 1})));
        assert!(!admits(json!({"id": "case/12", "kind": "y"})));
        assert!(!admits(json!({"id": "case/12", "other": 1})));
        assert!(!admits(json!(["case/12"])));
    }
}
