//! Each confidence signal through [`assess`], and regression guards from real shapes.

use super::*;
use crate::rules::machine::Machine;

fn k() -> Knowledge {
    Knowledge {
        vocabulary: Vocabulary::load(&[]),
        machine: Machine::default(),
        roles: role::Roles::builtin(),
    }
}

/// Judges `value` of `rule_id` between `before` and `after`, written by `role`.
fn judged(rule_id: &str, value: &str, before: &str, after: &str, role: Role) -> Assessment {
    judged_with(&k(), rule_id, value, before, after, role, &mut Alone)
}

fn judged_with(
    k: &Knowledge,
    rule_id: &str,
    value: &str,
    before: &str,
    after: &str,
    role: Role,
    record: &mut dyn Record,
) -> Assessment {
    let category = match rule_id.split('.').next().unwrap_or_default() {
        "local_path" => Category::LocalPath,
        "email" => Category::Email,
        "pii" => Category::Pii,
        "ip" => Category::IpAddress,
        "hostname" => Category::Hostname,
        "secret" => Category::Secret,
        "capture" => Category::Capture,
        _ => Category::Denylist,
    };
    let cx = Context {
        rule_id,
        category,
        value,
        before: before.as_bytes(),
        after: after.as_bytes(),
        key: None,
        role,
        provider: false,
    };
    assess(&cx, k, record)
}

fn conf(rule_id: &str, value: &str) -> Confidence {
    judged(rule_id, value, " ", " ", Role::Unknown).confidence
}

fn why(rule_id: &str, value: &str, before: &str, after: &str, role: Role) -> Vec<&'static str> {
    judged(rule_id, value, before, after, role)
        .why
        .iter()
        .map(|r| r.id())
        .collect()
}

const PATH: &str = "local_path.posix_home";

#[test]
fn paths_name_people_only_through_a_user_segment() {
    for medium in [
        "/home/ana.popescu/runs/x.json",
        "/Users/tsadhwani/code/x.py",
        "/__home__ana__LLM_CTF__x",
        "/__Users__tsadhwani__LLM_CTF_Database__x",
        "/home/ana.lee/thesis/results.csv",
        "/scratch/akumar/llama-ft/run.log",
        "/tmp/pytest-of-dmitri/test_x0/a.txt",
        "/mnt/c/Users/ana/notes.txt",
        "/c/Users/ana/notes.txt",
        "~tkim/notes/x.md",
    ] {
        assert_eq!(conf(PATH, medium), Confidence::Medium, "{medium}");
    }
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
        "\\\\network_computer\\shared_folder",
        "D:\\projects\\src\\foo.py",
        "/workspace/myapp/users/migrations/0001_initial.py",
        "/home/circleci/project",
        "/home/user123/x",
        "/home/userA/results",
        "/home/laptop_user/x",
        "C:\\Users\\[username]\\x",
        "/home/myusername/x",
        "/home/test_directory",
        "/home/tmp.ana/x.txt",
        "/path/to/file.txt",
        "file:///path/to/file.html",
        "file:///",
        "file:///project-name",
    ] {
        assert_eq!(conf(PATH, low), Confidence::Low, "{low}");
    }
    let win = |v, after| judged("local_path.windows", v, " ", after, Role::Unknown).confidence;
    assert_eq!(win("E:\\Ana Popescu\\notes.txt", ""), Confidence::Medium);
    // The match stops at the space; the folder's name goes on after it.
    assert_eq!(win("E:\\Ana", " popescu\\notes.txt"), Confidence::Medium);
    assert_eq!(win("C:\\Program Files\\App\\x.exe", ""), Confidence::Low);
    assert_eq!(win("C:\\New folder\\x.txt", ""), Confidence::Low);
}

#[test]
fn this_machine_raises_and_a_web_route_lowers() {
    let mut mine = k();
    mine.machine.users.insert("user".into());
    let a = judged_with(
        &mine,
        PATH,
        "/home/user/x",
        " ",
        " ",
        Role::Unknown,
        &mut Alone,
    );
    assert_eq!(a.confidence, Confidence::High);
    assert!(a.why.has(Reason::ThisMachine));
    assert_eq!(
        why(
            PATH,
            "/home/about",
            "2023-10-01T20:30:12 200 ",
            "\n",
            Role::Unknown
        ),
        ["web_route"]
    );
    assert_eq!(
        why(PATH, "/home/about", "GET ", " HTTP/1.1", Role::Unknown),
        ["web_route"]
    );
}

/// A record that answers what it is told to: where else the value stands, and which
/// users it creates.
#[derive(Default)]
struct Told {
    elsewhere: Elsewhere,
    creates: &'static [&'static str],
}

impl Record for Told {
    fn elsewhere(&mut self) -> Elsewhere {
        self.elsewhere
    }
    fn fiction_nearby(&mut self) -> bool {
        false
    }
    fn defines_user(&mut self, user: &str) -> bool {
        self.creates.contains(&user)
    }
}

fn creates(users: &'static [&'static str]) -> Told {
    Told {
        creates: users,
        ..Told::default()
    }
}

#[test]
fn a_user_the_data_creates_is_the_tasks() {
    let a = judged_with(
        &k(),
        PATH,
        "/home/jack/x",
        " ",
        " ",
        Role::Unknown,
        &mut creates(&["jack"]),
    );
    assert_eq!(a.confidence, Confidence::Low);
    assert!(a.why.has(Reason::DefinedInRecord));
    let b = judged_with(
        &k(),
        PATH,
        "/home/ana/x",
        " ",
        " ",
        Role::Unknown,
        &mut creates(&["jack"]),
    );
    assert_eq!(b.confidence, Confidence::Medium);
    assert!(b.why.has(Reason::UserSegment));
}

#[test]
fn who_wrote_it() {
    let email = "email.address";
    let v = "ana.popescu@contoso-labs.ro";
    assert_eq!(
        why(email, v, "Email: ", "\n", Role::Model),
        ["written_by_model"]
    );
    assert_eq!(
        why(email, v, "Email: ", "\n", Role::Task),
        ["defined_by_task"]
    );
    assert_eq!(
        why(email, v, "Email: ", "\n", Role::Machine),
        ["printed_by_machine"]
    );
    assert_eq!(
        why(email, v, "Email: ", "\n", Role::Person),
        ["typed_by_user"]
    );
    // A model repeating the record's own value keeps it.
    let mut echo = Told {
        elsewhere: Elsewhere {
            not_model: true,
            task: false,
        },
        ..Told::default()
    };
    let a = judged_with(&k(), email, v, "at ", ".", Role::Model, &mut echo);
    assert_eq!(a.confidence, Confidence::Medium);
    assert!(a.why.has(Reason::Echoed));
    // A model's path may echo a user's from another file: kept; a task's own is low.
    assert_eq!(
        conf_role(PATH, "/home/ana/x", Role::Model),
        Confidence::Medium
    );
    assert_eq!(conf_role(PATH, "/home/ana/x", Role::Task), Confidence::Low);
    // A provider-shaped secret is as sure as its rule, whoever wrote it.
    let cx = Context {
        rule_id: "secret.github_token",
        category: Category::Secret,
        value: "ghp_x",
        before: b"",
        after: b"",
        key: None,
        role: Role::Model,
        provider: true,
    };
    assert_eq!(assess(&cx, &k(), &mut Alone).confidence, Confidence::High);
}

fn conf_role(rule_id: &str, value: &str, role: Role) -> Confidence {
    judged(rule_id, value, " ", " ", role).confidence
}

#[test]
fn context_around_a_value() {
    let email = "email.address";
    let v = "ana.popescu@gmail.com";
    assert_eq!(conf(email, v), Confidence::Medium);
    assert_eq!(
        why(email, v, "in the format, e.g. '", "'", Role::Unknown),
        ["example_context"]
    );
    assert_eq!(
        why(email, v, "assert check_email(\"", "\")", Role::Unknown),
        ["code_literal"]
    );
    assert_eq!(
        why(
            email,
            v,
            "Alice,alice@example.com\nDan,",
            "\n",
            Role::Unknown
        ),
        ["example_neighbours"]
    );
    // A numbered listing is a file a tool printed, whoever pasted it.
    assert_eq!(
        why(
            email,
            v,
            "setup.py:\n55:    author_email=\"",
            "\",",
            Role::Person
        ),
        ["typed_by_user", "printed_by_machine"]
    );
    // A credential in code is judged by its own shape only.
    assert_eq!(
        conf("secret.generic_api_key", "x9Kq2mZ7vR4tW8yB1nC5"),
        Confidence::High
    );
    let secret = judged(
        "secret.generic_api_key",
        "x9Kq2mZ7vR4tW8yB1nC5",
        "TEST_API_KEY=\"",
        "\"",
        Role::Unknown,
    );
    assert_eq!(secret.confidence, Confidence::High);
}

#[test]
fn addresses_by_their_own_rules() {
    let email = "email.address";
    assert_eq!(conf(email, "ana.popescu@gmail.com"), Confidence::Medium);
    assert_eq!(conf(email, "me@ana-popescu.ro"), Confidence::Medium);
    for low in [
        "john.doe@gmail.com",
        "bob@email.com",
        "user1@gmail.com",
        "username@servera.com",
        "firstname.lastname@university.edu",
        "noreply@github.com",
        "12345+ana@users.noreply.github.com",
    ] {
        assert_eq!(conf(email, low), Confidence::Low, "{low}");
    }
    assert_eq!(
        conf("email.spelled_out", "jsmith at paper dot com"),
        Confidence::Medium
    );
    assert_eq!(
        conf("email.spelled_out", "look at the dot com"),
        Confidence::Low
    );
    assert_eq!(
        conf("email.spelled_out", "jsmith [at] domain [dot] com"),
        Confidence::Medium
    );
    let ip = |v, b| judged("ip.v4", v, b, "", Role::Unknown).confidence;
    assert_eq!(ip("1.0.9.2", "brotlicffi-"), Confidence::Low);
    assert_eq!(ip("6.5.1.1", "EC "), Confidence::Low);
    assert_eq!(ip("192.168.1.1", "router at "), Confidence::Low);
    assert_eq!(ip("10.42.7.19", "peer "), Confidence::Medium);
    let typed = judged("ip.v4", "10.42.7.19", "my server at ", "", Role::Person);
    assert!(
        typed.why.has(Reason::PrivateRange),
        "a private address a person typed"
    );
    assert_eq!(ip("123.45.67.89", "server "), Confidence::Low);
    assert_eq!(ip("81.196.12.7", "server "), Confidence::Medium);
    let printed = judged("ip.v4", "10.42.7.19", "--master_addr=", "", Role::Machine);
    assert_eq!(
        printed.confidence,
        Confidence::Medium,
        "a private address a machine printed"
    );
    let h = |v, b, a| judged("hostname.internal", v, b, a, Role::Unknown).confidence;
    assert_eq!(h("threading.local", " ", "()"), Confidence::Low);
    assert_eq!(h("werkzeug.local", "from ", " import"), Confidence::Low);
    assert_eq!(h("host.docker.internal", " ", ":8080"), Confidence::Low);
    assert_eq!(h("gpu-17.ml.internal", " ", " "), Confidence::Medium);
    assert_eq!(
        h("api.payments.svc.cluster.local", " ", " "),
        Confidence::Medium
    );
}

#[test]
fn numbers_by_their_own_system() {
    let card = |v, b| judged("pii.payment_card", v, b, "", Role::Unknown).why;
    assert!(card("26032206951553", "14.").has(Reason::NumberSeries));
    assert!(card("4111111111111111", "card ").has(Reason::TestCard));
    assert_eq!(
        conf("pii.payment_card", "4556737586899855"),
        Confidence::Medium
    );
    let phone = |v| why("pii.phone_north_america", v, "call ", ".", Role::Unknown);
    assert_eq!(phone("(555) 555-0123"), ["invalid_number"]);
    assert_eq!(phone("212-555-0143"), ["fiction_number"]);
    assert_eq!(phone("(123) 456-7890"), ["invalid_number"]);
    assert_eq!(phone("(415) 456-7890"), ["template_slot"]);
    assert_eq!(phone("(911) 234-5678"), ["invalid_number"]);
    assert_eq!(phone("(800) 273-8255"), ["toll_free"]);
    assert_eq!(phone("+1 (000) 000-0000"), ["template_slot"]);
    assert_eq!(phone("04-31-3000"), ["number_series"]);
    assert_eq!(
        conf("pii.phone_north_america", "(702) 383-0281"),
        Confidence::Medium
    );
    // What fake-data generators print.
    let fake = judged(
        "pii.phone_north_america",
        "(275)939-2435",
        " ",
        "x80863",
        Role::Unknown,
    );
    assert!(fake.why.has(Reason::FakeDataFormat));
    // A run of numbers in a statistics line.
    let run = judged(
        "pii.phone_north_america",
        "252 642 7293",
        "balls ",
        " 4833",
        Role::Unknown,
    );
    assert!(run.why.has(Reason::NumberSeries));
    assert_eq!(
        conf("pii.phone_international", "+49 30 5551234"),
        Confidence::Medium
    );
    assert_eq!(conf("pii.us_ssn", "666-12-3456"), Confidence::Low);
    assert_eq!(conf("pii.us_ssn", "123-45-6789"), Confidence::Low);
    assert_eq!(conf("pii.us_ssn", "536-22-9153"), Confidence::Medium);
}

#[test]
fn credentials_that_are_code_or_templates() {
    let pw = |v, b| judged("secret.password_assignment", v, b, "", Role::Unknown).confidence;
    for v in [
        "db.Column(db.String(128))",
        "hashed_password",
        "generate_password(8)",
        "%MYSQL_ROOT_PASSWORD",
        "Create",
        "sys.argv[2]",
        "/testbed/src",
        "'myPassword'",
        "'P@ssw0rd1'",
    ] {
        assert_eq!(pw(v, "password = "), Confidence::Low, "{v}");
    }
    assert_eq!(pw("sapPass", "sapConn.Password = "), Confidence::Low);
    // The string holding the name ends and a variable is joined on (PHP, Perl).
    assert_eq!(
        pw(".$cfg['smtp']['relay_password'].", "print 'password = '"),
        Confidence::Low
    );
    // A URL's password with short humps is random letters; one that reads as a name
    // is the slot's.
    let url = |v| {
        judged(
            "secret.connection_string_password",
            v,
            "mongodb://admin:",
            "@10.2.0.15:27017/ledger",
            Role::Unknown,
        )
        .confidence
    };
    assert_eq!(url("kaLqIeQblzxG"), Confidence::High);
    assert_eq!(url("smeNvgNqiBxp"), Confidence::High);
    for name in ["rootPassword", "dbPass", "appDatabase"] {
        assert_eq!(url(name), Confidence::Low, "{name}");
    }
    // The URL's own escape for a leading symbol is the password's; a slot that
    // closes with its `%` is still a slot.
    assert_eq!(url("%40Rk7vQ2mXz9Lp"), Confidence::High);
    assert_eq!(url("%DB_PASSWORD%"), Confidence::Low);
    assert_eq!(url("%s"), Confidence::Low);
    assert_eq!(url("/run/secrets/db"), Confidence::Low);
    // Decoded, an escaped template, placeholder or mask is still one.
    for slot in [
        "%3Cdb_password%3E",
        "%24%7BDB_PASSWORD%7D",
        "%25PGPASSWORD%25",
        "%22%22",
        "%E2%80%A2%E2%80%A2",
        "%70%61%73%73%77%6F%72%64",
        "%2F%2F%20TODO%20set%20me",
    ] {
        assert_eq!(url(slot), Confidence::Low, "{slot}");
    }
    // Capitals side by side: random letters, not a camel-case name.
    assert_eq!(pw("yqDVtkqPECriaLRi", "password="), Confidence::Medium);
    assert_eq!(
        pw("\"IH6noKXV7kU6S5BS6LTY\"", "enc_password = "),
        Confidence::Low
    );
    assert_eq!(pw("Tr0ub4dor&3x", "password = "), Confidence::Medium);
    // A quoted piece joined to a variable is part of an expression.
    let joined = |after: &str| {
        judged(
            "secret.password_assignment",
            "cobalt:9",
            "userPassword = \"",
            after,
            Role::Unknown,
        )
        .confidence
    };
    assert_eq!(joined("\" + deltaKey;"), Confidence::Low);
    assert_eq!(joined("\" . $suffix;"), Confidence::Low);
    assert_eq!(joined("\" + \"x7\";"), Confidence::Medium);
    assert_eq!(joined("\";"), Confidence::Medium);
    // A method on the literal itself is the literal.
    assert_eq!(joined("\".encode(\"utf-8\")"), Confidence::Medium);
    assert_eq!(joined("\".toCharArray();"), Confidence::Medium);
    assert_eq!(joined("\" . strtoupper($s);"), Confidence::Low);
    assert_eq!(pw("Dragonfly", "password = "), Confidence::Medium);
    // Braces round a name are a slot; round long mixed base64, Jenkins' ciphertext.
    assert_eq!(pw("{DB_PASSWORD}", "password = "), Confidence::Low);
    assert_eq!(pw("{ZqL5kVrX1n8tA2}", "password = "), Confidence::Medium);
    assert_eq!(
        pw(
            "{AQAAABAAAAAQk7ZqP3xWm9R2vT8nL4cY1hJ6dF0sG5a=}",
            "<password>"
        ),
        Confidence::Medium
    );
    let generic = judged(
        "secret.generic_api_key",
        "YourBrowserStackAccessKey",
        "\"accessKey\": \"",
        "\"",
        Role::Unknown,
    );
    assert_eq!(generic.confidence, Confidence::Low);
    let key = |v| {
        judged(
            "secret.generic_api_key",
            v,
            "api_key = \"",
            "\"",
            Role::Unknown,
        )
        .confidence
    };
    for v in [
        "key_not_found_in_config_v2",
        "generated-at-deploy-time",
        "HS256-with-rotation-policy",
        "NotARealSecretJustForUnitTests",
    ] {
        assert_eq!(key(v), Confidence::Low, "{v}");
    }
    for v in [
        "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
        "Zf3D0LXCM3EIMbgJpUNnkRtOfOueHznB",
        "yqDVtkqPECriaLRiWnbGfKsZ",
    ] {
        assert_eq!(key(v), Confidence::High, "{v}");
    }
    // A passphrase is words on purpose.
    assert_eq!(
        pw("correct-horse-battery-staple", "password = "),
        Confidence::Medium
    );
    assert_eq!(
        pw("CorrectHorseBatteryStaple", "password = \""),
        Confidence::Medium
    );
}
