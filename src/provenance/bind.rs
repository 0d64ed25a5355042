//! Which hash in a JSON record describes what.
//!
//! By sibling convention (`X` + `X_hash` / `X_sha256`, `path` + `sha256`, `contentUrl` +
//! `sha256`) or by `[[provenance.bind]]` config entries (a JSON Pointer glob, an optional
//! record type, and a file path or `{field}` template). A sibling that looks like a path
//! names a file; otherwise it is the text the hash describes.

use globset::{GlobBuilder, GlobMatcher};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A path as written, relative to the folder of the file that names it.
    File(String),
    /// Text carried by the record itself.
    Text(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// Pointer of the hash value.
    pub pointer: String,
    pub hash: String,
    pub target: Target,
}

/// Every hash-like value in a record, for hygiene checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HashValue {
    pub pointer: String,
    pub value: String,
}

/// A compiled `[[provenance.bind]]` entry.
pub struct BindRule {
    pointer: GlobMatcher,
    record_type: Option<String>,
    file: String,
}

impl BindRule {
    pub fn new(
        pointer: &str,
        record_type: Option<String>,
        file: String,
    ) -> Result<BindRule, String> {
        let glob = GlobBuilder::new(pointer)
            .literal_separator(true)
            .build()
            .map_err(|e| format!("provenance.bind pointer `{pointer}`: {e}"))?;
        Ok(BindRule {
            pointer: glob.compile_matcher(),
            record_type,
            file,
        })
    }
}

/// Keys whose string value is a hash.
pub fn is_hash_key(key: &str) -> bool {
    key.ends_with("_hash") || key.ends_with("_sha256") || key == "sha256" || key == "hash"
}

fn looks_like_path(s: &str) -> bool {
    !s.is_empty()
        && s.len() < 4096
        && !s.contains("://")
        && !s.contains(char::is_whitespace)
        && (s.contains('/')
            || s.rsplit_once('.')
                .is_some_and(|(_, ext)| (1..=8).contains(&ext.len())))
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Collects bindings and hash values of one record (a JSON document or JSONL line).
pub fn extract(
    doc: &Value,
    rules: &[BindRule],
    bindings: &mut Vec<Binding>,
    hashes: &mut Vec<HashValue>,
) {
    let record_type = doc.get("record_type").and_then(Value::as_str);
    let mut stack: Vec<(&Value, String)> = vec![(doc, String::new())];
    while let Some((value, pointer)) = stack.pop() {
        match value {
            Value::Object(map) => {
                for (key, v) in map {
                    let here = format!("{pointer}/{}", escape(key));
                    if let Value::String(s) = v {
                        if is_hash_key(key) || s.starts_with("sha256:") {
                            hashes.push(HashValue {
                                pointer: here.clone(),
                                value: s.clone(),
                            });
                            if let Some(target) = configured(rules, &here, record_type, doc)
                                .or_else(|| sibling(map, key))
                            {
                                bindings.push(Binding {
                                    pointer: here,
                                    hash: s.clone(),
                                    target,
                                });
                            }
                        }
                    } else {
                        stack.push((v, here));
                    }
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    if let Value::String(s) = v {
                        if s.starts_with("sha256:") {
                            hashes.push(HashValue {
                                pointer: format!("{pointer}/{i}"),
                                value: s.clone(),
                            });
                        }
                    } else {
                        stack.push((v, format!("{pointer}/{i}")));
                    }
                }
            }
            _ => {}
        }
    }
}

fn configured(
    rules: &[BindRule],
    pointer: &str,
    record_type: Option<&str>,
    doc: &Value,
) -> Option<Target> {
    let rule = rules.iter().find(|r| {
        r.pointer.is_match(pointer)
            && r.record_type
                .as_deref()
                .is_none_or(|t| Some(t) == record_type)
    })?;
    Some(Target::File(render(&rule.file, doc)))
}

/// Fills `{field}` from the record's top-level strings and numbers.
fn render(template: &str, doc: &Value) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        out.push_str(&rest[..open]);
        let name = &rest[open + 1..open + close];
        match doc.get(name) {
            Some(Value::String(s)) => out.push_str(s),
            Some(Value::Number(n)) => out.push_str(&n.to_string()),
            _ => out.push_str(&rest[open..=open + close]),
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

fn sibling(map: &serde_json::Map<String, Value>, key: &str) -> Option<Target> {
    // `text_hash` and friends describe text even when it happens to look like `v1.2`.
    let is_text = key.contains("text") || key.starts_with("content");
    let text_or_file = |s: &str| {
        if !is_text && looks_like_path(s) {
            Target::File(s.to_string())
        } else {
            Target::Text(s.to_string())
        }
    };
    if key == "sha256" || key == "hash" {
        for k in ["path", "file", "contentUrl"] {
            if let Some(Value::String(s)) = map.get(k) {
                return looks_like_path(s).then(|| Target::File(s.clone()));
            }
        }
        return None;
    }
    let base = key
        .strip_suffix("_hash")
        .or_else(|| key.strip_suffix("_sha256"))?;
    for k in [
        base.to_string(),
        format!("{base}_path"),
        format!("{base}_file"),
    ] {
        if let Some(Value::String(s)) = map.get(&k) {
            return Some(text_or_file(s));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn siblings_config_and_hygiene_values() {
        let doc = json!({
            "record_type": "run_meta", "case_id": "c1",
            "trace_file": "traces/c1.json", "trace_file_hash": "sha256:aa",
            "summary": "hello", "summary_hash": "sha256:bb",
            "artifact": {"path": "x/y.bin", "sha256": "cc"},
            "remote": {"contentUrl": "https://h/x", "sha256": "dd"},
            "stoplists_provenance": {"stop_entities_hash": "sha256:ee"},
            "list": ["sha256:ff"]
        });
        let rules = vec![
            BindRule::new(
                "/stoplists_provenance/stop_entities_hash",
                Some("run_meta".into()),
                "stop/{case_id}.txt".into(),
            )
            .expect("glob"),
        ];
        let (mut b, mut h) = (Vec::new(), Vec::new());
        extract(&doc, &rules, &mut b, &mut h);
        b.sort_by(|x, y| x.pointer.cmp(&y.pointer));
        let got: Vec<(&str, &Target)> = b.iter().map(|x| (x.pointer.as_str(), &x.target)).collect();
        assert_eq!(
            got,
            vec![
                ("/artifact/sha256", &Target::File("x/y.bin".into())),
                (
                    "/stoplists_provenance/stop_entities_hash",
                    &Target::File("stop/c1.txt".into())
                ),
                ("/summary_hash", &Target::Text("hello".into())),
                ("/trace_file_hash", &Target::File("traces/c1.json".into())),
            ]
        );
        assert_eq!(h.len(), 6);
    }
}
