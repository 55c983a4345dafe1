//! The key store through the `vss` command line: init, generate, list, export, delete, the
//! PIN retry counter and the PUK, PINs from the environment, from files and from nowhere.

mod common;

use std::path::Path;

use common::{init_store, run, vss, vss_store, PIN, PUK};
use serde_json::json;
use vss_crypto::{Curve, PublicKey};

fn status_json(dir: &Path) -> serde_json::Value {
    run(vss()
        .args(["hsm", "status", "--format", "json", "--store"])
        .arg(dir))
    .success()
    .json()
}

fn export(dir: &Path, pin: &str, label: &str, compressed: bool) -> common::Run {
    let mut args = vec!["keys", "export-public", "--label", label];
    if compressed {
        args.push("--compressed");
    }
    vss_store(dir, pin, &args)
}

#[test]
fn generate_list_export_delete_with_the_pin_in_the_environment() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("store");
    init_store(&dir);

    let generated = vss_store(
        &dir,
        PIN,
        &[
            "keys", "generate", "--label", "a", "--curve", "p384", "--format", "json",
        ],
    )
    .success()
    .json();
    assert_eq!(
        generated,
        json!([{"label": "a", "algorithm": "p384", "curve": "p384"}])
    );

    let listed = vss_store(&dir, PIN, &["keys", "list", "--format", "json"])
        .success()
        .json();
    assert_eq!(
        listed,
        json!([{"label": "a", "algorithm": "p384", "curve": "p384"}])
    );
    let table = vss_store(&dir, PIN, &["keys", "list"]).success();
    assert!(
        table
            .stdout
            .lines()
            .any(|l| l.starts_with("a ") && l.ends_with("p384")),
        "{}",
        table.stdout
    );

    let full = export(&dir, PIN, "a", false).success();
    let full_hex = full.stdout.trim();
    assert_eq!(full.stdout, format!("{full_hex}\n"), "one line of hex");
    let full = hex::decode(full_hex).expect("uncompressed key is hex");
    assert_eq!(full.len(), 97, "uncompressed P-384 point");
    assert_eq!(full[0], 0x04);

    let short = export(&dir, PIN, "a", true).success();
    let short = hex::decode(short.stdout.trim()).expect("compressed key is hex");
    assert_eq!(short.len(), 49, "compressed P-384 point");
    assert!(matches!(short[0], 0x02 | 0x03), "{:02x}", short[0]);
    assert_eq!(&short[1..], &full[1..49], "same x coordinate");
    assert_eq!(short[0] & 1, full[96] & 1, "prefix carries the parity of y");
    // Both forms are one valid point.
    assert_eq!(
        PublicKey::from_sec1(Curve::P384, &short).expect("compressed point"),
        PublicKey::from_sec1(Curve::P384, &full).expect("uncompressed point")
    );

    // A second key with the same label is refused and the first one is kept.
    vss_store(&dir, PIN, &["keys", "generate", "--label", "a"])
        .failure()
        .one_line_stderr();
    let again = export(&dir, PIN, "a", false).success();
    assert_eq!(hex::decode(again.stdout.trim()).expect("hex"), full);

    let deleted = vss_store(&dir, PIN, &["keys", "delete", "--label", "a"]).success();
    assert!(deleted.stderr.contains("'a'"), "{}", deleted.stderr);
    let listed = vss_store(&dir, PIN, &["keys", "list", "--format", "json"])
        .success()
        .json();
    assert_eq!(listed, json!([]));

    for compressed in [false, true] {
        let gone = export(&dir, PIN, "a", compressed)
            .failure()
            .one_line_stderr();
        assert!(gone.stdout.is_empty(), "{gone:?}");
        assert!(
            gone.stderr.contains("'a'"),
            "names the label: {}",
            gone.stderr
        );
    }
    let twice = vss_store(&dir, PIN, &["keys", "delete", "--label", "a"])
        .failure()
        .one_line_stderr();
    assert!(twice.stderr.contains("'a'"), "{}", twice.stderr);

    // Nothing above used up a PIN try.
    let status = status_json(&dir);
    assert_eq!(status["pin_tries_left"], 3, "{status}");
    assert_eq!(status["puk_tries_left"], 10, "{status}");
    assert_eq!(status["backend"], "soft", "{status}");
}

#[test]
fn pin_and_puk_files_and_the_store_variable() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("store");
    let pin_file = tmp.path().join("pin");
    let puk_file = tmp.path().join("puk");
    // The first line is the secret; CRLF and later lines are not part of it.
    std::fs::write(&pin_file, format!("{PIN}\r\nsecond line\n")).expect("write PIN file");
    std::fs::write(&puk_file, PUK).expect("write PUK file");

    run(vss()
        .args(["hsm", "init", "--store"])
        .arg(&dir)
        .arg("--pin-file")
        .arg(&pin_file)
        .arg("--puk-file")
        .arg(&puk_file))
    .success();

    // The file wins over the variable.
    run(vss()
        .args([
            "keys", "generate", "--label", "f", "--curve", "bp256", "--store",
        ])
        .arg(&dir)
        .arg("--pin-file")
        .arg(&pin_file)
        .env("VSS_PIN", "wrong"))
    .success();
    assert_eq!(status_json(&dir)["pin_tries_left"], 3);

    // The PIN of the file is the PIN of the environment.
    let listed = vss_store(&dir, PIN, &["keys", "list", "--format", "json"])
        .success()
        .json();
    assert_eq!(
        listed,
        json!([{"label": "f", "algorithm": "bp256", "curve": "bp256"}])
    );

    // VSS_STORE stands in for --store.
    let listed = run(vss()
        .args(["keys", "list", "--format", "json", "--pin-file"])
        .arg(&pin_file)
        .env("VSS_STORE", &dir))
    .success()
    .json();
    assert_eq!(
        listed,
        json!([{"label": "f", "algorithm": "bp256", "curve": "bp256"}])
    );

    // A PIN file that does not exist is named in the error, and costs no try.
    let missing = tmp.path().join("no-such-pin-file");
    let r = run(vss()
        .args(["keys", "list", "--store"])
        .arg(&dir)
        .arg("--pin-file")
        .arg(&missing)
        .env("VSS_PIN", PIN))
    .failure()
    .one_line_stderr();
    assert!(r.stderr.contains("no-such-pin-file"), "{}", r.stderr);
    assert_eq!(status_json(&dir)["pin_tries_left"], 3);

    // change-pin with files: old PIN from --pin-file, new one from --new-pin-file.
    let new_pin_file = tmp.path().join("new-pin");
    std::fs::write(&new_pin_file, "24680\n").expect("write new PIN file");
    run(vss()
        .args(["hsm", "change-pin", "--store"])
        .arg(&dir)
        .arg("--pin-file")
        .arg(&pin_file)
        .arg("--new-pin-file")
        .arg(&new_pin_file))
    .success();
    vss_store(&dir, PIN, &["keys", "list"]).failure();
    vss_store(&dir, "24680", &["keys", "list"]).success();
}

/// `vss keys list --store DIR --pin-file FILE`, in a shell whose address space is capped at
/// 2 GiB: a PIN file read without a bound (`/dev/zero`) fails at the cap instead of taking
/// the machine's memory.
fn list_with_pin_file(dir: &Path, pin_file: &Path) -> common::Run {
    run(std::process::Command::new("sh")
        .args(["-c", "ulimit -v 2097152 && exec \"$@\"", "sh"])
        .arg(env!("CARGO_BIN_EXE_vss"))
        .args(["keys", "list", "--store"])
        .arg(dir)
        .arg("--pin-file")
        .arg(pin_file)
        .env_remove("VSS_PIN")
        .stdin(std::process::Stdio::null()))
}

#[test]
fn a_blank_or_unbounded_pin_is_refused_and_costs_no_try() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("store");
    init_store(&dir);
    let blank = tmp.path().join("blank-pin");
    std::fs::write(&blank, format!("\n{PIN}\n")).expect("write");
    let oversized = tmp.path().join("oversized-pin");
    std::fs::write(&oversized, [b'1'; 4096]).expect("write");
    let cases = [
        (blank.as_path(), "the PIN is empty"),
        (Path::new("/dev/zero"), "longer than 1024 bytes"),
        (oversized.as_path(), "longer than 1024 bytes"),
    ];
    for _ in 0..2 {
        for (pin_file, why) in cases {
            let r = list_with_pin_file(&dir, pin_file)
                .failure()
                .one_line_stderr();
            assert!(r.stderr.contains(why), "{pin_file:?}: {}", r.stderr);
            assert!(
                r.stderr.contains(&pin_file.display().to_string()),
                "{pin_file:?}: {}",
                r.stderr
            );
        }
    }
    // An empty PIN from the environment, or an empty PUK, is refused as well.
    let r = vss_store(&dir, "", &["keys", "list"])
        .failure()
        .one_line_stderr();
    assert!(r.stderr.contains("the PIN is empty"), "{}", r.stderr);
    let r = run(vss()
        .args(["hsm", "unblock", "--store"])
        .arg(&dir)
        .env("VSS_PUK", "")
        .env("VSS_NEW_PIN", "4321"))
    .failure()
    .one_line_stderr();
    assert!(r.stderr.contains("the PUK is empty"), "{}", r.stderr);
    // More refusals than there are tries, and not one was counted.
    let status = status_json(&dir);
    assert_eq!(status["pin_tries_left"], 3, "{status}");
    assert_eq!(status["puk_tries_left"], 10, "{status}");
    vss_store(&dir, PIN, &["keys", "list"]).success();
}

#[test]
fn three_wrong_pins_block_and_the_puk_unblocks() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("store");
    init_store(&dir);
    vss_store(&dir, PIN, &["keys", "generate", "--label", "kept"]).success();

    for (tries_left, word) in [(2, "tries"), (1, "try"), (0, "tries")] {
        let r = vss_store(&dir, "wrong", &["keys", "list"])
            .failure()
            .one_line_stderr();
        assert!(r.stdout.is_empty(), "{r:?}");
        assert!(
            r.stderr.contains(&format!("{tries_left} {word} left")),
            "expected {tries_left} {word} left: {}",
            r.stderr
        );
        if tries_left == 0 {
            assert!(r.stderr.contains("blocked"), "{}", r.stderr);
        }
        assert_eq!(status_json(&dir)["pin_tries_left"], tries_left);
    }

    // Blocked: the right PIN is refused too, and the refusal says so.
    let r = vss_store(&dir, PIN, &["keys", "list"])
        .failure()
        .one_line_stderr();
    assert!(r.stderr.contains("blocked"), "{}", r.stderr);
    let status = status_json(&dir);
    assert_eq!(status["pin_tries_left"], 0, "{status}");
    assert_eq!(status["puk_tries_left"], 10, "{status}");

    // A wrong PUK costs a PUK try and unblocks nothing.
    let r = run(vss()
        .args(["hsm", "unblock", "--store"])
        .arg(&dir)
        .env("VSS_PUK", "87654321")
        .env("VSS_NEW_PIN", "4321"))
    .failure()
    .one_line_stderr();
    assert!(r.stderr.contains("9 tries left"), "{}", r.stderr);
    let status = status_json(&dir);
    assert_eq!(
        (&status["pin_tries_left"], &status["puk_tries_left"]),
        (&json!(0), &json!(9)),
        "{status}"
    );

    run(vss()
        .args(["hsm", "unblock", "--store"])
        .arg(&dir)
        .env("VSS_PUK", PUK)
        .env("VSS_NEW_PIN", "4321"))
    .success();
    let status = status_json(&dir);
    assert_eq!(
        (&status["pin_tries_left"], &status["puk_tries_left"]),
        (&json!(3), &json!(10)),
        "{status}"
    );

    // The old PIN is gone; the new one opens the same keys.
    let r = vss_store(&dir, PIN, &["keys", "list"])
        .failure()
        .one_line_stderr();
    assert!(r.stderr.contains("2 tries left"), "{}", r.stderr);
    let listed = vss_store(&dir, "4321", &["keys", "list", "--format", "json"])
        .success()
        .json();
    assert_eq!(
        listed,
        json!([{"label": "kept", "algorithm": "p256", "curve": "p256"}])
    );
    assert_eq!(status_json(&dir)["pin_tries_left"], 3, "a right PIN resets");
}

#[test]
fn init_refuses_a_non_empty_directory_and_an_existing_store() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let busy = tmp.path().join("busy");
    std::fs::create_dir(&busy).expect("mkdir");
    std::fs::write(busy.join("notes.txt"), "keep me").expect("write");
    let r = run(vss()
        .args(["hsm", "init", "--store"])
        .arg(&busy)
        .env("VSS_PIN", PIN)
        .env("VSS_PUK", PUK))
    .failure()
    .one_line_stderr();
    assert!(r.stderr.contains("not empty"), "{}", r.stderr);
    let names: Vec<_> = std::fs::read_dir(&busy)
        .expect("list")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names, ["notes.txt"], "the directory is left as it was");
    assert_eq!(
        std::fs::read_to_string(busy.join("notes.txt")).expect("read"),
        "keep me"
    );

    // Initialising an existing store again fails and leaves it usable with its PIN.
    let dir = tmp.path().join("store");
    init_store(&dir);
    vss_store(&dir, PIN, &["keys", "generate", "--label", "k"]).success();
    let r = run(vss()
        .args(["hsm", "init", "--store"])
        .arg(&dir)
        .env("VSS_PIN", "9999")
        .env("VSS_PUK", "99999999"))
    .failure()
    .one_line_stderr();
    assert!(r.stderr.contains("not empty"), "{}", r.stderr);
    let listed = vss_store(&dir, PIN, &["keys", "list", "--format", "json"])
        .success()
        .json();
    assert_eq!(
        listed,
        json!([{"label": "k", "algorithm": "p256", "curve": "p256"}])
    );

    // A directory that is no store is reported as such.
    let r = vss_store(&tmp.path().join("nowhere"), PIN, &["keys", "list"])
        .failure()
        .one_line_stderr();
    assert!(r.stderr.contains("vss hsm init"), "{}", r.stderr);
}

#[test]
fn a_refused_weak_pin_or_puk_leaves_the_directory_free_for_a_retry() {
    let tmp = tempfile::tempdir().expect("tempdir");
    for (pin, puk, named) in [("12", PUK, "PIN"), (PIN, "1234", "PUK")] {
        let dir = tmp.path().join(format!("weak-{named}"));
        let r = run(vss()
            .args(["hsm", "init", "--store"])
            .arg(&dir)
            .env("VSS_PIN", pin)
            .env("VSS_PUK", puk))
        .failure()
        .one_line_stderr();
        assert!(r.stderr.contains(named), "{}", r.stderr);
        let left: Vec<_> = std::fs::read_dir(&dir)
            .map(|d| d.map(|e| e.expect("entry").file_name()).collect())
            .unwrap_or_default();
        assert!(
            left.is_empty(),
            "a refused init must leave nothing behind (it left {left:?}), \
             or a retry with a good {named} is refused as 'not empty'"
        );
        init_store(&dir);
    }
}

#[test]
fn no_pin_anywhere_and_no_terminal_is_a_clear_error() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("store");
    init_store(&dir);
    for args in [
        &["keys", "list"][..],
        &["keys", "generate", "--label", "x"],
        &["keys", "export-public", "--label", "x"],
        &["keys", "delete", "--label", "x"],
        &["hsm", "change-pin"],
    ] {
        let r = run(vss().args(args).arg("--store").arg(&dir))
            .failure()
            .one_line_stderr();
        assert!(
            r.stderr.contains("no PIN") && r.stderr.contains("VSS_PIN"),
            "{args:?}: {}",
            r.stderr
        );
    }
    // The same with stdin a pipe rather than /dev/null.
    let r = run(vss()
        .args(["keys", "list", "--store"])
        .arg(&dir)
        .stdin(std::process::Stdio::piped()))
    .failure()
    .one_line_stderr();
    assert!(r.stderr.contains("no PIN"), "{}", r.stderr);

    let r = run(vss()
        .args(["hsm", "unblock", "--store"])
        .arg(&dir)
        .env("VSS_NEW_PIN", "4321"))
    .failure()
    .one_line_stderr();
    assert!(
        r.stderr.contains("no PUK") && r.stderr.contains("VSS_PUK"),
        "{}",
        r.stderr
    );
    let r = run(vss()
        .args(["hsm", "unblock", "--store"])
        .arg(&dir)
        .env("VSS_PUK", PUK))
    .failure()
    .one_line_stderr();
    assert!(
        r.stderr.contains("no new PIN") && r.stderr.contains("VSS_NEW_PIN"),
        "{}",
        r.stderr
    );
    let fresh = tmp.path().join("fresh");
    let r = run(vss().args(["hsm", "init", "--store"]).arg(&fresh))
        .failure()
        .one_line_stderr();
    assert!(r.stderr.contains("no PIN"), "{}", r.stderr);
    let r = run(vss()
        .args(["hsm", "init", "--store"])
        .arg(&fresh)
        .env("VSS_PIN", PIN))
    .failure()
    .one_line_stderr();
    assert!(r.stderr.contains("no PUK"), "{}", r.stderr);

    // None of that used a PIN try.
    assert!(!fresh.exists(), "a refused init creates nothing");

    // None of that used a PIN try.
    assert_eq!(status_json(&dir)["pin_tries_left"], 3);
}

#[test]
fn hostile_labels_are_refused_in_one_escaped_bounded_line() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("store");
    init_store(&dir);
    let long = "L".repeat(10_000);
    for label in [long.as_str(), "\u{1b}]0;owned\u{7}\u{1b}[2J", "a\nb"] {
        for command in [
            &["keys", "generate", "--label"][..],
            &["keys", "delete", "--label"],
        ] {
            let mut args = command.to_vec();
            args.push(label);
            let out = vss_store(&dir, PIN, &args).failure().one_line_stderr();
            let line = out.stderr.trim_end_matches('\n');
            assert!(!line.chars().any(char::is_control), "{line:?}");
            assert!(line.len() < 400, "{} bytes: {line:.80}", line.len());
            assert!(line.contains("invalid key label"), "{line}");
        }
    }
    // Nothing was written, and no try was spent.
    let listed = vss_store(&dir, PIN, &["keys", "list", "--format", "json"])
        .success()
        .json();
    assert_eq!(listed, json!([]));
    assert_eq!(status_json(&dir)["pin_tries_left"], 3);
}
