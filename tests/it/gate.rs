//! Attacks on the git gate, each as a determined committer would try it, through real
//! repositories: the installed pre-commit hook, `scan-git`, and a bare server whose
//! `pre-receive` hook is the gate. Every case must block (exit 1 for findings, 2 for
//! content the gate could not judge): none may pass silently.

use crate::util::git::*;
use std::path::Path;

const AWS_KEY: &str = "AKIAZ7QW3RT5YU2IOPLM";
const EMAIL: &str = "ion.popescu@gmail.com";

/// The pre-commit hook refuses a commit of `rel` holding `content`.
fn commit_is_blocked(rel: &[u8], content: &[u8]) {
    let s = Sandbox::new();
    let repo = s.installed_repo();
    write_bytes(&repo, rel, content);
    s.ok(&repo, &["add", "-A"]);
    let out = s.git(&repo, &["commit", "-qm", "x"]);
    assert!(
        !out.status.success(),
        "commit of {:?} went through: {}",
        String::from_utf8_lossy(rel),
        stderr(&out)
    );
    assert_eq!(s.commits(&repo), 0);
}

fn write_bytes(dir: &Path, rel: &[u8], content: &[u8]) {
    use std::os::unix::ffi::OsStrExt;
    let p = dir.join(std::ffi::OsStr::from_bytes(rel));
    std::fs::write(p, content).expect("write");
}

/// A repository with one commit holding `rel` (committed past the hook), for the
/// history doors.
fn history_with(s: &Sandbox, rel: &[u8], content: &[u8], message: &str) -> std::path::PathBuf {
    let repo = s.repo();
    write(&repo, "ok.jsonl", CLEAN_LINE);
    s.commit_all(&repo, &["clean"]);
    write_bytes(&repo, rel, content);
    s.ok(&repo, &["add", "-A"]);
    s.ok(&repo, &["commit", "-qm", message, "--no-verify"]);
    repo
}

/// `scan-git --all` and a push to a pre-receive server both refuse the history.
fn history_is_blocked(rel: &[u8], content: &[u8], message: &str) {
    let s = Sandbox::new();
    let repo = history_with(&s, rel, content, message);
    let out = s.bin(&repo, &["scan-git", "--all", "--format", "json"]);
    // 1: findings; 2: content not judged (a binary blob, unless allowed).
    assert!(
        matches!(out.status.code(), Some(1 | 2)),
        "scan-git passed {:?}: {}",
        String::from_utf8_lossy(rel),
        String::from_utf8_lossy(&out.stdout)
    );
    let server = s.server("server.git", "");
    s.ok(
        &repo,
        &["remote", "add", "origin", server.to_str().expect("utf-8")],
    );
    let out = s.git(&repo, &["push", "-q", "origin", "main"]);
    assert!(
        !out.status.success(),
        "pre-receive accepted {:?}",
        String::from_utf8_lossy(rel)
    );
}

fn leak_json() -> Vec<u8> {
    format!("{{\"key\": \"{AWS_KEY}\", \"mail\": \"{EMAIL}\"}}\n").into_bytes()
}

#[test]
fn a_name_that_is_not_utf8_is_judged() {
    commit_is_blocked(b"c\xff.jsonl", &leak_json());
    history_is_blocked(b"c\xff.jsonl", &leak_json(), "x");
}

#[test]
fn a_backslash_in_a_name_is_judged() {
    commit_is_blocked(b"data\\leak.txt", &leak_json());
    history_is_blocked(b"data\\leak.txt", &leak_json(), "x");
}

#[test]
fn a_planted_nul_does_not_hide_a_key() {
    let mut content = b"{\"a\": \"\0\"}\n".to_vec();
    content.extend_from_slice(&leak_json());
    commit_is_blocked(b"nul.jsonl", &content);
    history_is_blocked(b"nul.jsonl", &content, "x");
}

#[test]
fn utf16_text_is_read_as_text() {
    let text = String::from_utf8(leak_json()).expect("utf-8");
    let mut bom = vec![0xFF, 0xFE];
    bom.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    commit_is_blocked(b"wide.json", &bom);
    let bare: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
    commit_is_blocked(b"wide-be.json", &bare);
}

#[test]
fn a_fake_lfs_pointer_is_content() {
    let oid = "0123456789abcdef".repeat(4);
    let fake =
        format!("version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize 1 {AWS_KEY}\n");
    commit_is_blocked(b"model.bin", fake.as_bytes());
    let ext = format!(
        "version https://git-lfs.github.com/spec/v1\next-0-x {EMAIL}\noid sha256:{oid}\nsize 1\n"
    );
    commit_is_blocked(b"model2.bin", ext.as_bytes());
    // Even a pointer to the letter is read: a key can be an `ext-` name.
    let named = format!(
        "version https://git-lfs.github.com/spec/v1\next-0-{AWS_KEY} sha256:{oid}\noid sha256:{oid}\nsize 1\n"
    );
    commit_is_blocked(b"model3.bin", named.as_bytes());
}

#[test]
fn a_rules_folder_in_the_work_tree_changes_nothing() {
    let s = Sandbox::new();
    let repo = s.installed_repo();
    // An untracked rule with the id of the built-in AWS rule that never matches.
    write(
        &repo,
        "rules/aws.toml",
        "[[rule]]\nid = \"secret.aws_access_key_id\"\ncategory = \"secret\"\nseverity = \"low\"\n\
         description = \"x\"\nregex = '''NEVER_MATCHES_ANYTHING'''\n",
    );
    write(&repo, "lint.txt", "not a rule file\n");
    write(&repo, "a.jsonl", format!("{{\"k\": \"{AWS_KEY}\"}}\n"));
    s.ok(&repo, &["add", "a.jsonl"]);
    let out = s.git(&repo, &["commit", "-qm", "x"]);
    assert!(
        !out.status.success(),
        "the untracked rule let the key through"
    );
    // An unrelated TOML file in a `rules/` folder does not break clean commits, even
    // when a committed config names the folder.
    std::fs::remove_file(repo.join("rules/aws.toml")).expect("rm");
    write(&repo, "privacy-audit.toml", "[rules]\ndirs = [\"rules\"]\n");
    s.ok(&repo, &["add", "privacy-audit.toml"]);
    write(&repo, "rules/lint.toml", "[tool]\nline-length = 99\n");
    write(&repo, "a.jsonl", CLEAN_LINE);
    s.commit_all(&repo, &["clean"]);
    assert_eq!(s.commits(&repo), 1);
    // A broken rule file in a named folder is an error, not skipped.
    write(&repo, "rules/team.toml", "[[rule]]\nid = \"x\"\n");
    s.commit_all(&repo, &["broken rule", "--no-verify"]);
    write(&repo, "b.jsonl", CLEAN_LINE);
    s.ok(&repo, &["add", "b.jsonl"]);
    let out = s.bin(&repo, &["hook", "run"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn a_committed_config_names_the_rules_and_replacing_one_is_told() {
    let s = Sandbox::new();
    let repo = s.installed_repo();
    write(
        &repo,
        "privacy-audit.toml",
        "[rules]\ndirs = [\"team-rules\"]\n",
    );
    write(
        &repo,
        "team-rules/extra.toml",
        "[[rule]]\nid = \"team.codename\"\ncategory = \"denylist\"\nseverity = \"high\"\n\
         description = \"project code name\"\nkeywords = [\"bluefalcon\"]\nregex = '''(?i)bluefalcon'''\n",
    );
    write(&repo, "a.jsonl", CLEAN_LINE);
    // The rule file holds the code name itself: committed past the hook on purpose.
    s.commit_all(&repo, &["config", "--no-verify"]);
    // Committed: the team rule applies.
    write(&repo, "b.jsonl", "{\"note\": \"BlueFalcon launch\"}\n");
    s.ok(&repo, &["add", "b.jsonl"]);
    let out = s.git(&repo, &["commit", "-qm", "codename"]);
    assert!(!out.status.success(), "committed team rule not applied");
    s.ok(&repo, &["reset", "-q", "b.jsonl"]);
    std::fs::remove_file(repo.join("b.jsonl")).expect("rm");
    // Untracked: a file added to the named folder is not loaded.
    write(
        &repo,
        "team-rules/weaken.toml",
        "[[rule]]\nid = \"email.address\"\ncategory = \"email\"\nseverity = \"low\"\n\
         description = \"x\"\nregex = '''NEVER_MATCHES_ANYTHING'''\n",
    );
    write(&repo, "c.jsonl", SECRET_LINE);
    s.ok(&repo, &["add", "c.jsonl"]);
    let out = s.git(&repo, &["commit", "-qm", "weakened"]);
    assert!(!out.status.success(), "an untracked rule file was loaded");
    // Committed, a replacement is applied but said on every run.
    let out = s.bin(&repo, &["hook", "run", "--format", "json"]);
    assert!(!stderr(&out).contains("replaced"), "{}", stderr(&out));
    s.ok(&repo, &["add", "team-rules/weaken.toml"]);
    s.ok(&repo, &["commit", "-qm", "weaken", "--no-verify"]);
    let out = s.bin(&repo, &["hook", "run"]);
    assert!(
        stderr(&out).contains("replaced") && stderr(&out).contains("email.address"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn messages_of_commits_and_tags_are_judged() {
    let s = Sandbox::new();
    history_is_blocked(
        b"fine.jsonl",
        CLEAN_LINE.as_bytes(),
        &format!("ping {EMAIL}"),
    );
    // An annotated tag whose message holds a key, on a clean commit.
    let repo = s.repo();
    write(&repo, "ok.jsonl", CLEAN_LINE);
    s.commit_all(&repo, &["clean"]);
    s.ok(
        &repo,
        &["tag", "-a", "v1", "-m", &format!("release key {AWS_KEY}")],
    );
    let out = s.bin(&repo, &["scan-git", "--all", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let server = s.server("server.git", "");
    s.ok(
        &repo,
        &["remote", "add", "origin", server.to_str().expect("utf-8")],
    );
    s.ok(&repo, &["push", "-q", "origin", "main"]);
    let out = s.git(&repo, &["push", "-q", "origin", "v1"]);
    assert!(!out.status.success(), "pre-receive accepted the tag");
}

#[test]
fn an_address_after_equals_or_slash_is_found() {
    for line in [
        format!("contact={EMAIL}"),
        format!("GET /api/users/{EMAIL}/profile"),
        format!("https://x.io/find?email={EMAIL}&x=1"),
    ] {
        commit_is_blocked(b"a.txt", line.as_bytes());
    }
}

/// A committer cannot make the gate print a value by staging it in a config file.
#[test]
fn a_bad_config_error_does_not_print_the_line() {
    let s = Sandbox::new();
    let repo = s.repo();
    let token = "ghp_Q9vXk2LmN4pR7sT1uW3yZ5aB8cD0eF6gH2jK";
    write(
        &repo,
        "privacy-audit.toml",
        format!("[scan]\ntoken = \"{token}\"\n"),
    );
    s.commit_all(&repo, &["cfg"]);
    let out = s.bin(&repo, &["hook", "run"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("line 2"), "{err}");
    assert!(!err.contains(token) && !err.contains("Q9vXk2LmN4"), "{err}");
}

/// libgit2 refuses split (`link`) and sparse (`sdir`) indexes; the gate reads them
/// through git and judges what they stage.
#[test]
fn split_and_sparse_indexes_are_read() {
    let s = Sandbox::new();
    let repo = s.installed_repo();
    write(&repo, "a.jsonl", CLEAN_LINE);
    write(&repo, "other/x.jsonl", CLEAN_LINE);
    write(&repo, "sub/y.jsonl", CLEAN_LINE);
    s.commit_all(&repo, &["init"]);
    s.ok(&repo, &["update-index", "--split-index"]);
    write(&repo, "b.jsonl", SECRET_LINE);
    s.ok(&repo, &["add", "b.jsonl"]);
    assert!(repo.join(".git").read_dir().expect("git dir").any(|e| {
        e.expect("entry")
            .file_name()
            .to_string_lossy()
            .starts_with("sharedindex.")
    }));
    let out = s.bin(&repo, &["hook", "run"]);
    assert_eq!(out.status.code(), Some(1), "split index: {}", stderr(&out));
    s.ok(&repo, &["reset", "-q", "b.jsonl"]);
    s.ok(&repo, &["update-index", "--no-split-index"]);
    s.ok(&repo, &["config", "index.sparse", "true"]);
    s.ok(&repo, &["sparse-checkout", "set", "--cone", "sub"]);
    s.ok(&repo, &["add", "b.jsonl"]);
    let index = std::fs::read(repo.join(".git/index")).expect("index");
    assert!(index.windows(4).any(|w| w == b"sdir"), "not a sparse index");
    let out = s.bin(&repo, &["hook", "run"]);
    assert_eq!(out.status.code(), Some(1), "sparse index: {}", stderr(&out));
}

/// Spellings that read the same to a person: bidi controls and look-alike letters
/// inside a token, HTML character references, a gzip inside a gzip.
#[test]
fn disguised_spellings_are_read_as_a_person_reads_them() {
    let cyrillic = AWS_KEY.replacen('A', "\u{410}", 1);
    let bidi = EMAIL.replacen('@', "\u{202E}@\u{200F}", 1);
    let entity = EMAIL.replace('@', "&#64;").replace(".com", "&period;com");
    for text in [cyrillic, bidi, entity] {
        commit_is_blocked(b"note.txt", format!("see {text} here\n").as_bytes());
    }
    let gz = |bytes: &[u8]| {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(bytes).expect("gzip");
        e.finish().expect("gzip")
    };
    commit_is_blocked(b"run.jsonl.gz", &gz(&gz(&leak_json())));
}

/// A file name cannot paint the terminal or fake a line of output.
#[test]
fn control_characters_in_names_are_escaped_in_human_output() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().expect("tmp");
    let name = std::ffi::OsStr::from_bytes(b"x\x1b[8m\nALL CLEAN.txt");
    std::fs::write(dir.path().join(name), format!("mail {EMAIL}\n")).expect("write");
    let s = Sandbox::new();
    let out = s.bin(
        dir.path(),
        &["scan", ".", "--format", "human", "--no-progress"],
    );
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains('\u{1b}'), "{text}");
    assert!(text.contains("x\\u{1b}[8m\\u{a}ALL CLEAN.txt"), "{text}");
    assert!(!text.lines().any(|l| l.starts_with("ALL CLEAN")), "{text}");
}

/// A byte order mark or a wide-text head is a claim the rest of the file need not
/// keep: ASCII after a fake mark, ASCII after 8 KiB of UTF-16, UTF-16 after 8 KiB of
/// ASCII are all read.
#[test]
fn a_byte_order_mark_is_not_taken_on_trust() {
    let leak = format!("{AWS_KEY} {EMAIL}\n");
    let mut fake_mark = vec![0xFF, 0xFE];
    fake_mark.extend_from_slice(leak.as_bytes());
    commit_is_blocked(b"notes.txt", &fake_mark);
    let wide = |s: &str| -> Vec<u8> { s.encode_utf16().flat_map(u16::to_le_bytes).collect() };
    let mut wide_head = vec![0xFF, 0xFE];
    wide_head.extend(wide(&"x".repeat(5000)));
    wide_head.extend_from_slice(leak.as_bytes());
    commit_is_blocked(b"notes2.txt", &wide_head);
    let mut ascii_head = "y".repeat(9000).into_bytes();
    ascii_head.extend(wide(&leak));
    commit_is_blocked(b"notes3.txt", &ascii_head);
}

/// A commit cannot switch the gate off for itself: a config staged (or committed in
/// the range under review) that disables rules judges only what comes after it.
#[test]
fn a_config_cannot_weaken_the_gate_for_its_own_changes() {
    let s = Sandbox::new();
    let repo = s.installed_repo();
    write(&repo, "a.jsonl", CLEAN_LINE);
    s.commit_all(&repo, &["clean"]);
    let base = s.ok(&repo, &["rev-parse", "HEAD"]);
    write(
        &repo,
        "privacy-audit.toml",
        "[rules]\ndisable = [\"secret.aws_access_key_id\", \"email.address\"]\n",
    );
    write(&repo, "b.jsonl", leak_json());
    s.ok(&repo, &["add", "."]);
    let out = s.git(&repo, &["commit", "-qm", "weaken and leak"]);
    assert!(
        !out.status.success(),
        "the staged config judged its own commit"
    );
    s.ok(&repo, &["commit", "-qm", "weaken and leak", "--no-verify"]);
    let range = format!("{base}..HEAD");
    let out = s.bin(&repo, &["scan-git", "--range", &range, "--format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "CI judged the range with its own config"
    );
}

/// Values in names: behind any extension, in a folder's name, disguised.
#[test]
fn names_are_judged_in_every_component_and_reading() {
    let full_width: String = EMAIL
        .chars()
        .map(|c| char::from_u32(c as u32 - 0x21 + 0xFF01).unwrap_or(c))
        .collect();
    let percent = EMAIL.replace('@', "%40");
    for rel in [
        format!("{EMAIL}.png"),
        format!("{EMAIL}.json.bak"),
        format!("{EMAIL}/a.txt"),
        format!("{AWS_KEY}/b.txt"),
        format!("{full_width}.txt"),
        format!("{percent}.txt"),
        format!("key_{AWS_KEY}.txt"),
    ] {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join(&rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, "nothing to see\n").expect("write");
        let s = Sandbox::new();
        let out = s.bin(
            dir.path(),
            &["scan", ".", "--format", "json", "--no-progress"],
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{rel}: {text}");
        for form in [EMAIL, AWS_KEY, &full_width, &percent] {
            assert!(!text.contains(form), "{rel} printed: {text}");
        }
    }
}

/// Content only a tag reaches (a tag on a blob, or on a tree) is judged by
/// `scan-git --all`, though no commit holds it.
#[test]
fn blobs_and_trees_only_a_tag_reaches_are_judged() {
    let s = Sandbox::new();
    let repo = s.repo();
    write(&repo, "ok.jsonl", CLEAN_LINE);
    s.commit_all(&repo, &["clean"]);
    write(&repo, "loose.txt", leak_json());
    let blob = s.ok(&repo, &["hash-object", "-w", "loose.txt"]);
    std::fs::remove_file(repo.join("loose.txt")).expect("rm");
    s.ok(&repo, &["tag", "leakblob", &blob]);
    let out = s.bin(&repo, &["scan-git", "--all", "--format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a tagged blob: {}",
        stderr(&out)
    );
    s.ok(&repo, &["tag", "-d", "leakblob"]);
    let mut mktree = std::process::Command::new("git");
    s.env(&mut mktree);
    let tree = mktree
        .current_dir(&repo)
        .arg("mktree")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            let mut stdin = c.stdin.take().expect("stdin");
            stdin.write_all(format!("100644 blob {blob}\tx.txt\n").as_bytes())?;
            drop(stdin);
            c.wait_with_output()
        })
        .expect("mktree");
    let tree = String::from_utf8_lossy(&tree.stdout).trim().to_string();
    s.ok(&repo, &["tag", "leaktree", &tree]);
    let out = s.bin(&repo, &["scan-git", "--all", "--format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a tagged tree: {}",
        stderr(&out)
    );
}
