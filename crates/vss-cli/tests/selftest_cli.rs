//! `vss selftest`: seed 000's validation suite from the command line, on both HSM backends,
//! and what it says when a case fails.

mod common;

use common::{run, vss};
use vss_testbed::selftest::CASES;

fn cases(json: &serde_json::Value) -> Vec<(String, String, String)> {
    json["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| {
            (
                c["case"].as_str().expect("case").to_string(),
                c["result"].as_str().expect("result").to_string(),
                c["detail"].as_str().expect("detail").to_string(),
            )
        })
        .collect()
}

#[test]
fn every_case_passes_with_the_software_cases_on_pkcs11() {
    let out = run(vss().args(["selftest", "--hsm", "pkcs11", "--format", "json"])).success();
    let json = out.json();
    assert_eq!(json["hsm"], "pkcs11");
    let cases = cases(&json);
    assert_eq!(
        cases.iter().map(|c| c.0.as_str()).collect::<Vec<_>>(),
        CASES
    );
    for (name, result, detail) in &cases {
        assert_eq!(result, "PASS", "{name}: {detail}");
        if name.starts_with("Test_LTCREQ") || name.starts_with("Test_PSNYMREQ") {
            assert!(detail.contains("pkcs11 HSM"), "{name}: {detail}");
        }
    }
    assert_eq!(
        (json["passed"].as_u64(), json["failed"].as_u64()),
        (Some(15), Some(0))
    );
}

#[test]
fn the_table_has_one_line_per_case_and_the_soft_hsm_is_the_default() {
    let out = run(vss().arg("selftest")).success();
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 1 + CASES.len(), "{}", out.stdout);
    assert!(lines[0].starts_with("case") && lines[0].contains("checked"));
    for (line, name) in lines[1..].iter().zip(CASES) {
        assert!(line.starts_with(name) && line.contains(" PASS "), "{line}");
    }
    assert!(lines[1].contains("soft HSM"), "{}", lines[1]);
    assert!(
        lines[3].contains("pkcs11 HSM"),
        "the FPGA case: {}",
        lines[3]
    );
}

#[test]
fn a_missing_pkcs11_module_fails_its_two_cases_and_the_run() {
    let out = run(vss().args([
        "selftest",
        "--module",
        "/nonexistent/module.so",
        "--format",
        "json",
    ]))
    .failure()
    .one_line_stderr();
    assert!(
        out.stderr.contains("2 of 15 cases failed"),
        "{}",
        out.stderr
    );
    for (name, result, detail) in cases(&out.json()) {
        let on_token = name == "Test_LTCREQ_VB_03" || name == "Test_PSNYMREQ_VB_05";
        assert_eq!(result == "FAIL", on_token, "{name}: {detail}");
        if name == "Test_LTCREQ_VB_03" {
            assert!(detail.contains("/nonexistent/module.so"), "{detail}");
        }
    }
}
