//! `vss stats report`: statistics written by a security entity's `StatsLog` (rotating over
//! two small files) summarised per function; a missing or empty directory is a one-line
//! error.

mod common;

use std::time::Duration;

use common::vss_run;
use vss_core::config::StatisticsConfig;
use vss_core::stats::StatsLog;

#[test]
fn the_report_reads_what_the_entity_logged_across_rotated_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = StatsLog::open(&StatisticsConfig {
        enabled: true,
        dir: dir.path().to_path_buf(),
        files: 2,
        max_bytes: 4096,
    })
    .expect("open")
    .expect("enabled");
    // About 50 bytes a line: 60 lines fill more than one file, so both are in play.
    for us in 1..=60 {
        log.record("createSignature", Duration::from_micros(us), "ok")
            .expect("record");
    }
    log.record(
        "verifySignature",
        Duration::from_micros(7),
        "FalseSignature",
    )
    .expect("record");
    let dir_arg = dir.path().display().to_string();
    let out = vss_run(&["stats", "report", &dir_arg, "--format", "json"])
        .success()
        .json();
    let functions = out["functions"].as_array().expect("functions");
    assert_eq!(functions.len(), 2);
    let sign = &functions[0];
    assert_eq!(sign["function"], "createSignature");
    assert_eq!(sign["results"]["ok"], sign["calls"]);
    assert!(sign["calls"].as_u64().expect("calls") > 0);
    assert_eq!(functions[1]["results"]["FalseSignature"], 1);
    let table = vss_run(&["stats", "report", &dir_arg]).success().stdout;
    assert!(table.contains("verifySignature"), "{table}");
}

#[test]
fn a_missing_or_empty_directory_is_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("none").display().to_string();
    vss_run(&["stats", "report", &missing])
        .failure()
        .one_line_stderr();
    let empty = dir.path().display().to_string();
    let err = vss_run(&["stats", "report", &empty])
        .failure()
        .one_line_stderr()
        .stderr;
    assert!(err.contains("no statistics"), "{err}");
}
