//! `vss bench sign-verify`, `throughput`, `filter` and `daemon` at a size that a debug build
//! runs in about a second: the JSON report's shape, figures and the seeds' reference rows.

mod common;

use common::{vss_run, Run};
use serde_json::Value;

fn positive(v: &Value, what: &str) -> f64 {
    let x = v
        .as_f64()
        .unwrap_or_else(|| panic!("{what} is not a number: {v}"));
    assert!(x > 0.0 && x.is_finite(), "{what} must be > 0: {x}");
    x
}

#[test]
fn sign_verify_reports_runs_and_the_seed_references() {
    let r = vss_run(&[
        "bench",
        "sign-verify",
        "--curve",
        "p256",
        "--runs",
        "2",
        "--ops",
        "20",
        "--format",
        "json",
    ])
    .success();
    let report = r.json();
    assert_eq!(report["benchmark"], "sign-verify", "{report}");
    assert_eq!(report["curve"], "p256");
    assert_eq!(report["hash"], "sha256");
    assert_eq!(report["ops_per_run"], 20);
    assert_eq!(report["success"], true);
    let runs = report["runs"].as_array().expect("runs array");
    assert_eq!(runs.len(), 2, "{report}");
    for (i, run) in runs.iter().enumerate() {
        assert_eq!(run["run"], i + 1, "{run}");
        assert_eq!(run["success"], true, "{run}");
        positive(&run["sign_ms"], "sign_ms");
        positive(&run["verify_ms"], "verify_ms");
    }
    positive(&report["average"]["sign_ms"], "average sign_ms");
    positive(&report["average"]["verify_ms"], "average verify_ms");
    positive(&report["per_second"]["sign"], "signatures per second");
    positive(&report["per_second"]["verify"], "verifications per second");

    let references = report["references"].as_array().expect("references array");
    for name in ["Atom", "Denso", "Cohda", "PRESERVE FPGA", "KIT"] {
        let row = references
            .iter()
            .find(|r| r["name"].as_str().is_some_and(|n| n.contains(name)))
            .unwrap_or_else(|| panic!("no reference row named {name}: {report}"));
        positive(&row["sign_ms"], "reference sign_ms");
        positive(&row["verify_ms"], "reference verify_ms");
        positive(&row["speedup_sign"], "speed-up sign");
        positive(&row["speedup_verify"], "speed-up verify");
        assert!(
            row["source"].as_str().is_some_and(|s| s.contains("seed")),
            "{row}"
        );
    }
}

#[test]
fn sign_verify_table_has_the_runs_and_the_references() {
    let r = vss_run(&[
        "bench",
        "sign-verify",
        "--curve",
        "bp256",
        "--runs",
        "1",
        "--ops",
        "5",
    ])
    .success();
    for needle in [
        "Test #",
        "average",
        "Atom",
        "Denso",
        "Cohda",
        "PRESERVE FPGA",
        "KIT",
    ] {
        assert!(r.stdout.contains(needle), "no {needle} in\n{}", r.stdout);
    }
}

#[test]
fn throughput_reports_operations_per_second_over_the_threads() {
    let r = vss_run(&[
        "bench",
        "throughput",
        "--op",
        "verify",
        "--curve",
        "bp256",
        "--threads",
        "2",
        "--seconds",
        "0.3",
        "--format",
        "json",
    ])
    .success();
    let report = r.json();
    assert_eq!(report["benchmark"], "throughput", "{report}");
    assert_eq!(report["op"], "verify");
    assert_eq!(report["curve"], "bp256");
    assert_eq!(report["threads"], 2);
    let rate = positive(&report["ops_per_sec"], "ops_per_sec");
    let seconds = positive(&report["seconds"], "seconds");
    assert!(seconds >= 0.3, "ran {seconds} s, asked for 0.3 s");
    let operations = report["operations"].as_u64().expect("operations");
    assert!(operations > 0, "{report}");
    assert!(
        (rate * seconds - operations as f64).abs() <= 1.0,
        "ops_per_sec × seconds = operations: {report}"
    );
    let per_thread = positive(&report["ops_per_sec_per_thread"], "per thread");
    assert!((per_thread * 2.0 - rate).abs() < 1e-6 * rate, "{report}");

    let r = vss_run(&[
        "bench",
        "throughput",
        "--op",
        "sign",
        "--curve",
        "p224",
        "--threads",
        "1",
        "--seconds",
        "0.2",
        "--format",
        "json",
    ])
    .success();
    let report = r.json();
    assert_eq!(report["op"], "sign", "{report}");
    assert_eq!(report["threads"], 1);
    positive(&report["ops_per_sec"], "sign ops_per_sec");
}

#[test]
fn filter_bench_reports_one_core_rates_against_raw_verify() {
    let r = vss_run(&[
        "bench",
        "filter",
        "--messages",
        "300",
        "--signers",
        "10",
        "--format",
        "json",
    ])
    .success();
    let report = r.json();
    assert_eq!(report["success"], true, "{report}");
    assert_eq!(
        (report["messages"].as_u64(), report["threads"].as_u64()),
        (Some(300), Some(1))
    );
    let raw = positive(&report["raw_verify_per_second"], "raw");
    for run in [&report, &report["bulk"]] {
        for path in ["in_process", "udp"] {
            let rate = positive(&run[path]["messages_per_second"], path);
            let ratio = positive(&run[path]["ratio_to_raw"], path);
            assert!((ratio * raw - rate).abs() < 1e-6 * rate, "{report}");
        }
    }
    assert_eq!(report["bulk"]["engine"], "cpu", "{report}");
    assert!(report["bulk"]["batch"].as_u64() > Some(1), "{report}");
}

#[test]
fn verify_batches_through_the_cpu_engine() {
    let r = vss_run(&[
        "bench",
        "throughput",
        "--op",
        "verify",
        "--engine",
        "cpu",
        "--batch",
        "200",
        "--seconds",
        "0.2",
        "--format",
        "json",
    ])
    .success();
    let report = r.json();
    assert_eq!(
        (report["engine"].as_str(), report["batch"].as_u64()),
        (Some("cpu"), Some(200))
    );
    let rate = positive(&report["ops_per_sec"], "ops_per_sec");
    let seconds = positive(&report["seconds"], "seconds");
    assert_eq!(
        report["operations"].as_u64(),
        Some(200 * report["batches"].as_u64().expect("batches"))
    );
    assert!((rate * seconds - report["operations"].as_f64().expect("ops")).abs() < 1.0);
    let p50 = positive(&report["latency_ms_p50"], "p50");
    assert!(
        positive(&report["latency_ms_p99"], "p99") >= p50,
        "{report}"
    );
    assert!(report["device"].as_str().is_some_and(|d| d.contains("CPU")));
}

/// `vss bench throughput --engine gpu` on 64-signature batches, and `vss engine info`.
fn gpu_throughput() -> (Value, Run) {
    let info = vss_run(&["engine", "info", "--format", "json"])
        .success()
        .json();
    assert_eq!(info["engines"][0]["engine"], "cpu");
    assert_eq!(info["engines"][1]["engine"], "gpu");
    let gpu = vss_run(&[
        "bench",
        "throughput",
        "--op",
        "verify",
        "--engine",
        "gpu",
        "--batch",
        "64",
        "--seconds",
        "0.2",
        "--format",
        "json",
    ]);
    (info, gpu)
}

#[test]
#[cfg_attr(
    not(vss_cuda_device),
    ignore = "no CUDA device on the machine that built the tests"
)]
fn verify_batches_through_the_gpu_engine() {
    let (info, gpu) = gpu_throughput();
    assert_eq!(info["engines"][1]["available"], true, "{info}");
    let report = gpu.success().json();
    assert_eq!(report["engine"], "gpu", "{report}");
    assert_eq!(report["device"], info["engines"][1]["device"]);
    positive(&report["ops_per_sec"], "gpu ops_per_sec");
}

#[test]
#[cfg_attr(
    vss_cuda_device,
    ignore = "the machine that built the tests has a CUDA device"
)]
fn without_a_gpu_the_gpu_engine_is_refused_in_one_clear_line() {
    let (info, gpu) = gpu_throughput();
    // No driver or no device here (or a vss built without the `gpu` feature): one clear
    // line and a non-zero exit.
    let r = gpu.failure();
    assert!(
        r.stderr.contains("no GPU device: ") || r.stderr.contains("without the `gpu` feature"),
        "{}",
        r.stderr
    );
    let why = info["engines"][1]["device"].as_str().unwrap_or_default();
    assert!(why.starts_with("none: "), "{info}");
}

#[test]
fn tls_bench_loads_each_server_and_moves_the_transfer_through_each() {
    let r = vss_run(&[
        "bench",
        "tls",
        "--clients",
        "2",
        "--seconds",
        "0.3",
        "--keys",
        "p256,rsa2048",
        "--transfer",
        "1M",
        "--format",
        "json",
    ])
    .success();
    let report = r.json();
    let rows = report["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 6, "{report}");
    for row in rows {
        let server = row["server"].as_str().expect("server");
        if server == "openssl-pkcs11" && row.get("error").is_some() {
            // Without OpenSSL's pkcs11 engine or the module the row says why it did not run.
            let why = row["error"].as_str().expect("why");
            assert!(why.contains("pkcs11") || why.contains("module"), "{why}");
            continue;
        }
        let rate = positive(&row["per_second"], server);
        positive(&row["p50_ms"], server);
        assert!(row["p99_ms"].as_f64() >= row["p50_ms"].as_f64(), "{row}");
        positive(&row["cpu_ms_per_handshake"], server);
        let ratio = positive(&row["ratio_to_openssl_file"], server);
        if server == "openssl-file" {
            assert!((ratio - 1.0).abs() < 1e-9 && rate > 0.0, "{row}");
        }
        if server == "vss-tls" {
            // Every full handshake was signed by the store, in batches of at most the
            // number of clients waiting at once.
            let batches = &row["signing_batches"];
            let signatures = batches["signatures"].as_u64().expect("signatures");
            assert!(
                signatures >= row["handshakes"].as_u64().expect("n"),
                "{row}"
            );
            assert!(batches["batches"].as_u64() <= Some(signatures), "{row}");
            assert!(
                (1..=2).contains(&batches["largest"].as_u64().expect("largest")),
                "{row}"
            );
        }
    }
    let transfer = report["transfer"].as_array().expect("transfer");
    assert!(transfer.len() >= 2, "{report}");
    for t in transfer {
        if t.get("error").is_none() {
            positive(&t["mb_per_s"], "MB/s");
        }
    }
    assert_eq!(report["transfer_bytes"], 1 << 20);
    assert_eq!(report["seed_002_connection_s"][1]["offload"], 0.040);
}

/// The `vssd` that `cargo test --workspace` builds beside `vss`.
fn vssd_beside_vss() -> std::path::PathBuf {
    let vssd = std::path::Path::new(env!("CARGO_BIN_EXE_vss")).with_file_name("vssd");
    assert!(
        vssd.is_file(),
        "{} is missing: run the workspace's tests (cargo test --workspace), or cargo build -p vss-daemon first",
        vssd.display()
    );
    vssd
}

#[test]
fn daemon_bench_verifies_every_message_in_process_and_through_vssd_unary_and_stream() {
    let vssd = vssd_beside_vss();
    let r = vss_run(&[
        "bench",
        "daemon",
        "--messages",
        "200",
        "--signers",
        "5",
        "--clients",
        "1,8",
        "--vssd",
        vssd.to_str().expect("UTF-8 path"),
        "--format",
        "json",
    ])
    .success();
    let report = r.json();
    assert_eq!(report["success"], true, "{report}");
    let runs = report["runs"].as_array().expect("runs");
    let shape: Vec<(&str, u64)> = runs
        .iter()
        .map(|run| {
            (
                run["path"].as_str().expect("path"),
                run["clients"].as_u64().expect("clients"),
            )
        })
        .collect();
    assert_eq!(
        shape,
        [
            ("filter", 1),
            ("in_process", 1),
            ("in_process", 8),
            ("grpc_unary", 1),
            ("grpc_unary", 8),
            ("grpc_stream", 1),
            ("grpc_stream", 8),
            ("filter", 1),
        ]
    );
    for run in runs {
        assert_eq!(
            (run["messages"].as_u64(), run["valid"].as_u64()),
            (Some(200), Some(200)),
            "{run}"
        );
        positive(&run["verifications_per_second"], "verifications_per_second");
        // Null where the run took less CPU than one of /proc's clock ticks.
        let per_cpu = &run["verifications_per_cpu_second"];
        if run["cpu_seconds"].as_f64().expect("cpu_seconds") > 0.0 {
            positive(per_cpu, "verifications_per_cpu_second");
        } else {
            assert!(per_cpu.is_null(), "{run}");
        }
        let client_cpu = &run["client_cpu_seconds"];
        assert_eq!(
            client_cpu.is_number(),
            run["path"].as_str().is_some_and(|p| p.starts_with("grpc_")),
            "{run}"
        );
        if run["path"] == "filter" {
            assert!(run["p50_ms"].is_null(), "{run}");
        } else {
            let p50 = positive(&run["p50_ms"], "p50");
            assert!(positive(&run["p99_ms"], "p99") >= p50, "{run}");
        }
    }
    let filters: Vec<f64> = runs
        .iter()
        .filter(|run| run["path"] == "filter")
        .filter_map(|run| run["verifications_per_cpu_second"].as_f64())
        .collect();
    let acceptance = &report["acceptance"];
    assert_eq!(acceptance["stream_clients"], 8, "{report}");
    if filters.is_empty() {
        assert!(report["filter_per_cpu_second"].is_null(), "{report}");
    } else {
        let reference = positive(&report["filter_per_cpu_second"], "reference");
        let mean = filters.iter().sum::<f64>() / filters.len() as f64;
        assert!((reference - mean).abs() < 1e-6 * reference, "{report}");
    }
    let ratio = acceptance["stream_per_cpu_second_ratio_to_filter"].as_f64();
    assert_eq!(
        acceptance["stream_met"].as_bool(),
        ratio.map(|r| r >= 0.8),
        "{report}"
    );
    positive(&acceptance["unary_one_client_p99_ms"], "unary p99");
}

#[test]
fn daemon_bench_refuses_a_missing_vssd_and_zero_clients_before_it_signs() {
    let r = vss_run(&["bench", "daemon", "--vssd", "/nonexistent/vssd"])
        .failure()
        .one_line_stderr();
    assert!(r.stderr.contains("/nonexistent/vssd"), "{}", r.stderr);
    for clients in ["0", "1,0", "257"] {
        vss_run(&["bench", "daemon", "--clients", clients]).failure();
    }
}
