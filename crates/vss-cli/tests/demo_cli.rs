//! `vss demo` from the command line: two PKIs, two stations and signed CAMs over UDP, in a
//! temporary directory that is gone afterwards.

mod common;

use common::{run, vss};

#[test]
fn the_demo_exchanges_verified_messages_and_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = run(vss().env("TMPDIR", tmp.path()).args([
        "demo",
        "--messages",
        "400",
        "--rate",
        "2000",
        "--max-uses",
        "150",
        "--format",
        "json",
    ]))
    .success();
    let json = out.json();
    let stations = json["stations"].as_array().expect("stations");
    assert_eq!(stations.len(), 2);
    for s in stations {
        let n = |k: &str| s[k].as_u64().unwrap_or_else(|| panic!("{k} in {s}"));
        assert_eq!(n("sent"), 400, "{s}");
        assert_eq!((n("received"), n("valid")), (400, 400), "{s}");
        assert_eq!(s["invalid"], serde_json::json!({}), "{s}");
        let changes = n("pseudonym_changes");
        assert!(changes >= 2, "{s}");
        assert_eq!(
            n("station_ids"),
            changes + 1,
            "a station id per pseudonym: {s}"
        );
        assert!(n("sent_with_certificate") > changes, "{s}");
        assert!(
            n("sent_with_certificate") < 400,
            "most name the signer by digest: {s}"
        );
        assert!(n("refills") >= 1 && n("tickets_received") >= 5, "{s}");
        assert!(n("cache_hits") > 0, "{s}");
    }
    for station in ["car-a", "car-b"] {
        for function in ["createSignature", "verifySignature"] {
            let row = json["timing"]
                .as_array()
                .expect("timing")
                .iter()
                .find(|r| r["station"] == station && r["function"] == function)
                .unwrap_or_else(|| panic!("{station} {function} in {}", json["timing"]));
            assert_eq!(row["calls"], 400, "{row}");
        }
    }
    assert_eq!(json["removed"], true);
    let left: Vec<_> = std::fs::read_dir(tmp.path()).expect("tmp").collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn nonsense_arguments_are_one_line_errors() {
    run(vss().args(["demo", "--messages", "0"]))
        .failure()
        .one_line_stderr();
    run(vss().args(["demo", "--rate", "fast"])).failure();
}
