//! Seed formats: recognising each by content (or by `[[formats]]` globs) and checking
//! each record against its format's rules. Validators return [`Issue`]s with the JSON
//! Pointer of the offending value; the file pipeline turns them into findings.

mod eval_case;
mod eval_dataset;
mod evidence_pack;
pub mod exaid;
mod qa_case;
mod subset;

use crate::formats::tree::Node;

/// One broken rule. `check` names the rule (see `rules/schema.toml`, `rules/provenance.toml`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    pub check: &'static str,
    pub pointer: String,
    pub message: String,
}

impl Issue {
    pub fn new(
        check: &'static str,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Issue {
        Issue {
            check,
            pointer: pointer.into(),
            message: message.into(),
        }
    }
}

pub use crate::formats::SeedFormat;

impl SeedFormat {
    /// Recognises a record by the fields only its format has.
    pub fn detect(doc: &Node) -> Option<SeedFormat> {
        let has = |k: &str| doc.get(k).is_some();
        if doc.get("spec").and_then(Node::as_str) == Some("eval-case-v1") {
            return Some(SeedFormat::EvalCaseV1);
        }
        if let Some(t) = doc.get("record_type").and_then(Node::as_str)
            && exaid::RECORD_TYPES.contains(&t)
        {
            return Some(SeedFormat::ExaidRunLog);
        }
        if doc.get("schema_name").and_then(Node::as_str) == Some("exaid.run") {
            return Some(SeedFormat::ExaidRunLog);
        }
        if has("severity_expectation") && has("turns") && has("expected_behavior") {
            return Some(SeedFormat::QaCaseV1);
        }
        if has("case_id") && has("scenario_id") && (has("agent_name") || has("phase")) {
            return Some(SeedFormat::EvalDataset);
        }
        if has("mock_audit")
            || has("http_audit")
            || (has("pass") && has("findings") && has("category"))
        {
            return Some(SeedFormat::EvidencePack);
        }
        None
    }
}

/// What an evidence pack is checked against: its transcript's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transcript {
    /// Entries (user and assistant), which `turn_index` counts from 0.
    pub entries: usize,
    /// Assistant entries, which `http_audit` is aligned to.
    pub assistant: usize,
}

impl Transcript {
    /// A transcript is a list of `{role, content}` entries, bare or under `transcript`,
    /// `turns` or `messages`.
    pub fn of(doc: &Node) -> Option<Transcript> {
        let list = match doc {
            Node::Array(a) => a,
            v => ["transcript", "turns", "messages"]
                .iter()
                .find_map(|k| v.get(k).and_then(Node::as_array))?,
        };
        Some(Transcript {
            entries: list.len(),
            assistant: list
                .iter()
                .filter(|x| x.get("role").and_then(Node::as_str) == Some("assistant"))
                .count(),
        })
    }
}

/// Per-file validation state: formats with file-level invariants keep it here.
pub struct FormatChecker {
    pub format: Option<SeedFormat>,
    /// The format is decided by the first record; a later one cannot switch it.
    decided: bool,
    /// Record ids seen so far, for the formats whose ids are unique in a file.
    ids: std::collections::HashSet<String>,
    exaid: exaid::RunLog,
    /// The sibling `transcript.json`, for evidence packs.
    pub transcript: Option<Transcript>,
}

impl FormatChecker {
    pub fn new(forced: Option<SeedFormat>, transcript: Option<Transcript>) -> FormatChecker {
        FormatChecker {
            format: forced,
            decided: forced.is_some(),
            ids: std::collections::HashSet::new(),
            exaid: exaid::RunLog::default(),
            transcript,
        }
    }

    /// Checks one record (a document or a JSONL line). `record` counts from 0.
    pub fn record(&mut self, doc: &Node, record: usize, out: &mut Vec<Issue>) {
        if !self.decided {
            self.format = SeedFormat::detect(doc);
            self.decided = true;
        }
        let unique_id = match self.format {
            Some(SeedFormat::EvalCaseV1) => Some(("case_id", "eval_case_schema")),
            Some(SeedFormat::QaCaseV1) => Some(("id", "qa_case_schema")),
            Some(SeedFormat::EvalDataset) => Some(("case_id", "eval_dataset_schema")),
            _ => None,
        };
        if let Some((key, check)) = unique_id
            && let Some(id) = doc.get(key).and_then(Node::as_str)
            && !self.ids.insert(id.to_string())
        {
            out.push(Issue::new(
                check,
                format!("/{key}"),
                format!("duplicate `{key}`: an earlier record has the same one"),
            ));
        }
        match self.format {
            Some(SeedFormat::EvalCaseV1) => eval_case::check(doc, out),
            Some(SeedFormat::QaCaseV1) => qa_case::check(doc, out),
            Some(SeedFormat::EvalDataset) => eval_dataset::check(doc, out),
            Some(SeedFormat::EvidencePack) => evidence_pack::check(doc, self.transcript, out),
            Some(SeedFormat::ExaidRunLog) => self.exaid.record(doc, record, out),
            Some(SeedFormat::None) | None => {}
        }
    }

    /// File-level checks once every record was seen. Pointers here are `""` (line 1).
    pub fn finish(&mut self, out: &mut Vec<Issue>) {
        if self.format == Some(SeedFormat::ExaidRunLog) {
            self.exaid.finish(out);
        }
    }
}

/// Shared helpers for the hand-written validators. Pointers are spelled only for an
/// issue: on the valid path, building them cost a percent of a scan.
pub(crate) fn require<'n, 'a>(
    doc: &'n Node<'a>,
    ptr: impl Fn() -> String,
    key: &str,
    check: &'static str,
    out: &mut Vec<Issue>,
) -> Option<&'n Node<'a>> {
    let v = doc.get(key);
    if v.is_none() {
        out.push(Issue::new(
            check,
            ptr(),
            format!("required field `{key}` is missing"),
        ));
    }
    v
}

pub(crate) fn string_in(
    v: Option<&Node>,
    ptr: impl Fn() -> String,
    allowed: &[&str],
    check: &'static str,
    out: &mut Vec<Issue>,
) {
    match v {
        None => {}
        Some(Node::String(s)) if allowed.contains(&s.as_ref()) => {}
        Some(_) => out.push(Issue::new(
            check,
            ptr(),
            format!("must be one of: {}", allowed.join(", ")),
        )),
    }
}

pub(crate) fn string_array(
    v: Option<&Node>,
    ptr: impl Fn() -> String,
    check: &'static str,
    out: &mut Vec<Issue>,
) {
    match v {
        None => {}
        Some(Node::Array(a)) => {
            for (i, x) in a.iter().enumerate() {
                if !x.is_string() {
                    out.push(Issue::new(
                        check,
                        format!("{}/{i}", ptr()),
                        "must be a string",
                    ));
                }
            }
        }
        Some(_) => out.push(Issue::new(check, ptr(), "must be an array of strings")),
    }
}

pub(crate) fn is_string(
    v: Option<&Node>,
    ptr: impl Fn() -> String,
    check: &'static str,
    out: &mut Vec<Issue>,
) {
    if let Some(x) = v
        && !x.is_string()
    {
        out.push(Issue::new(check, ptr(), "must be a string"));
    }
}
