//! One run behind every door. A [`Source`] says where content comes from (a folder
//! walk, a list of files, git's object database, a buffer) and hands what it scanned to
//! a [`Sink`]; [`run`] owns everything after that, the same for every door: hash claims
//! checked once every unit is in, provenance-only filtering, the hash cache, acceptance
//! (baseline, `[[allow]]`, `min_confidence`) and the report, built once from what the
//! sink collected.
//!
//! Adding a door is implementing [`Source`]: `feed` scans each unit with the scanner's
//! `scan_*` calls and puts it in the sink; `verify` looks up what its claims name.

mod files;

pub use files::{Buffer, FileList, Walk, shard};

use crate::acceptance::RunPolicy;
use crate::error::Result;
use crate::finding::{Category, Confidence, Finding};
use crate::provenance::{Claim, SeenFile};
use crate::report::{FileRecord, Report};
use crate::scan::{FileOutcome, Mode, Progress, Scanner};
use std::sync::Mutex;
use std::sync::atomic::Ordering;
use std::time::{Instant, SystemTime};

/// Where content comes from.
pub trait Source {
    /// Where the claims one unit makes are looked up: a folder and the root it may not
    /// leave, a commit's tree, the index.
    type Site: Send + Clone;

    /// Scans every unit with `scanner` and puts each in `sink`, from any thread. An
    /// error stops the run: a source that could not be read whole is not judged.
    fn feed(&self, scanner: &Scanner, sink: &Sink<Self::Site>) -> Result<()>;

    /// Checks the hash claims the units made, once every unit is in (a manifest may
    /// name a file that comes later). `seen` lists the files the source saw, for
    /// `--strict` manifest completeness.
    fn verify(
        &self,
        scanner: &Scanner,
        claims: &[(Claim, Self::Site)],
        seen: &[SeenFile],
    ) -> Result<Vec<Finding>>;
}

/// One scanned unit as a source hands it over.
pub struct Unit<S> {
    pub outcome: FileOutcome,
    /// Where its claims are looked up; `None` drops them (content no claim can be
    /// checked for, such as a blob only a tag reaches).
    pub site: Option<S>,
    /// The commit that brought it, stamped on its findings.
    pub commit: Option<String>,
}

impl<S> Unit<S> {
    pub fn new(outcome: FileOutcome, site: Option<S>) -> Self {
        Unit {
            outcome,
            site,
            commit: None,
        }
    }

    pub fn in_commit(mut self, commit: Option<String>) -> Self {
        self.commit = commit;
        self
    }
}

/// What a run collected, in the order units came.
struct Collected<S> {
    files: Vec<FileRecord>,
    findings: Vec<Finding>,
    /// Findings less sure than the run reports: counted as they come, not kept (a
    /// folder can hold tens of thousands, and they would be dropped at the end).
    below_floor: usize,
    claims: Vec<(Claim, S)>,
    seen: Vec<SeenFile>,
}

/// Collects what a source scanned; shared by the source's threads.
pub struct Sink<'p, S> {
    collected: Mutex<Collected<S>>,
    progress: Option<&'p Progress>,
    /// The lowest confidence the run reports.
    floor: Confidence,
}

impl<S: Clone> Sink<'_, S> {
    fn lock(&self) -> std::sync::MutexGuard<'_, Collected<S>> {
        // A panicking worker cannot leave the lists half-written: each push is whole.
        self.collected.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A scanned unit: its record, its findings and, with a site, its claims.
    pub fn unit(&self, unit: Unit<S>) {
        let Unit {
            outcome,
            site,
            commit,
        } = unit;
        if let Some(p) = self.progress {
            p.files.fetch_add(1, Ordering::Relaxed);
            p.bytes.fetch_add(outcome.record.bytes, Ordering::Relaxed);
        }
        let mut findings = outcome.findings;
        let before = findings.len();
        findings.retain(|f| f.confidence >= self.floor);
        let below = before - findings.len() + outcome.below_floor;
        if commit.is_some() {
            for f in &mut findings {
                f.commit.clone_from(&commit);
            }
        }
        let mut c = self.lock();
        if let Some(site) = site {
            // Sites are small (a folder and a root, a commit id): each claim keeps one.
            let claims = outcome
                .claims
                .into_iter()
                .map(|claim| (claim, site.clone()));
            c.claims.extend(claims);
        }
        c.files.push(outcome.record);
        c.findings.extend(findings);
        c.below_floor += below;
    }

    /// Findings that belong to no file (a submodule's path, a pushed ref's name).
    pub fn findings(&self, mut findings: Vec<Finding>) {
        let before = findings.len();
        findings.retain(|f| f.confidence >= self.floor);
        let mut c = self.lock();
        c.below_floor += before - findings.len();
        c.findings.extend(findings);
    }

    /// The lowest confidence the run lists: a source scans with it (see
    /// [`Scanner::scan_path_below`]) so that nothing less sure is built.
    pub fn floor(&self) -> Confidence {
        self.floor
    }

    /// A file the source saw, read or not, for `--strict` completeness.
    pub fn seen(&self, file: SeenFile) {
        self.lock().seen.push(file);
    }
}

/// A run's report with what the run checked it against: every claim the units made
/// (where each was made) and every file the source saw. What `fix` needs to rewrite
/// values and re-hash what covered them.
pub struct Kept<S> {
    pub report: Report,
    pub claims: Vec<(Claim, S)>,
    pub seen: Vec<SeenFile>,
}

/// Runs `source` through `scanner` and builds the report under `policy`: the one
/// path from content to a report, whatever the door.
pub fn run<S: Source>(
    scanner: &Scanner,
    source: &S,
    policy: &RunPolicy,
    progress: Option<&Progress>,
) -> Result<Report> {
    Ok(run_keeping(scanner, source, policy, progress)?.report)
}

/// [`run`], keeping the claims and the files seen.
pub fn run_keeping<S: Source>(
    scanner: &Scanner,
    source: &S,
    policy: &RunPolicy,
    progress: Option<&Progress>,
) -> Result<Kept<S::Site>> {
    let started = SystemTime::now();
    let clock = Instant::now();
    let sink = Sink {
        collected: Mutex::new(Collected {
            files: Vec::new(),
            findings: Vec::new(),
            below_floor: 0,
            claims: Vec::new(),
            seen: Vec::new(),
        }),
        progress,
        floor: policy.min_confidence,
    };
    source.feed(scanner, &sink)?;
    let Collected {
        files,
        mut findings,
        below_floor,
        mut claims,
        seen,
    } = sink
        .collected
        .into_inner()
        .unwrap_or_else(|p| p.into_inner());
    // Threads hand units over in any order; claims are checked in the files' order.
    claims.sort_by(|a, b| (&a.0.claimant, a.0.line).cmp(&(&b.0.claimant, b.0.line)));
    findings.extend(source.verify(scanner, &claims, &seen)?);
    if scanner.mode() == Mode::Provenance {
        findings.retain(|f| f.category == Category::Provenance);
    }
    if let Err(e) = scanner.cache.save() {
        tracing::warn!(error = %e, "could not save the hash cache; the next run will rehash");
    }
    let mut settled = policy.settle(findings);
    settled.below_min_confidence += below_floor;
    let mut report = Report::build(
        scanner.rules.sha256.clone(),
        started,
        clock.elapsed(),
        files,
        settled,
    );
    scanner.seal_file_digests(&mut report);
    Ok(Kept {
        report,
        claims,
        seen,
    })
}
