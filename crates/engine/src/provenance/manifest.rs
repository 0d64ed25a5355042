//! `sha256sum`-format manifests: `<hex>  path` (text mode) or `<hex> *path` (binary
//! mode), `sha256:` prefixes tolerated, BSD `SHA256 (path) = <hex>` lines accepted,
//! `#` comments and blank lines ignored. Lines that are none of these are reported.

/// One manifest line that names a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestEntry {
    /// 1-based line in the manifest.
    pub line: u32,
    /// 1-based column of the hash.
    pub column: u32,
    /// The hash as written (without a `sha256:` prefix), lower-cased.
    pub hash: String,
    pub path: String,
}

/// A line that is not a manifest entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    pub line: u32,
    pub message: &'static str,
}

/// Parses a manifest. `name` is its file name: `x.tar.gz.sha256` holding a lone hash
/// (no path) describes `x.tar.gz`, as many release pages publish them.
pub fn parse(text: &str, name: &str) -> (Vec<ManifestEntry>, Vec<BadLine>) {
    let (mut entries, mut bad) = (Vec::new(), Vec::new());
    for (i, raw) in text.lines().enumerate() {
        let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
        // A byte-order mark (Windows tools) counts as indentation, keeping columns true.
        let trimmed = raw.trim_start_matches('\u{feff}').trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let indent = raw.len() - trimmed.len();
        let entry = parse_line(trimmed).or_else(|| {
            let target = name.strip_suffix(".sha256").filter(|t| !t.is_empty())?;
            let hash = trimmed.trim_end();
            let lone = !hash.contains(char::is_whitespace);
            lone.then(|| {
                (
                    0,
                    hash.strip_prefix("sha256:").unwrap_or(hash),
                    target.to_string(),
                )
            })
        });
        match entry {
            Some((hash_at, hash, path)) => entries.push(ManifestEntry {
                line,
                column: u32::try_from(indent + hash_at + 1).unwrap_or(u32::MAX),
                hash: hash.to_ascii_lowercase(),
                path,
            }),
            None => bad.push(BadLine {
                line,
                message: "not a `<sha256>  <path>` manifest line",
            }),
        }
    }
    (entries, bad)
}

/// Returns (offset of the hash in the line, hash, path).
fn parse_line(line: &str) -> Option<(usize, &str, String)> {
    if let Some(rest) = line.strip_prefix("SHA256 (") {
        let (path, hash) = rest.rsplit_once(") = ")?;
        let at = line.len() - hash.len();
        return Some((at, hash.trim(), path.to_string()));
    }
    // GNU sha256sum marks a name holding `\` or a newline with a leading `\` and
    // escapes those characters inside it.
    let (escaped, line) = match line.strip_prefix('\\') {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    let (prefix, body) = match line.strip_prefix("sha256:") {
        Some(b) => (7, b),
        None => (0, line),
    };
    let split = body.find([' ', '\t'])?;
    let (hash, rest) = body.split_at(split);
    let path = rest
        .strip_prefix(" *")
        .or_else(|| rest.strip_prefix("  "))
        .or_else(|| rest.strip_prefix(' '))
        .or_else(|| rest.strip_prefix('\t'))?;
    if hash.is_empty() || path.is_empty() {
        return None;
    }
    let path = if escaped {
        unescape(path)
    } else {
        path.to_string()
    };
    Some((usize::from(escaped) + prefix, hash, path))
}

fn unescape(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut chars = path.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_binary_prefixed_bsd_and_comments() {
        let h = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        let text = format!(
            "# made by sha256sum\n{h}  a.json\n{h} *b.bin\nsha256:{h}  sub/c.jsonl.gz\n\nSHA256 (d e.txt) = {h}\ngarbage\n"
        );
        let (entries, bad) = parse(&text, "SHA256SUMS");
        let paths: Vec<&str> = entries.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["a.json", "b.bin", "sub/c.jsonl.gz", "d e.txt"]);
        assert!(entries.iter().all(|e| e.hash == h));
        assert_eq!((entries[2].line, entries[2].column), (4, 8));
        assert_eq!(entries[3].column, 20);
        assert_eq!(
            bad,
            vec![BadLine {
                line: 7,
                message: "not a `<sha256>  <path>` manifest line"
            }]
        );
    }

    #[test]
    fn escapes_bom_and_lone_hash_files() {
        let h = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        let (entries, bad) = parse(
            &format!("\u{feff}{h}  a.json\n\\{h}  dir\\\\x\\ny.txt\n"),
            "SUMS",
        );
        assert!(bad.is_empty(), "{bad:?}");
        assert_eq!((entries[0].path.as_str(), entries[0].column), ("a.json", 4));
        assert_eq!(
            (entries[1].path.as_str(), entries[1].column),
            ("dir\\x\ny.txt", 2)
        );
        let (lone, bad) = parse(&format!("{h}\n"), "model.tar.gz.sha256");
        assert!(bad.is_empty());
        assert_eq!(lone[0].path, "model.tar.gz");
        let (none, bad) = parse(&format!("{h}\n"), "SHA256SUMS");
        assert!(none.is_empty() && bad.len() == 1);
    }
}
