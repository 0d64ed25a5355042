//! Each confidence signal on its own, and regression guards from real shapes.

use super::*;
use crate::detect::machine::Machine;

fn k() -> Knowledge {
    Knowledge {
        vocabulary: Vocabulary::load(&[]),
        machine: Machine::default(),
    }
}

fn cx<'a>(
    category: Category,
    rule_id: &'a str,
    value: &'a str,
    before: &'a str,
    after: &'a str,
) -> Context<'a> {
    Context {
        rule_id,
        category,
        value,
        before: before.as_bytes(),
        after: after.as_bytes(),
        key: None,
    }
}

#[test]
fn paths_name_people_only_through_a_user_segment() {
    let k = k();
    let p = |v| path(v, &k);
    assert_eq!(p("/home/ana.popescu/runs/x.json"), Confidence::Medium);
    assert_eq!(p("/Users/tsadhwani/code/x.py"), Confidence::Medium);
    assert_eq!(p("/__home__ana__LLM_CTF__x"), Confidence::Medium);
    assert_eq!(
        p("/__Users__tsadhwani__LLM_CTF_Database__x"),
        Confidence::Medium
    );
    for low in [
        "/home/user/x",
        "/home/ubuntu/.cache",
        "/root/miniconda3/bin",
        "/workspace/repo/src",
        "/opt/miniconda3/envs/testbed/lib",
        "/testbed/x.py",
        "/home/info.txt",
        "/Users/<YourUsername>/x",
        "C:\\Users\\<YourUsername>\\x",
        "(?!C:\\\\)",
        "\\\\computer1\\sharedFolder",
        "D:\\projects\\src\\foo.py",
    ] {
        assert_eq!(p(low), Confidence::Low, "{low}");
    }
    assert_eq!(p("E:\\Ana Popescu\\notes.txt"), Confidence::Medium);
    assert_eq!(p("C:\\Program Files\\App\\x.exe"), Confidence::Low);
    let mut mine = k.clone();
    mine.machine.users.insert("user".into());
    assert_eq!(
        path("/home/user/x", &mine),
        Confidence::High,
        "this machine's account"
    );
}

#[test]
fn placeholder_addresses_and_code_are_low() {
    let k = k();
    assert_eq!(email("ana.popescu@gmail.com", &k), Confidence::Medium);
    assert_eq!(email("john.doe@gmail.com", &k), Confidence::Low);
    assert_eq!(email("bob@email.com", &k), Confidence::Low);
    assert_eq!(email("jsmith at paper dot com", &k), Confidence::Medium);
    assert_eq!(email("look at the dot com", &k), Confidence::Low);
    assert_eq!(
        email("jsmith [at] domain [dot] com", &k),
        Confidence::Medium
    );
    for v in [
        "db.Column(db.String(128))",
        "hashed_password",
        "generate_password(8)",
        "%MYSQL_ROOT_PASSWORD",
        "Create",
    ] {
        assert_eq!(password(v), Confidence::Low, "{v}");
    }
    assert_eq!(password("Tr0ub4dor&3x"), Confidence::Medium);
}

#[test]
fn numbers_inside_fractions_versions_and_fiction_are_low() {
    let c = |v, b, a| number(&cx(Category::Pii, "pii.payment_card", v, b, a));
    assert_eq!(c("26032206951553", "14.", ""), Confidence::Low);
    assert_eq!(c("2423222541809082", "0.", ""), Confidence::Low);
    assert_eq!(c("4111111111111111", "card ", " "), Confidence::Medium);
    let phone = |v| number(&cx(Category::Pii, "pii.phone_national", v, " ", " "));
    assert_eq!(phone("(555) 555-0123"), Confidence::Low);
    assert_eq!(phone("+1 (000) 000-0000"), Confidence::Low);
    assert_eq!(phone("04-31-3000"), Confidence::Low);
    let ipv4 = |v, b| ip(&cx(Category::IpAddress, "ip.v4", v, b, ""));
    assert_eq!(ipv4("1.0.9.2", "brotlicffi-"), Confidence::Low);
    assert_eq!(ipv4("192.168.1.1", "router at "), Confidence::Low);
    assert_eq!(ipv4("6.5.1.1", "EC "), Confidence::Low);
    assert_eq!(ipv4("10.42.7.19", "peer "), Confidence::Medium);
    let h = |v, a| {
        host(
            &cx(Category::Hostname, "hostname.internal", v, " ", a),
            &k(),
        )
    };
    assert_eq!(h("threading.local", "()"), Confidence::Low);
    assert_eq!(h("host.docker.internal", ":8080"), Confidence::Low);
    assert_eq!(h("gpu-17.ml.internal", " "), Confidence::Medium);
}

/// Regression guards from a hunt for misjudgements in both directions.
#[test]
fn real_shapes_stay_medium_and_slots_stay_low() {
    let k = k();
    let p = |v| path(v, &k);
    for medium in [
        "/home/ana.lee/thesis/results.csv",
        "/scratch/akumar/llama-ft/run.log",
        "/tmp/pytest-of-dmitri/test_x0/a.txt",
        "/mnt/c/Users/ana/notes.txt",
        "/c/Users/ana/notes.txt",
    ] {
        assert_eq!(p(medium), Confidence::Medium, "{medium}");
    }
    for low in [
        "/workspace/myapp/users/migrations/0001_initial.py",
        "/home/circleci/project",
        "/home/user123/x",
        "C:\\Users\\[username]\\x",
        "/home/myusername/x",
    ] {
        assert_eq!(p(low), Confidence::Low, "{low}");
    }
    assert_eq!(email("me@ana-popescu.ro", &k), Confidence::Medium);
    assert_eq!(email("user1@gmail.com", &k), Confidence::Low);
    let ipv4 = |v, b| ip(&cx(Category::IpAddress, "ip.v4", v, b, ""));
    assert_eq!(ipv4("10.42.7.19", "--master_addr="), Confidence::Medium);
    assert_eq!(ipv4("169.254.169.254", "curl http://"), Confidence::Low);
    let phone = |v| number(&cx(Category::Pii, "pii.phone_international", v, " ", " "));
    assert_eq!(phone("+49 30 5551234"), Confidence::Medium);
    assert_eq!(password("Dragonfly"), Confidence::Medium);
    assert_eq!(password("sys.argv[2]"), Confidence::Low);
    assert_eq!(password("/testbed/src"), Confidence::Low);
    let h = host(
        &cx(
            Category::Hostname,
            "hostname.internal",
            "werkzeug.local",
            "from ",
            " import",
        ),
        &k,
    );
    assert_eq!(h, Confidence::Low);
}
