//! Disguises a writer picks to get a value past a regex while every reader, and every
//! decoder, still sees the value: characters that are not drawn, compatibility and
//! look-alike forms from the Unicode tables, lone surrogate escapes, string escapes as
//! TOML, YAML and code write them, quoted-printable, and other spellings of a home
//! path. Each is committed through the installed pre-commit hook, which must stop it
//! without printing the value or its disguise.

use crate::util::git::*;

const KEY: &str = "AKIAZ7QW3RT5YU2IOPLM";

/// The key with `c` inside it.
fn key_with(c: char) -> String {
    format!("{}{c}{}", &KEY[..8], &KEY[8..])
}

fn cases() -> Vec<(&'static str, String)> {
    let mut cases = vec![
        // A lone surrogate escape inside a JSON value: a reader sees nothing or `�`.
        (
            "surrogate.jsonl",
            r#"{"note":"ion.pop\ud800escu@gmail.com"}"#.to_string() + "\n",
        ),
        (
            "surrogate.yaml",
            "note: \"ion.pop\\udc00escu@gmail.com\"\n".to_string(),
        ),
        // Compatibility forms: small commercial at, circled and mathematical letters.
        (
            "small.txt",
            "mail ion.popescu\u{FE6B}gmail.com\n".to_string(),
        ),
        (
            "circled.txt",
            "mail \u{24D8}\u{24DE}\u{24DD}.popescu@gmail.com\n".to_string(),
        ),
        ("maths.txt", format!("key \u{1D400}{}\n", &KEY[1..])),
        // Look-alikes: an ideographic full stop, division slashes, a Cyrillic letter.
        (
            "ideographic.txt",
            "mail ion.popescu@gmail\u{3002}com\n".to_string(),
        ),
        (
            "slashes.txt",
            "see \u{2215}home\u{2215}ionpopescu\u{2215}notes.md\n".to_string(),
        ),
        (
            "cyrillic.txt",
            format!("key {}\u{041E}{}\n", &KEY[..16], &KEY[17..]),
        ),
        // String escapes as configuration and code write them.
        (
            "escaped.toml",
            "root = \"\\u002Fhome\\u002Fionpopescu\\u002Fdata\"\n".to_string(),
        ),
        (
            "escaped.yaml",
            "mail: \"ion.popescu\\x40gmail.com\"\n".to_string(),
        ),
        (
            "escaped.py",
            "ROOT = \"\\057home\\057ionpopescu\\057data\"\n".to_string(),
        ),
        // Quoted-printable: an escaped `@`, and a key cut by a soft line break at the
        // end of an encoder's full line (76 characters with the `=`).
        ("mail.txt", "to ion.popescu=40gmail.com\n".to_string()),
        (
            "wrapped.txt",
            format!("{} key {}=\n{}\n", "-".repeat(59), &KEY[..11], &KEY[11..]),
        ),
        // Paths that name the same home folder.
        ("doubled.txt", "cd //home//ionpopescu/data\n".to_string()),
        ("tripled.txt", "cd ///home/ionpopescu/data\n".to_string()),
        // Defanged and spelled-out writing.
        ("defanged.txt", "mail ion.popescu@gmail[.]com\n".to_string()),
        ("defanged-ip.txt", "peer 81[.]196[.]12[.]7\n".to_string()),
        (
            "bracketed.txt",
            "mail ion.popescu [at] gmail.com\n".to_string(),
        ),
        (
            "angled.txt",
            "mail ion.popescu<at>gmail<dot>com\n".to_string(),
        ),
        // A home folder named in another script.
        ("accented.txt", "cd /home/ștefan.popescu/data\n".to_string()),
        ("dotted.txt", "cd /home/./ionpopescu/data\n".to_string()),
        ("bsd.txt", "cd /usr/home/ionpopescu/data\n".to_string()),
        ("atomic.txt", "cd /var/home/ionpopescu/data\n".to_string()),
        (
            "wsl.txt",
            "open \\\\wsl$\\Ubuntu\\home\\ionpopescu\\data\n".to_string(),
        ),
        (
            "remote.txt",
            "open vscode-remote://ssh-remote+box/home/ionpopescu/data\n".to_string(),
        ),
        (
            "sftp.txt",
            "get sftp://box/home/ionpopescu/data\n".to_string(),
        ),
        ("gitbash.txt", "cd /c/Users/ionpopescu/data\n".to_string()),
        (
            "stepped.txt",
            "cd C:\\Windows\\..\\Users\\ionpopescu\\data\n".to_string(),
        ),
    ];
    // Characters that are not drawn, from the Unicode default-ignorable table.
    for (i, c) in [
        '\u{180E}',
        '\u{17B4}',
        '\u{2065}',
        '\u{FFF0}',
        '\u{1D173}',
        '\u{E0100}',
    ]
    .into_iter()
    .enumerate()
    {
        let name: &'static str = [
            "di0.txt", "di1.txt", "di2.txt", "di3.txt", "di4.txt", "di5.txt",
        ][i];
        cases.push((name, format!("key {}\n", key_with(c))));
    }
    cases
}

#[test]
fn every_disguise_is_stopped_by_the_hook_and_never_printed() {
    let s = Sandbox::new();
    let repo = s.installed_repo();
    for (name, content) in cases() {
        std::fs::write(repo.join(name), &content).expect("write");
        s.ok(&repo, &["add", name]);
        let out = s.git(&repo, &["commit", "-qm", "x"]);
        let err = stderr(&out);
        assert!(
            !out.status.success(),
            "{name}: the commit went through\n{err}"
        );
        assert!(err.contains(name), "{name}: not named\n{err}");
        let disguised = content.trim_end().split_once(' ').map_or("", |(_, v)| v);
        for shown in [KEY, &KEY[8..], "popescu", "196.12", disguised]
            .into_iter()
            .filter(|v| !v.is_empty())
        {
            assert!(!err.contains(shown), "{name}: printed {shown:?}\n{err}");
        }
        s.ok(&repo, &["rm", "-qf", "--cached", name]);
        std::fs::remove_file(repo.join(name)).expect("remove");
    }
}

#[test]
fn plain_prose_in_other_scripts_and_typography_is_not_a_disguise() {
    let s = Sandbox::new();
    let repo = s.installed_repo();
    let prose = "Привет, мир — “quotes”, café, 東京。 It’s 2019–2020, m², x…\n\
                 depth=40, n=20 and let a =\n  b; see https://example.com//a and ../../x\n";
    std::fs::write(repo.join("prose.txt"), prose).expect("write");
    s.ok(&repo, &["add", "prose.txt"]);
    let out = s.git(&repo, &["commit", "-qm", "prose"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// A value the rule's own pattern stops short of (an accented name, a combining mark)
/// is masked to its end: the excerpt never shows the rest of it.
#[test]
fn the_rest_of_a_value_beyond_the_match_is_masked() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    let text = "see /home/jos\u{e9}.garcia/notes\nmail jos\u{e9}.garc\u{ed}a@gmail.com ok\n\
                host gpu-07.co\u{301}rp.internal\n";
    std::fs::write(dir.path().join("a.txt"), text).expect("write");
    let r = crate::util::scan_json(home.path(), dir.path(), &["--no-baseline"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    for shown in ["garcia", "garc\u{ed}", "jos\u{e9}", "rp.internal"] {
        assert!(!r.stdout.contains(shown), "shows {shown}: {}", r.stdout);
    }
}

/// Names of links and special files are names: judged, and masked where listed.
#[test]
fn a_link_or_fifo_name_is_judged_and_masked() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    std::os::unix::fs::symlink("/nowhere", dir.path().join(KEY)).expect("link");
    let r = crate::util::scan_json(home.path(), dir.path(), &["--no-baseline"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(!r.stdout.contains(KEY), "{}", r.stdout);
}

/// Random bytes spell short paths and shares by chance: not findings.
#[test]
fn random_binary_is_not_a_leak() {
    let (home, dir) = (
        tempfile::tempdir().expect("t"),
        tempfile::tempdir().expect("t"),
    );
    // A fixed pseudo-random stream (xorshift), so the test is the same every run.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let bytes: Vec<u8> = (0..2_000_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    std::fs::write(dir.path().join("blob.bin"), bytes).expect("write");
    let r = crate::util::scan_json(
        home.path(),
        dir.path(),
        &["--no-baseline", "--min-confidence", "low"],
    );
    assert_eq!(r.json()["findings"], serde_json::json!([]), "{}", r.stdout);
}
