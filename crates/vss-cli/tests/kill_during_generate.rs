//! SIGKILL in the middle of `vss keys generate --count N` and in the middle of the PIN check:
//! afterwards the store opens, lists every key that was completed, and every listed key signs
//! and verifies; leftover `.tmp-` files break nothing.
#![cfg(unix)]

mod common;

use std::collections::BTreeSet;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::{init_store, run, vss, vss_store, PIN};
use vss_crypto::{Curve, HashAlg, PublicKey};

const TEMP_PREFIX: &str = ".tmp-";
const COUNT: usize = 500;
const TIMEOUT: Duration = Duration::from_secs(30);

/// Completed key files and leftover temporary files in `DIR/keys`.
fn key_files(dir: &Path) -> (Vec<String>, Vec<String>) {
    let mut done = Vec::new();
    let mut temp = Vec::new();
    for entry in std::fs::read_dir(dir.join("keys")).expect("keys directory") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if name.starts_with(TEMP_PREFIX) {
            temp.push(name);
        } else {
            done.push(name);
        }
    }
    (done, temp)
}

fn kill(mut child: Child, what: &str) {
    child.kill().expect("send SIGKILL");
    let status = child.wait().expect("reap vss");
    assert_eq!(
        status.signal(),
        Some(9),
        "{what}: vss must have been killed, not have exited ({status})"
    );
}

/// Starts `keys generate --count COUNT`, kills it once `at_least` key files exist (plus a
/// short spin that varies the moment within a write), and returns how many files it saw.
fn generate_then_kill(dir: &Path, at_least: usize, spin: Duration) -> usize {
    let child = vss()
        .args([
            "keys", "generate", "--label", "k", "--curve", "p256", "--count",
        ])
        .arg(COUNT.to_string())
        .arg("--store")
        .arg(dir)
        .env("VSS_PIN", PIN)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn vss keys generate");
    let mut child = child;
    let started = Instant::now();
    let seen = loop {
        let (done, _) = key_files(dir);
        if done.len() >= at_least {
            break done.len();
        }
        if let Some(status) = child.try_wait().expect("poll vss") {
            panic!(
                "vss keys generate ended ({status}) after {} keys, before the kill at {at_least}",
                done.len()
            );
        }
        assert!(
            started.elapsed() < TIMEOUT,
            "only {} keys after {TIMEOUT:?}",
            done.len()
        );
        std::thread::sleep(Duration::from_micros(100));
    };
    let spin_until = Instant::now() + spin;
    while Instant::now() < spin_until {
        std::hint::spin_loop();
    }
    kill(child, &format!("kill after {at_least} keys"));
    seen
}

/// Every check the store must pass after a kill; `seen` keys were complete before the kill.
fn check_store_after_kill(dir: &Path, seen: usize) {
    let (done, temp) = key_files(dir);
    eprintln!(
        "killed with {seen} keys seen: {} complete, temporary files left {temp:?}",
        done.len()
    );
    assert!(
        temp.len() <= 1,
        "one write at a time: at most one temporary file can be left, found {temp:?}"
    );
    assert!(done.len() >= seen && done.len() < COUNT, "{}", done.len());

    // A crash could have left more temporary files, also half-written ones: add some.
    std::fs::write(
        dir.join("keys")
            .join(format!("{TEMP_PREFIX}k-9999.key-00112233aabbccdd")),
        b"{\"version\":1,\"lab",
    )
    .expect("write a stray key temp file");
    std::fs::write(
        dir.join("keys")
            .join(format!("{TEMP_PREFIX}k-0.key-ffeeddccbbaa9988")),
        b"",
    )
    .expect("write an empty stray temp file");
    std::fs::write(
        dir.join(format!("{TEMP_PREFIX}soft-store.json-0123456789abcdef")),
        b"{\"version\":1,\"kdf\":",
    )
    .expect("write a stray state temp file");

    let listed = vss_store(dir, PIN, &["keys", "list", "--format", "json"])
        .success()
        .json();
    let listed = listed.as_array().expect("a JSON array of keys");
    let labels: BTreeSet<String> = listed
        .iter()
        .map(|k| {
            assert_eq!(k["curve"], "p256", "{k}");
            k["label"].as_str().expect("label").to_owned()
        })
        .collect();
    assert_eq!(labels.len(), listed.len(), "labels are unique");
    assert!(
        labels.len() >= seen,
        "{} keys listed, {seen} were on disk before the kill",
        labels.len()
    );
    // Keys are generated in order, so the completed ones are k-0 … k-(m-1).
    let expected: BTreeSet<String> = (0..labels.len()).map(|i| format!("k-{i}")).collect();
    assert_eq!(labels, expected);
    assert_eq!(labels.len(), done.len(), "list shows exactly the key files");

    let status = run(vss()
        .args(["hsm", "status", "--format", "json", "--store"])
        .arg(dir))
    .success()
    .json();
    assert_eq!(status["pin_tries_left"], 3, "{status}");

    // Every listed key signs, and the signature verifies under its public key.
    let hsm = vss_hsm::open(dir, PIN).expect("the store opens after the kill");
    let keys = hsm.keys().expect("keys");
    assert_eq!(
        keys.iter()
            .map(|k| k.label.clone())
            .collect::<BTreeSet<_>>(),
        labels
    );
    for key in &keys {
        let digest = HashAlg::Sha256.digest(key.label.as_bytes());
        let signature = hsm
            .sign_digest(&key.handle, &digest)
            .unwrap_or_else(|e| panic!("{} cannot sign after the kill: {e}", key.label));
        let public = hsm.public_key(&key.handle).expect("public key");
        let verifier = public.verifying_key().expect("verifier");
        assert!(
            verifier.verify_digest(&digest, &signature),
            "{}: signature does not verify",
            key.label
        );
        assert!(
            !verifier.verify_digest(&HashAlg::Sha256.digest(b"other"), &signature),
            "{}: signature verifies for another digest",
            key.label
        );
    }

    // The command line exports the same public keys (first and last key).
    for key in [keys.first(), keys.last()].into_iter().flatten() {
        let out = vss_store(dir, PIN, &["keys", "export-public", "--label", &key.label]).success();
        let exported =
            PublicKey::from_sec1(Curve::P256, &hex::decode(out.stdout.trim()).expect("hex"))
                .expect("a P-256 point");
        assert_eq!(exported, hsm.public_key(&key.handle).expect("public key"));
    }
    drop(hsm);

    // The store still takes new keys, and still refuses a label that was completed.
    vss_store(dir, PIN, &["keys", "generate", "--label", "after-kill"]).success();
    let r = vss_store(dir, PIN, &["keys", "generate", "--label", "k-0"])
        .failure()
        .one_line_stderr();
    assert!(r.stderr.contains("exists"), "{}", r.stderr);
    // The next label of the interrupted run is free (its write never completed).
    let next = format!("k-{}", labels.len());
    vss_store(dir, PIN, &["keys", "generate", "--label", &next]).success();
    let hsm = vss_hsm::open(dir, PIN).expect("open");
    assert_eq!(hsm.keys().expect("keys").len(), labels.len() + 2);
    let fresh = hsm.key(&next).expect("the new key");
    let digest = HashAlg::Sha256.digest(b"after");
    let sig = hsm.sign_digest(&fresh.handle, &digest).expect("sign");
    assert!(hsm
        .public_key(&fresh.handle)
        .expect("public")
        .verifying_key()
        .expect("verifier")
        .verify_digest(&digest, &sig));
}

#[test]
fn sigkill_during_a_generate_loop_leaves_a_working_store() {
    // Different counts and different spins land the kill in different phases of a write
    // (temporary file created, written, synced, renamed, directory synced).
    for (at_least, spin_us) in [(5, 0), (20, 150), (37, 400), (80, 700)] {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("store");
        init_store(&dir);
        let seen = generate_then_kill(&dir, at_least, Duration::from_micros(spin_us));
        check_store_after_kill(&dir, seen);
    }
}

/// The PIN counter as stored on disk (the file is replaced atomically, so it always parses).
fn stored_pin_tries(dir: &Path) -> u64 {
    let bytes = std::fs::read(dir.join("soft-store.json")).expect("read state");
    let state: serde_json::Value =
        serde_json::from_slice(&bytes).expect("the state file is always whole");
    state["pin"]["tries_left"].as_u64().expect("tries_left")
}

#[test]
fn sigkill_during_the_pin_check_costs_at_most_one_try() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("store");
    init_store(&dir);
    vss_store(&dir, PIN, &["keys", "generate", "--label", "before"]).success();

    let mut caught = 0;
    for attempt in 0..4 {
        let mut child = vss()
            .args(["keys", "list", "--store"])
            .arg(&dir)
            .env("VSS_PIN", PIN)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn vss keys list");
        // Wait for the counter to be spent on disk: vss is now deriving the PIN's key.
        let started = Instant::now();
        let in_check = loop {
            if stored_pin_tries(&dir) == 2 {
                break true;
            }
            if child.try_wait().expect("poll").is_some() || started.elapsed() > TIMEOUT {
                break false;
            }
            std::hint::spin_loop();
        };
        if in_check {
            kill(child, "kill during the PIN check");
            caught += 1;
        } else {
            let status = child.wait().expect("reap");
            assert!(status.success(), "attempt {attempt}: {status}");
        }
        let left = stored_pin_tries(&dir);
        assert!(
            left == 2 || left == 3,
            "attempt {attempt}: a killed PIN check costs at most one try, {left} left"
        );
        // The right PIN still opens the store, and gives the try back.
        let hsm = vss_hsm::open(&dir, PIN).expect("the store opens with the right PIN");
        assert_eq!(hsm.keys().expect("keys").len(), 1);
        drop(hsm);
        assert_eq!(stored_pin_tries(&dir), 3, "attempt {attempt}");
    }
    eprintln!("{caught} of 4 runs killed inside the PIN check");
    assert!(
        caught >= 1,
        "no attempt was killed inside the PIN check: the test did not test it"
    );

    // Killed as soon as it starts (before or during the check): nothing is lost either.
    for _ in 0..3 {
        let child = vss()
            .args(["keys", "list", "--store"])
            .arg(&dir)
            .env("VSS_PIN", PIN)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        kill(child, "kill at start");
        let hsm = vss_hsm::open(&dir, PIN).expect("opens after an early kill");
        assert_eq!(hsm.keys().expect("keys").len(), 1);
    }
    let status = run(vss()
        .args(["hsm", "status", "--format", "json", "--store"])
        .arg(&dir))
    .success()
    .json();
    assert_eq!(status["pin_tries_left"], 3, "{status}");
}
