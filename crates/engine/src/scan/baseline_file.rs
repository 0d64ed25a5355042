//! The baseline file in a scanned tree. Read as text, its rule ids would be flagged
//! (`hostname.internal` reads as a host name) and a teammate could not commit it; left
//! unread, it would be a place to hide a value. So a file with the configured
//! baseline's name that is *exactly* a baseline (see [`Baseline::recognise`]: only hex,
//! this run's rule ids and paths) has its paths judged as file names are, and nothing
//! else in it can carry a value. Anything less exact is scanned like any other file.

use super::Scanner;
use crate::finding::{Finding, Location};
use crate::judge::Baseline;

/// The findings of `text` when it is this run's baseline file; `None` otherwise.
pub(super) fn judge(scanner: &Scanner, rel: &str, name: &str, text: &[u8]) -> Option<Vec<Finding>> {
    let baseline_name = scanner.config.scan.baseline.file_name()?;
    if baseline_name.as_encoded_bytes() != name.as_bytes() {
        return None;
    }
    let baseline = Baseline::recognise(text, |id| scanner.rules.get(id).is_some())?;
    let mut found = Vec::new();
    for (i, entry) in baseline.findings.iter().enumerate() {
        for mut f in scanner.check_name(&entry.path).findings {
            f.location = Location {
                path: rel.to_string(),
                line: None,
                column: None,
                json_pointer: Some(format!("/findings/{i}/path")),
            };
            f.message = format!("{} (in a path the baseline lists)", f.message);
            found.push(f);
        }
    }
    Some(found)
}
