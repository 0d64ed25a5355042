//! The documents a new user reads: a README that fits its purpose and opens with the
//! two commands, links that lead somewhere, and a repository that speaks of the
//! product only.

use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn the_readme_is_short_and_opens_with_the_two_commands() {
    let readme = read("README.md");
    assert!(
        readme.lines().count() <= 250,
        "README.md has {} lines",
        readme.lines().count()
    );
    let first_block: Vec<&str> = readme
        .split("```")
        .nth(1)
        .expect("a code block")
        .lines()
        .skip(1)
        .collect();
    assert!(first_block[0].starts_with("cargo run --release -- scan examples/sample-dataset"));
    assert!(first_block[1].starts_with("cargo test"));
    for needed in [
        "cargo install --locked --path .",
        "privacy-audit init",
        "scripts/package-deb",
    ] {
        assert!(
            readme.contains(needed),
            "the README does not mention `{needed}`"
        );
    }
}

#[test]
fn every_local_link_in_the_docs_leads_to_a_file() {
    let mut pages = vec!["README.md".to_string()];
    for entry in std::fs::read_dir(root().join("docs")).expect("docs/") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if name.ends_with(".md") {
            pages.push(format!("docs/{name}"));
        }
    }
    for page in &pages {
        let text = read(page);
        let dir = root().join(page).parent().expect("folder").to_path_buf();
        for (i, _) in text.match_indices("](") {
            let rest = &text[i + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = rest[..end].split('#').next().unwrap_or_default();
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            assert!(
                dir.join(target).exists(),
                "{page}: link to {target} leads nowhere"
            );
        }
    }
}

#[test]
fn the_repository_speaks_of_the_product_only() {
    let mut pages = vec!["README.md".to_string(), "CHANGELOG.md".to_string()];
    for entry in std::fs::read_dir(root().join("docs")).expect("docs/") {
        pages.push(format!(
            "docs/{}",
            entry.expect("entry").file_name().to_string_lossy()
        ));
    }
    for page in pages {
        let text = read(&page).to_lowercase();
        assert!(!text.contains("session"), "{page} speaks of a session");
        let issue_number = text.match_indices("issue ").any(|(i, m)| {
            text[i + m.len()..].starts_with(|c: char| c.is_ascii_digit() || c == '#')
        });
        assert!(!issue_number, "{page} cites an issue number");
    }
}
