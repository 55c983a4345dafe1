//! Seed 000's validation suite as integration tests: every case of `vss selftest` against
//! two PKIs served on loopback, the software cases on the soft HSM and the "with the FPGA"
//! cases on a SoftHSMv2 token (its token directory private to this test).

use vss_testbed::selftest::{run, SelftestOptions, CASES};

#[test]
fn every_case_of_the_seed_passes_on_the_soft_hsm_and_pkcs11() {
    let tokens = tempfile::tempdir().expect("tempdir");
    let conf = vss_hsm::scratch::softhsm_config(tokens.path()).expect("softhsm config");
    // The only test of this binary, and no thread of it has started yet.
    std::env::set_var("SOFTHSM2_CONF", conf);
    let mut seen = Vec::new();
    let reports = run(&SelftestOptions::default(), &mut |r| seen.push(r.name)).expect("suite");
    assert_eq!(seen, CASES);
    let failed: Vec<String> = reports
        .iter()
        .filter(|r| !r.passed)
        .map(|r| format!("{}: {}", r.name, r.detail))
        .collect();
    assert!(failed.is_empty(), "{failed:#?}");
    for r in &reports {
        eprintln!("{} {:?}: {}", r.name, r.elapsed, r.detail);
    }
}
