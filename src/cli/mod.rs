//! Command-line parsing (clap) and the resolution of flags plus config into what each
//! command runs with. Every user-facing error surfaces here as exit code 2.

mod rules_cmd;
mod scan_cmd;

use crate::config::Config;
use crate::error::Error;
use crate::finding::Severity;
use crate::report::Format;
use crate::report::fingerprint::FingerprintKey;
use crate::scan::Mode;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// SPEC §2 exit codes.
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
    /// Output format (default: human on a terminal, json otherwise).
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Lowest severity that makes the exit code 1 (overrides scan.fail_on).
    #[arg(long, value_name = "SEVERITY")]
    pub fail_on: Option<Severity>,
    /// Write the report to FILE instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
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
    init_logging(cli.verbose);
    match run(&cli) {
        Ok(exit) => exit as i32,
        Err(e) => {
            eprintln!("privacy-audit: error: {e:#}");
            Exit::Trouble as i32
        }
    }
}

fn run(cli: &Cli) -> anyhow::Result<Exit> {
    let config = Config::discover(cli.config.as_deref())?;
    match &cli.command {
        Command::Scan(args) => scan_cmd::run(cli, config, args, Mode::Full),
        Command::Verify(args) => scan_cmd::run(cli, config, args, Mode::Provenance),
        Command::Rules { command } => rules_cmd::run(config, command),
    }
}

pub(crate) fn load_key(cli: &Cli) -> Result<FingerprintKey, Error> {
    let path = cli
        .key_file
        .clone()
        .or_else(FingerprintKey::default_path)
        .ok_or_else(|| {
            Error::Usage(
                "no fingerprint key location: set HOME, XDG_DATA_HOME or --key-file".into(),
            )
        })?;
    FingerprintKey::load_or_create(&path)
}

fn init_logging(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .try_init();
}
