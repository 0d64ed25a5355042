//! No message holds a value. Errors, warnings and log lines are built from what the
//! user and the data wrote — file and folder names, config values, paths given on the
//! command line — and each door prints them to a terminal, CI logs or the journal.
//! Every case below plants values (an address, a key, a home folder, an internal host)
//! where a message will quote them, and asserts that stdout and stderr show none.

use crate::util::*;
use std::path::Path;

const EMAIL: &str = "ion.popescu@gmail.com";
const KEY: &str = "AKIAZ7QW3RT5YU2IOPLM";
const USER: &str = "tkowalski";
const HOST: &str = "gpu-07.corp.internal";

fn assert_quiet(what: &str, run: &Run) {
    for planted in [EMAIL, KEY, USER, HOST] {
        assert!(
            !run.stdout.contains(planted) && !run.stderr.contains(planted),
            "{what}: shows {planted}\n--- stdout\n{}\n--- stderr\n{}",
            run.stdout,
            run.stderr
        );
    }
}

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

#[test]
fn every_error_warning_and_log_line_is_guarded() {
    let home = tempfile::tempdir().expect("t");
    let dir = tempfile::tempdir().expect("t");
    let d = dir.path();
    // Names that hold values, with content that gives the scan something to say.
    write(d, &format!("data/{EMAIL}.jsonl"), "{\"a\": 1}\n");
    write(d, &format!("data/{KEY}.jsonl.gz"), "not gzip at all");
    write(d, &format!("data/{HOST}/broken.json"), "{\"a\": ");
    write(d, "data/notes.jsonl", "{\"p\": \"/home/tkowalski/x\"}\n");
    let data = s(&d.join("data"));
    let missing = s(&d.join(format!("gone/{EMAIL}/{KEY}")));
    let config = |text: &str| {
        let c = d.join(format!("c{}.toml", rand_id()));
        std::fs::write(&c, text).expect("config");
        s(&c)
    };
    let cases: Vec<(&str, Vec<String>)> = vec![
        (
            "scan -vvv",
            vec![
                "-vvv".into(),
                "scan".into(),
                data.clone(),
                "--no-progress".into(),
            ],
        ),
        (
            "scan json",
            vec![
                "scan".into(),
                data.clone(),
                "--format".into(),
                "json".into(),
                "--no-progress".into(),
            ],
        ),
        (
            "scan sarif",
            vec![
                "scan".into(),
                data.clone(),
                "--format".into(),
                "sarif".into(),
                "--no-progress".into(),
            ],
        ),
        ("scan a missing path", vec!["scan".into(), missing.clone()]),
        (
            "verify -vv",
            vec!["-vv".into(), "verify".into(), data.clone()],
        ),
        (
            "verify a missing path",
            vec!["verify".into(), missing.clone()],
        ),
        (
            "report verify a missing folder",
            vec!["report".into(), "verify".into(), missing.clone()],
        ),
        (
            "allow a missing file",
            vec![
                "allow".into(),
                format!("{missing}:3"),
                "--rule".into(),
                "email.address".into(),
                "--reason".into(),
                "x".into(),
            ],
        ),
        (
            "a missing config",
            vec![
                "--config".into(),
                missing.clone(),
                "scan".into(),
                data.clone(),
            ],
        ),
        (
            "a missing key file",
            vec![
                "--key-file".into(),
                format!("{missing}/key"),
                "verify".into(),
                data.clone(),
            ],
        ),
        (
            "an unknown variant",
            vec![
                "--config".into(),
                config(&format!("[daemon]\non_violation = \"{EMAIL}\"\n")),
                "scan".into(),
                data.clone(),
            ],
        ),
        (
            "a missing denylist",
            vec![
                "--config".into(),
                config(&format!(
                    "[privacy]\ndenylist_files = [\"/home/{USER}/{HOST}.txt\"]\n"
                )),
                "scan".into(),
                data.clone(),
            ],
        ),
        (
            "a missing rules folder",
            vec![
                "--config".into(),
                config(&format!("[rules]\ndirs = [\"/home/{USER}/rules\"]\n")),
                "scan".into(),
                data.clone(),
            ],
        ),
        (
            "a bad allow entry",
            vec![
                "--config".into(),
                config(&format!(
                    "[[allow]]\nfingerprint = \"{KEY}\"\nreason = \"x\"\n"
                )),
                "scan".into(),
                data.clone(),
            ],
        ),
        (
            "an unknown rule to disable",
            vec![
                "--config".into(),
                config(&format!("[rules]\ndisable = [\"{HOST}\"]\n")),
                "scan".into(),
                data.clone(),
            ],
        ),
        (
            "a bad team key",
            vec![
                "--config".into(),
                config(&format!("[team]\nkey = \"{KEY}\"\n")),
                "scan".into(),
                data.clone(),
            ],
        ),
        (
            "a daemon with a missing watch folder",
            vec![
                "--config".into(),
                config(&format!(
                    "[daemon]\nwatch = [\"/home/{USER}/{EMAIL}\"]\nstate = \"{}\"\nreports = \"{}\"\n",
                    s(&d.join("st")),
                    s(&d.join("rp"))
                )),
                "daemon".into(),
            ],
        ),
    ];
    for (what, args) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = run(home.path(), &args);
        assert!(run.code >= 0, "{what}: no exit code");
        assert_quiet(what, &run);
    }
}

fn rand_id() -> u64 {
    crate::util::git::rand_suffix()
}
