//! The command line as clap reads it: every command, flag and its help text.

use crate::finding::Severity;
use crate::report::Format;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// Every judging command's exit codes (docs/reference.md §2), shown by `--help` and in
/// each man page.
const EXIT_STATUS: &str = "Exit status: 0 clean (or every finding accepted); 1 findings at or \
above the failing severity; 2 could not judge (unreadable input, bad config, a bug): never \
read as clean.";

const SCAN_EXAMPLES: &str = "Examples:
  privacy-audit scan data/                         human report; exit 1 on findings
  privacy-audit scan data/ -o report.sarif         SARIF for code scanning
  privacy-audit scan data/ --min-confidence low    also what the default hides

Exit status: 0 clean, 1 findings, 2 could not judge (never read as clean).";

const SCAN_GIT_EXAMPLES: &str = "Examples:
  privacy-audit scan-git --range origin/main..HEAD   what these commits add (CI)
  privacy-audit scan-git                             every blob of the history, once

Each commit is judged by the config and baseline committed in its parent.
Exit status: 0 clean, 1 findings, 2 could not judge (never read as clean).";

#[derive(Debug, Parser)]
#[command(
    name = "privacy-audit",
    version,
    about = "Privacy gate and provenance auditor for LLM-evaluation datasets",
    after_long_help = EXIT_STATUS
)]
pub struct Cli {
    /// Config file (default: the nearest privacy-audit.toml up to the repository root,
    /// else ~/.config/privacy-audit/config.toml, else the built-in defaults).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Fingerprint key file (default: $XDG_DATA_HOME/privacy-audit/key, else
    /// ~/.local/share/privacy-audit/key; for `report verify`, the daemon's, in the state
    /// folder of the config).
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
    /// Print nothing but errors: the exit code tells (a report file asked for is still
    /// written).
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// No colour, even on a terminal (NO_COLOR does the same).
    #[arg(long, global = true)]
    pub no_color: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Scan files and folders once and print a report.
    #[command(after_long_help = SCAN_EXAMPLES)]
    Scan(ScanArgs),
    /// Accept the findings of one rule at one place on purpose: appends an [[allow]]
    /// entry (with your reason) to privacy-audit.toml that every clone honours.
    Allow(AllowArgs),
    /// Set up a repository: a commented privacy-audit.toml with a team key, the
    /// pre-commit hook and, with --baseline, a baseline of today's findings.
    Init(InitArgs),
    /// Install, remove or run the git hooks.
    Hook {
        #[command(subcommand)]
        command: HookCommand,
    },
    /// Write today's findings as the baseline (.privacy-audit-baseline.json): they no
    /// longer fail scans or hooks. `--check` lists entries that match nothing any more.
    Baseline(BaselineArgs),
    /// Check provenance only: manifests, bound hashes and hash hygiene. Same report
    /// format as `scan`; only files that can hold hashes are read, and files they name
    /// are hashed (once, and not again while unchanged).
    Verify(ScanArgs),
    /// Scan the blobs that a range of commits adds (pre-push, pre-receive, CI).
    #[command(after_long_help = SCAN_GIT_EXAMPLES)]
    ScanGit(ScanGitArgs),
    /// Rewrite what a scan finds as placeholders and re-hash what recorded the files'
    /// hashes. A dry run unless --write: it shows, masked, what would change.
    Fix(FixArgs),
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
    /// Print a shell completion script: `privacy-audit completions bash`.
    Completions {
        #[arg(value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff): `privacy-audit man | man -l -`; with --dir, write one
    /// page per command there (privacy-audit-scan.1, ...).
    Man {
        /// Write every page into this folder instead of printing the main one
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Say which config file is in effect; with --defaults, print every key with its
    /// default value and what it does (a config to start from)
    Config {
        /// Print the built-in defaults, commented: every key there is
        #[arg(long)]
        defaults: bool,
    },
}

#[derive(Debug, Args)]
pub struct FixArgs {
    /// Files and folders to fix.
    #[arg(required_unless_present = "staged", value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Fix what is staged in the repository around the current folder: the staged
    /// files are rewritten in the work tree and staged again, with the manifests that
    /// record their hashes. Refused when a staged file also has unstaged changes.
    #[arg(long, conflicts_with = "paths")]
    pub staged: bool,
    /// Replace each raw capture (traceback, shell transcript, terminal dump) whole
    /// with a marker naming its rule, instead of leaving it to a person.
    #[arg(long)]
    pub drop_capture: bool,
    /// Apply the changes (without it, nothing is written).
    #[arg(long)]
    pub write: bool,
    /// Copy every file to this folder (under its report path) before it is rewritten.
    #[arg(long, value_name = "DIR", requires = "write")]
    pub backup: Option<PathBuf>,
    /// Also write each rewritten value and its placeholder as a `git filter-repo
    /// --replace-text` list (mode 0600; it holds the values, so it must lie outside the
    /// repository and the fixed folders).
    #[arg(long, value_name = "FILE")]
    pub replacements: Option<PathBuf>,
    /// `human` (default) or `json`: the fix log (file, pointer, rule, fingerprint,
    /// placeholder; never a value).
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<FixFormat>,
    #[command(flatten)]
    pub accept: AcceptArgs,
}

/// How `fix` prints what it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FixFormat {
    Human,
    Json,
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
    /// Output format (default: from the -o file's extension, .json or .sarif, else
    /// human; piping never changes it).
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

impl AcceptArgs {
    /// The baseline these flags choose.
    pub fn baseline_choice(&self) -> crate::acceptance::BaselineChoice {
        use crate::acceptance::BaselineChoice;
        match (&self.baseline, self.no_baseline) {
            (_, true) => BaselineChoice::Without,
            (Some(path), false) => BaselineChoice::File(path.clone()),
            (None, false) => BaselineChoice::Configured,
        }
    }
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

impl From<HookKindArg> for privacy_audit_git::hook::HookKind {
    fn from(k: HookKindArg) -> Self {
        match k {
            HookKindArg::PreCommit => privacy_audit_git::hook::HookKind::PreCommit,
            HookKindArg::PrePush => privacy_audit_git::hook::HookKind::PrePush,
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
    #[arg(value_name = "PATH", default_value = ".")]
    pub paths: Vec<PathBuf>,
    /// Where to write it (default: scan.baseline, `.privacy-audit-baseline.json` beside
    /// the config); `-` for stdout. Written whole or not at all.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Write nothing: list baseline entries whose finding is gone and `[[allow]]`
    /// entries that match nothing; exit 1 when there are any.
    #[arg(long, conflicts_with = "output")]
    pub check: bool,
}

#[derive(Debug, Subcommand)]
pub enum ReportCommand {
    /// Walk the daemon's report chain; exit 1 naming the first report that was edited,
    /// removed or reordered.
    Verify {
        /// The daemon's reports folder (`[daemon] reports`, such as
        /// /var/lib/privacy-audit/reports)
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
    /// Merge JSON reports of shards scanned anywhere into one report with one summary
    /// and one verdict (exit 0, 1 or 2 as for `scan`).
    Merge {
        #[arg(required = true, value_name = "REPORT.json")]
        reports: Vec<PathBuf>,
        #[command(flatten)]
        out: OutputArgs,
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

#[derive(Debug, Args)]
pub struct InitArgs {
    /// The repository (default: the one the current folder is in).
    #[arg(long, value_name = "DIR")]
    pub repo: Option<PathBuf>,
    /// Which hook to install.
    #[arg(long, value_enum, default_value = "pre-commit")]
    pub hook: HookKindArg,
    /// Do not install a hook.
    #[arg(long, conflicts_with = "hook")]
    pub no_hook: bool,
    /// Also write a baseline of today's findings.
    #[arg(long)]
    pub baseline: bool,
}

#[derive(Debug, Args)]
pub struct AllowArgs {
    /// Where the finding is, as the report prints it: FILE, FILE:LINE or FILE:LINE:COL.
    #[arg(value_name = "FILE[:LINE[:COL]]")]
    pub location: String,
    /// The rule id the report names (e.g. email.address).
    #[arg(long)]
    pub rule: String,
    /// Why it is not a leak; kept in the entry.
    #[arg(long)]
    pub reason: String,
    /// Accept the finding's whole group: every finding of the rule at the same JSON
    /// Pointer pattern in this file (a table), whatever its value, now and later.
    #[arg(long)]
    pub group: bool,
}
