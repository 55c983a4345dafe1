//! `vss pki serve`, `vss pki dc serve` and `vss cred serve` stop on SIGTERM as the other
//! servers do (issue 33): exit 0, with a line that says why.

mod common;

use std::ffi::OsString;

use common::served::listening_logged;
use common::{run, vss, PIN, PUK};

#[test]
fn pki_serve_and_dc_serve_exit_0_with_a_line_on_sigterm() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let pki = tmp.path().join("pki");
    let mut init = vss();
    init.args(["pki", "init", "--name", "alpha", "--dir"])
        .arg(&pki)
        .env("VSS_PIN", PIN)
        .env("VSS_PUK", PUK);
    run(&mut init).success();
    for command in [&["pki", "serve"][..], &["pki", "dc", "serve"]] {
        let mut args: Vec<OsString> = command.iter().map(OsString::from).collect();
        args.extend(["--dir".into(), pki.clone().into_os_string()]);
        let log_path = tmp.path().join("log");
        let log = std::fs::File::create(&log_path).expect("log");
        let status = listening_logged(&args, log).terminate();
        let log = std::fs::read_to_string(&log_path).expect("log");
        assert_eq!(status.code(), Some(0), "{command:?}: {status}; {log}");
        assert!(log.contains("stopped by a signal"), "{command:?}: {log}");
    }
}

#[test]
fn cred_serve_exits_0_with_a_line_on_sigterm() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("cred");
    let mut setup = vss();
    setup
        .args(["cred", "setup", "--dir"])
        .arg(&dir)
        .env("VSS_ROLE_PIN", PIN)
        .env("VSS_ROLE_PUK", PUK);
    run(&mut setup).success();
    // The verifier opens no key store: no role PIN needed to serve it.
    let args: Vec<OsString> = vec![
        "cred".into(),
        "serve".into(),
        "--role".into(),
        "verifier".into(),
        "--dir".into(),
        dir.into_os_string(),
    ];
    let log_path = tmp.path().join("log");
    let log = std::fs::File::create(&log_path).expect("log");
    let status = listening_logged(&args, log).terminate();
    let log = std::fs::read_to_string(&log_path).expect("log");
    assert_eq!(status.code(), Some(0), "{status}; {log}");
    assert!(log.contains("stopped by a signal"), "{log}");
}
