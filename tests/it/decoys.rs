//! Precision: 200+ values that peers report and we must not (digests, UUIDs, model ids,
//! versions, file names with TLD-like extensions, relative and URL paths, reserved
//! domains and documentation addresses, placeholders, checksum-failing numbers) give
//! zero findings as text, as a JSON array, and as JSON object values under many keys.
//!
//! And the shapes real eval data is full of (written here, not copied from any
//! dataset): each kind of noise is reported at most as "low" — hidden at the default
//! `min_confidence = "medium"`, shown with `--min-confidence low` — and each kind of
//! real leak that was once missed is found at the default.

use crate::util::*;

fn decoys() -> Vec<String> {
    let text = include_str!("../fixtures/decoys.txt");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(str::to_string)
        .collect()
}

fn assert_clean(dir: &std::path::Path) {
    let home = tempfile::tempdir().expect("tempdir");
    let run = scan_json(home.path(), dir, &[]);
    let report = run.json();
    assert_eq!(
        findings(&report),
        vec![],
        "decoys were reported (excerpts: {:?})",
        report["findings"]
            .as_array()
            .map(|a| a.iter().map(|f| f["excerpt"].clone()).collect::<Vec<_>>())
    );
    assert_eq!(run.code, 0);
    assert_eq!(report["summary"]["files_scanned"], 3);
}

#[test]
fn at_least_200_decoys_yield_zero_findings() {
    let decoys = decoys();
    assert!(decoys.len() >= 200, "only {} decoys", decoys.len());
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("decoys.txt"), decoys.join("\n")).expect("write");
    std::fs::write(
        dir.path().join("decoys.json"),
        serde_json::to_string_pretty(&decoys).expect("json"),
    )
    .expect("write");
    let keys = [
        "text_hash",
        "notes",
        "model_id",
        "path",
        "source",
        "version",
        "url",
        "token_count",
    ];
    let records: Vec<String> = decoys
        .iter()
        .enumerate()
        .map(|(i, d)| serde_json::json!({ keys[i % keys.len()]: d, "index": i }).to_string())
        .collect();
    std::fs::write(dir.path().join("decoys.jsonl"), records.join("\n")).expect("write");
    assert_clean(dir.path());
}

/// One value per kind of noise seen in real agent trajectories, task files and logs.
const NOISE: &[&str] = &[
    // Decimal fractions read as card or personal numbers.
    "mean 14.26032206951553 over 5 seeds",
    "latency 2.4232225418090820 s",
    // Placeholder and persona users; sandbox and system paths.
    "cd /home/user/project && ls",
    "cat /home/ubuntu/.bashrc",
    "/root/miniconda3/bin/python -m pip install x",
    "python /workspace/astropy__astropy__5.1/setup.py",
    "pip at /opt/miniconda3/envs/testbed/lib/python3.9/site-packages",
    "cd /testbed/src",
    "open file:///testbed/index.html",
    "C:\\Users\\<YourUsername>\\Documents",
    "\\\\computer1\\sharedFolder\\notes",
    // Placeholder domains and persona addresses.
    "write to support@company.com for help",
    "contact john.doe@gmail.com in the example",
    "login as jane@domain.com",
    // Router defaults, versions, catalogue numbers.
    "open the router at 192.168.1.1",
    "installed brotlicffi-1.0.9.2",
    "enzyme EC 6.5.1.1 ligase",
    // Code that mentions passwords.
    "password = db.Column(db.String(128))",
    "user(password=hashed_password)",
    "pwd = generate_password(8)",
    "mysql --password=%MYSQL_ROOT_PASSWORD%",
    // Fictional and template phone numbers.
    "call (555) 555-0123 today",
    "phone: +1 (000) 000-0000",
    // A toll-free line is a business's, printed in every advertisement.
    "toll free 1-800-275-2273",
    "assert check('03-32-2011') == False",
    // Code, not hosts.
    "x = threading.local()",
    "curl http://host.docker.internal:8080/health",
    // Prose around "at".
    "look at the dot com bubble",
    // Regex syntax, not a path.
    "if re.match(r'(?!C:\\\\)\\\\.\\d{1,3}', s)",
    // Section numbers.
    "see section 1.1.1.1 of the spec",
];

/// Shapes of real leaks, each once missed.
const LEAKS: &[&str] = &[
    "state: /__home__anapopescu__LLM_CTF_2024__rev__rock",
    "state: /__Users__tsadhwani__work__repo__x",
    "trace: File \"/Users/mkowalski/dev/proj/x.py\", line 3",
    "call 702-383-0381. Then hang up",
    "write to jsmith at paper dot com",
    "write to jsmith [at] uni [dot] edu",
    "saved in E:\\Ana Popescu\\thesis\\data.csv",
    "saved in E:\\Ana popescu\\thesis\\data.csv",
    // A host named after its owner, a real cluster's service, another user's home, a
    // pasted prompt in either shell's form.
    "deployed from laptop-mkowalski.local last night",
    "the API is payments-api.billing.svc.cluster.local:8080",
    "see ~tkowalski/experiments/run3 for the config",
    "mkowalski@build-box-7:~$ python train.py",
    "[tkowalski@gpu-node-3 experiments]$ ls -la",
];

/// A textbook HTTP request and a JSON-with-comments file: low, like the values above.
#[test]
fn textbook_requests_and_json_with_comments_are_low() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    std::fs::write(
        dir.path().join("tutorial.txt"),
        "A request looks like this:\nGET /index.html HTTP/1.1\nHost: www.example.com\n",
    )
    .expect("write");
    std::fs::write(
        dir.path().join("settings.json"),
        "{\n  // editor settings\n  \"tabSize\": 2\n}\n",
    )
    .expect("write");
    let run = scan_json(home.path(), dir.path(), &["--no-baseline"]);
    let report = run.json();
    assert_eq!(findings(&report), vec![], "{report}");
    assert_eq!(report["summary"]["below_min_confidence"], 2, "{report}");
}

fn scan_lines(lines: &[&str], extra: &[&str]) -> (i32, serde_json::Value) {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    let records: Vec<String> = lines
        .iter()
        .map(|l| serde_json::json!({ "content": l }).to_string())
        .collect();
    std::fs::write(dir.path().join("traj.jsonl"), records.join("\n")).expect("write");
    let mut args = vec!["--no-baseline"];
    args.extend_from_slice(extra);
    let run = scan_json(home.path(), dir.path(), &args);
    (run.code, run.json())
}

#[test]
fn noise_is_low_and_hidden_by_default() {
    let (code, report) = scan_lines(NOISE, &[]);
    assert_eq!(
        findings(&report),
        vec![],
        "noise reported at the default confidence"
    );
    assert_eq!(code, 0);
    let hidden = report["summary"]["below_min_confidence"]
        .as_u64()
        .unwrap_or(0);
    assert!(
        hidden >= 10,
        "the noise is detected, then lowered: {hidden}"
    );
    let (_, all) = scan_lines(NOISE, &["--min-confidence", "low"]);
    let shown = all["findings"].as_array().map_or(0, Vec::len) as u64;
    assert_eq!(shown, hidden, "--min-confidence low shows what was hidden");
    assert!(
        all["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .all(|f| f["confidence"] == "low")
    );
}

#[test]
fn once_missed_leaks_are_found_at_the_default() {
    for leak in LEAKS {
        let (code, report) = scan_lines(&[leak], &[]);
        assert_eq!(code, 1, "missed: {leak}: {report}");
        assert!(
            report["findings"]
                .as_array()
                .into_iter()
                .flatten()
                .all(|f| f["confidence"] != "low")
        );
    }
}
