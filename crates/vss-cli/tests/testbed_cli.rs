//! `vss testbed up --dir DIR`: two PKIs on loopback, a provisioned station and a
//! `DIR/vss.toml` that opens an entity unattended; it serves until SIGTERM or SIGINT and
//! then leaves DIR as it found it.

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use common::{run, vss};
use vss_core::id_change::IdChangeEvents;
use vss_core::verify::Outcome;
use vss_core::{Config, Vss};
use vss_its::Psid;

/// Starts `vss testbed up --dir DIR` and reads the JSON line it prints once it is up.
fn up(dir: &Path) -> (Child, serde_json::Value) {
    let mut child = vss()
        .args([
            "testbed",
            "up",
            "--format",
            "json",
            "--pseudonyms",
            "6",
            "--dir",
        ])
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn vss testbed up");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("read the JSON line");
    let json = serde_json::from_str(&line)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {line:?}; exit {:?}", child.try_wait()));
    (child, json)
}

/// Sends `signal` (TERM, INT) to the child and returns its exit code.
fn stop(mut child: Child, signal: &str) -> Option<i32> {
    let status = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(child.id().to_string())
        .status()
        .expect("kill");
    assert!(status.success());
    child.wait().expect("wait").code()
}

#[test]
fn the_testbed_config_opens_an_entity_that_signs_and_verifies_then_sigterm_clears_it() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("bed");
    std::fs::create_dir(&dir).expect("an empty DIR");
    let (child, json) = up(&dir);
    let config_path = json["config"].as_str().expect("config");
    assert_eq!(Path::new(config_path), dir.join("vss.toml"));
    assert_eq!(json["station"], "station-1");
    assert_eq!(json["pseudonyms"], 6);
    assert_eq!(
        Path::new(json["socket"].as_str().expect("socket")),
        dir.join("vssd.sock")
    );
    let metrics: std::net::SocketAddr = json["metrics"]
        .as_str()
        .expect("metrics")
        .parse()
        .expect("address");
    assert!(
        metrics.ip().is_loopback() && metrics.port() != 0,
        "{metrics}"
    );
    for pki in ["pki-a", "pki-b"] {
        let url = json["pkis"][pki]
            .as_str()
            .unwrap_or_else(|| panic!("{pki}: {json}"));
        assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    }

    let config = Config::load(Path::new(config_path)).expect("the written vss.toml loads");
    assert_eq!(
        config.hsm.pin_file.as_deref(),
        Some(dir.join("pin").as_path())
    );
    assert_eq!(config.daemon.socket, dir.join("vssd.sock"));
    assert_eq!(config.daemon.metrics, Some(metrics));
    assert_eq!(
        config.pki.as_ref().map(|p| p.aa_url.as_str()),
        json["pkis"]["pki-a"].as_str()
    );
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.join("pin"))
            .expect("pin")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    }
    let vss = Vss::open_unattended(&config).expect("opens with the PIN file, no prompt");
    let events = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = events.clone();
    vss.register_network_id_listener(Arc::new(IdChangeEvents(move |e| {
        seen.lock().expect("events").push(e)
    })));
    vss.change_pseudonym()
        .expect("a pseudonym from the provisioned pool");
    assert_eq!(events.lock().expect("events").len(), 2, "PREPARE, COMMIT");
    let signed = vss
        .create_signature(Psid::CAM, b"CAM from the testbed")
        .expect("sign");
    match vss.verify_signature(&signed.bytes).expect("verify") {
        Outcome::Valid { payload, psid, .. } => {
            assert_eq!(
                (payload.as_slice(), psid),
                (&b"CAM from the testbed"[..], Psid::CAM)
            );
        }
        other => panic!("{other:?}"),
    }
    let mut tampered = signed.bytes.clone();
    let last = tampered.len() - 1;
    tampered[last] ^= 1;
    assert!(
        matches!(
            vss.verify_signature(&tampered).expect("verify"),
            Outcome::Invalid { .. }
        ),
        "a flipped signature bit is refused"
    );
    drop(vss);

    assert_eq!(stop(child, "TERM"), Some(0), "a clean stop exits 0");
    let left: Vec<_> = std::fs::read_dir(&dir).expect("DIR stays").collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn sigint_stops_it_too_and_a_new_dir_goes_with_it() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("new");
    let (child, json) = up(&dir);
    assert!(dir.join("vss.toml").is_file(), "{json}");
    assert_eq!(stop(child, "INT"), Some(0));
    assert!(!dir.exists(), "the directory it made is gone");
}

#[test]
fn a_dir_that_is_not_empty_or_not_a_directory_or_has_no_parent_is_refused() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let full = tmp.path().join("full");
    std::fs::create_dir(&full).expect("dir");
    std::fs::write(full.join("keep.txt"), b"mine").expect("file");
    let file = tmp.path().join("file");
    std::fs::write(&file, b"x").expect("file");
    let orphan = tmp.path().join("missing").join("dir");
    let long = tmp.path().join("d".repeat(120));
    for (dir, says) in [
        (&full, "not empty"),
        (&file, "Not a directory"),
        (&orphan, "No such file"),
        (&long, "Unix socket"),
    ] {
        let out = run(vss().args(["testbed", "up", "--dir"]).arg(dir))
            .failure()
            .one_line_stderr();
        assert!(
            out.stderr.contains(says),
            "{}: {}",
            dir.display(),
            out.stderr
        );
        assert!(out.stdout.is_empty(), "{}", out.stdout);
    }
    assert_eq!(std::fs::read(full.join("keep.txt")).expect("kept"), b"mine");
    assert_eq!(
        std::fs::read_dir(&full).expect("full").count(),
        1,
        "nothing added"
    );
    assert!(!orphan.exists() && !long.exists());
    // A failure after the directory was made (no tickets asked for) takes it away again.
    let bad = tmp.path().join("bad");
    let out = run(vss()
        .args(["testbed", "up", "--pseudonyms", "0", "--dir"])
        .arg(&bad))
    .failure()
    .one_line_stderr();
    assert!(!bad.exists(), "{}", out.stderr);
}

#[test]
fn the_new_leaves_and_flags_have_help() {
    for (args, names) in [
        (
            &["testbed", "up"][..],
            &["--dir", "--pseudonyms", "--format"][..],
        ),
        (&["its", "sign"], &["--daemon", "--signer", "--label"]),
        (&["its", "verify"], &["--daemon", "--trust"]),
        (&["stats", "status"], &["--daemon", "--format"]),
    ] {
        let out = run(vss().args(args).arg("--help")).success();
        for name in names {
            assert!(out.stdout.contains(name), "{args:?} --help lacks {name}");
        }
    }
    // The daemon signs with its own pseudonym and verifies with its own anchors: the
    // options for a local key or local anchors are refused beside --daemon.
    for args in [
        &[
            "its",
            "sign",
            "--daemon",
            "s",
            "--label",
            "k",
            "--psid",
            "36",
            "--payload",
            "p",
            "--out",
            "o",
        ][..],
        &[
            "its",
            "verify",
            "m.oer",
            "--daemon",
            "s",
            "--trust",
            "root.cert",
        ],
    ] {
        let out = run(vss().args(args)).failure().one_line_stderr();
        assert!(out.stderr.contains("cannot be used with"), "{}", out.stderr);
    }
}
