//! What a run accepts, decided once for every door (scan, hooks, baseline, daemon,
//! Python): the baseline the run was told to use, the config's `[[allow]]` entries and
//! the lowest confidence it reports.

use super::{Acceptance, Baseline};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::finding::Confidence;
use crate::finding::Finding;
use crate::finding::fingerprint::FingerprintKey;
use crate::report::{Settled, groups};
use std::path::PathBuf;

/// Which baseline a run uses.
#[derive(Debug, Clone, Default)]
pub enum BaselineChoice {
    /// The config's: the committed snapshot a hook was handed, else `scan.baseline`
    /// (absent is no baseline).
    #[default]
    Configured,
    /// This file, which must exist.
    File(PathBuf),
    /// None (`--no-baseline`).
    Without,
}

/// Baseline, `[[allow]]` and `min_confidence` for one run.
pub struct RunPolicy {
    pub acceptance: Acceptance,
    pub min_confidence: Confidence,
}

impl RunPolicy {
    /// The policy of a run under `config`, fingerprints matched under `key`.
    pub fn for_run(
        config: &Config,
        key: &FingerprintKey,
        baseline: &BaselineChoice,
        min_confidence: Option<Confidence>,
    ) -> Result<RunPolicy> {
        let baseline = match baseline {
            BaselineChoice::Without => None,
            BaselineChoice::File(path) => Some(Baseline::load(path)?.ok_or_else(|| {
                Error::Usage(format!("{}: baseline file not found", path.display()))
            })?),
            BaselineChoice::Configured => match &config.baseline_snapshot {
                Some((origin, Some(text))) => Some(Baseline::parse(text, origin)?),
                Some((_, None)) => None,
                None => Baseline::load(&config.resolve(&config.scan.baseline))?,
            },
        };
        Ok(RunPolicy {
            acceptance: Acceptance::new(baseline.as_ref(), &config.allow, key)?,
            min_confidence: min_confidence.unwrap_or(config.scan.min_confidence),
        })
    }

    /// A run that accepts nothing and reports every confidence (what `baseline` and
    /// `allow` scan with: they record what is there).
    pub fn everything(key: &FingerprintKey) -> Result<RunPolicy> {
        Ok(RunPolicy {
            acceptance: Acceptance::new(None, &[], key)?,
            min_confidence: Confidence::Low,
        })
    }

    /// What is accepted moves out of the failing set (keeping the group it had among
    /// all findings), then what is less sure than the run reports is counted and
    /// dropped. (A run drops those as they come already, see [`crate::run`]: an
    /// accepted finding is one the run would otherwise report.)
    pub fn settle(&self, mut findings: Vec<Finding>) -> Settled {
        findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        groups::assign(&mut findings);
        let (mut kept, suppressed) = self.acceptance.split(findings);
        let before = kept.len();
        kept.retain(|f| f.confidence >= self.min_confidence);
        Settled {
            below_min_confidence: before - kept.len(),
            findings: kept,
            suppressed,
        }
    }
}
