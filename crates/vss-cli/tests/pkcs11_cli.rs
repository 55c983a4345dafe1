//! `vss` with keys on a PKCS#11 token (SoftHSMv2): init, keys, status, bench, and what is
//! said when the module, the token or the PIN is wrong.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{run, vss, Run};

const MODULE: &str = "/usr/lib/softhsm/libsofthsm2.so";
const PIN: &str = "246810";
const SO_PIN: &str = "13579135";

/// A private SoftHSM token directory for one test; every `vss` run is pointed at it.
struct SoftHsmDir {
    dir: tempfile::TempDir,
}

impl SoftHsmDir {
    fn new() -> Self {
        assert!(
            Path::new(MODULE).is_file(),
            "{MODULE} is missing: install softhsm2 (scripts/test does)"
        );
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("tokens")).expect("tokens");
        std::fs::write(
            dir.path().join("softhsm2.conf"),
            format!(
                "directories.tokendir = {}\nlog.level = ERROR\n",
                dir.path().join("tokens").display()
            ),
        )
        .expect("conf");
        SoftHsmDir { dir }
    }

    fn vss(&self, pin: &str) -> Command {
        let mut cmd = vss();
        cmd.env("SOFTHSM2_CONF", self.dir.path().join("softhsm2.conf"))
            .env("VSS_PIN", pin)
            .env("VSS_SO_PIN", SO_PIN);
        cmd
    }

    fn store(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn init(&self, store: &Path, label: &str) -> Run {
        run(self
            .vss(PIN)
            .args(["hsm", "init", "--backend", "pkcs11", "--token-label", label])
            .arg("--store")
            .arg(store))
    }
}

#[test]
fn keys_live_on_the_token_through_the_same_commands() {
    let hsm = SoftHsmDir::new();
    let store = hsm.store("store");
    hsm.init(&store, "vss-token").success();
    for (label, curve, len) in [("a", "p224", 57), ("b", "bp256", 65), ("c", "p384", 97)] {
        run(hsm
            .vss(PIN)
            .args([
                "keys", "generate", "--label", label, "--curve", curve, "--store",
            ])
            .arg(&store))
        .success();
        let public = run(hsm
            .vss(PIN)
            .args(["keys", "export-public", "--label", label, "--store"])
            .arg(&store))
        .success();
        assert_eq!(
            public.stdout.trim().len(),
            2 * len,
            "{curve}: {}",
            public.stdout
        );
    }
    let listed = run(hsm
        .vss(PIN)
        .args(["keys", "list", "--format", "json", "--store"])
        .arg(&store))
    .success()
    .json();
    let labels: Vec<&str> = listed
        .as_array()
        .expect("array")
        .iter()
        .map(|k| k["label"].as_str().expect("label"))
        .collect();
    assert_eq!(labels, ["a", "b", "c"]);
    let status = run(hsm
        .vss(PIN)
        .args(["hsm", "status", "--format", "json", "--store"])
        .arg(&store))
    .success()
    .json();
    assert_eq!(status["backend"], "pkcs11");
    assert_eq!(status["token_label"], "vss-token");
    assert_eq!(status["pin_locked"], false);

    // A second store on the existing token needs no SO PIN and sees the same keys.
    let second = hsm.store("second");
    run(hsm
        .vss(PIN)
        .env_remove("VSS_SO_PIN")
        .args([
            "hsm",
            "init",
            "--backend",
            "pkcs11",
            "--token-label",
            "vss-token",
            "--store",
        ])
        .arg(&second))
    .success();
    let again = run(hsm
        .vss(PIN)
        .args(["keys", "list", "--format", "json", "--store"])
        .arg(&second))
    .success()
    .json();
    assert_eq!(again, listed);
}

#[test]
fn wrong_pin_absent_token_and_missing_module_are_named() {
    let hsm = SoftHsmDir::new();
    let store = hsm.store("store");
    hsm.init(&store, "named").success();
    let wrong = run(hsm
        .vss("000000")
        .args(["keys", "list", "--store"])
        .arg(&store))
    .failure()
    .one_line_stderr();
    assert!(wrong.stderr.contains("wrong PIN"), "{}", wrong.stderr);

    std::fs::remove_dir_all(hsm.dir.path().join("tokens")).expect("remove tokens");
    std::fs::create_dir(hsm.dir.path().join("tokens")).expect("tokens");
    let absent = run(hsm.vss(PIN).args(["keys", "list", "--store"]).arg(&store))
        .failure()
        .one_line_stderr();
    assert!(absent.stderr.contains("'named'"), "{}", absent.stderr);

    let missing = run(hsm
        .vss(PIN)
        .args(["hsm", "init", "--backend", "pkcs11", "--token-label", "x"])
        .args(["--module", "/nonexistent/module.so", "--store"])
        .arg(hsm.store("other")))
    .failure()
    .one_line_stderr();
    assert!(
        missing.stderr.contains("/nonexistent/module.so"),
        "{}",
        missing.stderr
    );
    assert!(
        !hsm.store("other").exists(),
        "nothing is written when init fails"
    );

    let no_label = run(hsm
        .vss(PIN)
        .args(["hsm", "init", "--backend", "pkcs11", "--store"])
        .arg(hsm.store("third")))
    .failure()
    .one_line_stderr();
    assert!(
        no_label.stderr.contains("--token-label"),
        "{}",
        no_label.stderr
    );
}

#[test]
fn init_refuses_a_non_empty_directory_before_touching_the_token() {
    let hsm = SoftHsmDir::new();
    let store = hsm.store("busy");
    std::fs::create_dir(&store).expect("dir");
    std::fs::write(store.join("notes.txt"), "mine").expect("file");
    hsm.init(&store, "untouched").failure().one_line_stderr();
    let tokens = std::fs::read_dir(hsm.dir.path().join("tokens"))
        .expect("tokens")
        .count();
    assert_eq!(tokens, 0, "no token was initialised");
}

#[test]
fn the_benchmark_signs_on_a_throw_away_token() {
    let hsm = SoftHsmDir::new();
    let report = run(hsm.vss(PIN).args([
        "bench",
        "sign-verify",
        "--hsm",
        "pkcs11",
        "--curve",
        "p256",
        "--runs",
        "2",
        "--ops",
        "20",
        "--format",
        "json",
    ]))
    .success()
    .json();
    assert_eq!(report["hsm"], "pkcs11");
    assert_eq!(report["success"], true);
    let names: Vec<&str> = report["references"]
        .as_array()
        .expect("references")
        .iter()
        .map(|r| r["name"].as_str().expect("name"))
        .collect();
    assert!(
        names.iter().any(|n| n.contains("PRESERVE FPGA")),
        "{names:?}"
    );
}

#[test]
fn kem_decapsulates_with_the_key_on_the_token() {
    let hsm = SoftHsmDir::new();
    let store = hsm.store("store");
    hsm.init(&store, "vss-kem").success();
    for (scheme, curve) in [
        ("psec-kem", "k283"),
        ("ecies-kem", "b283"),
        ("ecies-1609", "p256"),
    ] {
        let label = format!("kem-{curve}");
        let generated = run(hsm
            .vss(PIN)
            .args(["kem", "keygen", "--scheme", scheme, "--curve", curve])
            .args(["--label", &label, "--format", "json", "--store"])
            .arg(&store))
        .success()
        .json();
        let public = generated["public_key"].as_str().expect("public key");
        let sent = run(vss().args([
            "kem",
            "encap",
            "--scheme",
            scheme,
            "--curve",
            curve,
            "--public-key",
            public,
        ]))
        .success()
        .json();
        let ciphertext = sent["ciphertext"].as_str().expect("ciphertext");
        let decap = |ciphertext: &str| {
            run(hsm
                .vss(PIN)
                .args(["kem", "decap", "--scheme", scheme, "--label", &label])
                .args(["--ciphertext", ciphertext, "--store"])
                .arg(&store))
        };
        let got = decap(ciphertext).success().json();
        assert_eq!(got["key"], sent["key"], "{scheme} on {curve}");
        // A truncated ciphertext gets one clear line and no key.
        let r = decap(&ciphertext[..ciphertext.len() - 2])
            .failure()
            .one_line_stderr();
        assert!(r.stdout.is_empty(), "{r:?}");
    }
}
