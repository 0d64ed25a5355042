//! `--format sarif`: SARIF 2.1.0 as GitHub code scanning accepts it (driver rules with
//! short/full descriptions and help, results with a physical location and
//! `partialFingerprints`).

use super::Report;
use crate::finding::Severity;
use crate::rules::Catalog;
use serde_json::{Value, json};
use std::collections::BTreeSet;

const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Critical | Severity::High => "error",
        Severity::Medium => "warning",
        Severity::Low => "note",
    }
}

pub fn to_value(report: &Report, rules: &dyn Catalog, style: &super::Style) -> Value {
    let used: BTreeSet<&str> = report.findings.iter().map(|f| f.rule_id.as_str()).collect();
    let driver_rules: Vec<Value> = used
        .iter()
        .map(|id| {
            let (desc, help, cat) = match rules.rule(id) {
                Some(r) => (
                    r.description.to_string(),
                    r.remedy.unwrap_or(r.description).to_string(),
                    r.category.as_str(),
                ),
                None => (id.to_string(), id.to_string(), "schema"),
            };
            json!({
                "id": id,
                "name": id,
                "shortDescription": {"text": desc},
                "fullDescription": {"text": format!("{desc} ({cat})")},
                "help": {"text": help},
                "properties": {"tags": ["privacy", cat]},
            })
        })
        .collect();
    let results: Vec<Value> = report
        .findings
        .iter()
        .map(|f| {
            let mut region = serde_json::Map::new();
            if let Some(l) = f.location.line {
                region.insert("startLine".into(), json!(l));
            }
            if let Some(c) = f.location.column {
                region.insert("startColumn".into(), json!(c));
            }
            let uri = uri_of(&style.uri_prefix, &f.location.path);
            let mut physical = json!({"artifactLocation": {"uri": uri, "uriBaseId": SRCROOT}});
            if !region.is_empty() {
                physical["region"] = Value::Object(region);
            }
            json!({
                "ruleId": f.rule_id,
                "level": level(f.severity),
                "message": {"text": format!("{}: {}", f.message, f.excerpt)},
                "locations": [{"physicalLocation": physical}],
                "partialFingerprints": {"privacyAudit/v1": location_hash(f)},
                "properties": {
                    "category": f.category.as_str(),
                    "severity": f.severity.as_str(),
                    "jsonPointer": f.location.json_pointer,
                },
            })
        })
        .collect();
    let mut run = json!({
        "tool": {"driver": {
            "name": "privacy-audit",
            "version": report.tool.version,
            "informationUri": "https://github.com/privacy-audit/privacy-audit",
            "rules": driver_rules,
        }},
        "columnKind": "unicodeCodePoints",
        "results": results,
    });
    if let Some(root) = &style.root_uri {
        run["originalUriBaseIds"] = json!({SRCROOT: {"uri": root}});
    }
    json!({
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [run],
    })
}

/// The base every location is relative to: the repository root.
const SRCROOT: &str = "%SRCROOT%";

/// `prefix` + `path` as a relative URI reference: `.` and `..` steps resolved, and
/// every byte outside the unreserved set and `/` percent-encoded (a masked path holds
/// `*`, a name may hold spaces).
fn uri_of(prefix: &str, path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in prefix.split('/').chain(path.split('/')) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    let mut out = String::new();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push('/');
        }
        for b in part.bytes() {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
                out.push(char::from(b));
            } else {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out
}

pub fn write(
    report: &Report,
    rules: &dyn Catalog,
    style: &super::Style,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &to_value(report, rules, style))?;
    out.write_all(b"\n")
}

/// What lets code scanning follow one alert from run to run: a hash of what the report
/// already shows (rule, path, pointer, masked excerpt), the same on every machine. No
/// keyed fingerprint of the value: under the machine key it changes per CI runner,
/// and under the team key, which the repository holds, it could be reversed by
/// guessing for a value that was blocked and never committed.
fn location_hash(f: &crate::finding::Finding) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for part in [
        f.rule_id.as_str(),
        f.location.path.as_str(),
        f.location.json_pointer.as_deref().unwrap_or(""),
        f.excerpt.as_str(),
    ] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    crate::hex::encode(&h.finalize())
}
