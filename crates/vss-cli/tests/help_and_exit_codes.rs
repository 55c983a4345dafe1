//! `--help` on every subcommand, and non-zero exits with a clear message for unknown
//! subcommands, unknown options and bad option values.

mod common;

use common::{init_store, vss_run, vss_store, PIN};

/// Every subcommand path and options its help must mention.
const SUBCOMMANDS: &[(&[&str], &[&str])] = &[
    (
        &[],
        &[
            "demo",
            "hsm",
            "keys",
            "ecdsa",
            "filter",
            "selftest",
            "bench",
            "--help",
            "--version",
        ],
    ),
    (&["hsm"], &["init", "status", "change-pin", "unblock"]),
    (&["hsm", "init"], &["--store", "--pin-file", "--puk-file"]),
    (&["hsm", "status"], &["--store", "--format"]),
    (
        &["hsm", "change-pin"],
        &["--store", "--pin-file", "--new-pin-file"],
    ),
    (
        &["hsm", "unblock"],
        &["--store", "--pin-file", "--puk-file", "--new-pin-file"],
    ),
    (&["keys"], &["generate", "list", "export-public", "delete"]),
    (
        &["keys", "generate"],
        &[
            "--store",
            "--pin-file",
            "--label",
            "--algorithm",
            "--curve",
            "--count",
            "--format",
        ],
    ),
    (&["keys", "list"], &["--store", "--pin-file", "--format"]),
    (
        &["keys", "export-public"],
        &["--store", "--pin-file", "--label", "--compressed"],
    ),
    (&["keys", "delete"], &["--store", "--pin-file", "--label"]),
    (&["ecdsa"], &["verify-jsonl", "sign-jsonl"]),
    (
        &["ecdsa", "verify-jsonl"],
        &["public_key", "sig", "p1363", "valid", "error"],
    ),
    (&["ecdsa", "sign-jsonl"], &["private_key", "msg", "error"]),
    (&["pki"], &["init", "serve", "register-station", "trust"]),
    (&["pki", "serve"], &["--dir", "--listen", "--database"]),
    (&["station"], &["enroll", "pseudonyms", "list"]),
    (&["stats"], &["report"]),
    (
        &["demo"],
        &["--messages", "--rate", "--max-uses", "--format"],
    ),
    (&["selftest"], &["--hsm", "--module", "--format"]),
    (&["engine"], &["info"]),
    (&["engine", "info"], &["--format"]),
    (
        &["filter"],
        &[
            "--listen",
            "--forward",
            "--anchor",
            "--authority",
            "--count",
        ],
    ),
    (&["stats", "report"], &["--format"]),
    (
        &["bench", "pki"],
        &["--enrolments", "--tickets", "--clients", "--database"],
    ),
    (&["bench"], &["sign-verify", "throughput"]),
    (
        &["bench", "sign-verify"],
        &["--curve", "--hash", "--runs", "--ops", "--hsm", "--format"],
    ),
    (
        &["bench", "throughput"],
        &[
            "--op",
            "--curve",
            "--threads",
            "--seconds",
            "--hsm",
            "--format",
        ],
    ),
];

#[test]
fn help_works_on_every_subcommand() {
    for (path, mentions) in SUBCOMMANDS {
        let usage = format!("Usage: vss {}", path.join(" "));
        for flag in ["--help", "-h"] {
            let args: Vec<&str> = path.iter().copied().chain([flag]).collect();
            let r = vss_run(&args).success();
            assert!(
                r.stdout.contains(usage.trim_end()),
                "{args:?}: no '{usage}' in\n{}",
                r.stdout
            );
            for m in *mentions {
                assert!(r.stdout.contains(m), "{args:?}: help does not mention {m}");
            }
        }
        // `vss help PATH` says the same.
        let args: Vec<&str> = ["help"].iter().chain(path.iter()).copied().collect();
        let r = vss_run(&args).success();
        assert!(
            r.stdout.contains(usage.trim_end()),
            "{args:?}: {}",
            r.stdout
        );
    }
    let r = vss_run(&["--version"]).success();
    assert!(r.stdout.starts_with("vss "), "{}", r.stdout);
}

/// Runs `vss ARGS`, which must fail with one line on stderr that names `named`.
fn refused(args: &[&str], named: &str) {
    let r = vss_run(args).failure().one_line_stderr();
    assert!(r.stdout.is_empty(), "{args:?}: {r:?}");
    assert!(
        r.stderr.contains(named),
        "{args:?}: stderr does not name {named:?}: {}",
        r.stderr
    );
}

#[test]
fn unknown_subcommands_and_options_exit_non_zero() {
    refused(&["frobnicate"], "frobnicate");
    for group in ["hsm", "keys", "ecdsa", "bench"] {
        refused(&[group, "frobnicate"], "frobnicate");
        // A group without its subcommand is a usage error too, in one line that lists them.
        let r = vss_run(&[group]).failure().one_line_stderr();
        assert!(r.stderr.contains("Usage"), "{group}: {}", r.stderr);
        assert!(r.stderr.contains("[subcommands: "), "{group}: {}", r.stderr);
    }
    let r = vss_run(&[]).failure().one_line_stderr();
    assert!(r.stderr.contains("Usage"), "{}", r.stderr);
    refused(&["keys", "list", "--frobnicate"], "--frobnicate");
    refused(&["ecdsa", "verify-jsonl", "extra"], "extra");
    refused(&["hsm", "status", "--store"], "--store");
}

#[test]
fn bad_option_values_exit_non_zero_and_name_the_value() {
    refused(
        &["keys", "generate", "--label", "x", "--curve", "p999"],
        "p999",
    );
    refused(
        &["keys", "generate", "--label", "x", "--curve", "P256"],
        "P256",
    );
    refused(&["keys", "generate", "--curve", "p256"], "--label");
    refused(&["keys", "generate", "--label", "x", "--count", "-3"], "-3");
    refused(&["keys", "generate", "--label", "x", "--count", "0"], "0");
    refused(
        &["keys", "generate", "--label", "x", "--count", "many"],
        "many",
    );
    refused(&["keys", "list", "--format", "xml"], "xml");
    refused(&["hsm", "status", "--format", "yaml"], "yaml");
    refused(&["bench", "sign-verify", "--runs", "0"], "--runs");
    refused(&["bench", "sign-verify", "--runs", "-1"], "-1");
    refused(&["bench", "sign-verify", "--runs", "ten"], "ten");
    refused(&["bench", "sign-verify", "--ops", "0"], "--ops");
    refused(&["bench", "sign-verify", "--curve", "p999"], "p999");
    refused(&["bench", "sign-verify", "--hash", "md5"], "md5");
    refused(&["bench", "sign-verify", "--hsm", "tpm"], "tpm");
    refused(&["bench", "throughput"], "--op");
    refused(&["bench", "throughput", "--op", "encrypt"], "encrypt");
    refused(
        &["bench", "throughput", "--op", "verify", "--threads", "0"],
        "--threads",
    );
    refused(
        &["bench", "throughput", "--op", "verify", "--seconds", "-1"],
        "-1",
    );
    for seconds in ["0", "NaN", "inf", "1e9", "soon"] {
        refused(
            &[
                "bench",
                "throughput",
                "--op",
                "verify",
                "--seconds",
                seconds,
            ],
            if seconds == "soon" {
                "soon"
            } else {
                "--seconds"
            },
        );
    }
}

#[test]
fn bad_values_found_after_parsing_exit_non_zero_with_one_line() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("store");
    init_store(&dir);
    for label in ["", ".hidden", "../escape", "a/b", "sp ace", &"x".repeat(65)] {
        let r = vss_store(&dir, PIN, &["keys", "generate", "--label", label])
            .failure()
            .one_line_stderr();
        assert!(r.stderr.contains("label"), "{label:?}: {}", r.stderr);
    }
    assert!(
        !tmp.path().join("escape.key").exists() && !dir.join("escape.key").exists(),
        "a bad label must not write outside keys/"
    );
    let listed = vss_store(&dir, PIN, &["keys", "list", "--format", "json"])
        .success()
        .json();
    assert_eq!(listed, serde_json::json!([]), "no key was created");
}

/// Runs a command with stdout a pipe whose reader is already gone (as in `vss … | head -0`).
fn with_closed_stdout(cmd: &mut std::process::Command) -> common::Run {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let out = cmd
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .expect("spawn vss");
    common::Run {
        status: out.status,
        stdout: String::new(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn a_closed_stdout_is_an_error_not_a_panic() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("store");
    init_store(&dir);
    vss_store(&dir, PIN, &["keys", "generate", "--label", "k"]).success();
    let store = dir.to_str().expect("UTF-8 path");
    let commands: &[&[&str]] = &[
        &["ecdsa", "verify-jsonl"],
        &["ecdsa", "sign-jsonl"],
        &["hsm", "status", "--format", "json", "--store", store],
        &["keys", "list", "--format", "json", "--store", store],
        &["keys", "export-public", "--label", "k", "--store", store],
        &["keys", "generate", "--label", "k2", "--store", store],
        &[
            "bench",
            "throughput",
            "--op",
            "verify",
            "--threads",
            "1",
            "--seconds",
            "0.05",
            "--format",
            "json",
        ],
    ];
    let mut panicked = Vec::new();
    for args in commands {
        let r = with_closed_stdout(common::vss().args(*args).env("VSS_PIN", PIN));
        assert!(r.status.code().is_some(), "{args:?}: killed: {r:?}");
        if r.stderr.contains("panicked") || r.status.code() == Some(101) {
            let first: Vec<&str> = r.stderr.lines().filter(|l| !l.is_empty()).take(2).collect();
            panicked.push(format!("{args:?}: {}", first.join(" / ")));
        }
    }
    assert!(
        panicked.is_empty(),
        "a closed stdout must give a one-line error, not a panic:\n{}",
        panicked.join("\n")
    );
}

#[test]
fn a_huge_count_is_refused_at_once_not_an_abort() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("store");
    init_store(&dir);
    // Address space limited to 4 GiB, so that an up-front allocation for 2^32 - 1 labels
    // fails here the way it fails on any machine with less memory than it asks for.
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 4194304 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_vss"))
        .args([
            "keys",
            "generate",
            "--label",
            "h",
            "--count",
            "4294967295",
            "--store",
        ])
        .arg(&dir)
        .env("VSS_PIN", PIN)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn vss");
    // The count is checked before anything else happens: the refusal comes at once.
    let started = std::time::Instant::now();
    while child.try_wait().expect("poll").is_none() {
        if started.elapsed() > std::time::Duration::from_secs(5) {
            child.kill().expect("kill");
            child.wait().expect("reap");
            panic!("--count 4294967295 was not refused within 5 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("output");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code().is_some()
            && !stderr.contains("panicked")
            && !stderr.contains("memory allocation"),
        "--count 4294967295 must give a clear error, not abort: {} {}",
        out.status,
        stderr.lines().next().unwrap_or_default()
    );
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("--count"),
        "the error names --count: {stderr}"
    );
}

#[test]
fn each_error_names_its_cause_once_and_the_path_or_variable() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let missing = tmp.path().join("nowhere");
    let missing = missing.to_str().expect("utf-8 path");
    let line = |cmd: &mut std::process::Command| {
        let out = common::run(cmd).failure().one_line_stderr();
        out.stderr.trim_end().to_string()
    };
    // No store there: said before any PIN is asked for (none is set here).
    let text = line(common::vss().args(["keys", "list", "--store", missing]));
    assert!(
        text.contains(&format!("{missing} is not an initialised key store")),
        "{text}"
    );
    // An empty VSS_STORE is named, not mistaken for a missing PIN.
    let text = line(common::vss().env("VSS_STORE", "").args(["keys", "list"]));
    assert!(text.contains("VSS_STORE is set but empty"), "{text}");
    // A PKI directory that is none.
    let text =
        line(common::vss().args(["pki", "serve", "--dir", missing, "--listen", "127.0.0.1:0"]));
    assert!(
        text.contains(&format!("{missing} is not a PKI directory")),
        "{text}"
    );
    // A station's wrong --store is named, and no repository is made there.
    let text = line(common::vss().args(["station", "list", "--store", missing]));
    assert!(
        text.contains(&format!("{missing} is not an initialised key store")),
        "{text}"
    );
    assert!(
        !std::path::Path::new(missing).exists(),
        "{missing} was created"
    );
    // An endless input is read only as far as the longest 1609.2 encoding.
    let text = line(common::vss().args(["its", "decode", "/dev/zero"]));
    assert!(
        text.contains("/dev/zero: larger than 1048576 bytes"),
        "{text}"
    );
    // An OS error quoted by its wrapper is printed once.
    let text = line(common::vss().args(["its", "verify", missing, "--trust", missing]));
    assert_eq!(text.matches("(os error 2)").count(), 1, "{text}");
    assert!(text.contains(missing), "{text}");
}

#[test]
fn ticket_counts_and_concurrency_out_of_range_are_refused_before_anything_is_sent() {
    for (flag, value) in [
        ("--count", "0"),
        ("--count", "10001"),
        ("--count", "18446744073709551616"),
        ("--count", "1.5"),
        ("--concurrency", "0"),
        ("--concurrency", "65"),
    ] {
        let out = vss_run(&[
            "station",
            "pseudonyms",
            "--aa",
            "http://127.0.0.1:9",
            "--aa-cert",
            "/nonexistent/aa.cert",
            "--ea-cert",
            "/nonexistent/ea.cert",
            flag,
            value,
        ]);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}: {out:#?}");
        assert!(out.stderr.contains(flag), "{flag} {value}: {}", out.stderr);
        out.assert_no_panic();
    }
}
