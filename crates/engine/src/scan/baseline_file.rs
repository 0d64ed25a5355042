//! The baseline file in a scanned tree. Read as text, its rule ids would be flagged
//! (`hostname.internal` reads as a host name) and a teammate could not commit it. So a
//! file with the configured baseline's name that is *exactly* a baseline (see
//! [`Baseline::recognise`]: its only free text is the `path` of each entry) is scanned
//! like any file, then the findings on its checked fields (the schema, the key id, each
//! entry's hex fingerprint and known rule id) are dropped. Its paths keep every rule,
//! decoding layer and budget a file gets; anything less exact keeps every finding.

use super::Scanner;
use crate::acceptance::Baseline;
use crate::finding::Finding;

/// Whether `text`, read as a file named `name`, is exactly a baseline of this run.
pub(super) fn recognised(scanner: &Scanner, name: &str, text: &[u8]) -> bool {
    let Some(baseline_name) = scanner.config.scan.baseline.file_name() else {
        return false;
    };
    baseline_name.as_encoded_bytes() == name.as_bytes()
        && Baseline::recognise(text, |id| scanner.rules.get(id).is_some()).is_some()
}

/// Drops the findings a recognised baseline's checked fields raise.
pub(super) fn keep_path_findings(findings: &mut Vec<Finding>) {
    findings.retain(|f| {
        let Some(pointer) = f.location.json_pointer.as_deref() else {
            return true;
        };
        !(pointer == "/schema" || pointer == "/key_id" || checked_entry_field(pointer))
    });
}

/// `/findings/N/rule_id` or `/findings/N/fingerprint`.
fn checked_entry_field(pointer: &str) -> bool {
    let Some(rest) = pointer.strip_prefix("/findings/") else {
        return false;
    };
    let Some((index, field)) = rest.split_once('/') else {
        return false;
    };
    !index.is_empty()
        && index.bytes().all(|b| b.is_ascii_digit())
        && matches!(field, "rule_id" | "fingerprint")
}
