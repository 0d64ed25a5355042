//! One decision per table: the findings of one rule at one JSON Pointer pattern (array
//! indices as `*`) in one file form a group. A fixture table of a thousand customers is
//! one group, and one `[[allow]]` entry with that pattern accepts it.

use crate::finding::Finding;
use std::collections::HashMap;

/// `pointer` with every array index (an all-digit step) as `*`: `/users/17/email` →
/// `/users/*/email`. A table kept as an object keyed by record id
/// (`/sarah_johnson_1234/email`) is a table too: a key with digits and a separator in
/// it, or a key masked because it holds a value, is a record's id, not a field.
pub fn pattern(pointer: &str) -> String {
    pointer
        .split('/')
        .map(|s| if is_index(s) { "*" } else { s })
        .collect::<Vec<_>>()
        .join("/")
}

/// An array index, or a record id used as a key: three digits or more with a
/// separator (`sarah_johnson_1234`, not `output_2`), or a masked key.
fn is_index(step: &str) -> bool {
    let digits = step.bytes().filter(u8::is_ascii_digit).count();
    !step.is_empty()
        && (digits == step.len()
            || (digits >= 3 && step.bytes().any(|b| matches!(b, b'_' | b'-')))
            || step.contains('*'))
}

/// Whether `pointer` fits `pattern`: the same steps, `*` standing for any one step.
pub fn fits(pattern: &str, pointer: &str) -> bool {
    let (mut p, mut q) = (pattern.split('/'), pointer.split('/'));
    loop {
        match (p.next(), q.next()) {
            (None, None) => return true,
            (Some(a), Some(b)) if a == "*" || a == b => {}
            _ => return false,
        }
    }
}

/// What groups findings: file, pointer pattern, rule.
fn key(f: &Finding) -> (&str, String, &str) {
    (
        &f.location.path,
        pattern(f.location.json_pointer.as_deref().unwrap_or("")),
        &f.rule_id,
    )
}

/// Numbers the groups `g1`, `g2`, … in the order their first finding comes.
pub fn assign(findings: &mut [Finding]) {
    let mut ids: HashMap<(String, String, String), usize> = HashMap::new();
    let mut next = 0;
    for f in findings.iter_mut() {
        let (path, pat, rule) = key(f);
        let k = (path.to_string(), pat, rule.to_string());
        let id = *ids.entry(k).or_insert_with(|| {
            next += 1;
            next
        });
        f.group = Some(format!("g{id}"));
    }
}

/// Per group: how many findings, and how many distinct values (fingerprints).
pub fn sizes(findings: &[Finding]) -> HashMap<&str, (usize, usize)> {
    let mut seen: HashMap<&str, (usize, std::collections::HashSet<&str>)> = HashMap::new();
    for f in findings {
        if let Some(g) = f.group.as_deref() {
            let e = seen.entry(g).or_default();
            e.0 += 1;
            e.1.insert(&f.fingerprint.0);
        }
    }
    seen.into_iter()
        .map(|(g, (n, values))| (g, (n, values.len())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_put_stars_for_indices() {
        assert_eq!(pattern("/users/17/email"), "/users/*/email");
        assert_eq!(pattern("/0/turns/2/content"), "/*/turns/*/content");
        assert_eq!(pattern(""), "");
        assert_eq!(pattern("/sarah_johnson_1234/email"), "/*/email");
        assert_eq!(pattern("/heat*****/email"), "/*/email");
        assert_eq!(pattern("/users/email_address"), "/users/email_address");
        assert_eq!(pattern("/0/output_2"), "/*/output_2");
        assert!(fits("/users/*/email", "/users/3/email"));
        assert!(fits("/users/*/email", "/users/x/email"));
        assert!(!fits("/users/*/email", "/users/3/phone"));
        assert!(!fits("/users/*/email", "/users/3/email/0"));
        assert!(fits("", ""));
    }
}
