use std::path::Path;

use super::*;

fn source(path: &Path) -> PinSource<'_> {
    PinSource::new("PIN", "VSS_TEST_UNSET_PIN").file(Some(path))
}

fn written(bytes: &[u8]) -> tempfile::NamedTempFile {
    let file = tempfile::NamedTempFile::new().expect("temp file");
    std::fs::write(file.path(), bytes).expect("write");
    file
}

fn refusal(path: &Path) -> String {
    source(path).find().expect_err("refused").to_string()
}

#[test]
fn a_file_gives_its_first_line_without_the_line_end() {
    for (bytes, pin) in [
        (&b"1234\n"[..], "1234"),
        (b"5678\r\n", "5678"),
        (b"90ab", "90ab"),
        (b"1234\r\nsecond line", "1234"),
        (b"\xc3\xa9t\xc3\xa9 1\n", "\u{e9}t\u{e9} 1"),
    ] {
        let file = written(bytes);
        let found = source(file.path()).find().expect("read").expect("a PIN");
        assert_eq!(found.as_str(), pin);
    }
    let longest = [b'7'; MAX_PIN_LEN];
    for end in [&b"\n"[..], b"\r\n"] {
        let file = written(&[&longest[..], end, &[b'x'; 10_000]].concat());
        let found = source(file.path()).find().expect("read").expect("a PIN");
        assert_eq!(found.len(), MAX_PIN_LEN);
    }
}

#[test]
fn a_first_line_over_1_kib_and_dev_zero_are_refused_naming_the_file() {
    let file = written(&[b'7'; MAX_PIN_LEN + 1]);
    let error = refusal(file.path());
    assert!(error.contains("longer than 1024 bytes"), "{error}");
    assert!(
        error.contains(&file.path().display().to_string()),
        "{error}"
    );
    let error = refusal(Path::new("/dev/zero"));
    assert!(error.contains("longer than 1024 bytes"), "{error}");
}

#[test]
fn empty_control_and_binary_codes_are_refused() {
    for bytes in [&b""[..], b"\n", b"\r\n1234\n"] {
        let file = written(bytes);
        let error = refusal(file.path());
        assert!(
            error.starts_with("the PIN is empty (the PIN file "),
            "{error}"
        );
        assert!(error.ends_with("): nothing was tried"), "{error}");
    }
    for bytes in [&b"12\t34\n"[..], b"\x1b[31m1234\n", b"12\r34"] {
        let file = written(bytes);
        let error = source(file.path()).find().expect_err("refused");
        assert!(
            matches!(error.problem(), Problem::ControlCharacter),
            "{error}"
        );
        assert_eq!(error.reason(), "the PIN holds a control character");
    }
    let file = written(b"\xff\xfe\n");
    let error = refusal(file.path());
    assert!(error.contains("not UTF-8"), "{error}");
}

#[test]
fn a_missing_file_is_named_and_not_skipped() {
    let dir = tempfile::tempdir().expect("dir");
    let missing = dir.path().join("no-such-pin");
    let error = source(&missing).find().expect_err("missing");
    assert_eq!(error.origin(), &Origin::File(missing.clone()));
    assert!(matches!(error.problem(), Problem::Open(_)), "{error}");
    assert!(
        error.to_string().starts_with(&format!(
            "the PIN file {}: cannot open it: ",
            missing.display()
        )),
        "{error}"
    );
}

#[test]
fn a_prompted_code_obeys_the_same_rules() {
    let source = PinSource::new("new PIN", NEW_PIN_ENV);
    let ok = source.check(Zeroizing::new("2468".into()), Origin::Prompt);
    assert_eq!(ok.expect("fine").as_str(), "2468");
    let long = Zeroizing::new("7".repeat(MAX_PIN_LEN + 1));
    let error = source.check(long, Origin::Prompt).expect_err("long");
    assert_eq!(
        error.to_string(),
        "the new PIN is longer than 1024 bytes (the prompt): nothing was tried"
    );
}

/// The one test that sets `CREDENTIALS_DIRECTORY` (the variables are the process's).
#[test]
fn the_file_wins_then_the_credential_then_the_variable() {
    const ENV: &str = "VSS_TEST_PIN_ORDER";
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("pin");
    std::fs::write(&file, "1111\n").expect("write");
    std::fs::write(dir.path().join(PIN_CREDENTIAL), "2222\n").expect("write");
    std::env::set_var(ENV, "3333");
    std::env::set_var(CREDENTIALS_DIRECTORY, dir.path());
    let found = |source: PinSource<'_>| source.find().expect("read").map(|p| p.to_string());
    let plain = PinSource::new("PIN", ENV);
    assert_eq!(
        found(plain.file(Some(&file)).credential(PIN_CREDENTIAL)),
        Some("1111".into())
    );
    assert_eq!(found(plain.credential(PIN_CREDENTIAL)), Some("2222".into()));
    assert_eq!(found(plain), Some("3333".into()), "no credential named");
    assert_eq!(
        found(plain.credential("vss-no-such-credential")),
        Some("3333".into())
    );
    std::env::set_var(ENV, "");
    let error = plain.find().expect_err("empty");
    assert_eq!(
        error.to_string(),
        format!("the PIN is empty ({ENV}): nothing was tried")
    );
    std::env::remove_var(ENV);
    std::env::remove_var(CREDENTIALS_DIRECTORY);
    assert_eq!(found(plain.credential(PIN_CREDENTIAL)), None);
}
