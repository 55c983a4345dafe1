//! `vss its cert issue | sign | verify | decode`: a PKI built with keys in a store, signed
//! data verified to Valid, and each failure a verdict with exit status 1.

mod common;

use std::path::{Path, PathBuf};

use common::{init_store, vss_run, vss_store, PIN};
use vss_its::Psid;

const START: &str = "2026-01-01T00:00:00Z";
const AT: &str = "2026-01-02T00:00:00Z";

fn keygen(dir: &Path, label: &str, curve: &str) {
    vss_store(
        dir,
        PIN,
        &["keys", "generate", "--label", label, "--curve", curve],
    )
    .success();
}

fn issue(dir: &Path, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["its", "cert", "issue", "--start", START, "--format", "json"];
    all.extend_from_slice(args);
    vss_store(dir, PIN, &all).success().json()
}

struct Pki {
    dir: tempfile::TempDir,
}

impl Pki {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn file(&self, name: &str) -> String {
        self.path(name).display().to_string()
    }

    /// root (p384) → aa (p256, PSIDs 36 and 37) → at (p256, PSID 36).
    fn new() -> Self {
        let pki = Pki {
            dir: tempfile::tempdir().expect("tempdir"),
        };
        let store = pki.path("store");
        init_store(&store);
        for (label, curve) in [
            ("root", "p384"),
            ("aa", "p256"),
            ("aa-enc", "p256"),
            ("at", "p256"),
        ] {
            keygen(&store, label, curve);
        }
        let root = issue(
            &store,
            &[
                "--profile",
                "root",
                "--subject-key",
                "root",
                "--name",
                "root.test",
                "--duration",
                "10y",
                "--region",
                "countries:56,250,276",
                "--out",
                &pki.file("root.cert"),
            ],
        );
        assert_eq!(root["profile"], "root");
        assert_eq!(root["start"], START);
        issue(
            &store,
            &[
                "--profile",
                "aa",
                "--subject-key",
                "aa",
                "--encryption-key",
                "aa-enc",
                "--issuer-cert",
                &pki.file("root.cert"),
                "--issuer-key",
                "root",
                "--name",
                "aa.test",
                "--issue-psid",
                "36",
                "--issue-psid",
                "37",
                "--duration",
                "4y",
                "--out",
                &pki.file("aa.cert"),
            ],
        );
        let at = issue(
            &store,
            &[
                "--profile",
                "at",
                "--subject-key",
                "at",
                "--issuer-cert",
                &pki.file("aa.cert"),
                "--issuer-key",
                "aa",
                "--psid",
                "36:01fffc",
                "--duration",
                "7d",
                "--region",
                "countries:56",
                "--out",
                &pki.file("at.cert"),
            ],
        );
        assert_eq!(at["end"], "2026-01-08T00:00:00Z");
        std::fs::write(pki.path("cam.bin"), b"CAM payload").expect("payload");
        pki
    }

    fn sign(&self, out: &str, args: &[&str]) {
        let (payload, out_path) = (self.file("cam.bin"), self.file(out));
        let mut all = vec![
            "its",
            "sign",
            "--label",
            "at",
            "--payload",
            &payload,
            "--out",
            &out_path,
            "--generation-time",
            AT,
        ];
        all.extend_from_slice(args);
        vss_store(&self.path("store"), PIN, &all).success();
    }

    fn verify(&self, file: &str, args: &[&str]) -> common::Run {
        let (path, trust) = (self.file(file), self.file("root.cert"));
        let mut all = vec!["its", "verify", &path, "--trust", &trust, "--at", AT];
        all.extend_from_slice(args);
        vss_run(&all)
    }
}

#[test]
fn a_pki_from_the_store_signs_data_that_verifies() {
    let pki = Pki::new();
    let cert = pki.file("at.cert");
    let aa = pki.file("aa.cert");
    pki.sign(
        "cam.oer",
        &["--cert", &cert, "--psid", "36", "--signer", "certificate"],
    );
    let out = pki.verify("cam.oer", &["--chain", &aa]).success().json();
    assert_eq!(out["verdict"], "Valid", "{out}");
    assert_eq!(out["psid"], 36);
    assert!(out.get("reason").is_none());
    let summary = vss_run(&[
        "its",
        "verify",
        &cert,
        "--as",
        "certificate",
        "--trust",
        &pki.file("root.cert"),
        "--chain",
        &aa,
        "--at",
        AT,
    ])
    .success()
    .json();
    assert_eq!(summary["verdict"], "Valid", "{summary}");
    assert_eq!(summary["certificate"], out["signer"]);

    let decoded = vss_run(&["its", "decode", &pki.file("cam.oer")])
        .success()
        .json();
    assert_eq!(decoded["protocolVersion"], 3, "{decoded}");
    let decoded = vss_run(&["its", "decode", &cert]).success().json();
    assert_eq!(
        decoded["issuer"]["sha256AndDigest"].as_str().map(str::len),
        Some(16),
        "{decoded}"
    );
}

#[test]
fn each_failure_is_a_verdict_and_exit_status_one() {
    let pki = Pki::new();
    let cert = pki.file("at.cert");
    let aa = pki.file("aa.cert");
    // A digest signer the verifier has never seen.
    pki.sign("digest.oer", &["--cert", &cert, "--psid", "36"]);
    let out = pki.verify("digest.oer", &[]).failure().json();
    assert_eq!(out["verdict"], "SignerNotFound");
    // After the ticket's week.
    pki.sign(
        "cam.oer",
        &["--cert", &cert, "--psid", "36", "--signer", "certificate"],
    );
    let path = pki.file("cam.oer");
    let late = vss_run(&[
        "its",
        "verify",
        &path,
        "--trust",
        &pki.file("root.cert"),
        "--chain",
        &aa,
        "--at",
        "2026-02-01T00:00:00Z",
    ])
    .failure()
    .json();
    assert_eq!(late["verdict"], "Expired", "{late}");
    assert_eq!(late["sn_verify_report"], "invalid_certificate", "{late}");
    // One byte of the signature changed.
    let mut bytes = std::fs::read(pki.path("cam.oer")).expect("read");
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(pki.path("bad.oer"), &bytes).expect("write");
    let out = pki.verify("bad.oer", &["--chain", &aa]).failure().json();
    assert_eq!(out["verdict"], "FalseSignature");
    assert_eq!(out["sn_verify_report"], "false_signature");
    // Truncated.
    std::fs::write(pki.path("short.oer"), &bytes[..bytes.len() / 2]).expect("write");
    let out = pki.verify("short.oer", &[]).failure().json();
    assert_eq!(out["verdict"], "Malformed");
    // The root offered as a chain certificate, not trusted.
    let root = pki.file("root.cert");
    let out = vss_run(&[
        "its", "verify", &path, "--chain", &aa, "--chain", &root, "--at", AT,
    ])
    .failure()
    .json();
    assert_eq!(out["verdict"], "UntrustedRoot", "{out}");
}

#[test]
fn bad_requests_are_one_line_errors_and_write_nothing() {
    let pki = Pki::new();
    let store = pki.path("store");
    let out = pki.file("never.cert");
    // An AT asking for a PSID its AA may not grant.
    vss_store(
        &store,
        PIN,
        &[
            "its",
            "cert",
            "issue",
            "--profile",
            "at",
            "--subject-key",
            "at",
            "--issuer-cert",
            &pki.file("aa.cert"),
            "--issuer-key",
            "aa",
            "--psid",
            "138",
            "--duration",
            "1d",
            "--start",
            START,
            "--out",
            &out,
        ],
    )
    .failure()
    .one_line_stderr();
    assert!(!Path::new(&out).exists());
    // An EA without its encryption key; a malformed region; a duration without a unit.
    let root = pki.file("root.cert");
    for args in [
        &["--profile", "ea", "--name", "ea", "--duration", "1y"][..],
        &[
            "--profile",
            "at",
            "--psid",
            "36",
            "--duration",
            "1d",
            "--region",
            "circle:1,2",
        ][..],
        &["--profile", "at", "--psid", "36", "--duration", "7"][..],
    ] {
        let mut all = vec![
            "its",
            "cert",
            "issue",
            "--subject-key",
            "at",
            "--issuer-cert",
            &root,
            "--issuer-key",
            "root",
            "--out",
            &out,
        ];
        all.extend_from_slice(args);
        let run = vss_store(&store, PIN, &all).failure();
        assert!(!Path::new(&out).exists(), "{args:?}");
        run.assert_no_panic();
    }
    // Signing for a PSID the ticket lacks (receivers would answer InsufficientPermissions).
    let (payload, denm) = (pki.file("cam.bin"), pki.file("denm.oer"));
    let at = pki.file("at.cert");
    let err = vss_store(
        &store,
        PIN,
        &[
            "its",
            "sign",
            "--label",
            "at",
            "--cert",
            &at,
            "--psid",
            "37",
            "--payload",
            &payload,
            "--out",
            &denm,
        ],
    )
    .failure()
    .one_line_stderr()
    .stderr;
    assert!(err.contains("does not permit PSID 37"), "{err}");
    assert!(!Path::new(&denm).exists());
    // A certificate file that is not one.
    let garbage = pki.file("cam.bin");
    vss_run(&["its", "decode", &garbage, "--as", "certificate"])
        .failure()
        .one_line_stderr();
    let out = vss_run(&["its", "verify", &garbage, "--as", "certificate"])
        .failure()
        .json();
    assert_eq!(out["verdict"], "Malformed");
}

#[test]
fn data_encrypted_to_the_aa_opens_only_with_its_encryption_key() {
    let pki = Pki::new();
    let store = pki.path("store");
    let (aa, at) = (pki.file("aa.cert"), pki.file("at.cert"));
    let (payload, sealed, opened) = (
        pki.file("cam.bin"),
        pki.file("sealed.oer"),
        pki.file("opened.bin"),
    );
    let out = vss_run(&[
        "its",
        "encrypt",
        "--to",
        &aa,
        "--payload",
        &payload,
        "--out",
        &sealed,
        "--format",
        "json",
    ])
    .success()
    .json();
    assert_eq!(out["content"], "unsecuredData");
    let decoded = vss_run(&["its", "decode", &sealed, "--as", "data"])
        .success()
        .json();
    assert!(
        decoded["content"]["encryptedData"]["recipients"][0]["certRecipInfo"].is_object(),
        "{decoded}"
    );
    let out = vss_store(
        &store,
        PIN,
        &[
            "its",
            "decrypt",
            &sealed,
            "--label",
            "aa-enc",
            "--cert",
            &aa,
            "--payload",
            "--out",
            &opened,
            "--format",
            "json",
        ],
    )
    .success()
    .json();
    assert_eq!(
        out["recipient"],
        decoded["content"]["encryptedData"]["recipients"][0]["certRecipInfo"]["recipientId"]
            .as_str()
            .map(str::to_uppercase)
            .expect("id")
    );
    assert_eq!(
        std::fs::read(&opened).expect("read"),
        std::fs::read(&payload).expect("read")
    );

    // Signed data inside encrypted data: decrypted, it still verifies.
    pki.sign(
        "cam.oer",
        &["--cert", &at, "--psid", "36", "--signer", "certificate"],
    );
    let (signed, inner) = (pki.file("cam.oer"), pki.file("inner.oer"));
    vss_run(&[
        "its", "encrypt", "--to", &aa, "--data", &signed, "--out", &sealed,
    ])
    .success();
    vss_store(
        &store,
        PIN,
        &[
            "its", "decrypt", &sealed, "--label", "aa-enc", "--cert", &aa, "--out", &inner,
        ],
    )
    .success();
    let out = pki.verify("inner.oer", &["--chain", &aa]).success().json();
    assert_eq!(out["verdict"], "Valid");

    // The wrong key, and a certificate without an encryption key: one line, nothing written.
    let never = pki.file("never.bin");
    let err = vss_store(
        &store,
        PIN,
        &[
            "its", "decrypt", &sealed, "--label", "at", "--cert", &aa, "--out", &never,
        ],
    )
    .failure()
    .one_line_stderr()
    .stderr;
    assert!(err.contains("cannot decrypt"), "{err}");
    vss_run(&[
        "its",
        "encrypt",
        "--to",
        &at,
        "--payload",
        &payload,
        "--out",
        &never,
    ])
    .failure()
    .one_line_stderr();
    assert!(!Path::new(&never).exists());
}

#[test]
fn a_validity_past_the_end_of_time32_is_a_one_line_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("store");
    init_store(&store);
    keygen(&store, "root", "p256");
    let out = dir.path().join("root.cert");
    let out = out.display().to_string();
    let root = |start: &str, duration: &str| {
        vss_store(
            &store,
            PIN,
            &[
                "its",
                "cert",
                "issue",
                "--profile",
                "root",
                "--subject-key",
                "root",
                "--name",
                "root.test",
                "--start",
                start,
                "--duration",
                duration,
                "--out",
                &out,
            ],
        )
    };
    // Issue 18: 2026 + 7974 years is past 2140 (and past what RFC 3339 can write).
    for (start, duration) in [
        (START, "7974y"),
        (START, "65535y"),
        (START, "115y"),
        ("2140-02-07T06:28:11Z", "1s"),
        ("2200-01-01T00:00:00Z", "1d"),
    ] {
        let err = root(start, duration).failure().one_line_stderr().stderr;
        assert!(err.contains("past the end of Time32"), "{duration}: {err}");
        assert!(err.contains("2140-02-07T06:28:11Z"), "{duration}: {err}");
        assert!(!Path::new(&out).exists(), "{duration}");
    }
    // Lengths no 1609.2 Duration holds, and starts before 2004, are refused as arguments.
    for (start, duration, why) in [
        (START, "65536y", "65535 years"),
        (START, "99999999999999999999y", "expected a number"),
        (START, "163838d", "fits no 1609.2 Duration"),
        (START, "5é", "the unit is"),
        ("2003-12-31T23:59:59Z", "1d", "before the 1609.2 epoch"),
    ] {
        let err = root(start, duration).failure().stderr;
        assert!(err.contains(why), "{duration}: {err}");
        assert!(!Path::new(&out).exists(), "{duration}");
    }
    // The longest that fits: it ends by 2140.
    let issued = root("2026-01-01T00:00:00Z", "114y").success().stdout;
    assert!(issued.contains("2140-"), "{issued}");
}

#[test]
fn a_forged_generation_time_is_a_verdict_with_exit_status_one() {
    use vss_crypto::{Curve, PrivateKey};
    use vss_its::asn::{Duration, Time64};
    use vss_its::{CertificateRequest, ItsTime, Permission, Profile, SignedDataRequest};

    let dir = tempfile::tempdir().expect("tempdir");
    let start = ItsTime::now();
    let request = |profile, key: &PrivateKey, duration| {
        let mut r = CertificateRequest::new(profile, key.public_key().clone(), duration);
        r.start = start;
        r
    };
    let root_key = PrivateKey::generate(Curve::P256).expect("key");
    let root = vss_its::issue_certificate(
        &request(Profile::Root, &root_key, Duration::Years(1)),
        None,
        &root_key,
    )
    .expect("root");
    let aa_key = PrivateKey::generate(Curve::P256).expect("key");
    let mut aa = request(Profile::Aa, &aa_key, Duration::Years(1));
    aa.encryption_key = Some(aa_key.public_key().clone());
    let aa = vss_its::issue_certificate(&aa, Some(&root), &root_key).expect("aa");
    let at_key = PrivateKey::generate(Curve::P256).expect("key");
    let mut at = request(Profile::At, &at_key, Duration::Hours(24));
    at.app_permissions = vec![Permission::psid(Psid::CAM)];
    let at = vss_its::issue_certificate(&at, Some(&aa), &aa_key).expect("at");
    let mut message = SignedDataRequest::new(Psid::CAM, b"a CAM from the far future");
    // Issue 18: a generationTime whose top byte is 0xFF.
    message.generation_time = Some(ItsTime::from_time64(&Time64(0xFF00_0000_0000_0000)));
    message.signer = vss_its::SignerKind::Certificate;
    let data = vss_its::sign_data(&message, Some(&at), &at_key).expect("sign");
    let path = |name: &str| dir.path().join(name).display().to_string();
    std::fs::write(path("root.cert"), root.bytes()).expect("root");
    std::fs::write(path("aa.cert"), aa.bytes()).expect("aa");
    std::fs::write(
        path("forged.oer"),
        vss_its::encode_data(&data).expect("encode"),
    )
    .expect("msg");

    let (forged, root, aa) = (path("forged.oer"), path("root.cert"), path("aa.cert"));
    let verify = ["its", "verify", &forged, "--trust", &root, "--chain", &aa];
    let run = vss_run(&verify).failure();
    assert_eq!(run.status.code(), Some(1), "{run:?}");
    assert!(run.stderr.is_empty(), "{run:?}");
    assert_eq!(run.stdout.lines().count(), 1, "{run:?}");
    let out = run.json();
    assert_eq!(out["verdict"], "InvalidTimestamp", "{out}");
    assert_eq!(out["signer"], at.hashed_id8().to_string(), "{out}");
    let reason = out["reason"].as_str().expect("a reason");
    assert!(reason.contains("18374686479671623680"), "{reason}");
    // The table writes the same reason.
    let run = vss_run(&[&verify[..], &["--format", "table"]].concat()).failure();
    assert_eq!(run.status.code(), Some(1), "{run:?}");
    assert!(run.stdout.contains("InvalidTimestamp"), "{run:?}");
}
