//! `privacy-audit scan PATH...` and `privacy-audit verify PATH...`

use super::{Cli, Exit, ScanArgs};
use crate::config::Config;
use crate::detect::RuleSet;
use crate::provenance::cache::HashCache;
use crate::report::{self, Format, Report};
use crate::scan::{Mode, Progress, Scanner};
use anyhow::Context;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

pub fn run(cli: &Cli, config: Config, args: &ScanArgs, mode: Mode) -> anyhow::Result<Exit> {
    let fail_on = args.out.fail_on.unwrap_or(config.scan.fail_on);
    let key = super::load_key(cli)?;
    let mut scanner = Scanner::from_config(config, key)?.with_mode(mode, args.strict);
    if !args.no_cache {
        match super::settings::cache_file() {
            Some(file) => scanner = scanner.with_cache(HashCache::open(file)),
            None => tracing::warn!("no cache location (HOME unset); hashes are not remembered"),
        }
    }
    if let Some(n) = args.threads {
        scanner = scanner.with_threads(n);
    }
    let policy = super::policy(&scanner, &args.accept)?;
    let show_progress = !args.no_progress && std::io::stderr().is_terminal();
    let progress = Progress::default();
    let done = AtomicBool::new(false);
    let report = std::thread::scope(|s| {
        if show_progress {
            s.spawn(|| progress_line(&progress, &done));
        }
        let source = crate::run::Walk { roots: &args.paths };
        let r = crate::run::run(&scanner, &source, &policy, Some(&progress));
        done.store(true, Ordering::Relaxed);
        r
    })?;
    tracing::info!(
        files = report.summary.files_scanned,
        skipped = report.summary.files_skipped,
        findings = report.summary.findings,
        "scan finished"
    );
    if args.stats {
        print_stats(&scanner.cache, &report);
    }
    emit(
        &report,
        args.out.format,
        &scanner.rules,
        args.out.output.as_deref(),
        super::settings::Ui::of(cli),
        placed(&args.paths),
    )?;
    Ok(exit_for(&report, fail_on))
}

/// Writes the report in the format asked for, else the one the `-o` file's extension
/// names, else human: as ripgrep and gitleaks do, a pipe changes the colour, never the
/// format. `--quiet` prints no report (a file asked for is still written).
pub(crate) fn emit(
    report: &Report,
    format: Option<Format>,
    rules: &RuleSet,
    output: Option<&std::path::Path>,
    ui: super::settings::Ui,
    mut style: report::Style,
) -> anyhow::Result<()> {
    let format = format
        .or_else(|| output.and_then(format_of_file))
        .unwrap_or(Format::Human);
    if ui.quiet && output.is_none() {
        return Ok(());
    }
    let to_terminal = output.is_none() && std::io::stdout().is_terminal();
    style.color = format == Format::Human && ui.color(to_terminal);
    write_report(report, format, rules, &style, output)?;
    // The report went to a file: the person who ran the scan still sees the outcome.
    if output.is_some() && !ui.quiet {
        report::human::write_summary(report, &mut std::io::stderr().lock())?;
    }
    Ok(())
}

/// Where a scan's report paths sit in their repository: they start at the one folder
/// scanned, else at the current folder; the repository is the nearest folder above
/// that holds `.git` (else that start itself).
pub(crate) fn placed(paths: &[std::path::PathBuf]) -> report::Style {
    let cwd = std::env::current_dir().unwrap_or_else(|_| ".".into());
    let start = match paths {
        [one] if one.is_dir() => cwd.join(one),
        _ => cwd,
    };
    let start = crate::provenance::normalize(&start);
    let repository = start.ancestors().find(|d| d.join(".git").exists());
    let root = repository.unwrap_or(&start).to_path_buf();
    let prefix = start
        .strip_prefix(&root)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    report::Style {
        color: false,
        uri_prefix: prefix,
        root_uri: Some(file_uri(&root)),
        accept_hint: repository.is_some(),
    }
}

/// `file:///abs/path/` with every byte outside the unreserved set and `/` escaped.
pub(crate) fn file_uri(dir: &std::path::Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::from("file://");
    for &b in dir.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    if !out.ends_with('/') {
        out.push('/');
    }
    out
}

/// The format a report file's name asks for: `.json`, `.sarif` (or `.sarif.json`).
pub(crate) fn format_of_file(path: &std::path::Path) -> Option<Format> {
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    if name.ends_with(".sarif") || name.ends_with(".sarif.json") {
        Some(Format::Sarif)
    } else if name.ends_with(".json") {
        Some(Format::Json)
    } else {
        None
    }
}

pub(crate) fn write_report(
    report: &Report,
    format: Format,
    rules: &RuleSet,
    style: &report::Style,
    output: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    match output {
        Some(path) => {
            let mut f = std::io::BufWriter::new(
                std::fs::File::create(path)
                    .with_context(|| format!("{}: cannot create", path.display()))?,
            );
            report::render(report, format, rules, style, &mut f)?;
            f.flush()
                .with_context(|| format!("{}: cannot write", path.display()))?;
        }
        None => {
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            let written = report::render(report, format, rules, style, &mut out)
                .map_err(anyhow::Error::from)
                .and_then(|()| out.flush().map_err(anyhow::Error::from));
            // The reader stopped reading (`| head`): the verdict stands, unprinted.
            match written {
                Err(e) if super::closed_pipe(&e) => {}
                other => other?,
            }
        }
    }
    Ok(())
}

/// Unreadable input makes the scan incomplete, which is trouble (2) even when findings
/// exist: a partial scan is not a clean scan, and the fix is different.
pub fn exit_for(report: &Report, fail_on: crate::finding::Severity) -> Exit {
    for f in report.files.iter().filter(|f| f.error) {
        eprintln!(
            "privacy-audit: could not scan {}: {}",
            f.path,
            f.reason.as_deref().unwrap_or("unknown")
        );
    }
    match crate::acceptance::verdict(report, fail_on) {
        crate::acceptance::Verdict::Incomplete => Exit::Trouble,
        crate::acceptance::Verdict::Findings => Exit::Findings,
        crate::acceptance::Verdict::Clean => Exit::Clean,
    }
}

fn print_stats(cache: &HashCache, report: &Report) {
    use std::sync::atomic::Ordering::Relaxed;
    let s = &cache.stats;
    eprintln!(
        "privacy-audit: {} files read by the scan; hashes: {} files ({} bytes) read to hash, \
         {} reused from this run, {} from the cache",
        report.summary.files_scanned,
        s.hashed_files.load(Relaxed),
        s.hashed_bytes.load(Relaxed),
        s.from_scan.load(Relaxed),
        s.from_cache.load(Relaxed),
    );
}

fn progress_line(progress: &Progress, done: &AtomicBool) {
    let tick = Duration::from_millis(200);
    // Short scans print nothing.
    for _ in 0..5 {
        if done.load(Ordering::Relaxed) {
            return;
        }
        std::thread::sleep(tick);
    }
    let mut err = std::io::stderr();
    while !done.load(Ordering::Relaxed) {
        let files = progress.files.load(Ordering::Relaxed);
        let mib = progress.bytes.load(Ordering::Relaxed) as f64 / (1024.0 * 1024.0);
        let _ = write!(err, "\r\x1b[2Kscanning: {files} files, {mib:.1} MiB");
        let _ = err.flush();
        std::thread::sleep(tick);
    }
    let _ = write!(err, "\r\x1b[2K");
    let _ = err.flush();
}

/// `report merge`: shards' JSON reports as one, judged as one.
pub fn merge(
    cli: &Cli,
    config: Config,
    paths: &[std::path::PathBuf],
    out: &super::OutputArgs,
) -> anyhow::Result<Exit> {
    let mut reports = Vec::with_capacity(paths.len());
    for path in paths {
        let name = crate::guard::guard(&path.display().to_string());
        let bytes = std::fs::read(path).with_context(|| format!("{name}: cannot read"))?;
        // serde's message can quote the input; only where it failed is said.
        let report: Report = serde_json::from_slice(&bytes).map_err(|e| {
            anyhow::anyhow!(
                "{name}: not a privacy-audit JSON report (line {}, column {})",
                e.line(),
                e.column()
            )
        })?;
        reports.push((name, report));
    }
    let fail_on = out.fail_on.unwrap_or(config.scan.fail_on);
    // The key only shapes fingerprints of names, which the merge does not keep.
    let scanner = Scanner::from_config(
        config,
        crate::finding::fingerprint::FingerprintKey::from_bytes([0; 32]),
    )?;
    let rules = report::merge::MergeRules {
        path: &|p: &str| scanner.remask(p),
        known_rule: &|id: &str| scanner.rules.get(id).is_some(),
    };
    let merged = report::merge::merge(reports, &rules)?;
    let rules = &scanner.rules;
    emit(
        &merged,
        out.format,
        rules,
        out.output.as_deref(),
        super::settings::Ui::of(cli),
        report::Style::default(),
    )?;
    Ok(exit_for(&merged, fail_on))
}
