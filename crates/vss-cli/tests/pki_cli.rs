//! `vss pki` and `vss station`: a PKI created and served by the `vss` binary (a real HTTP
//! server process on loopback), a station enrolling and getting pseudonyms with keys in its
//! store, certificates in its repository; refusals are one-line errors with the standard's
//! code.

mod common;

use common::served::serve;
use std::path::Path;

use common::{run, station_with_canonical_key, vss, vss_run, vss_store, Run, PIN, PUK};

/// `vss station enroll` of the station in `dir` as `id` at the EA at `url`, JSON output.
fn enroll(dir: &Path, id: &str, url: &str, ea_cert: &str) -> Run {
    vss_store(
        dir,
        PIN,
        &[
            "station",
            "enroll",
            "--canonical-id",
            id,
            "--canonical-key",
            "canonical",
            "--ea",
            url,
            "--ea-cert",
            ea_cert,
            "--format",
            "json",
        ],
    )
}

#[test]
fn a_station_enrols_and_gets_pseudonyms_from_a_served_pki() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (pki, station) = (tmp.path().join("pki"), tmp.path().join("station"));
    let made = run(vss()
        .args([
            "pki", "init", "--name", "alpha", "--format", "json", "--dir",
        ])
        .arg(&pki)
        .env("VSS_PIN", PIN)
        .env("VSS_PUK", PUK))
    .success()
    .json();
    assert_eq!(made["name"], "alpha");
    for name in ["root.cert", "ea.cert", "aa.cert"] {
        assert!(pki.join(name).exists(), "{name}");
    }
    // A second init refuses and leaves the PKI as it was.
    run(vss()
        .args(["pki", "init", "--name", "again", "--dir"])
        .arg(&pki)
        .env("VSS_PIN", PIN)
        .env("VSS_PUK", PUK))
    .failure()
    .one_line_stderr();

    let public = station_with_canonical_key(&station);
    let pki_dir = pki.display().to_string();
    run(vss().args([
        "pki",
        "register-station",
        "--dir",
        &pki_dir,
        "--canonical-id",
        "car-1",
        "--public-key",
        &public,
    ]))
    .success();

    let server = serve(&pki, &[]);
    let url = server.url.clone();
    let (ea_cert, aa_cert) = (
        pki.join("ea.cert").display().to_string(),
        pki.join("aa.cert").display().to_string(),
    );
    let enrolled = enroll(&station, "car-1", &url, &ea_cert).success().json();
    assert_eq!(enrolled[0]["kind"], "enrolment");
    let pseudonyms = |more: &[&str]| {
        let mut args = vec!["station", "pseudonyms", "--aa", &url, "--aa-cert", &aa_cert];
        args.extend(["--ea-cert", &ea_cert, "--format", "json"]);
        args.extend(more);
        vss_store(&station, PIN, &args)
    };
    let tickets = pseudonyms(&["--count", "5"]).success().json();
    assert_eq!(tickets.as_array().map(Vec::len), Some(5));
    let listed = vss_store(&station, PIN, &["station", "list", "--format", "json"])
        .success()
        .json();
    let listed = listed.as_array().expect("a list");
    assert_eq!(listed.len(), 6);
    // Each certificate beside its .meta; each key still in the store.
    let keys = vss_store(&station, PIN, &["keys", "list", "--format", "json"])
        .success()
        .stdout;
    for entry in listed {
        let folder = if entry["kind"] == "enrolment" {
            "enrolment"
        } else {
            "pseudonyms"
        };
        let id = entry["hashed_id8"].as_str().expect("id");
        assert!(station
            .join(format!("repository/{folder}/{id}.meta"))
            .exists());
        assert!(station
            .join(format!("repository/{folder}/{id}.cert"))
            .exists());
        let label = entry["verification_key"].as_str().expect("label");
        assert!(keys.contains(label), "{label} not in {keys}");
    }

    // Refusals: a PSID the station may not have, and an unregistered station.
    let err = pseudonyms(&["--psid", "138"])
        .failure()
        .one_line_stderr()
        .stderr;
    assert!(err.contains("deniedpermissions"), "{err}");
    let other = tmp.path().join("other");
    station_with_canonical_key(&other);
    let err = enroll(&other, "car-9", &url, &ea_cert)
        .failure()
        .one_line_stderr()
        .stderr;
    assert!(err.contains("unknownits"), "{err}");
}

#[test]
fn a_refused_init_makes_nothing_and_serve_refuses_a_url_that_is_not_one() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let pki = tmp.path().join("pki");
    for name in ["", "a\u{1b}[2Jb", "has space"] {
        let out = run(vss()
            .args(["pki", "init", "--name", name, "--dir"])
            .arg(&pki)
            .env("VSS_PIN", PIN)
            .env("VSS_PUK", PUK))
        .failure()
        .one_line_stderr();
        assert!(
            out.stderr.contains("not a name for a PKI"),
            "{}",
            out.stderr
        );
        assert!(!out.stderr.contains('\u{1b}'), "{}", out.stderr);
        assert!(!pki.exists(), "{name:?} left {}", pki.display());
    }
    run(vss()
        .args(["pki", "init", "--name", "alpha", "--dir"])
        .arg(&pki)
        .env("VSS_PIN", PIN)
        .env("VSS_PUK", PUK))
    .success();
    for url in ["", "127.0.0.1:8080", "http://h/\u{1b}[2J"] {
        let out = run(vss()
            .args([
                "pki",
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--url",
                url,
                "--dir",
            ])
            .arg(&pki)
            .env("VSS_PIN", PIN))
        .failure()
        .one_line_stderr();
        assert!(out.stderr.contains("--url"), "{}", out.stderr);
        assert!(!out.stderr.contains('\u{1b}'), "{}", out.stderr);
    }
    // Serving both (the default) or the EA, the process asks no EA elsewhere.
    for role in ["both", "ea"] {
        let out = run(vss()
            .args(["pki", "serve", "--listen", "127.0.0.1:0", "--role", role])
            .args(["--ea-url", "http://127.0.0.1:9", "--dir"])
            .arg(&pki)
            .env("VSS_PIN", PIN))
        .failure()
        .one_line_stderr();
        assert!(
            out.stderr.contains("--ea-url is for --role aa"),
            "{}",
            out.stderr
        );
    }
}

#[test]
fn bench_pki_reports_rates_against_the_raw_sign_rate() {
    let out = common::vss_run(&[
        "bench",
        "pki",
        "--enrolments",
        "3",
        "--tickets",
        "3",
        "--clients",
        "2",
        "--format",
        "json",
    ])
    .success()
    .json();
    assert_eq!(out["success"], true);
    assert_eq!(out["store"], "sqlite");
    assert_eq!(out["http_concurrent"]["clients"], 2);
    assert!(out["raw_p256_sign_per_second"]
        .as_f64()
        .is_some_and(|r| r > 0.0));
    for path in [
        "/in_process/tickets_per_second",
        "/http/tickets_per_second",
        "/http_concurrent/tickets_per_second",
    ] {
        assert!(
            out.pointer(path)
                .and_then(|v| v.as_f64())
                .is_some_and(|r| r > 0.0),
            "{path}: {out}"
        );
    }
    // Each part of a ticket's time is measured on its own (crypto and codec is the rest).
    let shares = &out["ticket_time_share"];
    for part in ["store", "crypto_and_codec", "http"] {
        let share = shares[part].as_f64().expect("share");
        assert!(share > 0.0 && share < 1.0, "{part}: {shares}");
    }
    assert!(
        out["http_round_trip_us"]
            .as_f64()
            .is_some_and(|us| us > 0.0),
        "{out}"
    );
    let floor = &out["crypto_floor"];
    let part = |k: &str| floor[k].as_f64().unwrap_or_else(|| panic!("{k}: {floor}"));
    let sum = part("sign_us") + 2.0 * part("verify_us") + 2.0 * part("ecdh_us");
    assert!(
        part("sign_us") > 0.0 && (part("per_ticket_us") - sum).abs() < 1e-6,
        "{floor}"
    );
    assert!(part("share_of_http_ticket") > 0.0, "{floor}");
    // The CPU time of a ticket, split the same way, from one client and from two.
    for run in ["one_client", "clients"] {
        let shares = &out["ticket_cpu_share"][run];
        let parts: Vec<f64> = ["store", "crypto_and_codec", "http"]
            .iter()
            .map(|part| shares[part].as_f64().unwrap_or(f64::NAN))
            .collect();
        assert!(
            parts.iter().all(|p| *p > 0.0 && *p < 1.0),
            "{run}: {shares}"
        );
        assert!(
            (parts.iter().sum::<f64>() - 1.0).abs() < 1e-9,
            "{run}: {shares}"
        );
    }
    assert_eq!(out["ticket_cpu_share"]["clients"]["clients"], 2);
    // The disk's flush, beside the database: a positive time and its share of a ticket.
    let flush = &out["disk_flush"];
    let us = flush["us"].as_f64().expect("flush time");
    let share = flush["share_of_http_ticket"].as_f64().expect("flush share");
    assert!(us > 0.0 && share > 0.0 && share < 1.0, "{flush}");
}

/// The real EU L2 ECTL (signed by the TLM with brainpoolP384r1).
fn eu_ectl() -> String {
    format!(
        "{}/../../tests/vectors/its/ectl/eu_ectl_L2_CE4CF6C19BFED720.oer",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn ctl_show_lists_the_eu_ectl_roots_with_names_ids_and_distribution_centres() {
    let report = vss_run(&["pki", "ctl", "show", &eu_ectl()])
        .success()
        .json();
    assert_eq!(report["list"], "ectl", "{report}");
    assert_eq!(report["signer"], "E7A4B2B045E7ACF9", "{report}");
    assert_eq!(report["next_update"], "2025-07-16T21:59:58Z", "{report}");
    assert_eq!(report["stale"], true, "{report}");
    assert_eq!(
        (report["full"].as_bool(), report["sequence"].as_u64()),
        (Some(true), Some(1))
    );
    let roots: Vec<(&str, &str, &str)> = report["roots"]
        .as_array()
        .expect("roots")
        .iter()
        .map(|r| {
            (
                r["name"].as_str().expect("name"),
                r["hashed_id8"].as_str().expect("id"),
                r["dc_urls"][0].as_str().expect("a DC"),
            )
        })
        .collect();
    assert_eq!(
        roots,
        [
            (
                "1_EU-ROOT-CA_L2",
                "624E2E81B7945C4F",
                "http://1.eu-dc.l2.c-its-eu-rca.eu"
            ),
            (
                "3_Microsec-CCMS-RCA-2024_L2",
                "B1FC75CD5A80C630",
                "http://microsec-ccms-dc-2024-l2.v2x-pki.com/"
            ),
        ]
    );
    assert_eq!(
        report["tlm"][0]["access_point"],
        "https://cpoc.jrc.ec.europa.eu/L2"
    );
    let table = vss_run(&["pki", "ctl", "show", "--format", "table", &eu_ectl()]).success();
    assert!(
        table.stdout.contains("name=1_EU-ROOT-CA_L2"),
        "{}",
        table.stdout
    );
}

#[test]
fn crl_show_refuses_a_trust_list_and_ctl_show_refuses_what_is_no_list() {
    let r = vss_run(&["pki", "crl", "show", &eu_ectl()])
        .failure()
        .one_line_stderr();
    assert!(
        r.stderr
            .contains("malformed CRL: signed for PSID 624, not PSID 622"),
        "{}",
        r.stderr
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let cut = dir.path().join("cut.oer");
    let ectl = std::fs::read(eu_ectl()).expect("ECTL");
    std::fs::write(&cut, &ectl[..ectl.len() / 2]).expect("write");
    for file in [cut.to_str().expect("path"), "/dev/zero", "/nonexistent"] {
        vss_run(&["pki", "ctl", "show", file])
            .failure()
            .one_line_stderr();
    }
}

#[test]
fn a_root_issues_its_ctl_revokes_its_aa_and_issues_a_crl_that_lists_it() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let pki = tmp.path().join("pki");
    let at = |args: &[&str]| {
        let mut cmd = vss();
        cmd.args(args).arg("--dir").arg(&pki).env("VSS_PIN", PIN);
        cmd
    };
    run(at(&["pki", "init", "--name", "alpha"]).env("VSS_PUK", PUK)).success();
    let url = "http://127.0.0.1:8080";
    let dc = "http://127.0.0.1:8090";
    let ctl = run(&mut at(&[
        "pki", "ctl", "issue", "--url", url, "--dc-url", dc,
    ]))
    .success()
    .json();
    assert_eq!(
        (ctl["list"].as_str(), ctl["sequence"].as_u64()),
        (Some("ctl"), Some(1)),
        "{ctl}"
    );
    assert_eq!(ctl["stale"], false, "{ctl}");
    assert_eq!(ctl["eas"][0]["its_access_point"], url, "{ctl}");
    assert_eq!(ctl["eas"][0]["name"], "alpha-ea", "{ctl}");
    assert_eq!(ctl["aas"][0]["access_point"], url, "{ctl}");
    assert_eq!(ctl["dcs"][0]["url"], dc, "{ctl}");
    let file = ctl["file"].as_str().expect("file");
    let shown = vss_run(&["pki", "ctl", "show", file]).success().json();
    assert_eq!(shown["signer"], ctl["signer"]);

    let aa = pki.join("aa.cert");
    let aa = aa.to_str().expect("path");
    let revoke = run(&mut at(&["pki", "crl", "revoke", "--cert", aa])).success();
    assert!(revoke.stderr.starts_with("revoked "), "{}", revoke.stderr);
    let again = run(&mut at(&["pki", "crl", "revoke", "--cert", aa])).success();
    assert!(again.stderr.contains("revoked already"), "{}", again.stderr);
    let crl = run(&mut at(&["pki", "crl", "issue", "--validity", "1d"]))
        .success()
        .json();
    assert_eq!(crl["list"], "crl", "{crl}");
    assert_eq!(crl["revoked"].as_array().map(Vec::len), Some(1), "{crl}");
    assert_eq!(crl["signer"], ctl["signer"], "{crl}");

    // A certificate of another PKI, a validity out of range, a wrong PIN: refused, and the
    // lists stay as they were.
    let crl_file = pki.join("lists/crl.oer");
    let kept = std::fs::read(&crl_file).expect("crl");
    let other = tmp.path().join("other");
    run(vss()
        .args(["pki", "init", "--name", "beta", "--dir"])
        .arg(&other)
        .env("VSS_PIN", PIN)
        .env("VSS_PUK", PUK))
    .success();
    let other_aa = other.join("aa.cert");
    let other_aa = other_aa.to_str().expect("path");
    let out = run(&mut at(&["pki", "crl", "revoke", "--cert", other_aa]))
        .failure()
        .one_line_stderr();
    assert!(
        out.stderr.contains("not issued by this PKI's root"),
        "{}",
        out.stderr
    );
    for validity in ["0s", "400d", "soon"] {
        run(&mut at(&["pki", "crl", "issue", "--validity", validity]))
            .failure()
            .one_line_stderr();
    }
    let mut wrong = vss();
    wrong
        .args(["pki", "crl", "issue", "--dir"])
        .arg(&pki)
        .env("VSS_PIN", "wrong-pin-0000");
    run(&mut wrong).failure().one_line_stderr();
    assert_eq!(std::fs::read(&crl_file).expect("crl"), kept);
}

#[test]
fn a_tlm_issues_an_ectl_of_two_roots_that_ctl_show_lists() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let init = |dir: &Path, args: &[&str]| {
        run(vss()
            .args(["pki", "init"])
            .args(args)
            .arg("--dir")
            .arg(dir)
            .env("VSS_PIN", PIN)
            .env("VSS_PUK", PUK))
        .success()
        .json()
    };
    let (a, b, t) = (
        tmp.path().join("a"),
        tmp.path().join("b"),
        tmp.path().join("t"),
    );
    let a_made = init(&a, &["--name", "alpha", "--format", "json"]);
    let b_made = init(&b, &["--name", "beta", "--format", "json"]);
    let t_made = init(
        &t,
        &["--name", "test-tlm", "--role", "tlm", "--format", "json"],
    );
    assert!(t.join("tlm.cert").is_file() && !t.join("root.cert").exists());
    let out = tmp.path().join("ectl.oer");
    let issue = |extra: &[&str]| {
        let mut cmd = vss();
        cmd.args(["pki", "ctl", "issue", "--dir"])
            .arg(&t)
            .args(["--dc-url", "http://127.0.0.1:8090"])
            .args(extra)
            .env("VSS_PIN", PIN);
        run(&mut cmd)
    };
    let a_root = a.join("root.cert");
    let b_root = b.join("root.cert");
    let (a_root, b_root) = (
        a_root.to_str().expect("path"),
        b_root.to_str().expect("path"),
    );
    let out_arg = out.to_str().expect("path");
    let ectl = issue(&["--root", a_root, "--root", b_root, "--out", out_arg])
        .success()
        .json();
    assert_eq!(ectl["list"], "ectl", "{ectl}");
    assert_eq!(ectl["signer"], t_made["tlm"], "{ectl}");
    let shown = vss_run(&["pki", "ctl", "show", out_arg]).success().json();
    let mut roots: Vec<(String, String)> = shown["roots"]
        .as_array()
        .expect("roots")
        .iter()
        .map(|r| {
            (
                r["name"].as_str().expect("name").into(),
                r["hashed_id8"].as_str().expect("id").into(),
            )
        })
        .collect();
    roots.sort();
    assert_eq!(
        roots,
        [
            (
                "alpha-root".to_string(),
                a_made["root"].as_str().expect("id").to_string()
            ),
            (
                "beta-root".to_string(),
                b_made["root"].as_str().expect("id").to_string()
            ),
        ]
    );
    assert_eq!(shown["roots"][0]["dc_urls"][0], "http://127.0.0.1:8090");
    assert_eq!(shown["tlm"][0]["name"], "test-tlm");

    // A TLM lists roots, not a --url; an EA is no root; a PKI takes no --root.
    issue(&["--url", "http://127.0.0.1:8080"])
        .failure()
        .one_line_stderr();
    let ea = a.join("ea.cert");
    issue(&["--root", ea.to_str().expect("path")])
        .failure()
        .one_line_stderr();
    let mut at_pki = vss();
    at_pki
        .args(["pki", "ctl", "issue", "--dir"])
        .arg(&a)
        .args(["--dc-url", "http://127.0.0.1:8090", "--root", b_root])
        .env("VSS_PIN", PIN);
    run(&mut at_pki).failure().one_line_stderr();
    assert_eq!(
        std::fs::read(&out).expect("out"),
        std::fs::read(t.join("lists/ectl.oer")).expect("kept")
    );
}

#[test]
fn a_distribution_centre_serves_each_roots_ctl_and_crl_and_the_tlms_ectl() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (a, t) = (tmp.path().join("a"), tmp.path().join("t"));
    for (dir, extra) in [
        (&a, vec!["--name", "alpha"]),
        (&t, vec!["--name", "tlm", "--role", "tlm"]),
    ] {
        run(vss()
            .args(["pki", "init"])
            .args(&extra)
            .arg("--dir")
            .arg(dir)
            .env("VSS_PIN", PIN)
            .env("VSS_PUK", PUK))
        .success();
    }
    let at = |dir: &Path, args: &[&str]| {
        let mut cmd = vss();
        cmd.args(args).arg("--dir").arg(dir).env("VSS_PIN", PIN);
        run(&mut cmd).success().json()
    };
    let dc = "http://127.0.0.1:8090";
    let ctl = at(
        &a,
        &[
            "pki",
            "ctl",
            "issue",
            "--url",
            "http://127.0.0.1:8080",
            "--dc-url",
            dc,
        ],
    );
    let root = ctl["signer"].as_str().expect("root").to_string();
    let a_root = a.join("root.cert");
    let ectl = at(
        &t,
        &[
            "pki",
            "ctl",
            "issue",
            "--dc-url",
            dc,
            "--root",
            a_root.to_str().expect("path"),
        ],
    );
    let tlm = ectl["signer"].as_str().expect("tlm").to_string();

    let served = common::served::listening(&[
        "pki".into(),
        "dc".into(),
        "serve".into(),
        "--dir".into(),
        a.clone().into(),
        "--dir".into(),
        t.clone().into(),
    ]);
    let get = |path: &str| -> (u16, Vec<u8>) {
        match ureq::get(&format!("{}{path}", served.url)).call() {
            Ok(mut response) => (
                response.status().as_u16(),
                response.body_mut().read_to_vec().expect("body"),
            ),
            Err(ureq::Error::StatusCode(code)) => (code, Vec::new()),
            Err(e) => panic!("{path}: {e}"),
        }
    };
    let kept = |file: &str| std::fs::read(file).expect("kept list");
    assert_eq!(
        get(&format!("/getctl/{root}")),
        (200, kept(&format!("{}/lists/ctl.oer", a.display())))
    );
    assert_eq!(
        get(&format!("/getectl/{tlm}")),
        (200, kept(&format!("{}/lists/ectl.oer", t.display())))
    );
    // No CRL issued yet; then one is, and it is served at once.
    assert_eq!(get(&format!("/getcrl/{root}")).0, 404);
    at(&a, &["pki", "crl", "issue"]);
    assert_eq!(
        get(&format!("/getcrl/{root}")),
        (200, kept(&format!("{}/lists/crl.oer", a.display())))
    );
    // Unknown certificates, the wrong list for one, not a HashedId8: 404.
    for path in [
        "/getctl/0000000000000000".to_string(),
        format!("/getectl/{root}"),
        format!("/getctl/{tlm}"),
        "/getctl/not-hex".to_string(),
    ] {
        assert_eq!(get(&path).0, 404, "{path}");
    }
}
