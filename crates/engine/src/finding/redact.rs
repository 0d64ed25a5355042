//! Masking. Every value a rule matched is masked before it reaches any output; a masked
//! value always hides at least half of its characters and never shows more than four.

use crate::finding::Category;
use crate::guard::mask_keep;

pub fn mask(value: &str, category: Category) -> String {
    if category == Category::Email
        && let Some((local, domain)) = value.rsplit_once('@')
    {
        return format!("{}@{}", mask_keep(local, 1, false), mask_domain(domain));
    }
    let keep = crate::guard::kept_for(value.chars().count());
    // A host's last label (`.internal`, `.corp`, `.lan`) is what makes it a finding and
    // names no one: it stays, while at least half of the value is still hidden.
    if category == Category::Hostname
        && let Some((name, suffix)) = value.rsplit_once('.')
        && !name.is_empty()
        && (keep + suffix.len() + 1) * 2 <= value.len()
    {
        return format!("{}.{suffix}", mask_keep(name, keep, true));
    }
    // Separators help a reader recognise a path, address or number, and reveal nothing.
    let keep_separators = matches!(
        category,
        Category::LocalPath | Category::IpAddress | Category::Hostname | Category::Pii
    );
    mask_keep(value, keep, keep_separators)
}

fn mask_domain(domain: &str) -> String {
    match domain.rsplit_once('.') {
        Some((name, tld)) => format!("{}.{}", mask_keep(name, 1, false), tld),
        None => mask_keep(domain, 1, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn email_keeps_shape_only() {
        assert_eq!(
            mask("ion.popescu@gmail.com", Category::Email),
            "i**********@g****.com"
        );
    }

    #[test]
    fn a_host_keeps_its_suffix_and_hides_the_rest() {
        assert_eq!(
            mask("build-07.corp.acmecorp.internal", Category::Hostname),
            "buil*-**.****.********.internal"
        );
        // Too short to show the suffix and still hide half.
        assert_eq!(mask("db.internal", Category::Hostname), "db.********");
    }

    #[test]
    fn never_shows_a_value_in_full() {
        for v in [
            "a",
            "ab",
            "abc",
            "abcd",
            "ghp_abcdefghijklmnop",
            "10.0.3.17",
            "/home/jdoe/x",
        ] {
            for cat in crate::finding::Category::ALL {
                let m = mask(v, cat);
                assert_ne!(m, v);
                assert!(!m.contains(v));
            }
        }
    }
}
