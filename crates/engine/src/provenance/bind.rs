//! Which hash in a JSON record describes what.
//!
//! By sibling convention (`X` + `X_hash` / `X_sha256`, `path` + `sha256`, `contentUrl` +
//! `sha256`) or by `[[provenance.bind]]` config entries (a JSON Pointer glob, an optional
//! record type, and a file path or `{field}` template). A sibling that looks like a path
//! names a file; otherwise it is the text the hash describes.

use crate::formats::tree::{Node, Object, Step, pointer};
use globset::{GlobBuilder, GlobMatcher};

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

/// A value that names a file rather than holding text or an identifier: it has a folder
/// separator or a file extension that starts with a letter (`gpt-4.1` is a model).
fn looks_like_path(s: &str) -> bool {
    !s.is_empty()
        && s.len() < 4096
        && !is_url(s)
        && !s.contains(char::is_whitespace)
        && (s.contains('/')
            || s.rsplit_once('.').is_some_and(|(stem, ext)| {
                !stem.is_empty()
                    && (1..=8).contains(&ext.len())
                    && ext.starts_with(|c: char| c.is_ascii_alphabetic())
                    && ext.chars().all(|c| c.is_ascii_alphanumeric())
            }))
}

/// Remote content is not fetched: a URL binds nothing.
fn is_url(s: &str) -> bool {
    s.contains("://") || s.starts_with("data:")
}

/// A hash key that describes text (`text_hash`, `new_buffer_text_hash`), not a file.
pub fn describes_text(hash_key: &str) -> bool {
    hash_key
        .strip_suffix("_hash")
        .or_else(|| hash_key.strip_suffix("_sha256"))
        .is_some_and(|base| is_text_key(base) && !is_file_key(base))
}

/// Keys whose value is the text a sibling hash describes (`text`, `new_buffer_text`).
fn is_text_key(base: &str) -> bool {
    base == "text"
        || base == "content"
        || base.ends_with("_text")
        || base.starts_with("text_") && !is_file_key(base)
}

/// Keys whose value is a path whatever it looks like (`trace_file`, `stoplist_path`).
fn is_file_key(base: &str) -> bool {
    ["file", "path", "_file", "_path", "filename", "_filename"]
        .iter()
        .any(|suffix| base.ends_with(suffix))
}

/// A `sha256:`-prefixed token. Prose that starts with a digest ("sha256:9f… was
/// recomputed after the fix") is text about a hash, not a hash value to judge.
fn is_prefixed_hash(s: &str) -> bool {
    s.starts_with("sha256:") && !s.bytes().any(|b| b.is_ascii_whitespace())
}

/// What [`extract`] fills, with what it reads, carried down the walk.
struct Walk<'r, 'n> {
    doc: &'r Node<'n>,
    rules: &'r [BindRule],
    record_type: Option<&'r str>,
    bindings: &'r mut Vec<Binding>,
    hashes: &'r mut Vec<HashValue>,
}

/// Collects bindings and hash values of one record (a JSON document or JSONL line).
pub fn extract(
    doc: &Node,
    rules: &[BindRule],
    bindings: &mut Vec<Binding>,
    hashes: &mut Vec<HashValue>,
) {
    let mut walk = Walk {
        doc,
        rules,
        record_type: doc.get("record_type").and_then(Node::as_str),
        bindings,
        hashes,
    };
    let mut path = Vec::new();
    walk.visit(doc, &mut path);
}

impl<'r, 'n> Walk<'r, 'n> {
    /// The tree is at most 128 levels deep (see `formats::tree`), so recursion is bounded.
    fn visit<'v>(&mut self, value: &'v Node<'n>, path: &mut Vec<Step<'v>>) {
        match value {
            Node::Object(map) => {
                for (key, v) in map {
                    path.push(Step::Key(key));
                    match v {
                        Node::String(s) if is_hash_key(key) || is_prefixed_hash(s) => {
                            let here = pointer(path);
                            self.hashes.push(HashValue {
                                pointer: here.clone(),
                                value: s.to_string(),
                            });
                            let target = configured(self.rules, &here, self.record_type, self.doc)
                                .or_else(|| sibling(map, key));
                            if let Some(target) = target {
                                self.bindings.push(Binding {
                                    pointer: here,
                                    hash: s.to_string(),
                                    target,
                                });
                            }
                        }
                        Node::Object(_) | Node::Array(_) => self.visit(v, path),
                        _ => {}
                    }
                    path.pop();
                }
            }
            Node::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    path.push(Step::Index(i));
                    match v {
                        Node::String(s) if is_prefixed_hash(s) => self.hashes.push(HashValue {
                            pointer: pointer(path),
                            value: s.to_string(),
                        }),
                        Node::Object(_) | Node::Array(_) => self.visit(v, path),
                        _ => {}
                    }
                    path.pop();
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
    doc: &Node,
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
fn render(template: &str, doc: &Node) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        out.push_str(&rest[..open]);
        let name = &rest[open + 1..open + close];
        match doc.get(name) {
            Some(Node::String(s)) => out.push_str(s),
            Some(Node::Number(n)) => out.push_str(n),
            _ => out.push_str(&rest[open..=open + close]),
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

fn sibling(map: &Object, key: &str) -> Option<Target> {
    if key == "sha256" || key == "hash" {
        for k in ["path", "file", "contentUrl"] {
            if let Some(Node::String(s)) = map.get(k) {
                return looks_like_path(s).then(|| Target::File(s.to_string()));
            }
        }
        return None;
    }
    let base = key
        .strip_suffix("_hash")
        .or_else(|| key.strip_suffix("_sha256"))?;
    for suffix in ["", "_path", "_file"] {
        let named = |k: &str| k.strip_prefix(base) == Some(suffix);
        let Some((k, Node::String(s))) = map.iter().find(|(k, _)| named(k)) else {
            continue;
        };
        if is_file_key(k) {
            return (!s.is_empty() && !is_url(s)).then(|| Target::File(s.to_string()));
        }
        if is_text_key(k) {
            return Some(Target::Text(s.to_string()));
        }
        // Anything else (`model`, `dataset`) binds only when it plainly names a file.
        return looks_like_path(s).then(|| Target::File(s.to_string()));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prose_that_starts_with_a_digest_is_not_a_hash_value() {
        let digest = "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
        let doc = json!({
            "notes": format!("{digest} was recomputed after the fix"),
            "list": [format!("{digest} and more words")],
            "artifact": digest,
        });
        let (mut b, mut h) = (Vec::new(), Vec::new());
        extract(&Node::from_serde(&doc), &[], &mut b, &mut h);
        let pointers: Vec<&str> = h.iter().map(|x| x.pointer.as_str()).collect();
        assert_eq!(pointers, vec!["/artifact"]);
    }

    #[test]
    fn siblings_config_and_hygiene_values() {
        let doc = json!({
            "record_type": "run_meta", "case_id": "c1",
            "trace_file": "traces/c1.json", "trace_file_hash": "sha256:aa",
            "summary": "hello", "summary_hash": "sha256:bb",
            "text": "hello", "text_hash": "sha256:b1",
            "model": "gpt-4.1", "model_hash": "sha256:b2",
            "context_file": "ctx/a", "context_file_hash": "sha256:b3",
            "source": "https://h/x.tar.gz", "source_sha256": "sha256:b4",
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
        extract(&Node::from_serde(&doc), &rules, &mut b, &mut h);
        b.sort_by(|x, y| x.pointer.cmp(&y.pointer));
        let got: Vec<(&str, &Target)> = b.iter().map(|x| (x.pointer.as_str(), &x.target)).collect();
        assert_eq!(
            got,
            vec![
                ("/artifact/sha256", &Target::File("x/y.bin".into())),
                ("/context_file_hash", &Target::File("ctx/a".into())),
                (
                    "/stoplists_provenance/stop_entities_hash",
                    &Target::File("stop/c1.txt".into())
                ),
                ("/text_hash", &Target::Text("hello".into())),
                ("/trace_file_hash", &Target::File("traces/c1.json".into())),
            ]
        );
        assert_eq!(h.len(), 10);
    }
}
