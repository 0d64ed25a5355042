//! A borrowed JSON tree for the record checks (seed formats, hash hygiene, bindings).
//!
//! `serde_json::Value` copies every string and keeps objects in a `BTreeMap`: on the
//! long prose of eval records, building it cost a quarter of a scan. Here a string
//! without escapes is a slice of the record, an object is its members in document
//! order, and a number keeps its text. Only the schema validator that needs a
//! `serde_json::Value` (eval-case v1, through `jsonschema`) gets one, by
//! [`Node::to_serde`].

use std::borrow::Cow;

/// Records nested deeper than this are left to the privacy scan, as `serde_json` does.
const MAX_DEPTH: usize = 128;

#[derive(Debug, Clone, PartialEq)]
pub enum Node<'a> {
    Null,
    Bool(bool),
    /// The number's text, as written.
    Number(Cow<'a, str>),
    String(Cow<'a, str>),
    Array(Vec<Node<'a>>),
    Object(Object<'a>),
}

/// An object's members in document order, keys unique (a repeated key keeps its last
/// value, as `serde_json` does).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Object<'a> {
    members: Vec<(Cow<'a, str>, Node<'a>)>,
}

impl<'a> Object<'a> {
    pub fn get(&self, key: &str) -> Option<&Node<'a>> {
        self.members
            .iter()
            .find(|(k, _)| k.as_ref() == key)
            .map(|(_, v)| v)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &Node<'a>)> {
        self.members.iter().map(|(k, v)| (k.as_ref(), v))
    }

    pub fn len(&self) -> usize {
        self.members.len()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Drops earlier members whose key repeats later.
    fn dedup_keys(&mut self) {
        let n = self.members.len();
        let repeated = if n <= 16 {
            (1..n).any(|i| {
                self.members[..i]
                    .iter()
                    .any(|(k, _)| *k == self.members[i].0)
            })
        } else {
            let mut seen = std::collections::HashSet::with_capacity(n);
            !self.members.iter().all(|(k, _)| seen.insert(k.as_ref()))
        };
        if !repeated {
            return;
        }
        let mut last = std::collections::HashMap::with_capacity(n);
        for (i, (k, _)) in self.members.iter().enumerate() {
            last.insert(k.clone(), i);
        }
        let mut i = 0;
        self.members.retain(|(k, _)| {
            let keep = last.get(k) == Some(&i);
            i += 1;
            keep
        });
    }
}

impl<'o, 'a> IntoIterator for &'o Object<'a> {
    type Item = (&'o str, &'o Node<'a>);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'o, (Cow<'a, str>, Node<'a>)>,
        fn(&'o (Cow<'a, str>, Node<'a>)) -> (&'o str, &'o Node<'a>),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.members.iter().map(|(k, v)| (k.as_ref(), v))
    }
}

impl<'a> Node<'a> {
    /// Parses one JSON value filling all of `doc` (surrounding whitespace allowed).
    pub fn parse(doc: &'a [u8]) -> Result<Node<'a>, TreeError> {
        let text = std::str::from_utf8(doc).map_err(|_| TreeError("not UTF-8"))?;
        let mut p = Parser { text, pos: 0 };
        let node = p.value(0)?;
        p.skip_ws();
        if p.pos != text.len() {
            return Err(TreeError("trailing characters"));
        }
        Ok(node)
    }

    /// The member `key` of an object; `None` for anything else.
    pub fn get(&self, key: &str) -> Option<&Node<'a>> {
        match self {
            Node::Object(o) => o.get(key),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Node::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Node<'a>]> {
        match self {
            Node::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Object<'a>> {
        match self {
            Node::Object(o) => Some(o),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Node::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// An integer written without fraction or exponent that fits an `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Node::Number(n) => n.parse().ok(),
            _ => None,
        }
    }

    pub fn is_string(&self) -> bool {
        matches!(self, Node::String(_))
    }

    pub fn is_object(&self) -> bool {
        matches!(self, Node::Object(_))
    }

    pub fn is_array(&self) -> bool {
        matches!(self, Node::Array(_))
    }

    /// The value at a JSON Pointer (RFC 6901).
    pub fn pointer(&self, pointer: &str) -> Option<&Node<'a>> {
        if pointer.is_empty() {
            return Some(self);
        }
        let mut node = self;
        for token in pointer.strip_prefix('/')?.split('/') {
            let token = token.replace("~1", "/").replace("~0", "~");
            node = match node {
                Node::Object(o) => o.get(&token)?,
                Node::Array(a) => a.get(token.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(node)
    }

    /// The same value as a `serde_json::Value`, for validators built on one.
    pub fn to_serde(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(*b),
            // Text the tokenizer accepted but `serde_json` cannot hold stays a string,
            // so a type check still fails on it.
            Node::Number(n) => serde_json::from_str::<serde_json::Number>(n)
                .map_or_else(|_| Value::String(n.to_string()), Value::Number),
            Node::String(s) => Value::String(s.to_string()),
            Node::Array(a) => Value::Array(a.iter().map(Node::to_serde).collect()),
            Node::Object(o) => Value::Object(
                o.iter()
                    .map(|(k, v)| (k.to_string(), v.to_serde()))
                    .collect(),
            ),
        }
    }

    /// A tree over a `serde_json::Value`, borrowing its strings: tests write records
    /// with `serde_json::json!`.
    #[cfg(test)]
    pub fn from_serde(value: &'a serde_json::Value) -> Node<'a> {
        use serde_json::Value;
        match value {
            Value::Null => Node::Null,
            Value::Bool(b) => Node::Bool(*b),
            Value::Number(n) => Node::Number(Cow::Owned(n.to_string())),
            Value::String(s) => Node::String(Cow::Borrowed(s)),
            Value::Array(a) => Node::Array(a.iter().map(Node::from_serde).collect()),
            Value::Object(m) => Node::Object(Object {
                members: m
                    .iter()
                    .map(|(k, v)| (Cow::Borrowed(k.as_str()), Node::from_serde(v)))
                    .collect(),
            }),
        }
    }
}

/// One step from a record's root to a value: spelled out as a pointer only for the
/// values that become findings or claims.
#[derive(Clone, Copy)]
pub enum Step<'n> {
    Key(&'n str),
    Index(usize),
}

/// The RFC 6901 pointer of `path`.
pub fn pointer(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        out.push('/');
        match step {
            Step::Key(k) => {
                for c in k.chars() {
                    match c {
                        '~' => out.push_str("~0"),
                        '/' => out.push_str("~1"),
                        c => out.push(c),
                    }
                }
            }
            Step::Index(i) => out.push_str(&i.to_string()),
        }
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TreeError(&'static str);

/// Builds a tree from the JSON tokenizer's events, so a record the audit needs is read
/// once, not once for detection and again for the audit. Past [`MAX_DEPTH`] it gives
/// up, as [`Node::parse`] does.
#[derive(Default)]
pub struct TreeBuilder<'a> {
    open: Vec<Partial<'a>>,
    root: Option<Node<'a>>,
    too_deep: bool,
}

enum Partial<'a> {
    Object(Object<'a>, Option<Cow<'a, str>>),
    Array(Vec<Node<'a>>),
}

impl<'a> TreeBuilder<'a> {
    pub fn open_object(&mut self) {
        self.open_container(Partial::Object(Object::default(), None));
    }

    pub fn open_array(&mut self) {
        self.open_container(Partial::Array(Vec::new()));
    }

    fn open_container(&mut self, partial: Partial<'a>) {
        if self.open.len() >= MAX_DEPTH {
            self.too_deep = true;
        }
        if !self.too_deep {
            self.open.push(partial);
        }
    }

    /// The name of the next member of the innermost object.
    pub fn key(&mut self, key: Cow<'a, str>) {
        if let Some(Partial::Object(_, pending)) = self.open.last_mut() {
            *pending = Some(key);
        }
    }

    /// A complete value: a scalar, or an empty container.
    pub fn value(&mut self, node: Node<'a>) {
        if self.too_deep {
            return;
        }
        match self.open.last_mut() {
            Some(Partial::Object(object, pending)) => {
                if let Some(key) = pending.take() {
                    object.members.push((key, node));
                }
            }
            Some(Partial::Array(items)) => items.push(node),
            None => self.root = Some(node),
        }
    }

    /// Closes the innermost container.
    pub fn close(&mut self) {
        if self.too_deep {
            return;
        }
        let node = match self.open.pop() {
            Some(Partial::Object(mut object, _)) => {
                object.dedup_keys();
                Node::Object(object)
            }
            Some(Partial::Array(items)) => Node::Array(items),
            None => return,
        };
        self.value(node);
    }

    /// The tree, when the document was complete and not too deep.
    pub fn finish(self) -> Option<Node<'a>> {
        (!self.too_deep && self.open.is_empty())
            .then_some(self.root)
            .flatten()
    }
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Parser<'a> {
    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes().get(self.pos) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        self.skip_ws();
        if self.bytes().get(self.pos) == Some(&byte) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node<'a>, TreeError> {
        if depth > MAX_DEPTH {
            return Err(TreeError("nested too deep"));
        }
        self.skip_ws();
        let Some(&b) = self.bytes().get(self.pos) else {
            return Err(TreeError("unexpected end"));
        };
        match b {
            b'{' => {
                self.pos += 1;
                let mut object = Object::default();
                if self.eat(b'}') {
                    return Ok(Node::Object(object));
                }
                loop {
                    self.skip_ws();
                    if self.bytes().get(self.pos) != Some(&b'"') {
                        return Err(TreeError("expected a key"));
                    }
                    let key = self.string()?;
                    if !self.eat(b':') {
                        return Err(TreeError("expected `:`"));
                    }
                    let value = self.value(depth + 1)?;
                    object.members.push((key, value));
                    if self.eat(b',') {
                        continue;
                    }
                    if self.eat(b'}') {
                        object.dedup_keys();
                        return Ok(Node::Object(object));
                    }
                    return Err(TreeError("expected `,` or `}`"));
                }
            }
            b'[' => {
                self.pos += 1;
                let mut items = Vec::new();
                if self.eat(b']') {
                    return Ok(Node::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    if self.eat(b',') {
                        continue;
                    }
                    if self.eat(b']') {
                        return Ok(Node::Array(items));
                    }
                    return Err(TreeError("expected `,` or `]`"));
                }
            }
            b'"' => self.string().map(Node::String),
            b'-' | b'0'..=b'9' => {
                let start = self.pos;
                while let Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') =
                    self.bytes().get(self.pos)
                {
                    self.pos += 1;
                }
                Ok(Node::Number(Cow::Borrowed(&self.text[start..self.pos])))
            }
            _ => {
                for (word, node) in [
                    ("true", Node::Bool(true)),
                    ("false", Node::Bool(false)),
                    ("null", Node::Null),
                ] {
                    if self.text[self.pos..].starts_with(word) {
                        self.pos += word.len();
                        return Ok(node);
                    }
                }
                Err(TreeError("expected a value"))
            }
        }
    }

    /// A string at `pos` (on its opening quote): borrowed unless it holds an escape.
    fn string(&mut self) -> Result<Cow<'a, str>, TreeError> {
        let start = self.pos + 1;
        let bytes = self.bytes();
        let Some(i) = memchr::memchr2(b'"', b'\\', &bytes[start..]) else {
            return Err(TreeError("unterminated string"));
        };
        if bytes[start + i] == b'"' {
            self.pos = start + i + 1;
            return Ok(Cow::Borrowed(&self.text[start..start + i]));
        }
        let mut out = String::with_capacity(i + 16);
        let mut pos = start;
        loop {
            let Some(i) = memchr::memchr2(b'"', b'\\', &bytes[pos..]) else {
                return Err(TreeError("unterminated string"));
            };
            out.push_str(&self.text[pos..pos + i]);
            pos += i;
            if bytes[pos] == b'"' {
                self.pos = pos + 1;
                return Ok(Cow::Owned(out));
            }
            pos = self.escape(pos, &mut out)?;
        }
    }

    /// Decodes the escape at `at` (its backslash) into `out`; returns the offset after it.
    fn escape(&self, at: usize, out: &mut String) -> Result<usize, TreeError> {
        let bytes = self.bytes();
        let simple = match bytes.get(at + 1) {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                let unit = self.hex4(at + 2)?;
                if (0xD800..0xDC00).contains(&unit)
                    && bytes.get(at + 6..at + 8) == Some(b"\\u")
                    && let Ok(low) = self.hex4(at + 8)
                    && (0xDC00..0xE000).contains(&low)
                {
                    let c = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                    out.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
                    return Ok(at + 12);
                }
                out.push(char::from_u32(unit).unwrap_or('\u{FFFD}'));
                return Ok(at + 6);
            }
            _ => return Err(TreeError("invalid escape")),
        };
        out.push(simple);
        Ok(at + 2)
    }

    fn hex4(&self, at: usize) -> Result<u32, TreeError> {
        self.text
            .get(at..at + 4)
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .filter(|_| self.bytes()[at..at + 4].iter().all(u8::is_ascii_hexdigit))
            .ok_or(TreeError("invalid \\u escape"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Node<'_> {
        Node::parse(s.as_bytes()).expect("parses")
    }

    #[test]
    fn plain_strings_borrow_and_escaped_ones_decode() {
        let doc = r#"{"a": "plain", "b": "tab\there \u00e9 \ud83d\ude00 \/", "c": [1, -2.5e3, true, null]}"#;
        let node = parse(doc);
        assert!(matches!(
            node.get("a"),
            Some(Node::String(Cow::Borrowed("plain")))
        ));
        assert_eq!(
            node.get("b").and_then(Node::as_str),
            Some("tab\there é 😀 /")
        );
        assert_eq!(node.pointer("/c/0").and_then(Node::as_i64), Some(1));
        assert_eq!(
            node.pointer("/c/1").and_then(Node::as_i64),
            None,
            "not an integer"
        );
        assert_eq!(node.pointer("/c/2").and_then(Node::as_bool), Some(true));
        assert_eq!(node.pointer("/c/3"), Some(&Node::Null));
    }

    #[test]
    fn agrees_with_serde_json() {
        let docs = [
            r#"{"k": {"x~y/z": ["a", {"b": 1}]}, "n": 12345678901234, "e": ""}"#,
            r#"[{"dup": 1, "dup": 2}, "\"quoted\"", false]"#,
            r#"  {"nested": [[[]]], "u": "\u0041\u00df"}  "#,
        ];
        for doc in docs {
            let ours = parse(doc);
            let theirs: serde_json::Value = serde_json::from_str(doc).expect("valid JSON");
            assert_eq!(ours.to_serde(), theirs, "{doc}");
        }
        assert_eq!(
            parse(r#"{"k": {"x~y/z": 7}}"#)
                .pointer("/k/x~0y~1z")
                .and_then(Node::as_i64),
            Some(7)
        );
    }

    #[test]
    fn repeated_keys_keep_the_last_value_once() {
        let node = parse(r#"{"a": 1, "b": 2, "a": 3}"#);
        let keys: Vec<&str> = node
            .as_object()
            .map(|o| o.iter().map(|(k, _)| k).collect())
            .unwrap_or_default();
        assert_eq!(keys, ["b", "a"]);
        assert_eq!(node.get("a").and_then(Node::as_i64), Some(3));
        let many: String = (0..40).map(|i| format!("\"k{}\": {i},", i % 20)).collect();
        let doc = format!("{{{many} \"z\": 0}}");
        let node = Node::parse(doc.as_bytes()).expect("parses");
        assert_eq!(node.as_object().map(Object::len), Some(21));
        assert_eq!(node.get("k3").and_then(Node::as_i64), Some(23));
    }

    #[test]
    fn the_tokenizer_builds_the_same_tree() {
        let docs = [
            r#"{"a": "plain", "b": "esc\"aped\n", "c": [1, -2.5e3, true, false, null, {}, []]}"#,
            r#"[{"dup": 1, "dup": {"x": [[]]}}, "\u00e9", 12345678901234]"#,
            r#"{"k\/ey": {"nested": {"deeper": ["x"]}}, "e": ""}"#,
            "\"just a string\"",
            "42",
        ];
        for doc in docs {
            let mut unit = crate::formats::Unit::default();
            let mut builder = TreeBuilder::default();
            crate::formats::json::tokenize_tree(doc.as_bytes(), 0, &mut unit, &mut builder)
                .expect("valid JSON");
            assert_eq!(builder.finish(), Some(parse(doc)), "{doc}");
        }
        let mut unit = crate::formats::Unit::default();
        let mut builder = TreeBuilder::default();
        crate::formats::json::tokenize_tree(b"[\"\xff\"]", 0, &mut unit, &mut builder)
            .expect("the tokenizer takes any bytes in a string");
        assert_eq!(
            builder.finish(),
            None,
            "not UTF-8: no tree, as for Node::parse"
        );
        let deep = "[".repeat(200) + &"]".repeat(200);
        let mut unit = crate::formats::Unit::default();
        let mut builder = TreeBuilder::default();
        crate::formats::json::tokenize_tree(deep.as_bytes(), 0, &mut unit, &mut builder)
            .expect("the tokenizer takes any depth");
        assert_eq!(
            builder.finish(),
            None,
            "too deep for a tree, as for Node::parse"
        );
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        let deep = "[".repeat(200) + &"]".repeat(200);
        for bad in [
            "",
            "{",
            r#"{"a" 1}"#,
            r#"["\u12"]"#,
            r#""\x""#,
            "[1,]",
            "{} x",
            "tru",
            &deep,
        ] {
            assert!(Node::parse(bad.as_bytes()).is_err(), "{bad:?}");
        }
        assert!(Node::parse(b"\"\xff\"").is_err(), "not UTF-8");
        assert!(
            Node::parse(br#"["\ud800"]"#).is_ok(),
            "a lone surrogate is replaced"
        );
    }
}
