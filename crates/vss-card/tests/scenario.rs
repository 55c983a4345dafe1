//! Seed 003's scenario end to end with the card in this process and as a `vss-card`
//! process on TCP: every step succeeds, the inspector opens the member number, and every
//! refusal happens.

use std::path::Path;
use vss_card::connect::{open, CardAddress};
use vss_card::process::CardProcess;
use vss_cred::scenario::{run, Report};

fn check(report: &Report) {
    assert_eq!(report.inspected.member_number, "23784638726");
    let r = report.refused;
    assert!(r.other_matchday, "other matchday");
    assert!(r.without_card, "without the card");
    assert!(r.tampered_token, "tampered token");
    assert!(r.replayed_token, "replayed token");
    assert!(r.revoked, "revoked");
    assert!(r.wrong_pin, "wrong PIN");
    assert!(report.pseudonym.same_scope_equal);
    assert!(report.pseudonym.other_scope_differs);
    let s = report.steps;
    assert!(s.card_setup.apdus > 0 && s.issue.apdus > 0 && s.present.apdus > 0);
    assert_eq!((s.setup.apdus, s.verify.apdus, s.inspect.apdus), (0, 0, 0));
    assert!(s.present.apdus <= 28, "{} APDUs", s.present.apdus);
    assert!(s.present.bytes <= 1_939, "{} bytes", s.present.bytes);
    assert!(report.card_max_rss_kb > 0);
}

#[test]
fn scenario_with_the_software_card() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut card = open(&CardAddress::Software).expect("software card");
    let report = run(card.as_mut(), dir.path(), "1234", "12345678").expect("scenario");
    eprintln!("{}", serde_json::to_string(&report).expect("json"));
    check(&report);
}

#[test]
fn scenario_with_the_card_process_on_tcp() {
    let dir = tempfile::tempdir().expect("temp dir");
    let bin = Path::new(env!("CARGO_BIN_EXE_vss-card"));
    let (_process, addr) =
        CardProcess::start_tcp(bin, &dir.path().join("card.state"), true).expect("card");
    let mut card = open(&CardAddress::Tcp(addr.to_string())).expect("tcp card");
    let report =
        run(card.as_mut(), &dir.path().join("roles"), "4711", "87654321").expect("scenario");
    eprintln!("{}", serde_json::to_string(&report).expect("json"));
    check(&report);
}
