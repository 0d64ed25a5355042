//! EXAID run logs (`exaid-eval-schemas.md`), multi-record JSONL, often gzip: exactly one
//! `run_meta`, first; records in type order; strictly increasing indices; deterministic
//! ids `{case_id}-{variant_id}-{se|bd}-{index:03}`; `latest_summary_event_id` names an
//! earlier event; `stoplists_provenance` only in `run_meta`. Single-record logs written
//! before v1.3.0 are recognised and left alone.

use super::Issue;
use crate::formats::tree::{Node, Step, pointer};
use std::collections::HashSet;

pub const RECORD_TYPES: [&str; 4] = [
    "run_meta",
    "tokengate_flush",
    "buffer_decision",
    "summary_event",
];
const INDEX_FIELDS: [Option<&str>; 4] = [
    None,
    Some("flush_index"),
    Some("decision_index"),
    Some("event_index"),
];
const CHECK: &str = "exaid_run_log";
const DUPLICATED: &str = "duplicated_provenance";
const STOPLIST_HASHES: [&str; 3] = [
    "stop_entities_hash",
    "stop_cuis_hash",
    "stoplist_df_report_hash",
];
/// Required in `run_meta` from v1.3.0 on (when `stoplists_provenance` arrived).
const RUN_META_REQUIRED: [&str; 9] = [
    "case_id",
    "variant_id",
    "mas_run_id",
    "eval_run_id",
    "history_k",
    "concept_extractor",
    "stoplists_provenance",
    "timestamp_derivation",
    "determinism",
];

#[derive(Default)]
pub struct RunLog {
    records: usize,
    run_metas: usize,
    last_rank: usize,
    last_index: [Option<i64>; 4],
    event_ids: HashSet<String>,
    legacy: bool,
    /// `run_meta`'s `case_id` and `variant_id`, for records that do not repeat them.
    run_ids: (String, String),
}

fn version(doc: &Node) -> Option<(u64, u64)> {
    let v = doc.get("schema_version")?.as_str()?;
    let mut parts = v.split('.').map(|p| p.parse::<u64>().ok());
    Some((parts.next()??, parts.next().flatten().unwrap_or(0)))
}

/// Whether `id` is `{case}-{variant}-{tag}-{idx:03}`, read without building it (this
/// runs on every event of every run log).
fn is_deterministic_id(id: &str, parts: [&str; 3], idx: i64) -> bool {
    let mut rest = id;
    for part in parts {
        match rest.strip_prefix(part).and_then(|r| r.strip_prefix('-')) {
            Some(r) => rest = r,
            None => return false,
        }
    }
    if idx < 0 {
        return rest == format!("{idx:03}");
    }
    let digits = idx.checked_ilog10().map_or(1, |d| d as usize + 1);
    rest.len() == digits.max(3)
        && rest.bytes().all(|b| b.is_ascii_digit())
        && rest.parse() == Ok(idx)
}

impl RunLog {
    pub fn record(&mut self, doc: &Node, index: usize, out: &mut Vec<Issue>) {
        self.records += 1;
        let Some(rt) = doc.get("record_type").and_then(Node::as_str) else {
            if index == 0 && version(doc).is_some_and(|v| v < (1, 3)) {
                self.legacy = true; // v1.2 and earlier: one record, no record_type
            } else if !self.legacy {
                out.push(Issue::new(CHECK, "", "record without `record_type`"));
            }
            return;
        };
        let Some(rank) = RECORD_TYPES.iter().position(|t| *t == rt) else {
            out.push(Issue::new(CHECK, "/record_type", "unknown record type"));
            return;
        };
        if rank == 0 {
            self.run_metas += 1;
            if self.run_metas == 1 {
                let id = |k: &str| doc.get(k).and_then(Node::as_str).unwrap_or("").to_string();
                self.run_ids = (id("case_id"), id("variant_id"));
            }
            if self.run_metas > 1 {
                out.push(Issue::new(
                    CHECK,
                    "/record_type",
                    "a second `run_meta`: there must be exactly one",
                ));
            } else if index != 0 {
                out.push(Issue::new(
                    CHECK,
                    "/record_type",
                    "`run_meta` must be the first record",
                ));
            }
            if version(doc).is_none_or(|v| v >= (1, 3)) {
                let missing: Vec<&str> = RUN_META_REQUIRED
                    .into_iter()
                    .filter(|k| doc.get(k).is_none())
                    .collect();
                if !missing.is_empty() {
                    out.push(Issue::new(
                        CHECK,
                        "",
                        format!("run_meta: required fields missing: {}", missing.join(", ")),
                    ));
                }
            }
            self.check_stoplist_placement(doc, true, out);
        } else {
            if index == 0 {
                out.push(Issue::new(
                    CHECK,
                    "/record_type",
                    "the first record must be `run_meta`",
                ));
            }
            self.check_stoplist_placement(doc, false, out);
        }
        if rank < self.last_rank {
            out.push(Issue::new(
                CHECK,
                "/record_type",
                format!(
                    "`{rt}` after `{}`: records must be in type order",
                    RECORD_TYPES[self.last_rank]
                ),
            ));
        }
        self.last_rank = self.last_rank.max(rank);
        if let Some(field) = INDEX_FIELDS[rank] {
            self.check_index(doc, rank, rt, field, out);
        }
    }

    fn check_index(
        &mut self,
        doc: &Node,
        rank: usize,
        rt: &str,
        field: &str,
        out: &mut Vec<Issue>,
    ) {
        let Some(idx) = doc.get(field).and_then(Node::as_i64) else {
            out.push(Issue::new(
                CHECK,
                format!("/{field}"),
                format!("`{rt}` needs an integer `{field}`"),
            ));
            return;
        };
        if let Some(prev) = self.last_index[rank]
            && idx <= prev
        {
            out.push(Issue::new(
                CHECK,
                format!("/{field}"),
                format!("`{field}` {idx} after {prev}: must strictly increase"),
            ));
        }
        self.last_index[rank] = Some(idx);
        let (id_field, tag) = match rt {
            "summary_event" => ("event_id", "se"),
            "buffer_decision" => ("decision_id", "bd"),
            _ => return,
        };
        let case = doc
            .get("case_id")
            .and_then(Node::as_str)
            .unwrap_or(&self.run_ids.0);
        let variant = doc
            .get("variant_id")
            .and_then(Node::as_str)
            .unwrap_or(&self.run_ids.1);
        let id = doc.get(id_field).and_then(Node::as_str);
        if !id.is_some_and(|id| is_deterministic_id(id, [case, variant, tag], idx)) {
            let expected = format!("{case}-{variant}-{tag}-{idx:03}");
            out.push(Issue::new(
                CHECK,
                format!("/{id_field}"),
                format!("`{id_field}` must be the deterministic `{{case_id}}-{{variant_id}}-{tag}-{{index:03}}` (here `{expected}`)"),
            ));
        }
        if rt == "summary_event" {
            match doc.get("latest_summary_event_id") {
                None | Some(Node::Null) => {}
                Some(Node::String(s)) if self.event_ids.contains(s.as_ref()) => {}
                Some(_) => out.push(Issue::new(
                    CHECK,
                    "/latest_summary_event_id",
                    "`latest_summary_event_id` must name an earlier summary event",
                )),
            }
            if let Some(id) = id {
                self.event_ids.insert(id.to_string());
            }
        }
    }

    /// Invariant 4: stoplist hashes live in `run_meta.stoplists_provenance` only.
    fn check_stoplist_placement(&self, doc: &Node, is_meta: bool, out: &mut Vec<Issue>) {
        misplaced_stoplists(doc, is_meta, &mut Vec::new(), out);
    }

    pub fn finish(&mut self, out: &mut Vec<Issue>) {
        if self.records > 0 && self.run_metas == 0 && !self.legacy {
            out.push(Issue::new(
                CHECK,
                "",
                "no `run_meta` record: a run log has exactly one, first",
            ));
        }
    }
}

/// Objects are walked with their path; a pointer is spelled out only for a finding.
/// The tree is at most 128 levels deep (see `formats::tree`), so recursion is bounded.
fn misplaced_stoplists<'v>(
    value: &'v Node,
    is_meta: bool,
    path: &mut Vec<Step<'v>>,
    out: &mut Vec<Issue>,
) {
    let Node::Object(map) = value else { return };
    for (k, child) in map {
        if is_meta && path.is_empty() && k == "stoplists_provenance" {
            continue;
        }
        path.push(Step::Key(k));
        if k == "stoplists_provenance" || STOPLIST_HASHES.contains(&k) {
            // One finding per misplaced block, not one more per hash inside it.
            out.push(Issue::new(
                DUPLICATED,
                pointer(path),
                "stoplist provenance outside its canonical place (`run_meta.stoplists_provenance`)",
            ));
        } else if child.is_object() {
            misplaced_stoplists(child, is_meta, path, out);
        }
        path.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_ids_read_as_formatted() {
        for idx in [0, 7, 42, 999, 1000, 123_456, -5] {
            let id = format!("case-1-V0-se-{idx:03}");
            assert!(
                is_deterministic_id(&id, ["case-1", "V0", "se"], idx),
                "{id}"
            );
            assert!(
                !is_deterministic_id(&id, ["case-1", "V0", "se"], idx + 1),
                "{id}"
            );
        }
        let bad = [
            "case-1-V0-se-7",
            "case-1-V0-se-0007",
            "case-1-V0-bd-007",
            "case-1-V1-se-007",
            "case-1-V0-se-+07",
            "case-1-V0-se-007 ",
        ];
        for id in bad {
            assert!(!is_deterministic_id(id, ["case-1", "V0", "se"], 7), "{id}");
        }
    }
    use serde_json::{Value, json};

    fn meta() -> Value {
        json!({"record_type": "run_meta", "schema_version": "1.5.0", "case_id": "c", "variant_id": "V0",
               "mas_run_id": "m", "eval_run_id": "e", "history_k": 3, "concept_extractor": {},
               "stoplists_provenance": {"stop_entities_hash": "sha256:x"}, "timestamp_derivation": {}, "determinism": {}})
    }

    fn run(records: &[Value]) -> Vec<Issue> {
        let mut log = RunLog::default();
        let mut out = Vec::new();
        for (i, r) in records.iter().enumerate() {
            log.record(&Node::from_serde(r), i, &mut out);
        }
        log.finish(&mut out);
        out
    }

    #[test]
    fn a_good_log_is_clean_and_breaks_are_found() {
        let ev = |i: i64, latest: Value| {
            json!({"record_type": "summary_event", "event_index": i,
            "event_id": format!("c-V0-se-{i:03}"), "case_id": "c", "variant_id": "V0", "latest_summary_event_id": latest})
        };
        assert_eq!(
            run(&[meta(), ev(0, Value::Null), ev(1, json!("c-V0-se-000"))]),
            vec![]
        );
        let bad = run(&[ev(0, Value::Null), meta(), ev(0, json!("c-V0-se-009"))]);
        let msgs: Vec<&str> = bad.iter().map(|i| i.pointer.as_str()).collect();
        assert_eq!(
            msgs,
            vec![
                "/record_type",
                "/record_type",
                "/record_type",
                "/event_index",
                "/latest_summary_event_id"
            ]
        );
        let legacy = run(&[json!({"schema_version": "1.2.0", "case_id": "c"})]);
        assert_eq!(legacy, vec![]);
        let dup = run(&[
            meta(),
            json!({"record_type": "tokengate_flush", "flush_index": 0, "stop_cuis_hash": "sha256:y"}),
        ]);
        assert_eq!(dup[0].check, DUPLICATED);
    }

    #[test]
    fn ids_fall_back_to_run_meta_when_records_omit_them() {
        let ev =
            json!({"record_type": "summary_event", "event_index": 0, "event_id": "c-V0-se-000"});
        assert_eq!(run(&[meta(), ev]), vec![]);
        let wrong =
            json!({"record_type": "summary_event", "event_index": 0, "event_id": "d-V0-se-000"});
        let issues = run(&[meta(), wrong]);
        assert_eq!(issues.len(), 1);
        assert!(
            issues[0].message.contains("`c-V0-se-000`"),
            "{:?}",
            issues[0]
        );
    }
}
