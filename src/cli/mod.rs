//! Command-line parsing (clap) and the resolution of flags plus config into what each
//! command runs with. Every user-facing error surfaces here as exit code 2.

mod allow_cmd;
mod args;
mod baseline_cmd;
mod fix_cmd;
mod git_cmd;
mod git_groups;
mod init_cmd;
mod log;
mod rules_cmd;
mod scan_cmd;
pub mod settings;
mod shown;

use crate::error::Error;
use crate::finding::fingerprint::FingerprintKey;
use crate::scan::Mode;
use clap::Parser;

pub use args::*;

/// docs/reference.md §2 exit codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Clean = 0,
    Findings = 1,
    Trouble = 2,
}

/// Parses the process's arguments, runs the command and returns the exit code.
pub fn main() -> i32 {
    main_from(std::env::args_os())
}

/// [`main`] with the arguments given (the first is the program name): what the Python
/// package's `privacy-audit` script calls.
pub fn main_from<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    // A bug must not look like a pass, nor print what it was holding: a panic anywhere
    // (any thread) ends the run as trouble (exit 2, which the hooks treat as "block"),
    // naming only where it happened.
    std::panic::set_hook(Box::new(|info| {
        // `println!` panics when the reader went away (`| head`): that is the reader's
        // choice, not a bug, and ends the run quietly, as ripgrep does.
        let payload = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if payload.starts_with("failed printing to stdout") && payload.contains("Broken pipe") {
            std::process::exit(0);
        }
        let at = info
            .location()
            .map_or_else(String::new, |l| format!(" at {}:{}", l.file(), l.line()));
        eprintln!("privacy-audit: internal error{at}; this is a bug, and the run counts as failed");
        std::process::exit(Exit::Trouble as i32);
    }));
    let cli = match Cli::try_parse_from(args) {
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
    init_logging(cli.verbose, quiet_default, cli.quiet);
    match run(&cli) {
        Ok(exit) => exit as i32,
        Err(e) if closed_pipe(&e) => 0,
        Err(e) => {
            eprintln!(
                "privacy-audit: error: {}",
                log::guarded_text(&format!("{e:#}"))
            );
            Exit::Trouble as i32
        }
    }
}

/// Every key with its default and what it does: the shipped `config.toml`.
const DEFAULT_CONFIG: &str = include_str!("../../config.toml");

/// The reader of our output closed it (`rules list | head -1`): nothing to report.
pub(crate) fn closed_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn run(cli: &Cli) -> anyhow::Result<Exit> {
    // The git doors read the repository's own config, so they load it themselves.
    let config = || settings::config(cli.config.as_deref());
    match &cli.command {
        Command::ScanGit(args) => git_cmd::scan_git(cli, args),
        Command::Hook { command } => git_cmd::hook(cli, command),
        Command::Init(args) => init_cmd::run(cli, args),
        Command::Config { defaults: true } => {
            use std::io::Write;
            std::io::stdout()
                .write_all(DEFAULT_CONFIG.as_bytes())
                .map_err(|e| anyhow::Error::from(e).context("cannot print the defaults"))?;
            Ok(Exit::Clean)
        }
        Command::Config { defaults: false } => {
            let config = config()?;
            match &config.origin {
                Some(path) => println!("{}", path.display()),
                None => println!("(none: the built-in defaults)"),
            }
            eprintln!(
                "privacy-audit: `privacy-audit config --defaults` prints every key and its default"
            );
            Ok(Exit::Clean)
        }
        Command::Completions { shell } => {
            let mut command = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(
                *shell,
                &mut command,
                "privacy-audit",
                &mut std::io::stdout(),
            );
            Ok(Exit::Clean)
        }
        Command::Man { dir } => {
            let command = <Cli as clap::CommandFactory>::command();
            let written = match dir {
                Some(dir) => clap_mangen::generate_to(command, dir),
                None => clap_mangen::Man::new(command).render(&mut std::io::stdout()),
            };
            written.map_err(|e| anyhow::Error::from(e).context("cannot write the man page"))?;
            Ok(Exit::Clean)
        }
        Command::Daemon => {
            // Handed the lookup, not its result: the daemon reloads on SIGHUP.
            let explicit = cli.config.clone();
            let load: crate::daemon::LoadConfig =
                Box::new(move || settings::config(explicit.as_deref()));
            crate::daemon::Daemon::new(load, cli.key_file.clone())?.run()?;
            Ok(Exit::Clean)
        }
        Command::Report {
            command: ReportCommand::Verify { dir },
        } => verify_trail(cli, dir),
        Command::Report {
            command: ReportCommand::Merge { reports, out },
        } => scan_cmd::merge(cli, config()?, reports, out),
        Command::Scan(args) => scan_cmd::run(cli, config()?, args, Mode::Full),
        Command::Fix(args) => fix_cmd::run(cli, config()?, args),
        Command::Verify(args) => scan_cmd::run(cli, config()?, args, Mode::Provenance),
        Command::Rules { command } => rules_cmd::run(config()?, command),
        Command::Baseline(args) => baseline_cmd::run(cli, config()?, args),
        Command::Allow(args) => allow_cmd::run(cli, config()?, args),
    }
}

/// `report verify DIR`: the daemon's trail checked link by link, with its key when
/// one is found.
fn verify_trail(cli: &Cli, dir: &std::path::Path) -> anyhow::Result<Exit> {
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
        Some(d) => Some(crate::daemon::state::State::last_sequence(d)?).filter(|&n| n > 0),
        None => None,
    };
    let key = match &key_path {
        Some(p) => Some(FingerprintKey::load(p)?),
        None => None,
    };
    let shown = log::guarded_text(&dir.display().to_string());
    if !dir.is_dir() {
        return Err(Error::Usage(format!("{shown}: no such folder: nothing was verified")).into());
    }
    match crate::daemon::verify::verify(dir, key.as_ref(), recorded)? {
        Ok(checked) if checked.reports == 0 => {
            Err(Error::Usage(format!("{shown}: holds no reports: nothing was verified")).into())
        }
        Ok(checked) => {
            println!(
                "{shown}: chain of {} reports verified: it starts at report 1, every link and {} line agrees",
                checked.reports,
                crate::daemon::trail::AUDIT_LOG
            );
            match &key_path {
                Some(p) => {
                    println!(
                        "  every report's MAC checked with the key {}",
                        log::guarded_text(&p.display().to_string())
                    )
                }
                None => println!(
                    "  MACs NOT checked: no daemon key found (pass the daemon's --config, whose state folder holds it, or --key-file); a rewrite by someone who can write this folder would pass"
                ),
            }
            for note in &checked.notes {
                println!("  recorded by the daemon: {note}");
            }
            Ok(Exit::Clean)
        }
        Err(broken) => {
            // What is broken is said in the program's own words and report names.
            println!("{shown}: chain broken: {broken}");
            Ok(Exit::Findings)
        }
    }
}

/// What the run accepts (baseline, `[[allow]]`) and the least confidence it reports:
/// [`crate::acceptance::RunPolicy`], from the flags.
pub fn policy(
    scanner: &crate::scan::Scanner,
    args: &AcceptArgs,
) -> anyhow::Result<crate::acceptance::RunPolicy> {
    Ok(crate::acceptance::RunPolicy::for_run(
        &scanner.config,
        scanner.key(),
        &args.baseline_choice(),
        args.min_confidence,
    )?)
}

pub fn load_key(cli: &Cli) -> Result<FingerprintKey, Error> {
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

fn init_logging(verbose: u8, quiet_default: bool, quiet: bool) {
    let default = match verbose {
        0 if quiet => "error",
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
        .with_writer(log::GuardedStderr)
        // journald and log files want plain text.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(false)
        .try_init();
}
