//! Pattern analysis: reach, triggers, required bytes, alphabets, lazy builds.

use super::*;

fn p(src: &str) -> Pattern {
    compile("test", "t", src, &[]).expect("compiles")
}

#[test]
fn reach_and_lines() {
    let ip = p(r"(?:^|[^\w.])(?P<value>(?:\d{1,3}\.){3}\d{1,3})(?:[^\w.]|$)");
    assert_eq!(ip.facts().reach.max_len, Some(17));
    assert!(
        ip.facts().reach.single_line,
        "boundary bytes may be newlines"
    );
    assert_eq!(ip.facts().implied_trigger, Trigger::Digit);
    let trace = p(r"(?m)(?P<value>(?:^at \w+\r?\n?){2,})");
    assert!(!trace.facts().reach.single_line);
    assert_eq!(trace.facts().reach.max_len, None);
    let path = p(r"/home/[^\s]*");
    assert!(path.facts().reach.single_line);
    assert_eq!(path.facts().reach.max_len, None);
    let kv = p(r"key\s*=\s*\w+");
    assert!(!kv.facts().reach.single_line);
}

#[test]
fn triggers() {
    assert_eq!(
        p(r"[A-Za-z]:(?:\\|/)\w+").facts().implied_trigger,
        Trigger::Byte(b':')
    );
    assert_eq!(
        p(r"\b[A-Z]{2}\d{2}\b").facts().implied_trigger,
        Trigger::Digit
    );
    assert_eq!(p(r"\d+|x").facts().implied_trigger, Trigger::Always);
    assert_eq!(p(r"a\d?").facts().implied_trigger, Trigger::Always);
    assert_eq!(p(r"(?:\d|@)@").facts().implied_trigger, Trigger::Byte(b'@'));
}

#[test]
fn required_bytes_gate_keyword_rules() {
    let kv = p(r#"(?i)(?:token|secret)["']?\s{0,16}[:=]\s{0,16}(?P<value>\w{16,})"#);
    assert_eq!(
        kv.facts().required.map(|r| r.bytes().to_vec()),
        Some(b":=".to_vec())
    );
    assert_eq!(
        p(r"key|a@b").facts().required,
        None,
        "one branch needs no rare byte"
    );
    assert_eq!(p(r"[:=]?\w+").facts().required, None, "optional");
    let either = p(r"(?:a@|b/|c\\)x")
        .facts()
        .required
        .map(|r| r.bytes().to_vec());
    assert_eq!(either, Some(br"@\/".to_vec()));
    // A Windows path is triggered by its `:`; the slash after it is the gate.
    let path = p(r"[A-Za-z]:(?:\\{1,2}|/)\w+")
        .facts()
        .required
        .map(|r| r.bytes().to_vec());
    assert_eq!(path, Some(br"\/".to_vec()));
    // IPv6 is triggered by `:` and holds two.
    let colon = [":".to_string()];
    let v6 =
        compile("test", "t", r"(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}", &colon).expect("compiles");
    assert!(
        v6.facts()
            .required
            .is_some_and(|r| !r.found_in(b"sha256:ab") && r.found_in(b"fe80::1"))
    );
}

#[test]
fn pathological_patterns_are_rejected() {
    assert!(compile("test", "t", "(a{1000}){1000}", &[]).is_err());
}

/// Built-in regexes are built on first use, so a test builds each: every one must
/// build, and its `value` group must be where the syntax tree numbers it.
#[test]
fn every_built_in_regex_builds_and_finds_its_value_group() {
    for (name, text) in crate::rules::builtin::BUILTIN_RULES {
        for s in crate::rules::parse_rule_file(name, text).expect("parses") {
            let Some(source) = s.spec.regex.as_deref() else {
                continue;
            };
            let lazy = compile_lazy(name, &s.spec.id, source, &[]).expect("parses");
            let built = builder().build(source).expect("builds");
            let tree = parse(source).expect("parses");
            let gate = super::super::gaps::gate(tree, builder).expect("its gate builds");
            assert_eq!(lazy.facts().gapped, gate.is_some(), "{}", s.spec.id);
            let by_regex = built
                .group_info()
                .to_index(regex_automata::PatternID::ZERO, "value");
            assert_eq!(lazy.facts().value_group, by_regex, "{}", s.spec.id);
        }
    }
}
