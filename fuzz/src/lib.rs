//! What the fuzz targets check, and the fixed environment they check it in: trust anchors,
//! chain certificates and a decryption key, all from the published vectors
//! (tests/vectors/its), compiled in.
//!
//! Every function here must return normally for every input: a panic is a finding.

use std::sync::OnceLock;

use vss_crypto::{Curve, PrivateKey};
use vss_its::asn::Ieee1609Dot2Data;
use vss_its::{
    Cert, DataEncryptionKey, Decryptor, ItsTime, SignedMessage, TrustStore, Validator, Verdict,
};

macro_rules! vector {
    ($path:literal) => {
        include_bytes!(concat!("../../tests/vectors/its/", $path)).as_slice()
    };
}

/// Trust anchors: the captured CAMs' ticket, the ETSI pool's roots, the EU L2 roots.
const ANCHORS: [&[u8]; 5] = [
    vector!("captures/vanetza_golf8_at_cert_127CFF384CE0B890.oer"),
    vector!("etsi-ats/CERT_IUT_A_RCA.oer"),
    vector!("etsi-ats/CERT_IUT_C_RCA.oer"),
    vector!("ectl/extracted/eu_rca_L2_1_EU-ROOT-CA_L2_624E2E81B7945C4F.oer"),
    vector!("ectl/extracted/eu_rca_L2_3_Microsec-CCMS-RCA-2024_L2_B1FC75CD5A80C630.oer"),
];

/// Intermediate certificates offered with every message.
const CHAIN: [&[u8]; 5] = [
    vector!("etsi-ats/CERT_IUT_A_AA.oer"),
    vector!("etsi-ats/CERT_TS_A_AA.oer"),
    vector!("etsi-ats/CERT_IUT_A_B_AA.oer"),
    vector!("etsi-ats/CERT_IUT_CC_AA.oer"),
    vector!("etsi-ats/CERT_TS_A_EA.oer"),
];

/// The fixed environment.
pub struct Environment {
    trust: TrustStore,
    chain: Vec<Cert>,
    recipient: Cert,
    recipient_key: PrivateKey,
    psk: DataEncryptionKey,
    now: ItsTime,
}

/// Built once per fuzzing process.
pub fn environment() -> &'static Environment {
    static ENV: OnceLock<Environment> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut trust = TrustStore::new();
        for bytes in ANCHORS {
            trust
                .add(Cert::from_bytes(bytes).expect("published anchor"))
                .expect("self-signed");
        }
        let chain = CHAIN
            .iter()
            .map(|b| Cert::from_bytes(b).expect("published certificate"))
            .collect();
        let recipient =
            Cert::from_bytes(vector!("etsi-ats/CERT_IUT_A_AT.oer")).expect("published ticket");
        let recipient_key =
            PrivateKey::from_scalar(Curve::P256, vector!("etsi-ats/CERT_IUT_A_AT.ekey"))
                .expect("published key");
        Environment {
            trust,
            chain,
            recipient,
            recipient_key,
            psk: DataEncryptionKey::from_bytes([0x42; 16]),
            // 2024-06-01: inside the ETSI pool's and the EU roots' validity.
            now: ItsTime::from_system_time(
                std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_717_200_000),
            )
            .expect("2024 is a 1609.2 time"),
        }
    })
}

/// Decoding `Ieee1609Dot2Data`: what decodes re-encodes to the same bytes; every accessor,
/// the JSON form and decryption (with a certificate's key and a pre-shared key) return.
pub fn decode_data(bytes: &[u8]) {
    let Ok(data) = vss_its::decode_data(bytes) else {
        return;
    };
    let again = vss_its::encode_data(&data).expect("a decoded structure encodes");
    assert_eq!(again, bytes, "strict decoding accepted a non-canonical encoding");
    let _ = vss_its::data_to_json(&data);
    read_signed(&data);
    let env = environment();
    let by_cert = Decryptor::Certificate(&env.recipient, &env.recipient_key);
    for decryptor in [by_cert, Decryptor::PreSharedKey(&env.psk)] {
        if let Ok(opened) = vss_its::decrypt_data(&data, decryptor) {
            assert_eq!(
                vss_its::encode_data(&opened.data).expect("encodes"),
                opened.bytes
            );
            read_signed(&opened.data);
        }
    }
}

fn read_signed(data: &Ieee1609Dot2Data) {
    if let Ok(message) = SignedMessage::from_asn(data.clone()) {
        let _ = (message.psid(), message.payload(), message.signer_digest());
        let _ = message.signed_digest(None);
        let _ = message.signature();
    }
}

/// Decoding a certificate: it keeps its bytes; its canonical form decodes to the same
/// HashedId8; its accessors return; it validates (or not) against the environment.
pub fn certificate(bytes: &[u8]) {
    let Ok(cert) = Cert::from_bytes(bytes) else {
        return;
    };
    assert_eq!(cert.bytes(), bytes);
    let canonical = Cert::from_bytes(cert.canonical_bytes()).expect("the canonical form decodes");
    assert_eq!(canonical.hashed_id8(), cert.hashed_id8());
    assert_eq!(canonical.canonical_bytes(), cert.canonical_bytes());
    let _ = (cert.verification_key(), cert.signature(), cert.validity());
    let _ = cert.signed_digest(None);
    let _ = vss_its::certificate_to_json(&cert);
    let _ = TrustStore::new().add(cert.clone());
    let env = environment();
    let mut validator = Validator::new(env.trust.clone(), 8);
    let first = validator.verify_certificate(&cert, &env.chain, env.now);
    let second = validator.verify_certificate(&cert, &env.chain, env.now);
    assert_eq!(first.verdict, second.verdict, "a warm cache changed the verdict");
}

/// Verifying signed data: one verdict, the same with the cache cold and warm, at the
/// message's own generation time (so captured messages can be Valid) and at a fixed time.
pub fn verify(bytes: &[u8]) {
    let env = environment();
    let generated = SignedMessage::from_bytes(bytes)
        .ok()
        .and_then(|m| m.header().generation_time.as_ref().map(ItsTime::from_time64));
    for now in [generated.unwrap_or(env.now), env.now] {
        let mut validator = Validator::new(env.trust.clone(), 8);
        let first = validator.verify_data(bytes, &env.chain, now);
        let second = validator.verify_data(bytes, &env.chain, now);
        assert_eq!(first.verdict, second.verdict, "a warm cache changed the verdict");
        if first.verdict == Verdict::Valid {
            assert!(first.signer.is_some() && first.psid.is_some(), "{first:?}");
        }
    }
}
