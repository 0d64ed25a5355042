//! Micro-benchmarks of the hot paths: JSON string extraction, the keyword and trigger
//! pass that opens windows, each detector family, the base64 layer, and one whole file.
//! `cargo bench --bench hot_paths` prints MiB/s per path; nothing here fails on time.
//!
//! Inputs are generated in code from a fixed seed, so runs compare like with like.

use privacy_audit::config::Config;
use privacy_audit::detect::RuleSet;
use privacy_audit::detect::{self, RawMatch, Scratch};
use privacy_audit::finding::fingerprint::FingerprintKey;
use privacy_audit::formats::{Unit, json};
use privacy_audit::rules;
use privacy_audit::scan::Scanner;
use privacy_audit::scan::decode;
use std::hint::black_box;
use std::time::{Duration, Instant};

const WORDS: &[&str] = &[
    "the", "model", "answer", "context", "claim", "evidence", "token", "report", "value", "user",
    "agent", "tool", "call", "result", "state", "policy", "source", "review", "case", "summary",
    "window", "buffer", "event", "schema", "version", "latency", "score", "key", "pass", "of",
    "and", "to", "in", "is", "that", "for", "with", "on", "as", "by",
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn prose(&mut self, words: usize) -> String {
        let mut s = String::new();
        for i in 0..words {
            if i > 0 {
                s.push(' ');
            }
            s.push_str(WORDS[(self.next() % WORDS.len() as u64) as usize]);
        }
        s
    }
}

/// About `bytes` of eval-case-like JSONL, with ids, digests and counters.
fn jsonl(bytes: usize) -> Vec<u8> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut out = String::new();
    let mut i = 0u64;
    while out.len() < bytes {
        let digest = format!(
            "{:016x}{:016x}{:016x}{:016x}",
            rng.next(),
            rng.next(),
            rng.next(),
            rng.next()
        );
        out.push_str(&format!(
            "{{\"case_id\":\"case/{:04}\",\"event_index\":{i},\"t_emitted_ms\":{},\"intent\":\"{}\",\"observed_state\":\"{}\",\"text_hash\":\"sha256:{digest}\"}}\n",
            i % 10000,
            1_700_000_000_000u64 + i * 137,
            rng.prose(20),
            rng.prose(40),
        ));
        i += 1;
    }
    out.into_bytes()
}

fn prose_unit(bytes: usize) -> Unit {
    let mut rng = Rng(7);
    let mut unit = Unit::default();
    while unit.text.len() < bytes {
        let line = rng.prose(15);
        let at = unit.text.len();
        unit.push_plain(line.as_bytes(), at, None);
    }
    unit
}

/// Runs `f` for about half a second; prints the median throughput over `bytes`.
/// `cargo bench --bench hot_paths -- WORD` runs only the benchmarks whose name holds WORD.
fn bench(name: &str, bytes: usize, mut f: impl FnMut()) {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    if filter.is_some_and(|w| !name.contains(&w)) {
        return;
    }
    f(); // warm caches and lazy DFAs
    let mut samples = Vec::new();
    let deadline = Instant::now() + Duration::from_millis(500);
    while Instant::now() < deadline || samples.len() < 5 {
        let start = Instant::now();
        f();
        samples.push(start.elapsed());
    }
    samples.sort();
    let median = samples[samples.len() / 2];
    let mib_s = bytes as f64 / median.as_secs_f64() / f64::from(1 << 20);
    println!(
        "{name:<36} {:>9.1} µs {mib_s:>9.0} MiB/s",
        median.as_secs_f64() * 1e6
    );
}

fn family(prefixes: &[&str]) -> RuleSet {
    let specs = rules::collect_specs(Vec::new(), &[])
        .expect("built-in rules")
        .into_iter()
        .filter(|s| prefixes.iter().any(|p| s.spec.id.starts_with(p)))
        .collect();
    RuleSet::compile(specs, Default::default()).expect("compiles")
}

fn main() {
    let data = jsonl(4 << 20);
    let mut unit = Unit::default();
    let mut json_unit = Unit::default();
    let mut pos = 0;
    for line in data.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        json::tokenize(line, pos, &mut json_unit).expect("valid JSON");
        pos += line.len() + 1;
    }
    bench("json: tokenize JSONL (strings out)", data.len(), || {
        unit.clear();
        let mut pos = 0;
        for line in data.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            black_box(json::tokenize(line, pos, &mut unit).ok());
            pos += line.len() + 1;
        }
    });

    let all = RuleSet::builtin().expect("built-in rules");
    let prose = prose_unit(4 << 20);
    let mut scratch = Scratch::default();
    let mut out: Vec<RawMatch> = Vec::new();
    bench("detect: all rules, prose", prose.text.len(), || {
        out.clear();
        detect::detect(&all, &prose, &mut scratch, &mut out);
    });
    if let Some(keywords) = &all.prefilter {
        let mut lanes = Default::default();
        bench(
            "keywords: every occurrence, prose",
            prose.text.len(),
            || {
                let mut n = 0usize;
                keywords.for_each(&prose.text, &mut lanes, |_, _, end| n += end);
                black_box(n);
            },
        );
        // Units of a small file or a short gzip piece.
        for size in [4usize << 10, 16 << 10] {
            bench(
                &format!("keywords: {} KiB units, prose", size >> 10),
                prose.text.len(),
                || {
                    let mut n = 0usize;
                    for unit in prose.text.chunks(size) {
                        keywords.for_each(unit, &mut lanes, |_, _, end| n += end);
                    }
                    black_box(n);
                },
            );
        }
    }
    bench(
        "detect: all rules, JSONL strings",
        json_unit.text.len(),
        || {
            out.clear();
            detect::detect(&all, &json_unit, &mut scratch, &mut out);
        },
    );
    for (name, prefixes) in [
        ("detect: secrets", &["secret."][..]),
        ("detect: paths", &["local_path."][..]),
        ("detect: network", &["hostname.", "ip."][..]),
        ("detect: personal", &["email.", "pii."][..]),
        ("detect: capture", &["capture."][..]),
    ] {
        let rules = family(prefixes);
        let mut scratch = Scratch::default();
        bench(name, json_unit.text.len(), || {
            out.clear();
            detect::detect(&rules, &json_unit, &mut scratch, &mut out);
        });
    }
    bench("decode: base64 layer", json_unit.text.len(), || {
        let mut budget = usize::MAX;
        black_box(decode::base64_layer(&json_unit, &mut budget));
    });
    bench("decode: percent layer", json_unit.text.len(), || {
        let mut budget = usize::MAX;
        black_box(decode::percent_layer(&json_unit, &mut budget));
    });

    let key = FingerprintKey::from_bytes([7; 32]);
    let rules = RuleSet::builtin().expect("built-in rules");
    let scanner = Scanner::new(Config::default(), rules, key).expect("scanner");
    bench("file: whole scan of one JSONL file", data.len(), || {
        black_box(scanner.scan_blob("bench/cases.jsonl", data.clone()));
    });
}
