use super::*;

#[test]
fn unicode_fold_table_is_what_the_unicode_data_gives() {
    let generated = generate::generate();
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/rules/vocabulary/unicode-fold.txt"
    );
    if std::env::var_os("PRIVACY_AUDIT_REGENERATE").is_some() {
        std::fs::write(path, &generated).expect("write the table");
    }
    assert!(
        generated == TABLE,
        "rules/vocabulary/unicode-fold.txt is stale: rerun with PRIVACY_AUDIT_REGENERATE=1"
    );
}

#[test]
fn readings_of_the_disguises_writers_use() {
    let r = |c| reading(c);
    assert_eq!(r('\u{200B}'), Some(Reading::Unseen));
    assert_eq!(r('\u{E0100}'), Some(Reading::Unseen));
    assert_eq!(r('\u{FFFD}'), Some(Reading::Unseen));
    assert_eq!(r('\u{FE6B}'), Some(Reading::Compat("@")));
    assert_eq!(r('\u{24D8}'), Some(Reading::Compat("i")));
    assert_eq!(r('\u{1D400}'), Some(Reading::Compat("A")));
    assert_eq!(r('\u{0406}'), Some(Reading::Look("I")));
    assert_eq!(r('\u{0430}'), Some(Reading::Look("a")));
    assert_eq!(r('\u{2215}'), Some(Reading::Look("/")));
    assert_eq!(r('\u{3002}'), Some(Reading::Look(".")));
    // Prose: accents, curly quotes and other scripts read as themselves.
    for c in ['é', '\u{2019}', '\u{201C}', '中', 'я', 'a', '@'] {
        assert_eq!(r(c), None, "{c:?}");
    }
}
