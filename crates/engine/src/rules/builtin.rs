//! The shipped rule files, compiled into the binary so a bare install works.

/// `(file name, contents)` of every file in `rules/`.
pub const BUILTIN_RULES: &[(&str, &str)] = &[
    (
        "secrets.toml",
        include_str!("../../../../rules/secrets.toml"),
    ),
    (
        "personal.toml",
        include_str!("../../../../rules/personal.toml"),
    ),
    (
        "network.toml",
        include_str!("../../../../rules/network.toml"),
    ),
    ("paths.toml", include_str!("../../../../rules/paths.toml")),
    (
        "capture.toml",
        include_str!("../../../../rules/capture.toml"),
    ),
    (
        "provenance.toml",
        include_str!("../../../../rules/provenance.toml"),
    ),
    ("schema.toml", include_str!("../../../../rules/schema.toml")),
    (
        "providers.toml",
        include_str!("../../../../rules/providers.toml"),
    ),
    (
        "credentials.toml",
        include_str!("../../../../rules/credentials.toml"),
    ),
    (
        "providers-ai.toml",
        include_str!("../../../../rules/providers-ai.toml"),
    ),
    (
        "providers-cloud.toml",
        include_str!("../../../../rules/providers-cloud.toml"),
    ),
    (
        "providers-code.toml",
        include_str!("../../../../rules/providers-code.toml"),
    ),
    (
        "providers-comms.toml",
        include_str!("../../../../rules/providers-comms.toml"),
    ),
    (
        "providers-business.toml",
        include_str!("../../../../rules/providers-business.toml"),
    ),
];

#[cfg(test)]
mod tests {
    /// A file added to `rules/` but not listed here would silently not ship.
    #[test]
    fn every_rule_file_is_compiled_in() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .expect("rules dir")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".toml"))
            .collect();
        on_disk.sort();
        let mut listed: Vec<String> = super::BUILTIN_RULES
            .iter()
            .map(|(n, _)| n.to_string())
            .collect();
        listed.sort();
        assert_eq!(on_disk, listed);
    }

    /// The placeholder model is one for every rule: a secret rule that could report a
    /// value must name a validator that rejects placeholders.
    #[test]
    fn every_secret_rule_judges_placeholders() {
        const JUDGING: [&str; 5] = [
            "secret_value",
            "key_material",
            "named_key",
            "keyed_secret",
            "basic_auth",
        ];
        for (name, text) in super::BUILTIN_RULES {
            for s in crate::rules::parse_rule_file(name, text).expect("parses") {
                let spec = s.spec;
                if spec.category == crate::finding::Category::Secret && spec.regex.is_some() {
                    let v = spec.validator.as_deref().unwrap_or("none");
                    assert!(JUDGING.contains(&v), "{}: validator {v}", spec.id);
                }
            }
        }
    }
}
