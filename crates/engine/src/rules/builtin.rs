//! The shipped rule files, compiled into the binary so a bare install works.

/// `(file name, contents)` of every file in `rules/`.
/// `(name, contents)` of a file in the crate's `rules/` (a link to the workspace's
/// `rules/` folder, which `cargo package` follows, so the crate carries them alone).
macro_rules! rule_file {
    ($name:literal) => {
        (
            $name,
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/rules/", $name)),
        )
    };
}

/// `(file name, contents)` of every file in `rules/`.
pub const BUILTIN_RULES: &[(&str, &str)] = &[
    rule_file!("secrets.toml"),
    rule_file!("personal.toml"),
    rule_file!("network.toml"),
    rule_file!("paths.toml"),
    rule_file!("capture.toml"),
    rule_file!("provenance.toml"),
    rule_file!("schema.toml"),
    rule_file!("providers.toml"),
    rule_file!("credentials.toml"),
    rule_file!("providers-ai.toml"),
    rule_file!("providers-cloud.toml"),
    rule_file!("providers-code.toml"),
    rule_file!("providers-comms.toml"),
    rule_file!("providers-business.toml"),
    rule_file!("providers-near.toml"),
    rule_file!("providers-extra.toml"),
    rule_file!("providers-more.toml"),
    rule_file!("providers-small.toml"),
];

#[cfg(test)]
mod tests {
    /// A file added to `rules/` but not listed here would silently not ship.
    #[test]
    fn every_rule_file_is_compiled_in() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/rules");
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
        const JUDGING: [&str; 8] = [
            "crypt_hash",
            "prose_secret",
            "secret_value",
            "key_material",
            "named_key",
            "keyed_secret",
            "getter_secret",
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
