//! The config and rule-file loaders on arbitrary text: an error or a value, never a
//! panic; a rule file that parses is compiled with its regex size limits.
#![no_main]
use libfuzzer_sys::fuzz_target;
use privacy_audit::config::Config;
use privacy_audit::detect::RuleSet;
use privacy_audit::rules::parse_rule_file;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = Config::parse(&text);
    if let Ok(specs) = parse_rule_file("fuzz", &text) {
        let _ = RuleSet::compile(specs, Default::default());
    }
});
