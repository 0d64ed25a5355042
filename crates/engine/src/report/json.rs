//! `--format json`: the docs/reference.md §4 document, one object on stdout.

use super::Report;

pub fn write(report: &Report, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, report)?;
    out.write_all(b"\n")
}
