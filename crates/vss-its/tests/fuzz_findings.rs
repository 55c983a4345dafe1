//! Inputs that fuzzing (fuzz/, `cargo fuzz run its_decode`) found to crash a decoder, kept as
//! regression tests: each must be a clear error.

use std::path::Path;

use vss_its::{decode_data, Error, SignedMessage, TrustAnchors, Validator, Verdict};

fn vectors() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors/its")
}

/// A captured CAM whose `SequenceOfCertificate` quantity (`01 01`: one octet, one element)
/// is replaced by `quantity` (its length octet first).
fn cam_claiming(quantity: &[u8]) -> Vec<u8> {
    let cam = std::fs::read(vectors().join("captures/vanetza_cam_golf8_signer_certificate.oer"))
        .expect("capture");
    // signer: certificate (0x81), quantity 1, then the certificate (explicit, version 3).
    let at = cam
        .windows(6)
        .position(|w| w == [0x81, 0x01, 0x01, 0x80, 0x03, 0x00])
        .expect("signer certificate");
    [&cam[..=at], quantity, &cam[at + 3..]].concat()
}

#[test]
fn a_forged_sequence_of_quantity_is_malformed_not_an_abort() {
    // 2^40 - 1 certificates made rasn reserve 624 TB and abort; 2^60 and 2^64 - 1 made it
    // panic with "capacity overflow" (fixed in vendor/rasn, see VSS-PATCH.md).
    for quantity in [
        &[0x05, 0xff, 0xff, 0xff, 0xff, 0xff][..],
        &[0x08, 0x0f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff][..],
        &[0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff][..],
        &[0x02, 0x01, 0x00][..],
    ] {
        let bytes = cam_claiming(quantity);
        assert!(
            matches!(decode_data(&bytes), Err(Error::Malformed { .. })),
            "quantity {quantity:02x?}"
        );
        let report = Validator::new(TrustAnchors::new(), 8).verify_data(
            &bytes,
            &[],
            vss_its::ItsTime::now(),
        );
        assert_eq!(report.verdict, Verdict::Malformed, "{}", report.reason);
    }
}

#[test]
fn the_input_libfuzzer_found_is_malformed() {
    let bytes = std::fs::read(vectors().join("fuzz-findings/its_decode-oom-009ab7df.bin"))
        .expect("finding");
    assert!(matches!(
        SignedMessage::from_bytes(&bytes),
        Err(Error::Malformed { .. })
    ));
}
