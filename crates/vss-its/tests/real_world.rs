//! Published structures (tests/vectors/its/SOURCES.md): the EU trust list and its TLM and
//! root CA certificates, ETSI's conformance-test certificate pool, and CAMs captured from a
//! production vehicle. Each parses, re-encodes byte-identically, and validates.

use std::path::{Path, PathBuf};

use vss_its::{Cert, HashedId8, ItsTime, Psid, TrustAnchors, Validator, Verdict};

fn vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors/its")
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(vectors().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn cert(name: &str) -> Cert {
    Cert::from_bytes(&read(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn oer_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![vectors()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("vectors directory") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "oer") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// One hour into a certificate's validity.
fn inside(cert: &Cert) -> ItsTime {
    cert.validity().start.plus_micros(3_600_000_000)
}

#[test]
fn every_published_structure_reencodes_byte_identically() {
    let files = oer_files();
    assert!(files.len() >= 27, "{} files", files.len());
    for path in files {
        let bytes = std::fs::read(&path).expect("read");
        let encoded = match Cert::from_bytes(&bytes) {
            Ok(cert) => cert.bytes().to_vec(),
            Err(_) => {
                let data = vss_its::decode_data(&bytes)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                vss_its::encode_data(&data).expect("encode")
            }
        };
        assert_eq!(encoded, bytes, "{}", path.display());
    }
}

#[test]
fn hashed_id8s_match_the_names_the_eu_trust_list_gives() {
    for (name, id) in [
        (
            "ectl/eu_tlm_L2_cert_E7A4B2B045E7ACF9.oer",
            "E7A4B2B045E7ACF9",
        ),
        (
            "ectl/extracted/eu_rca_L2_1_EU-ROOT-CA_L2_624E2E81B7945C4F.oer",
            "624E2E81B7945C4F",
        ),
        (
            "ectl/extracted/eu_rca_L2_3_Microsec-CCMS-RCA-2024_L2_B1FC75CD5A80C630.oer",
            "B1FC75CD5A80C630",
        ),
        (
            "captures/vanetza_golf8_at_cert_127CFF384CE0B890.oer",
            "127CFF384CE0B890",
        ),
        ("etsi-ats/CERT_IUT_A_RCA.oer", "C6F1125E19B175EE"),
        ("etsi-ats/CERT_IUT_A_AA.oer", "34556D34931E5E5C"),
    ] {
        assert_eq!(
            cert(name).hashed_id8(),
            id.parse::<HashedId8>().expect("hex"),
            "{name}"
        );
    }
}

#[test]
fn the_eu_trust_list_verifies_under_its_tlm_and_the_roots_are_anchors() {
    let tlm = cert("ectl/eu_tlm_L2_cert_E7A4B2B045E7ACF9.oer");
    let ectl = read("ectl/eu_ectl_L2_CE4CF6C19BFED720.oer");
    let message = vss_its::SignedMessage::from_bytes(&ectl).expect("ECTL");
    let generated = ItsTime::from_time64(message.header().generation_time.as_ref().expect("time"));
    let mut trust = TrustAnchors::new();
    trust
        .add(tlm.clone())
        .expect("the TLM's self-signature verifies");
    for root in [
        "ectl/extracted/eu_rca_L2_1_EU-ROOT-CA_L2_624E2E81B7945C4F.oer",
        "ectl/extracted/eu_rca_L2_3_Microsec-CCMS-RCA-2024_L2_B1FC75CD5A80C630.oer",
    ] {
        trust
            .add(cert(root))
            .expect("a root's self-signature verifies");
    }
    let mut validator = Validator::new(trust, 8);
    let report = validator.verify_data(&ectl, &[], generated);
    assert_eq!(report.verdict, Verdict::Valid, "{}", report.reason);
    assert_eq!(report.psid, Some(Psid::CTL));
    assert_eq!(report.signer, Some(tlm.hashed_id8()));

    // One bit of the signature changed: no longer valid.
    let mut tampered = ectl.clone();
    let last = tampered.len() - 1;
    tampered[last] ^= 0x80;
    assert_eq!(
        validator.verify_data(&tampered, &[], generated).verdict,
        Verdict::FalseSignature
    );
    // Without the TLM as anchor, the trust list is not trusted.
    let mut bare = Validator::new(TrustAnchors::new(), 8);
    assert_eq!(
        bare.verify_data(&ectl, &[], generated).verdict,
        Verdict::UntrustedRoot
    );
}

#[test]
fn the_etsi_certificate_pool_validates_up_to_its_roots() {
    let intermediates: Vec<Cert> = [
        "CERT_IUT_A_AA",
        "CERT_IUT_A_B_AA",
        "CERT_TS_A_AA",
        "CERT_TS_A_EA",
        "CERT_IUT_CC_AA",
    ]
    .iter()
    .map(|n| cert(&format!("etsi-ats/{n}.oer")))
    .collect();
    for name in [
        "CERT_IUT_A_AA",
        "CERT_IUT_A_B_AA",
        "CERT_TS_A_AA",
        "CERT_TS_A_EA",
        "CERT_TS_A_EC",
        "CERT_IUT_A_AT",
        "CERT_IUT_A_B_AT",
        "CERT_TS_B_AT",
        "CERT_IUT_CC_AA",
        "CERT_IUT_C1_AT",
    ] {
        let c = cert(&format!("etsi-ats/{name}.oer"));
        let mut validator = Validator::new(etsi_roots(), 8);
        let report = validator.verify_certificate(&c, &intermediates, inside(&c));
        assert_eq!(report.verdict, Verdict::Valid, "{name}: {}", report.reason);
    }
    // These tickets set bits of their CAM SSP that their AA's BitmapSspRange fixes (the
    // two reserved low bits of 01FFFC/FF0003): 1609.2 6.4.31 does not allow it.
    for name in ["CERT_IUT_C_AT", "CERT_IUT_D_AT", "CERT_IUT_E_AT"] {
        let c = cert(&format!("etsi-ats/{name}.oer"));
        let mut validator = Validator::new(etsi_roots(), 8);
        let report = validator.verify_certificate(&c, &intermediates, inside(&c));
        assert_eq!(
            report.verdict,
            Verdict::InsufficientPermissions,
            "{name}: {}",
            report.reason
        );
        assert!(
            report.reason.contains("PSID 36"),
            "{name}: {}",
            report.reason
        );
    }
    // This ticket (made for a "bad operation" test) gives its verification key uncompressed,
    // and its AA signed that encoding; 1609.2 6.4.3 signs and hashes the canonical form, in
    // which keys are compressed, so the signature does not verify.
    let bad = cert("etsi-ats/CERT_TS_CAM_BO_02_AT.oer");
    assert_ne!(bad.canonical_bytes(), bad.bytes());
    let mut validator = Validator::new(etsi_roots(), 8);
    let report = validator.verify_certificate(&bad, &intermediates, inside(&bad));
    assert_eq!(report.verdict, Verdict::FalseSignature, "{}", report.reason);

    // Two brainpoolP384r1 certificates of the pool carry signatures that verify under no
    // reading of the standard (also not with pyca/cryptography): VSS says so.
    for name in ["CERT_IUT_A_B3_AA", "CERT_TS_B1_AT"] {
        let c = cert(&format!("etsi-ats/{name}.oer"));
        let mut validator = Validator::new(etsi_roots(), 8);
        let report = validator.verify_certificate(&c, &intermediates, inside(&c));
        assert_eq!(
            report.verdict,
            Verdict::FalseSignature,
            "{name}: {}",
            report.reason
        );
    }
}

/// A fresh trust store holding the pool's two roots (each validator starts cold).
fn etsi_roots() -> TrustAnchors {
    let mut roots = TrustAnchors::new();
    for name in ["etsi-ats/CERT_IUT_A_RCA.oer", "etsi-ats/CERT_IUT_C_RCA.oer"] {
        roots
            .add(cert(name))
            .expect("a root's self-signature verifies");
    }
    assert_eq!(roots.len(), 2);
    roots
}

#[test]
fn cams_captured_from_a_vehicle_verify_with_its_ticket() {
    // The ticket's issuer is not published: the ticket itself is the anchor here.
    let at = cert("captures/vanetza_golf8_at_cert_127CFF384CE0B890.oer");
    let mut trust = TrustAnchors::new();
    trust.add(at.clone()).expect("anchor");
    let mut validator = Validator::new(trust, 8);
    for name in [
        "captures/vanetza_cam_golf8_signer_certificate.oer",
        "captures/vanetza_cam_golf8_signer_certificate_2.oer",
        "captures/vanetza_cam_golf8_signer_digest.oer",
    ] {
        let bytes = read(name);
        let message = vss_its::SignedMessage::from_bytes(&bytes).expect("CAM");
        let generated =
            ItsTime::from_time64(message.header().generation_time.as_ref().expect("time"));
        let report = validator.verify_data(&bytes, &[], generated);
        assert_eq!(report.verdict, Verdict::Valid, "{name}: {}", report.reason);
        assert_eq!(report.psid, Some(Psid::CAM));
        assert_eq!(report.signer, Some(at.hashed_id8()));
    }
    let unknown = read("captures/vanetza_cam_signer_digest_0BA2D2FB6A0C62D2.oer");
    let report = validator.verify_data(&unknown, &[], inside(&at));
    assert_eq!(report.verdict, Verdict::SignerNotFound);
    assert_eq!(
        report.signer,
        Some("0BA2D2FB6A0C62D2".parse().expect("hex"))
    );
}

#[test]
fn json_uses_the_asn1_identifiers_of_the_standard() {
    let json = vss_its::certificate_to_json(&cert("etsi-ats/CERT_IUT_A_AT.oer")).expect("json");
    assert_eq!(json["type"], "explicit");
    assert_eq!(json["issuer"]["sha256AndDigest"], "34556D34931E5E5C");
    let tbs = &json["toBeSigned"];
    assert!(
        tbs["id"]["none"].is_null() && tbs["id"].get("none").is_some(),
        "{tbs}"
    );
    assert_eq!(tbs["encryptionKey"]["supportedSymmAlg"], "aes128Ccm");
    assert!(tbs["encryptionKey"]["publicKey"]["eciesNistP256"]["compressed-y-1"].is_string());
    assert_eq!(tbs["validityPeriod"]["duration"]["hours"], 8760);
    assert_eq!(tbs["appPermissions"][0]["ssp"]["bitmapSsp"], "01FFFC");
    assert!(json["signature"]["ecdsaNistP256"]["rSig"]["x-only"].is_string());
}
