//! `libvss_pkcs11.so` under OpenSC's `pkcs11-tool` (Debian package `opensc`), the client
//! most people try a module with first; signatures checked by the `openssl` command.
//!
//! Without `pkcs11-tool` these tests say why on stderr and skip, unless
//! `VSS_REQUIRE_PKCS11_TOOL` is set (as `scripts/test` does), when that is a failure.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{module_path, Store, PIN};

/// `pkcs11-tool` on the PATH, or `None` after saying the test is skipped.
fn pkcs11_tool(test: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("pkcs11-tool"))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        assert!(
            std::env::var_os("VSS_REQUIRE_PKCS11_TOOL").is_none(),
            "{test}: VSS_REQUIRE_PKCS11_TOOL is set but pkcs11-tool is missing (apt-get install opensc)"
        );
        eprintln!("skipping {test}: pkcs11-tool is not installed (apt-get install opensc)");
    }
    found
}

/// Runs `pkcs11-tool --module libvss_pkcs11.so ARGS` against `store`.
fn run(tool: &Path, store: &Store, args: &[&str]) -> Output {
    let out = Command::new(tool)
        .arg("--module")
        .arg(module_path())
        .args(args)
        .env("VSS_STORE", store.path())
        .output()
        .expect("run pkcs11-tool");
    eprintln!(
        "pkcs11-tool {args:?}: {}\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn succeeds(tool: &Path, store: &Store, args: &[&str]) -> String {
    let out = run(tool, store, args);
    assert!(out.status.success(), "pkcs11-tool {args:?} failed");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn pkcs11_tool_generates_a_key_its_self_test_passes_and_openssl_verifies_its_signature() {
    let Some(tool) = pkcs11_tool("pkcs11_tool_generates_a_key…") else {
        return;
    };
    let store = Store::new();
    let login = ["--login", "--pin", PIN];

    let info = succeeds(&tool, &store, &["--list-token-slots"]);
    assert!(info.contains("VSS"), "{info}");
    let mechanisms = succeeds(&tool, &store, &["--list-mechanisms"]);
    for m in [
        "ECDSA-SHA256",
        "ECDSA-SHA384",
        "ECDSA,",
        "ECDSA-KEY-PAIR-GEN",
    ] {
        assert!(mechanisms.contains(m), "{m} missing: {mechanisms}");
    }

    let args = [
        &login[..],
        &[
            "--keypairgen",
            "--key-type",
            "EC:prime256v1",
            "--label",
            "x",
        ],
    ]
    .concat();
    succeeds(&tool, &store, &args);
    assert_eq!(store.labels(), ["x"]);
    let objects = succeeds(&tool, &store, &[&login[..], &["--list-objects"]].concat());
    assert!(objects.contains("Private Key Object; EC"), "{objects}");
    assert!(objects.contains("Public Key Object; EC"), "{objects}");

    let test = run(&tool, &store, &[&login[..], &["--test"]].concat());
    let said = String::from_utf8_lossy(&test.stdout);
    assert!(test.status.success(), "pkcs11-tool --test failed: {said}");
    assert!(said.contains("No errors"), "{said}");

    let dir = store.scratch();
    let message = dir.join("message");
    std::fs::write(&message, b"offload this handshake").expect("message");
    let signature = dir.join("signature.der");
    let public = dir.join("public.der");
    let path = |p: &Path| p.to_str().expect("utf-8 path").to_owned();
    succeeds(
        &tool,
        &store,
        &[
            &login[..],
            &[
                "--sign",
                "--mechanism",
                "ECDSA-SHA256",
                "--label",
                "x",
                "--signature-format",
                "openssl",
                "--input-file",
                &path(&message),
                "--output-file",
                &path(&signature),
            ],
        ]
        .concat(),
    );
    succeeds(
        &tool,
        &store,
        &[
            &login[..],
            &[
                "--read-object",
                "--type",
                "pubkey",
                "--label",
                "x",
                "--output-file",
                &path(&public),
            ],
        ]
        .concat(),
    );
    let verified = Command::new("openssl")
        .args(["dgst", "-sha256", "-keyform", "DER", "-verify"])
        .arg(&public)
        .arg("-signature")
        .arg(&signature)
        .arg(&message)
        .output()
        .expect("run openssl");
    assert!(
        verified.status.success()
            && String::from_utf8_lossy(&verified.stdout).contains("Verified OK"),
        "openssl dgst -verify: {verified:?}"
    );
}

#[test]
fn pkcs11_tool_with_a_wrong_pin_fails_and_costs_a_try() {
    let Some(tool) = pkcs11_tool("pkcs11_tool_with_a_wrong_pin_fails_and_costs_a_try") else {
        return;
    };
    let store = Store::new();
    let out = run(
        &tool,
        &store,
        &["--login", "--pin", "4321", "--list-objects"],
    );
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("CKR_PIN_INCORRECT"),
        "{out:?}"
    );
    assert_eq!(store.pin_tries_left(), 2);
}
