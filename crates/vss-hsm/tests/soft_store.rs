//! The soft key store: PIN and PUK counters, encryption at rest, corruption, reopening.

use std::path::Path;

use vss_crypto::{Curve, HashAlg};
use vss_hsm::{Error, GenerateKeyRequest, SoftHsm, MAX_SECRET_LEN, PIN_TRIES, PUK_TRIES};

const PIN: &str = "1234";
const PUK: &str = "12345678";

fn store() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    SoftHsm::init(dir.path(), PIN, PUK).expect("init");
    dir
}

fn wrong_pin(dir: &Path) -> Error {
    SoftHsm::open(dir, "0000").expect_err("wrong PIN must fail")
}

#[test]
fn three_wrong_pins_block_and_the_puk_unblocks() {
    let dir = store();
    assert!(matches!(
        wrong_pin(dir.path()),
        Error::WrongPin { tries_left: 2 }
    ));
    assert!(matches!(
        wrong_pin(dir.path()),
        Error::WrongPin { tries_left: 1 }
    ));
    let third = wrong_pin(dir.path());
    assert!(matches!(third, Error::WrongPin { tries_left: 0 }));
    assert!(third.to_string().contains("blocked"), "{third}");
    // Blocked: even the right PIN is refused now.
    assert!(matches!(
        SoftHsm::open(dir.path(), PIN),
        Err(Error::PinBlocked)
    ));
    assert_eq!(
        SoftHsm::status(dir.path()).expect("status").pin_tries_left,
        0
    );

    assert!(matches!(
        SoftHsm::unblock(dir.path(), "87654321", "4321"),
        Err(Error::WrongPuk { tries_left: 9 })
    ));
    SoftHsm::unblock(dir.path(), PUK, "4321").expect("unblock");
    let status = SoftHsm::status(dir.path()).expect("status");
    assert_eq!(
        (status.pin_tries_left, status.puk_tries_left),
        (PIN_TRIES, PUK_TRIES)
    );
    assert!(SoftHsm::open(dir.path(), PIN).is_err(), "old PIN replaced");
    SoftHsm::open(dir.path(), "4321").expect("new PIN opens");
}

#[test]
fn an_empty_pin_or_puk_is_refused_without_using_a_try() {
    let dir = store();
    for _ in 0..PIN_TRIES + 1 {
        assert!(matches!(
            SoftHsm::open(dir.path(), ""),
            Err(Error::EmptySecret("PIN"))
        ));
        assert!(matches!(
            SoftHsm::change_pin(dir.path(), "", "4321"),
            Err(Error::EmptySecret("PIN"))
        ));
        assert!(matches!(
            SoftHsm::unblock(dir.path(), "", "4321"),
            Err(Error::EmptySecret("PUK"))
        ));
    }
    let status = SoftHsm::status(dir.path()).expect("status");
    assert_eq!(
        (status.pin_tries_left, status.puk_tries_left),
        (PIN_TRIES, PUK_TRIES)
    );
    SoftHsm::open(dir.path(), PIN).expect("the PIN still opens");
}

#[test]
fn a_right_pin_resets_the_counter() {
    let dir = store();
    wrong_pin(dir.path());
    wrong_pin(dir.path());
    SoftHsm::open(dir.path(), PIN).expect("open");
    assert!(matches!(
        wrong_pin(dir.path()),
        Error::WrongPin { tries_left: 2 }
    ));
}

#[test]
fn ten_wrong_puks_lock_the_store_for_good() {
    let dir = store();
    for left in (0..PUK_TRIES).rev() {
        match SoftHsm::unblock(dir.path(), "00000000", "4321") {
            Err(Error::WrongPuk { tries_left }) => assert_eq!(tries_left, left),
            other => panic!("expected WrongPuk, got {other:?}"),
        }
    }
    assert!(matches!(
        SoftHsm::unblock(dir.path(), PUK, "4321"),
        Err(Error::Locked)
    ));
    assert!(matches!(SoftHsm::open(dir.path(), PIN), Err(Error::Locked)));
}

#[test]
fn change_pin_and_policy() {
    let dir = store();
    assert!(matches!(
        SoftHsm::change_pin(dir.path(), PIN, "12"),
        Err(Error::WeakSecret(_))
    ));
    SoftHsm::change_pin(dir.path(), PIN, "24680").expect("change");
    SoftHsm::open(dir.path(), "24680").expect("open with new PIN");
    let other = tempfile::tempdir().expect("tempdir");
    assert!(matches!(
        SoftHsm::init(other.path(), PIN, "short"),
        Err(Error::WeakSecret(_))
    ));
}

#[test]
fn init_refuses_a_non_empty_directory_and_open_refuses_a_non_store() {
    let dir = store();
    assert!(matches!(
        SoftHsm::init(dir.path(), PIN, PUK),
        Err(Error::NotEmpty(_))
    ));
    let empty = tempfile::tempdir().expect("tempdir");
    assert!(matches!(
        vss_hsm::open(empty.path(), PIN),
        Err(Error::NotAStore(_))
    ));
}

#[test]
fn keys_survive_reopening_and_are_encrypted_at_rest() {
    use vss_hsm::{Hsm, ImportKeyRequest};
    let dir = store();
    let hsm = SoftHsm::open(dir.path(), PIN).expect("open");
    let original = vss_crypto::PrivateKey::generate(Curve::P256).expect("key");
    let key = hsm
        .import_key(&ImportKeyRequest {
            label: "station".into(),
            private_key: &original,
        })
        .expect("import");
    drop(hsm);
    let file = std::fs::read_to_string(dir.path().join("keys/station.key")).expect("key file");
    let scalar_hex: String = original
        .scalar()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert!(!file.contains(&scalar_hex), "the scalar is in the clear");
    assert!(!file.to_uppercase().contains(&scalar_hex.to_uppercase()));
    let hsm = vss_hsm::open(dir.path(), PIN).expect("reopen");
    let digest = HashAlg::Sha256.digest(b"after reopening");
    let sig = hsm.sign_digest(&key.handle, &digest).expect("sign");
    let verifier = original.public_key().verifying_key().expect("verifier");
    assert!(verifier.verify_digest(&digest, &sig));
}

#[test]
fn a_flipped_byte_in_a_key_file_is_detected_and_named() {
    let dir = store();
    let hsm = vss_hsm::open(dir.path(), PIN).expect("open");
    let key = hsm
        .generate_key(&GenerateKeyRequest::new("victim", Curve::P384))
        .expect("generate");
    hsm.generate_key(&GenerateKeyRequest::new("bystander", Curve::P256))
        .expect("generate");
    drop(hsm);
    let path = dir.path().join("keys/victim.key");
    let original = std::fs::read(&path).expect("read");
    let text = String::from_utf8(original.clone()).expect("json");
    let at = text.find("\"ciphertext\": \"").expect("field") + 16;
    let mut damaged = original.clone();
    damaged[at] = if damaged[at] == b'0' { b'1' } else { b'0' };
    std::fs::write(&path, &damaged).expect("damage");

    let hsm = vss_hsm::open(dir.path(), PIN).expect("open");
    let err = hsm
        .sign_digest(&key.handle, &[1u8; 48])
        .expect_err("corrupt");
    assert!(matches!(&err, Error::CorruptFile { path: p, .. } if p.ends_with("victim.key")));
    assert!(err.to_string().contains("victim.key"), "{err}");
    // The damaged file is left as it was, and the other key still works.
    assert_eq!(std::fs::read(&path).expect("read"), damaged);
    let bystander = hsm.key("bystander").expect("bystander");
    hsm.sign_digest(&bystander.handle, &[2u8; 32])
        .expect("bystander signs");

    std::fs::write(&path, &original[..original.len() / 2]).expect("truncate");
    let err = hsm
        .keys()
        .expect_err("truncated file breaks listing loudly");
    assert!(err.to_string().contains("victim.key"), "{err}");
}

#[test]
fn a_corrupt_state_file_is_named() {
    let dir = store();
    std::fs::write(dir.path().join("soft-store.json"), b"{\"version\": 1").expect("damage");
    let err = SoftHsm::open(dir.path(), PIN).expect_err("corrupt");
    assert!(err.to_string().contains("soft-store.json"), "{err}");
}

#[test]
fn oversized_store_files_are_refused_without_reading_them_whole() {
    let dir = store();
    let hsm = vss_hsm::open(dir.path(), PIN).expect("open");
    let key = hsm
        .generate_key(&GenerateKeyRequest::new("big", Curve::P256))
        .expect("generate");
    drop(hsm);
    let key_path = dir.path().join("keys/big.key");
    let mut padded = std::fs::read(&key_path).expect("read");
    padded.resize(64 * 1024 + 1, b' ');
    std::fs::write(&key_path, &padded).expect("pad");
    let hsm = vss_hsm::open(dir.path(), PIN).expect("open");
    let err = hsm
        .sign_digest(&key.handle, &[1u8; 32])
        .expect_err("oversized");
    assert!(
        matches!(&err, Error::CorruptFile { path, reason } if path.ends_with("big.key") && reason.contains("65536")),
        "{err}"
    );
    drop(hsm);

    // The state file as a link to an endless stream.
    let state = dir.path().join("soft-store.json");
    std::fs::remove_file(&state).expect("remove");
    std::os::unix::fs::symlink("/dev/zero", &state).expect("link");
    let err = SoftHsm::open(dir.path(), PIN).expect_err("endless");
    assert!(
        matches!(&err, Error::CorruptFile { path, .. } if path.ends_with("soft-store.json")),
        "{err}"
    );
    let err = SoftHsm::status(dir.path()).expect_err("endless");
    assert!(err.to_string().contains("larger than 65536 bytes"), "{err}");
}

/// Sets `field` of the state file's `kdf` object to `value`.
fn set_kdf(dir: &Path, field: &str, value: u64) {
    let path = dir.join("soft-store.json");
    let mut state: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("json");
    state["kdf"][field] = value.into();
    std::fs::write(&path, serde_json::to_vec(&state).expect("encode")).expect("write");
}

#[test]
fn kdf_parameters_out_of_range_are_refused_before_the_kdf_runs() {
    // 4e9 KiB of memory aborted the process; zero passes or lanes, and too many, are refused
    // the same way, and the counters are untouched.
    for (field, value, range) in [
        ("m_kib", 4_000_000_000u64, vss_hsm::KDF_MEMORY_KIB),
        ("m_kib", 1024, vss_hsm::KDF_MEMORY_KIB),
        ("t", 0, vss_hsm::KDF_PASSES),
        ("t", 1_000_000_000, vss_hsm::KDF_PASSES),
        ("p", 0, vss_hsm::KDF_LANES),
        ("p", 17, vss_hsm::KDF_LANES),
    ] {
        let dir = store();
        set_kdf(dir.path(), field, value);
        let err = SoftHsm::open(dir.path(), PIN).expect_err("refused");
        let expected = format!(
            "KDF {field} {value} outside {}..={}",
            range.start(),
            range.end()
        );
        assert!(
            matches!(&err, Error::CorruptFile { path, reason } if path.ends_with("soft-store.json") && *reason == expected),
            "{field}={value}: {err}"
        );
    }
    // The edges of the ranges are accepted (the store then fails only on the wrong key
    // derived with them, as a wrong PIN).
    let dir = store();
    set_kdf(dir.path(), "t", u64::from(*vss_hsm::KDF_PASSES.end()));
    assert!(matches!(
        SoftHsm::open(dir.path(), PIN),
        Err(Error::WrongPin { .. })
    ));
}

#[test]
fn hsm_json_with_an_unknown_or_misspelt_key_is_refused() {
    let dir = store();
    let config = dir.path().join("hsm.json");
    for (text, why) in [
        (
            r#"{"version":1,"backend":"soft","tokn_label":"x"}"#,
            "unknown field",
        ),
        (
            r#"{"version":1,"backend":"soft","module":"/lib/x.so"}"#,
            "takes no module",
        ),
        (
            r#"{"version":1,"backend":"pkcs11","module":"/lib/x.so","token_lable":"vss"}"#,
            "unknown field",
        ),
        (
            r#"{"version":1,"backend":"pkcs11","module":"/lib/x.so"}"#,
            "needs a module and a token_label",
        ),
        (r#"{"version":1,"backend":"tpm"}"#, "unknown backend 'tpm'"),
    ] {
        std::fs::write(&config, text).expect("write");
        let Err(err) = vss_hsm::open(dir.path(), PIN) else {
            panic!("{text} was accepted");
        };
        assert!(
            matches!(&err, Error::CorruptFile { path, reason } if path.ends_with("hsm.json") && reason.contains(why)),
            "{text}: {err}"
        );
    }
    std::fs::write(&config, r#"{"version":1,"backend":"soft"}"#).expect("write");
    vss_hsm::open(dir.path(), PIN).expect("a well-formed hsm.json opens");
}

#[test]
fn secrets_round_trip_are_sealed_and_bounded() {
    let dir = store();
    let hsm = SoftHsm::open(dir.path(), PIN).expect("open");
    let secret = b"the issuer's key, 32 octets long";
    hsm.put_secret("issuer-key", secret).expect("put");
    assert_eq!(
        hsm.get_secret("issuer-key").expect("get").as_slice(),
        secret
    );
    let file = dir.path().join("secrets/issuer-key.secret");
    let text = std::fs::read(&file).expect("secret file");
    assert!(!text.windows(secret.len()).any(|w| w == secret));
    assert!(!text
        .windows(8)
        .any(|w| w == hex::encode(&secret[..4]).as_bytes()));

    // A reopened store reads it; a wrong PIN opens nothing.
    drop(hsm);
    assert!(matches!(wrong_pin(dir.path()), Error::WrongPin { .. }));
    let hsm = SoftHsm::open(dir.path(), PIN).expect("reopen");
    assert_eq!(
        hsm.get_secret("issuer-key").expect("get").as_slice(),
        secret
    );

    // Replaced, then deleted.
    hsm.put_secret("issuer-key", b"another").expect("replace");
    assert_eq!(
        hsm.get_secret("issuer-key").expect("get").as_slice(),
        b"another"
    );
    hsm.delete_secret("issuer-key").expect("delete");
    assert!(matches!(
        hsm.get_secret("issuer-key"),
        Err(Error::SecretNotFound(_))
    ));
    assert!(matches!(
        hsm.delete_secret("issuer-key"),
        Err(Error::SecretNotFound(_))
    ));

    // Names are labels; sizes are bounded.
    assert!(matches!(
        hsm.put_secret("../x", b"x"),
        Err(Error::InvalidLabel(_))
    ));
    assert!(matches!(
        hsm.get_secret(".hidden"),
        Err(Error::InvalidLabel(_))
    ));
    let largest = vec![7u8; MAX_SECRET_LEN];
    hsm.put_secret("large", &largest).expect("largest");
    assert_eq!(
        hsm.get_secret("large").expect("get").as_slice(),
        &largest[..]
    );
    assert!(matches!(
        hsm.put_secret("large", &[7u8; MAX_SECRET_LEN + 1]),
        Err(Error::SecretTooLarge { .. })
    ));
    assert!(vss_hsm::Hsm::keys(&hsm).expect("keys").is_empty());
}

#[test]
fn a_tampered_or_renamed_secret_file_is_refused() {
    let dir = store();
    let hsm = SoftHsm::open(dir.path(), PIN).expect("open");
    hsm.put_secret("a", b"secret a").expect("put");
    let path = dir.path().join("secrets/a.secret");
    let original = std::fs::read_to_string(&path).expect("read");
    let mut file: serde_json::Value = serde_json::from_str(&original).expect("json");
    let ciphertext = file["ciphertext"].as_str().expect("hex").to_owned();
    let flipped = format!(
        "{}{}",
        if ciphertext.starts_with('0') {
            '1'
        } else {
            '0'
        },
        &ciphertext[1..]
    );
    file["ciphertext"] = flipped.into();
    std::fs::write(&path, file.to_string()).expect("tamper");
    let err = hsm.get_secret("a").expect_err("tampered");
    assert!(
        matches!(&err, Error::CorruptFile { path: p, .. } if *p == path),
        "{err}"
    );

    // The file of one name copied under another is refused too.
    std::fs::write(&path, &original).expect("restore");
    std::fs::copy(&path, dir.path().join("secrets/b.secret")).expect("copy");
    assert!(matches!(
        hsm.get_secret("b"),
        Err(Error::CorruptFile { .. })
    ));
    let mut renamed: serde_json::Value = serde_json::from_str(&original).expect("json");
    renamed["name"] = "b".into();
    std::fs::write(dir.path().join("secrets/b.secret"), renamed.to_string()).expect("rename");
    assert!(matches!(
        hsm.get_secret("b"),
        Err(Error::CorruptFile { .. })
    ));
    assert_eq!(hsm.get_secret("a").expect("a").as_slice(), b"secret a");
}
