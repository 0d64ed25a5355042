//! Provenance and format auditing of one file, fed record by record by the file
//! pipeline: seed-format validation, hash hygiene, text hashes checked on the spot, and
//! file hashes turned into claims for the [`crate::provenance::Verifier`]. Manifests are
//! parsed here too.

use crate::config::Config;
use crate::error::Result;
use crate::formats::json::Locator;
use crate::formats::tree::Node;
use crate::provenance::bind::{self, BindRule, Target};
use crate::provenance::hygiene::{self, HashForm};
use crate::provenance::manifest;
use crate::schema::{self, Issue, SeedFormat};
use globset::{Glob, GlobMatcher, GlobSet, GlobSetBuilder};
use memchr::memmem::Finder;
use sha2::{Digest, Sha256};
use std::sync::OnceLock;

/// Records larger than this are scanned for privacy but not parsed into a tree.
const MAX_AUDIT_RECORD: usize = 64 << 20;

/// What auditing needs from the config, compiled once per run.
pub struct AuditConfig {
    binds: Vec<BindRule>,
    manifests: GlobSet,
    formats: Vec<(GlobMatcher, SeedFormat)>,
}

impl AuditConfig {
    pub fn new(config: &Config) -> Result<AuditConfig> {
        let binds = config
            .provenance
            .bind
            .iter()
            .map(|b| BindRule::new(&b.pointer, b.record_type.clone(), b.file.clone()))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|m| config.invalid(format!("provenance.bind: {m}")))?;
        let mut manifests = GlobSetBuilder::new();
        for g in &config.provenance.manifests {
            manifests.add(
                Glob::new(g)
                    .map_err(|e| config.invalid(format!("provenance.manifests `{g}`: {e}")))?,
            );
        }
        let formats = config
            .formats
            .iter()
            .map(|f| {
                Glob::new(&f.glob)
                    .map(|g| (g.compile_matcher(), f.format))
                    .map_err(|e| config.invalid(format!("formats `{}`: {e}", f.glob)))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(AuditConfig {
            binds,
            manifests: manifests
                .build()
                .map_err(|e| config.invalid(format!("provenance.manifests: {e}")))?,
            formats,
        })
    }

    /// The compiled `[[provenance.bind]]` entries.
    pub fn binds(&self) -> &[BindRule] {
        &self.binds
    }

    /// Manifest globs match the file name.
    pub fn is_manifest(&self, name: &str) -> bool {
        self.manifests.is_match(name)
    }

    pub fn forced_format(&self, rel: &str) -> Option<SeedFormat> {
        self.formats
            .iter()
            .find(|(g, _)| g.is_match(rel))
            .map(|(_, f)| *f)
    }
}

/// A problem found while auditing, placed by file offset (and pointer, inside JSON).
pub struct Located {
    pub check: &'static str,
    pub offset: usize,
    pub pointer: Option<String>,
    pub message: String,
}

/// A file hash claim, placed by file offset; the pipeline adds line and column.
pub struct PendingClaim {
    pub offset: usize,
    pub pointer: Option<String>,
    pub expected: String,
    pub target: String,
    pub from_manifest: bool,
}

pub struct FileAudit<'a> {
    cfg: &'a AuditConfig,
    validator: schema::FormatChecker,
    records: usize,
    pub problems: Vec<Located>,
    pub claims: Vec<PendingClaim>,
}

impl<'a> FileAudit<'a> {
    pub fn new(
        cfg: &'a AuditConfig,
        rel: &str,
        transcript: Option<schema::Transcript>,
    ) -> FileAudit<'a> {
        FileAudit {
            cfg,
            validator: schema::FormatChecker::new(cfg.forced_format(rel), transcript),
            records: 0,
            problems: Vec::new(),
            claims: Vec::new(),
        }
    }

    pub fn is_manifest(&self, name: &str) -> bool {
        self.cfg.is_manifest(name)
    }

    /// Whether the next record (`doc`) is audited, and so needs its tree: records of a
    /// known format, the first of an unknown file, and any that mention a hash.
    pub fn wants_tree(&self, doc: &[u8]) -> bool {
        let known = self.validator.format.is_some_and(|f| f != SeedFormat::None);
        // A seed format is told by an object's keys: a list of records (the largest
        // documents) is none, and needs a tree only for hashes it mentions, or for a
        // configured binding, which may name any key.
        let list = doc.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[');
        let undecided = self.validator.format.is_none()
            && self.records == 0
            && (!list || !self.cfg.binds.is_empty());
        // A hash is found by its key (`…_hash`, `…_sha256`, `sha256`, `hash`: a key's
        // text ends in `hash"` or holds `sha256`) or by its `sha256:` prefix. Prose's
        // `hash` (a hash map, a hashtag) asks for no tree of a 4 MB list of answers.
        // Searched only when the format does not call for a tree anyway.
        let has_hashes = || may_name_a_hash(doc);
        (known || undecided || has_hashes()) && doc.len() <= MAX_AUDIT_RECORD
    }

    /// Audits one JSON record: `doc` sits at file offset `base`; `tree` is its tree when
    /// [`FileAudit::wants_tree`] asked for one (and it was not too deep to build: such a
    /// record is left to the privacy scan).
    pub fn record(&mut self, tree: Option<Node>, doc: &[u8], base: usize) {
        let index = self.records;
        self.records += 1;
        let Some(value) = tree else {
            return;
        };
        let mut issues: Vec<Issue> = Vec::new();
        self.validator.record(&value, index, &mut issues);
        // Built on first use: most records have nothing to place.
        let mut locator: Option<Locator> = None;
        let mut place = |pointer: &str| {
            locator
                .get_or_insert_with(|| Locator::new(doc, base))
                .at(pointer)
        };
        let (mut bindings, mut hashes) = (Vec::new(), Vec::new());
        bind::extract(&value, &self.cfg.binds, &mut bindings, &mut hashes);
        for h in &hashes {
            let key = h.pointer.rsplit('/').next().unwrap_or("");
            let meant_sha256 = h.value.starts_with("sha256:")
                || key.contains("sha256")
                || (bind::is_hash_key(key) && h.value.len() == 64);
            if !meant_sha256 {
                continue;
            }
            let check = match hygiene::classify(&h.value) {
                HashForm::Valid => continue,
                HashForm::Malformed => (
                    "malformed_hash",
                    "not `sha256:` followed by exactly 64 lower-case hex digits",
                ),
                HashForm::Placeholder => ("placeholder_hash", "a placeholder, not a computed hash"),
                // An empty text buffer is legitimate; an empty file where data was meant is not.
                HashForm::EmptyFile if bind::describes_text(key) => continue,
                HashForm::EmptyFile => ("empty_file_hash", "the sha256 of zero bytes"),
            };
            issues.push(Issue::new(check.0, h.pointer.clone(), check.1));
        }
        for b in bindings {
            if !matches!(
                hygiene::classify(&b.hash),
                HashForm::Valid | HashForm::EmptyFile
            ) {
                continue;
            }
            let expected = hygiene::hex_of(&b.hash).to_string();
            match b.target {
                Target::Text(text) => {
                    if crate::hex::encode(&Sha256::digest(text.as_bytes())) != expected {
                        issues.push(Issue::new(
                            "text_hash_mismatch",
                            b.pointer,
                            "does not match the text it describes",
                        ));
                    }
                }
                Target::File(target) => self.claims.push(PendingClaim {
                    offset: place(&b.pointer),
                    pointer: Some(b.pointer),
                    expected,
                    target,
                    from_manifest: false,
                }),
            }
        }
        for issue in issues {
            self.problems.push(Located {
                check: issue.check,
                offset: place(&issue.pointer),
                pointer: Some(issue.pointer),
                message: issue.message,
            });
        }
    }

    /// File-level checks after the last record.
    pub fn finish(&mut self) {
        let mut issues = Vec::new();
        self.validator.finish(&mut issues);
        for issue in issues {
            self.problems.push(Located {
                check: issue.check,
                offset: 0,
                pointer: None,
                message: issue.message,
            });
        }
    }

    /// Parses a `sha256sum` manifest into claims; `line_starts` maps line numbers to offsets.
    pub fn manifest(&mut self, text: &[u8], name: &str, line_start: impl Fn(u32) -> usize) {
        let text = String::from_utf8_lossy(text);
        let (entries, bad) = manifest::parse(&text, name);
        for b in bad {
            self.problems.push(Located {
                check: "manifest_syntax",
                offset: line_start(b.line),
                pointer: None,
                message: b.message.to_string(),
            });
        }
        for e in entries {
            let offset = line_start(e.line) + e.column as usize - 1;
            match hygiene::classify(&e.hash) {
                HashForm::Valid | HashForm::EmptyFile => self.claims.push(PendingClaim {
                    offset,
                    pointer: None,
                    expected: e.hash,
                    target: e.path,
                    from_manifest: true,
                }),
                HashForm::Malformed => self.problems.push(Located {
                    check: "malformed_hash",
                    offset,
                    pointer: None,
                    message: "manifest hash is not 64 lower-case hex digits".into(),
                }),
                HashForm::Placeholder => self.problems.push(Located {
                    check: "placeholder_hash",
                    offset,
                    pointer: None,
                    message: "manifest hash is a placeholder".into(),
                }),
            }
        }
    }
}

/// Whether `doc` may name a hash: it holds `sha256`, a key ending in `hash"`, or one of
/// the letters of `hash` or `sha256` written as an escape (`weights_sha25\u0036` means
/// the same key once decoded). Escaped non-ASCII letters (`\u00e9`) and markup
/// (`\u003c`) are not these. The searchers are built once: this runs on every record
/// of a list that names no seed format, and building three per record was 1% of a scan
/// of real eval data. (One multi-needle search is slower: its first bytes, `sha` and
/// `has`, are everywhere in English, where `memmem` keys on rare bytes.)
fn may_name_a_hash(doc: &[u8]) -> bool {
    static FINDERS: OnceLock<[Finder<'static>; 3]> = OnceLock::new();
    let [sha, hash, escape] = FINDERS.get_or_init(|| {
        [
            Finder::new(b"sha256"),
            Finder::new(b"hash\""),
            Finder::new(b"\\u00"),
        ]
    });
    sha.find(doc).is_some()
        || hash.find(doc).is_some()
        || escape.find_iter(doc).any(|i| {
            matches!(
                doc.get(i + 4..i + 6),
                Some(b"68" | b"61" | b"73" | b"32" | b"35" | b"36")
            )
        })
}
