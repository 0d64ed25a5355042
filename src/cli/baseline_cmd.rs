//! `privacy-audit baseline PATH...`: today's findings, by fingerprint and path.

use super::{BaselineArgs, Cli, Exit};
use crate::config::Config;
use crate::judge::Baseline;
use crate::scan::Scanner;
use anyhow::Context;

pub fn run(cli: &Cli, config: Config, args: &BaselineArgs) -> anyhow::Result<Exit> {
    let key = super::load_key(cli)?;
    let scanner = Scanner::from_config(config, key)?;
    let report = scanner.scan_paths(&args.paths, None)?;
    if report.incomplete() {
        super::scan_cmd::exit_for(&report, crate::finding::Severity::Low);
        anyhow::bail!("the scan was incomplete; no baseline written");
    }
    let baseline = Baseline::from_report(&report, scanner.key());
    let mut text = serde_json::to_string_pretty(&baseline)?;
    text.push('\n');
    match &args.output {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("{}: cannot write", path.display()))?,
        None => print!("{text}"),
    }
    eprintln!(
        "privacy-audit: baseline of {} finding{}",
        baseline.findings.len(),
        if baseline.findings.len() == 1 {
            ""
        } else {
            "s"
        }
    );
    Ok(Exit::Clean)
}
