//! include/vss.h is what cbindgen makes of this crate today, and its verdicts carry the
//! numbers of `vss.v1.ReportCode` in crates/vss-proto/proto/vss/v1/vss.proto.

use std::path::{Path, PathBuf};

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The header as cbindgen generates it now.
fn generated() -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let mut out = Vec::new();
    cbindgen::Builder::new()
        .with_config(config)
        .with_src(dir.join("src/lib.rs"))
        .generate()
        .expect("cbindgen")
        .write(&mut out);
    String::from_utf8(out).expect("UTF-8")
}

#[test]
fn the_committed_header_is_the_generated_one() {
    let path = root().join("include/vss.h");
    let now = generated();
    if std::env::var_os("VSS_UPDATE_HEADER").is_some() {
        std::fs::write(&path, &now).expect("write include/vss.h");
    }
    let committed = std::fs::read_to_string(&path).expect("include/vss.h");
    assert!(
        committed == now,
        "include/vss.h is stale: run `VSS_UPDATE_HEADER=1 cargo test -p vss-ffi --test header` \
         and commit it"
    );
}

#[test]
fn the_verdicts_are_numbered_as_the_report_codes() {
    let proto = std::fs::read_to_string(root().join("crates/vss-proto/proto/vss/v1/vss.proto"))
        .expect("proto");
    let header = generated();
    let codes: Vec<(String, String)> = proto
        .lines()
        .filter_map(|line| line.trim().strip_prefix("REPORT_CODE_"))
        .filter_map(|rest| rest.trim_end_matches(';').split_once(" = "))
        .map(|(name, number)| (name.to_string(), number.to_string()))
        .collect();
    assert_eq!(codes.len(), 17, "ReportCode has 17 values: {codes:?}");
    for (name, number) in codes {
        let line = format!("VSS_VERDICT_{name} = {number},");
        assert!(header.contains(&line), "the header lacks `{line}`");
    }
}
