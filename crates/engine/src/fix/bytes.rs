//! `fix` for bytes handed over whole (Python's `Scanner.fix_bytes`): the same rewrite
//! as for a file, judged under the same run policy; no hash elsewhere can be updated.

use super::{Change, Target, Unfixed, file, placeholder, unfixed_because};
use crate::acceptance::RunPolicy;
use crate::error::Result;
use crate::finding::{Confidence, Finding};
use crate::run::Buffer;
use crate::scan::Scanner;

/// `data`, read as a file named `name`, with what `policy` reports rewritten: the new
/// bytes (the same when nothing changed), the changes, and what needs a person.
pub fn fix_bytes(
    scanner: &Scanner,
    policy: &RunPolicy,
    name: &str,
    data: Vec<u8>,
) -> Result<(Vec<u8>, Vec<Change>, Vec<Unfixed>)> {
    let every = RunPolicy {
        acceptance: policy.acceptance.clone(),
        min_confidence: Confidence::Low,
    };
    let source = Buffer {
        name,
        bytes: std::cell::Cell::new(data.clone()),
    };
    let report = crate::run::run(scanner, &source, &every, None)?;
    if let Some(record) = report.files.iter().find(|f| f.error) {
        return Err(crate::error::Error::invalid(
            record.path.clone(),
            format!(
                "could not be judged: {}",
                record.reason.as_deref().unwrap_or("")
            ),
        ));
    }
    let was: Vec<&Finding> = report.findings.iter().collect();
    let (mut targets, mut left) = (Vec::new(), Vec::new());
    for f in report
        .findings
        .iter()
        .filter(|f| f.confidence >= policy.min_confidence)
    {
        let replacement = f.value.as_ref().and_then(|v| {
            placeholder::replacement(
                scanner.key(),
                f,
                &v.0,
                (false, &scanner.config.privacy.denylist_replacement),
            )
        });
        match replacement {
            Some(replacement) => targets.push(Target {
                finding: f.clone(),
                replacement,
            }),
            None => left.push(unfixed_because(f, placeholder::no_rewrite(f.category))),
        }
    }
    if targets.is_empty() {
        return Ok((data, Vec::new(), left));
    }
    let shown = report.files.first().map_or(name, |f| f.path.as_str());
    match file::fix_content(scanner, policy, (shown, name), &data, &was, &targets) {
        Ok((after, changes, more)) => {
            left.extend(more);
            Ok((after, changes, left))
        }
        Err(why) => {
            left.extend(targets.iter().map(|t| unfixed_because(&t.finding, &why)));
            Ok((data, Vec::new(), left))
        }
    }
}
