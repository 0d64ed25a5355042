//! `--format human`: findings grouped by file, `path:line:col`, severity, rule, masked
//! excerpt and how to fix it. Colour only when asked (a terminal without `NO_COLOR`).

use super::{FileStatus, Report};
use crate::finding::Severity;
use crate::rules::Catalog;
use std::io::Write;

#[derive(Clone, Copy)]
struct Paint(bool);

impl Paint {
    fn wrap(&self, code: &str, text: &str) -> String {
        if self.0 {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    fn severity(&self, s: Severity) -> String {
        let code = match s {
            Severity::Critical => "1;31",
            Severity::High => "31",
            Severity::Medium => "33",
            Severity::Low => "36",
        };
        self.wrap(code, s.as_str())
    }
}

pub fn write(
    report: &Report,
    rules: &dyn Catalog,
    style: &super::Style,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let paint = Paint(style.color);
    findings(report, rules, paint, out)?;
    skipped(report, paint, out)?;
    allowed(report, paint, out)?;
    summary(report, style, out)
}

/// The summary alone, as a scan whose report went to a file (`-o`) prints it.
pub fn write_summary(report: &Report, out: &mut dyn Write) -> std::io::Result<()> {
    let style = super::Style::default();
    totals(report, &style, out)
}

/// Each finding under its file; a group (one rule at one pointer pattern in one file)
/// once, with how many more it holds.
fn findings(
    report: &Report,
    rules: &dyn Catalog,
    paint: Paint,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let mut current: Option<&str> = None;
    let sizes = super::groups::sizes(&report.findings);
    let mut shown = std::collections::HashSet::new();
    for f in &report.findings {
        if let Some(g) = f.group.as_deref()
            && !shown.insert(g)
        {
            continue;
        }
        if current != Some(f.location.path.as_str()) {
            if current.is_some() {
                writeln!(out)?;
            }
            writeln!(out, "{}", paint.wrap("1", &f.location.path))?;
            current = Some(&f.location.path);
        }
        finding(f, paint, out)?;
        if let Some(&(n, values)) = f.group.as_deref().and_then(|g| sizes.get(g))
            && n > 1
        {
            let at = f
                .location
                .json_pointer
                .as_deref()
                .map(|p| format!(" at {}", super::groups::pattern(p)))
                .unwrap_or_default();
            writeln!(
                out,
                "      + {} more{at} ({values} distinct value{}); to accept them all: \
                 privacy-audit allow {}:{} --rule {} --group --reason WHY",
                n - 1,
                if values == 1 { "" } else { "s" },
                f.location.path,
                f.location.line.unwrap_or(0),
                f.rule_id
            )?;
        }
        if let Some(remedy) = rules.rule(&f.rule_id).and_then(|r| r.remedy) {
            writeln!(out, "      fix: {remedy}")?;
        }
    }
    Ok(())
}

/// One finding: where, what, the masked excerpt and the first reason.
fn finding(f: &crate::finding::Finding, paint: Paint, out: &mut dyn Write) -> std::io::Result<()> {
    let pos = match (f.location.line, f.location.column) {
        (Some(l), Some(c)) => format!("{}:{l}:{c}", f.location.path),
        (Some(l), None) => format!("{}:{l}", f.location.path),
        _ => f.location.path.clone(),
    };
    // The severity says how bad a leak of this kind is; a finding the run is not sure
    // of (shown with --min-confidence low) says so beside it.
    let unsure = match f.confidence {
        crate::finding::Confidence::Low => "  (low confidence)",
        _ => "",
    };
    writeln!(
        out,
        "  {pos}  {}  {}  {}{unsure}",
        paint.severity(f.severity),
        f.category,
        paint.wrap("2", &f.rule_id)
    )?;
    writeln!(out, "      {}", f.message)?;
    match f.location.json_pointer.as_deref() {
        // The empty pointer is the whole record; printed bare it looks like a bug.
        Some("") => writeln!(out, "      at the record itself")?,
        Some(ptr) => writeln!(out, "      at {ptr}")?,
        None => {}
    }
    writeln!(out, "      | {}", f.excerpt)?;
    if let Some(phrase) = f.why.iter().next().map(|r| r.phrase()) {
        writeln!(out, "      why: {phrase}")?;
    }
    Ok(())
}

fn skipped(report: &Report, paint: Paint, out: &mut dyn Write) -> std::io::Result<()> {
    let skipped: Vec<_> = report
        .files
        .iter()
        .filter(|f| f.status == FileStatus::Skipped)
        .collect();
    if skipped.is_empty() {
        return Ok(());
    }
    if !report.findings.is_empty() {
        writeln!(out)?;
    }
    writeln!(out, "{}", paint.wrap("1", "skipped"))?;
    for f in skipped {
        let reason = f.reason.as_deref().unwrap_or("");
        writeln!(out, "  {}  ({reason})", f.path)?;
    }
    Ok(())
}

fn allowed(report: &Report, paint: Paint, out: &mut dyn Write) -> std::io::Result<()> {
    let allowed: Vec<_> = report
        .suppressed
        .iter()
        .filter(|x| x.by == "allow")
        .collect();
    if allowed.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(out, "{}", paint.wrap("1", "allowed"))?;
    for x in allowed {
        let f = &x.finding;
        writeln!(
            out,
            "  {}:{}  {}  because: {}",
            f.location.path,
            f.location.line.unwrap_or(0),
            f.rule_id,
            x.reason.as_deref().unwrap_or("")
        )?;
    }
    Ok(())
}

fn summary(report: &Report, style: &super::Style, out: &mut dyn Write) -> std::io::Result<()> {
    // A blank line parts the summary from what was listed above it, if anything was.
    let listed = !report.findings.is_empty()
        || report.files.iter().any(|f| f.status == FileStatus::Skipped)
        || report.suppressed.iter().any(|x| x.by == "allow");
    if listed {
        writeln!(out)?;
    }
    totals(report, style, out)
}

fn totals(report: &Report, style: &super::Style, out: &mut dyn Write) -> std::io::Result<()> {
    let s = &report.summary;
    let cats: Vec<String> = s
        .by_category
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    writeln!(
        out,
        "{} finding{} in {} file{} scanned, {} skipped{} · {} ms",
        s.findings,
        if s.findings == 1 { "" } else { "s" },
        s.files_scanned,
        if s.files_scanned == 1 { "" } else { "s" },
        s.files_skipped,
        if cats.is_empty() {
            String::new()
        } else {
            format!(" · {}", cats.join(", "))
        },
        s.duration_ms
    )?;
    if s.baselined + s.allowed > 0 {
        writeln!(
            out,
            "{} accepted: {} baselined, {} allowed (listed under `suppressed` in --format json)",
            s.baselined + s.allowed,
            s.baselined,
            s.allowed
        )?;
    }
    if s.below_min_confidence > 0 {
        writeln!(
            out,
            "{} more below the confidence floor (placeholders, personas, sandbox paths): \
             --min-confidence low shows them",
            s.below_min_confidence
        )?;
    }
    // Only where `allow` and `baseline` can apply: in a repository, and to findings of
    // the content (a recorded hash that is false is mended, not accepted).
    let acceptable = report
        .findings
        .iter()
        .any(|f| f.category != crate::finding::Category::Provenance);
    if style.accept_hint && acceptable {
        writeln!(
            out,
            "A finding that is not a leak: accept it on purpose with `privacy-audit allow \
             FILE:LINE --rule RULE --reason WHY` (an [[allow]] entry every clone honours), \
             or all of today's with `privacy-audit baseline`."
        )?;
    }
    Ok(())
}
