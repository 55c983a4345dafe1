//! `vss bench gn` at a size a debug build runs in a few seconds: every packet crosses the
//! bridge both ways and the filter, the figures add up, and the exit code is what the
//! acceptance figures say (met: 0; missed: 1, each miss named on stderr).

mod common;

use common::vss_run;
use serde_json::Value;

fn number(v: &Value, what: &str) -> f64 {
    let x = v
        .as_f64()
        .unwrap_or_else(|| panic!("{what} is not a number: {v}"));
    assert!(x > 0.0 && x.is_finite(), "{what} must be > 0: {x}");
    x
}

#[test]
fn gn_bench_passes_every_packet_and_exits_as_its_acceptance_says() {
    let r = vss_run(&[
        "bench",
        "gn",
        "--messages",
        "64",
        "--signers",
        "4",
        "--rates",
        "200,1000",
        "--duration-ms",
        "100",
        "--batch",
        "16",
        "--format",
        "json",
    ]);
    r.assert_no_panic();
    let report = r.json();
    assert_eq!(report["success"], true, "{report}");
    let runs = report["in_process"].as_array().expect("in-process runs");
    let works: Vec<&str> = runs.iter().filter_map(|r| r["work"].as_str()).collect();
    assert_eq!(
        works,
        [
            "filter",
            "bridge_to_stack",
            "filter",
            "bridge_to_stack",
            "filter",
            "bridge_to_stack",
            "filter",
            "bridge_to_radio"
        ]
    );
    for run in runs {
        assert_eq!(run["passed"], 64, "{run}");
        number(&run["packets_per_cpu_second"], "per CPU-second");
    }
    let paced = report["paced"].as_array().expect("paced runs");
    let expected = [
        ("bridge_to_stack", 200, 20),
        ("bridge_to_radio", 200, 20),
        ("filter_udp", 200, 20),
        ("bridge_to_stack", 1000, 100),
        ("bridge_to_radio", 1000, 100),
        ("filter_udp", 1000, 100),
    ];
    assert_eq!(paced.len(), expected.len(), "{report}");
    for (run, (path, rate, sent)) in paced.iter().zip(expected) {
        assert_eq!(
            (
                run["path"].as_str(),
                run["rate"].as_u64(),
                run["sent"].as_u64()
            ),
            (Some(path), Some(rate), Some(sent))
        );
        assert_eq!(run["refused"], 0, "{run}");
        assert!(number(&run["p99_ms"], "p99") >= number(&run["p50_ms"], "p50"));
    }

    let acceptance = &report["acceptance"];
    let filters: Vec<f64> = runs
        .iter()
        .filter(|r| r["work"] == "filter")
        .map(|r| number(&r["packets_per_cpu_second"], "filter"))
        .collect();
    let filter = number(&acceptance["filter_per_cpu_second"], "reference");
    let mean = filters.iter().sum::<f64>() / filters.len() as f64;
    assert!((filter - mean).abs() < 1e-6 * filter, "{acceptance}");
    let share = number(
        &acceptance["bridge_per_cpu_second_ratio_to_filter"],
        "share",
    );
    let p99 = number(&acceptance["to_stack_p99_ms"], "p99 at 1,000/s");
    let lost = acceptance["to_stack_lost"].as_u64().expect("lost");
    let met = [
        (share >= 0.9, "packets per CPU-second"),
        (p99 <= 1.0, "p99 radio -> stack at 1000"),
        (lost == 0, "lost"),
    ];
    for ((ok, words), key) in met.iter().zip(["share_met", "p99_met", "lossless_met"]) {
        assert_eq!(acceptance[key].as_bool(), Some(*ok), "{acceptance}");
        assert_eq!(r.stderr.contains(words), !ok, "{}", r.stderr);
    }
    assert_eq!(
        r.status.success(),
        met.iter().all(|(ok, _)| *ok),
        "{}",
        r.stderr
    );
}

#[test]
fn gn_bench_refuses_a_rate_of_zero_and_no_duration_in_one_line() {
    for args in [["--rates", "0"], ["--duration-ms", "0"]] {
        let r = vss_run(&["bench", "gn", args[0], args[1]])
            .failure()
            .one_line_stderr();
        assert_eq!(r.status.code(), Some(2), "{r:#?}");
    }
}
