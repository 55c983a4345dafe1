//! Issue 23's first acceptance, with the `vss` binary only: two PKIs and a TLM, their lists
//! served by `vss pki dc serve`; a station trust store made by `vss station trust-update`
//! accepts tickets of both PKIs (`vss its verify --trust-store`), and after one root revokes
//! its AA and the store is updated, refuses that AA's tickets (`Revoked`) and keeps accepting
//! the other's. A forged CTL fails the update and the last good store stays. A delta CTL
//! delists a revoked AA before any CRL says so.

mod common;

use std::path::{Path, PathBuf};

use common::served::{listening, serve, Served};
use common::{run, station_with_canonical_key, vss, vss_run, vss_store, Run, PIN, PUK};

/// A PKI made with `vss pki init`, served by `vss pki serve`.
struct Pki {
    dir: PathBuf,
    served: Served,
}

fn init(dir: &Path, args: &[&str]) -> serde_json::Value {
    run(vss()
        .args(["pki", "init", "--format", "json"])
        .args(args)
        .arg("--dir")
        .arg(dir)
        .env("VSS_PIN", PIN)
        .env("VSS_PUK", PUK))
    .success()
    .json()
}

/// `vss ARGS --dir DIR` with the PKI's PIN.
fn at_dir(dir: &Path, args: &[&str]) -> Run {
    let mut cmd = vss();
    cmd.args(args).arg("--dir").arg(dir).env("VSS_PIN", PIN);
    run(&mut cmd)
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

impl Pki {
    fn new(dir: PathBuf, name: &str) -> Pki {
        init(&dir, &["--name", name]);
        let served = serve(&dir, &[]);
        Pki { dir, served }
    }

    /// Its CTL (its EA and AA at the served URL) and its CRL, the DC at `dc`.
    fn issue_lists(&self, dc: &str) {
        let url = self.served.url.as_str();
        at_dir(
            &self.dir,
            &["pki", "ctl", "issue", "--url", url, "--dc-url", dc],
        )
        .success();
        at_dir(&self.dir, &["pki", "crl", "issue"]).success();
    }

    /// Flips a bit of the signature of its list `name` (`ctl`, `deltactl`, `crl`) where
    /// the distribution centre reads it: the PKI's store.
    fn forge_served_list(&self, name: &str) {
        let kept = self.dir.join(format!("lists/{name}.oer"));
        let mut forged = std::fs::read(&kept).expect("a kept list");
        let last = forged.len() - 1;
        forged[last] ^= 1;
        let db = rusqlite::Connection::open(self.dir.join("pki.sqlite")).expect("store");
        let changed = db
            .execute(
                "UPDATE lists SET list = ?1 WHERE name = ?2",
                rusqlite::params![forged, name],
            )
            .expect("forge");
        assert_eq!(changed, 1);
    }

    fn cert(&self, name: &str) -> String {
        path(&self.dir.join(name)).to_string()
    }

    /// A station registered and enrolled here, with one ticket; a CAM signed with it (the
    /// ticket by certificate, its AA not in the message) written to `out`.
    fn signed_cam(&self, station: &Path, out: &Path) {
        let public = station_with_canonical_key(station);
        let register = [
            "pki",
            "register-station",
            "--canonical-id",
            "car",
            "--public-key",
            &public,
        ];
        at_dir(&self.dir, &register).success();
        let (url, ea, aa) = (&self.served.url, self.cert("ea.cert"), self.cert("aa.cert"));
        let enroll = [
            "station",
            "enroll",
            "--canonical-id",
            "car",
            "--canonical-key",
            "canonical",
            "--ea",
            url,
            "--ea-cert",
            &ea,
        ];
        vss_store(station, PIN, &enroll).success();
        let get = [
            "station",
            "pseudonyms",
            "--aa",
            url,
            "--aa-cert",
            &aa,
            "--ea-cert",
            &ea,
            "--format",
            "json",
        ];
        let tickets = vss_store(station, PIN, &get).success().json();
        let ticket = &tickets[0];
        let id = ticket["hashed_id8"].as_str().expect("id");
        let cert = station.join(format!("repository/pseudonyms/{id}.cert"));
        let payload = station.join("cam.bin");
        std::fs::write(&payload, b"a CAM").expect("payload");
        let sign = [
            "its",
            "sign",
            "--label",
            ticket["verification_key"].as_str().expect("label"),
            "--cert",
            path(&cert),
            "--psid",
            "36",
            "--payload",
            path(&payload),
            "--signer",
            "certificate",
            "--out",
            path(out),
        ];
        vss_store(station, PIN, &sign).success();
    }
}

/// `vss pki dc serve` of the PKI and TLM directories `dirs`.
fn distribution_centre(dirs: &[&Path]) -> Served {
    let mut args: Vec<std::ffi::OsString> = vec!["pki".into(), "dc".into(), "serve".into()];
    for dir in dirs {
        args.extend(["--dir".into(), dir.as_os_str().to_owned()]);
    }
    listening(&args)
}

/// `vss its verify FILE --trust-store STORE`: the verdict.
fn verify(message: &Path, store: &Path) -> Run {
    vss_run(&["its", "verify", path(message), "--trust-store", path(store)])
}

/// The verdict of [`verify`].
fn verdict(message: &Path, store: &Path) -> String {
    verify(message, store).json()["verdict"]
        .as_str()
        .expect("a verdict")
        .to_string()
}

/// `vss station trust-update --trust-store STORE --tlm-cert TLM --ectl ECTL`.
fn trust_update(store: &Path, tlm: &Path, ectl: &str) -> Run {
    vss_run(&[
        "station",
        "trust-update",
        "--trust-store",
        path(store),
        "--tlm-cert",
        path(tlm),
        "--ectl",
        ectl,
    ])
}

#[test]
fn a_revoked_aa_s_tickets_are_refused_after_a_trust_update_and_the_other_root_s_accepted() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = |name: &str| tmp.path().join(name);
    let (alpha, beta) = (
        Pki::new(dir("alpha"), "alpha"),
        Pki::new(dir("beta"), "beta"),
    );
    let tlm = init(&dir("tlm"), &["--name", "tlm", "--role", "tlm"]);
    let tlm_id = tlm["tlm"].as_str().expect("the TLM's HashedId8");
    let dc = distribution_centre(&[&alpha.dir, &beta.dir, &dir("tlm")]);
    alpha.issue_lists(&dc.url);
    beta.issue_lists(&dc.url);
    let (a_root, b_root) = (alpha.cert("root.cert"), beta.cert("root.cert"));
    let ectl = [
        "pki", "ctl", "issue", "--root", &a_root, "--root", &b_root, "--dc-url", &dc.url,
    ];
    at_dir(&dir("tlm"), &ectl).success();

    let (cam_a, cam_b) = (dir("cam-a.oer"), dir("cam-b.oer"));
    alpha.signed_cam(&dir("station-a"), &cam_a);
    beta.signed_cam(&dir("station-b"), &cam_b);

    let store = dir("trust");
    let tlm_cert = dir("tlm").join("tlm.cert");
    let ectl_url = format!("{}/getectl/{tlm_id}", dc.url);
    let update = || trust_update(&store, &tlm_cert, &ectl_url);
    let updated = update().success().json();
    let roots = updated["roots"].as_array().expect("roots");
    let mut names: Vec<&str> = roots.iter().filter_map(|r| r["name"].as_str()).collect();
    names.sort();
    assert_eq!(names, ["alpha-root", "beta-root"], "{updated}");
    assert!(
        roots.iter().all(|r| r["dc_url"] == dc.url.as_str()),
        "{updated}"
    );
    assert_eq!(verdict(&cam_a, &store), "Valid");
    assert_eq!(verdict(&cam_b, &store), "Valid");

    let b_aa = beta.cert("aa.cert");
    at_dir(&beta.dir, &["pki", "crl", "revoke", "--cert", &b_aa]).success();
    at_dir(&beta.dir, &["pki", "crl", "issue"]).success();
    assert_eq!(verdict(&cam_b, &store), "Valid", "not before the update");
    update().success();
    assert_eq!(verdict(&cam_a, &store), "Valid");
    assert_eq!(verdict(&cam_b, &store), "Revoked");
    let refused = verify(&cam_b, &store).failure().json();
    assert_eq!(
        refused["sn_verify_report"], "revoked_certificate",
        "{refused}"
    );

    // A forged CTL where the distribution centre reads it (the PKI's store): the update
    // fails in one line, and the store stays as it was.
    alpha.forge_served_list("ctl");
    let err = update().failure().one_line_stderr().stderr;
    assert!(err.contains("trust store is unchanged"), "{err}");
    assert!(err.contains("FalseSignature"), "{err}");
    let shown = vss_run(&["station", "trust-show", "--trust-store", path(&store)])
        .success()
        .json();
    let beta_shown = shown["roots"]
        .as_array()
        .expect("roots")
        .iter()
        .find(|r| r["name"] == "beta-root")
        .expect("beta")
        .clone();
    assert_eq!(
        beta_shown["revoked"].as_array().map(Vec::len),
        Some(1),
        "{shown}"
    );
    assert_eq!(verdict(&cam_a, &store), "Valid");
    assert_eq!(verdict(&cam_b, &store), "Revoked");
}

#[test]
fn trust_update_refuses_a_wrong_tlm_and_trust_show_an_empty_directory() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let store = tmp.path().join("trust");
    let err = vss_run(&["station", "trust-show", "--trust-store", path(&store)])
        .failure()
        .one_line_stderr()
        .stderr;
    assert!(err.contains("vss station trust-update"), "{err}");

    // An ECTL file that is no signed list, pinned to a certificate that is no TLM's.
    let alpha = tmp.path().join("alpha");
    init(&alpha, &["--name", "alpha"]);
    let junk = tmp.path().join("junk.oer");
    std::fs::write(&junk, b"\x03\x81junk").expect("junk");
    // An ECTL file longer than any list.
    let huge = tmp.path().join("huge.oer");
    std::fs::write(&huge, vec![0u8; 100 * 1024]).expect("huge");
    let root = alpha.join("root.cert");
    let cases = [
        (&root, &junk, "trust store is unchanged"),
        (&junk, &junk, "junk.oer"),
        (&root, &huge, "larger than 69632 bytes"),
    ];
    for (tlm, ectl, expected) in cases {
        let err = trust_update(&store, tlm, path(ectl))
            .failure()
            .one_line_stderr()
            .stderr;
        assert!(err.contains(expected), "{err}");
    }
    assert!(!store.join("current").exists(), "nothing was written");
    let usage = vss_run(&["its", "verify", "x.oer", "--stale-crl", "warn"]);
    assert_eq!(
        usage.status.code(),
        Some(2),
        "--stale-crl needs --trust-store"
    );
}

#[test]
fn a_delta_ctl_delists_a_revoked_aa_before_the_next_crl_and_a_forged_one_keeps_the_store() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = |name: &str| tmp.path().join(name);
    let alpha = Pki::new(dir("alpha"), "alpha");
    let tlm = init(&dir("tlm"), &["--name", "tlm", "--role", "tlm"]);
    let tlm_id = tlm["tlm"].as_str().expect("the TLM's HashedId8");
    let dc = distribution_centre(&[&alpha.dir, &dir("tlm")]);
    alpha.issue_lists(&dc.url);
    // The root's lists at its own distribution centre; the ECTL's --dc-url serves nothing.
    let a_root = alpha.cert("root.cert");
    let root_at_dc = format!("{a_root}={}", dc.url);
    let ectl = [
        "pki",
        "ctl",
        "issue",
        "--root",
        &root_at_dc,
        "--dc-url",
        "http://127.0.0.1:9",
        "--access-point",
        "https://cpoc.example/L0",
    ];
    let issued = at_dir(&dir("tlm"), &ectl).success().json();
    assert_eq!(issued["roots"][0]["dc_urls"], serde_json::json!([dc.url]));
    assert_eq!(
        issued["tlm"][0]["access_point"], "https://cpoc.example/L0",
        "{issued}"
    );
    let cam = dir("cam.oer");
    alpha.signed_cam(&dir("station"), &cam);
    let store = dir("trust");
    let tlm_cert = dir("tlm").join("tlm.cert");
    let ectl_url = format!("{}/getectl/{tlm_id}", dc.url);
    let update = || trust_update(&store, &tlm_cert, &ectl_url);
    let shown_root = || {
        let shown = vss_run(&["station", "trust-show", "--trust-store", path(&store)])
            .success()
            .json();
        shown["roots"][0].clone()
    };
    update().success();
    assert_eq!(verdict(&cam, &store), "Valid");
    let root = shown_root();
    assert_eq!(root["ctl_delta"], false, "{root}");
    assert_eq!(root["dc_url"], dc.url.as_str(), "{root}");

    // The AA is revoked, no CRL issued yet: the delta CTL on CTL 1 deletes it.
    let aa = alpha.cert("aa.cert");
    let ctl = alpha.dir.join("lists/ctl.oer");
    let aa_id = vss_run(&["pki", "ctl", "show", path(&ctl)])
        .success()
        .json()["aas"][0]["hashed_id8"]
        .as_str()
        .expect("the AA's HashedId8")
        .to_string();
    at_dir(&alpha.dir, &["pki", "crl", "revoke", "--cert", &aa]).success();
    let url = alpha.served.url.as_str();
    let delta = [
        "pki", "ctl", "issue", "--delta", "--url", url, "--dc-url", &dc.url,
    ];
    let issued = at_dir(&alpha.dir, &delta).success().json();
    assert_eq!(issued["full"], false, "{issued}");
    assert_eq!(issued["sequence"], 1, "{issued}");
    assert_eq!(issued["deletions"], serde_json::json!([{"cert": aa_id}]));
    assert_eq!(issued["aas"], serde_json::json!([]), "{issued}");
    assert!(
        issued["file"]
            .as_str()
            .is_some_and(|f| f.ends_with("deltactl.oer")),
        "{issued}"
    );
    update().success();
    assert_eq!(verdict(&cam, &store), "UnlistedCa");
    let root = shown_root();
    assert_eq!(root["ctl_delta"], true, "{root}");
    assert!(
        !root["authorities"]
            .as_array()
            .expect("authorities")
            .iter()
            .any(|a| a == aa_id.as_str()),
        "{root}"
    );

    // A forged delta where the distribution centre reads it: the update fails, the store
    // stays as it was.
    alpha.forge_served_list("deltactl");
    let err = update().failure().one_line_stderr().stderr;
    assert!(err.contains("trust store is unchanged"), "{err}");
    assert!(err.contains("delta CTL"), "{err}");
    assert_eq!(shown_root()["ctl_delta"], true);
    assert_eq!(verdict(&cam, &store), "UnlistedCa");

    // The next full CTL leaves the revoked AA off, and the delta on CTL 1 is served no more:
    // the station knows no such AA now.
    let full = ["pki", "ctl", "issue", "--url", url, "--dc-url", &dc.url];
    let issued = at_dir(&alpha.dir, &full).success().json();
    assert_eq!(
        (issued["full"].clone(), issued["sequence"].clone()),
        (serde_json::json!(true), serde_json::json!(2))
    );
    assert_eq!(issued["aas"], serde_json::json!([]), "{issued}");
    update().success();
    let root = shown_root();
    assert_eq!(
        (root["ctl_delta"].clone(), root["ctl_sequence"].clone()),
        (serde_json::json!(false), serde_json::json!(2)),
        "{root}"
    );
    assert_eq!(verdict(&cam, &store), "SignerNotFound");

    // A TLM issues its ECTL full.
    let err = at_dir(
        &dir("tlm"),
        &["pki", "ctl", "issue", "--delta", "--dc-url", &dc.url],
    )
    .failure()
    .one_line_stderr()
    .stderr;
    assert!(err.contains("issued full"), "{err}");
}
