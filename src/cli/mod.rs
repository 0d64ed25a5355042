//! Command-line parsing (clap) and the resolution of flags plus config into what each
//! command runs with. Every user-facing error surfaces here as exit code 2.

mod baseline_cmd;
mod git_cmd;
mod rules_cmd;
mod scan_cmd;
mod settings;

use crate::config::Config;
use crate::error::Error;
use crate::finding::Severity;
use crate::finding::fingerprint::FingerprintKey;
use crate::report::Format;
use crate::scan::Mode;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// docs/reference.md §2 exit codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Clean = 0,
    Findings = 1,
    Trouble = 2,
}

#[derive(Debug, Parser)]
#[command(
    name = "privacy-audit",
    version,
    about = "Privacy gate and provenance auditor for LLM-evaluation datasets"
)]
pub struct Cli {
    /// Config file (default: ./privacy-audit.toml, else built-in defaults).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Fingerprint key file (default: $XDG_DATA_HOME/privacy-audit/key).
    #[arg(
        long,
        global = true,
        value_name = "FILE",
        env = "PRIVACY_AUDIT_KEY_FILE"
    )]
    pub key_file: Option<PathBuf>,
    /// More log output on stderr (-v info, -vv debug, -vvv trace). RUST_LOG overrides.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Scan files and folders once and print a report.
    Scan(ScanArgs),
    /// Check provenance only: manifests, bound hashes and hash hygiene. Same report
    /// format as `scan`; only files that can hold hashes are read, and files they name
    /// are hashed (once, and not again while unchanged).
    Verify(ScanArgs),
    /// Scan the blobs that a range of commits adds (pre-push, pre-receive, CI).
    ScanGit(ScanGitArgs),
    /// Install, remove or run the git hooks.
    Hook {
        #[command(subcommand)]
        command: HookCommand,
    },
    /// Print today's findings as a baseline: `privacy-audit baseline . >
    /// .privacy-audit-baseline.json`. Baselined findings no longer fail scans or hooks.
    Baseline(BaselineArgs),
    /// Watch the configured folders and judge every new or changed file (systemd).
    Daemon,
    /// Audit-trail tools.
    Report {
        #[command(subcommand)]
        command: ReportCommand,
    },
    /// List the rules or run their built-in examples.
    Rules {
        #[command(subcommand)]
        command: RulesCommand,
    },
}

#[derive(Debug, Args)]
pub struct ScanArgs {
    /// Files and folders to scan.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub out: OutputArgs,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Never show the progress line on stderr.
    #[arg(long)]
    pub no_progress: bool,
    /// Also report files in a manifest's folder that the manifest does not list.
    #[arg(long)]
    pub strict: bool,
    /// Neither read nor write the hash cache (every claimed file is hashed again).
    #[arg(long)]
    pub no_cache: bool,
    /// Print how hashes were obtained (read, reused, cached) on stderr.
    #[arg(long)]
    pub stats: bool,
    #[command(flatten)]
    pub accept: AcceptArgs,
}

/// Where the report goes and what fails the run.
#[derive(Debug, Args)]
pub struct OutputArgs {
    /// Output format (default: human on a terminal, json otherwise).
    #[arg(long, value_name = "human|json|sarif")]
    pub format: Option<Format>,
    /// Lowest severity that makes the exit code 1 (overrides scan.fail_on).
    #[arg(long, value_name = "SEVERITY")]
    pub fail_on: Option<Severity>,
    /// Write the report to FILE instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Which accepted findings to honour.
#[derive(Debug, Args)]
pub struct AcceptArgs {
    /// Baseline file (default: scan.baseline, `.privacy-audit-baseline.json`).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Ignore the baseline: report every finding.
    #[arg(long, conflicts_with = "baseline")]
    pub no_baseline: bool,
    /// Lowest confidence reported: low, medium or high (default: scan.min_confidence,
    /// `medium`). `low` also shows placeholders, personas, sandbox paths and code.
    #[arg(long, value_name = "LEVEL")]
    pub min_confidence: Option<crate::finding::Confidence>,
}

#[derive(Debug, Args)]
pub struct ScanGitArgs {
    /// Commits to judge: `A..B` (what B adds over A) or one revision (all its history).
    #[arg(
        long,
        value_name = "A..B",
        required_unless_present = "all",
        conflicts_with = "all"
    )]
    pub range: Option<String>,
    /// Every commit reachable from any ref.
    #[arg(long)]
    pub all: bool,
    /// The repository (default: the one around the current folder).
    #[arg(long, value_name = "DIR")]
    pub repo: Option<PathBuf>,
    #[command(flatten)]
    pub out: OutputArgs,
    #[command(flatten)]
    pub accept: AcceptArgs,
}

#[derive(Debug, Subcommand)]
pub enum HookCommand {
    /// Write the hook into the repository's hooks folder (honours core.hooksPath). An
    /// existing hook is kept as `<hook>.legacy` and still runs first.
    Install {
        #[arg(long, value_name = "DIR")]
        repo: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "pre-commit")]
        hook: HookKindArg,
    },
    /// Remove our hook and restore the one it replaced.
    Uninstall {
        #[arg(long, value_name = "DIR")]
        repo: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "pre-commit")]
        hook: HookKindArg,
    },
    /// What the hook runs: judge the staged content (default), or the pushed ranges
    /// read from stdin (`--pre-push`, `--pre-receive`). Findings go to stderr.
    Run(HookRunArgs),
}

/// `--hook`: which of git's hooks to install or remove.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum HookKindArg {
    PreCommit,
    PrePush,
}

impl From<HookKindArg> for crate::git::hook::HookKind {
    fn from(k: HookKindArg) -> Self {
        match k {
            HookKindArg::PreCommit => crate::git::hook::HookKind::PreCommit,
            HookKindArg::PrePush => crate::git::hook::HookKind::PrePush,
        }
    }
}

#[derive(Debug, Args)]
pub struct HookRunArgs {
    /// Read git's pre-push stdin and judge the commits being pushed.
    #[arg(long, conflicts_with = "pre_receive")]
    pub pre_push: bool,
    /// Read git's pre-receive stdin (server side) and judge the commits being received.
    #[arg(long)]
    pub pre_receive: bool,
    /// Also write the report to stdout in this format.
    #[arg(long, value_name = "human|json|sarif")]
    pub format: Option<Format>,
    /// pre-push arguments from git: remote name and URL.
    #[arg(value_name = "GIT_ARGS")]
    pub git_args: Vec<String>,
    #[command(flatten)]
    pub accept: AcceptArgs,
}

#[derive(Debug, Args)]
pub struct BaselineArgs {
    /// Files and folders to scan.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Write the baseline to FILE instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum ReportCommand {
    /// Walk the daemon's report chain; exit 1 naming the first report that was edited,
    /// removed or reordered.
    Verify {
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
}

#[derive(Debug, Subcommand)]
pub enum RulesCommand {
    /// Show every active rule and the built-in validators.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Check every rule's `match` / `no_match` examples; exit 1 if one misbehaves.
    Test,
}

/// Parses arguments, runs the command and returns the process exit code.
pub fn main() -> i32 {
    // A bug must not look like a pass, nor print what it was holding: a panic anywhere
    // (any thread) ends the run as trouble (exit 2, which the hooks treat as "block"),
    // naming only where it happened.
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map_or_else(String::new, |l| format!(" at {}:{}", l.file(), l.line()));
        eprintln!("privacy-audit: internal error{at}; this is a bug, and the run counts as failed");
        std::process::exit(Exit::Trouble as i32);
    }));
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                Exit::Trouble as i32
            } else {
                0
            };
            let _ = e.print();
            return code;
        }
    };
    let quiet_default = !matches!(cli.command, Command::Daemon);
    init_logging(cli.verbose, quiet_default);
    match run(&cli) {
        Ok(exit) => exit as i32,
        Err(e) => {
            eprintln!("privacy-audit: error: {e:#}");
            Exit::Trouble as i32
        }
    }
}

fn run(cli: &Cli) -> anyhow::Result<Exit> {
    // The git doors read the repository's own config, so they load it themselves.
    match &cli.command {
        Command::ScanGit(args) => return git_cmd::scan_git(cli, args),
        Command::Daemon => {
            let explicit = cli.config.clone();
            let load: crate::daemon::LoadConfig =
                Box::new(move || settings::config(explicit.as_deref()));
            crate::daemon::Daemon::new(load, cli.key_file.clone())?.run()?;
            return Ok(Exit::Clean);
        }
        Command::Report {
            command: ReportCommand::Verify { dir },
        } => {
            // The daemon's key: `--key-file`, else the one in its state folder; and how
            // many reports that state says it wrote.
            let state_dir = settings::config(cli.config.as_deref())
                .ok()
                .map(|c| c.resolve(&c.daemon.state))
                .filter(|d| d.is_dir());
            let key_path = match &cli.key_file {
                Some(k) => Some(k.clone()),
                None => state_dir
                    .as_ref()
                    .map(|d| d.join("key"))
                    .filter(|p| p.is_file()),
            };
            let recorded = match &state_dir {
                Some(d) => {
                    Some(crate::daemon::state::State::load(d)?.last_sequence).filter(|&n| n > 0)
                }
                None => None,
            };
            let key = match &key_path {
                Some(p) => Some(FingerprintKey::load(p)?),
                None => None,
            };
            return match crate::daemon::verify::verify(dir, key.as_ref(), recorded)? {
                Ok(checked) => {
                    println!(
                        "{}: chain of {} reports verified: it starts at report 1, every link and {} line agrees",
                        dir.display(),
                        checked.reports,
                        crate::daemon::trail::AUDIT_LOG
                    );
                    match &key_path {
                        Some(p) => {
                            println!("  every report's MAC checked with the key {}", p.display())
                        }
                        None => println!(
                            "  MACs NOT checked: no daemon key found (pass --key-file); a rewrite by someone who can write this folder would pass"
                        ),
                    }
                    for note in &checked.notes {
                        println!("  recorded by the daemon: {note}");
                    }
                    Ok(Exit::Clean)
                }
                Err(broken) => {
                    println!("{}: chain broken: {broken}", dir.display());
                    Ok(Exit::Findings)
                }
            };
        }
        Command::Hook { command } => return git_cmd::hook(cli, command),
        _ => {}
    }
    let config = settings::config(cli.config.as_deref())?;
    match &cli.command {
        Command::Scan(args) => scan_cmd::run(cli, config, args, Mode::Full),
        Command::Verify(args) => scan_cmd::run(cli, config, args, Mode::Provenance),
        Command::Rules { command } => rules_cmd::run(config, command),
        Command::Baseline(args) => baseline_cmd::run(cli, config, args),
        Command::ScanGit(_) | Command::Hook { .. } | Command::Daemon | Command::Report { .. } => {
            unreachable!("dispatched above")
        }
    }
}

/// Moves accepted findings (baseline, `[[allow]]`) out of the failing set.
pub(crate) fn accept(
    report: &mut crate::report::Report,
    config: &Config,
    key: &FingerprintKey,
    args: &AcceptArgs,
) -> anyhow::Result<()> {
    let baseline = if args.no_baseline {
        None
    } else if let (None, Some((origin, text))) = (&args.baseline, &config.baseline_snapshot) {
        match text {
            Some(t) => Some(crate::judge::Baseline::parse(t, origin)?),
            None => None,
        }
    } else {
        let path = args
            .baseline
            .clone()
            .unwrap_or_else(|| config.resolve(&config.scan.baseline));
        let loaded = crate::judge::Baseline::load(&path)?;
        if loaded.is_none() && args.baseline.is_some() {
            anyhow::bail!("{}: baseline file not found", path.display());
        }
        loaded
    };
    crate::judge::Acceptance::new(baseline.as_ref(), &config.allow, key)?.apply(report);
    report.keep_confident(args.min_confidence.unwrap_or(config.scan.min_confidence));
    Ok(())
}

pub(crate) fn load_key(cli: &Cli) -> Result<FingerprintKey, Error> {
    let path = cli
        .key_file
        .clone()
        .or_else(settings::key_file)
        .ok_or_else(|| {
            Error::Usage(
                "no fingerprint key location: set HOME, XDG_DATA_HOME or --key-file".into(),
            )
        })?;
    FingerprintKey::load_or_create(&path)
}

fn init_logging(verbose: u8, quiet_default: bool) {
    let default = match verbose {
        0 if quiet_default => "warn",
        0 => "info",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        // journald and log files want plain text.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(false)
        .try_init();
}
