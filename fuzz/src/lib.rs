//! What the fuzz targets check, and the fixed environment they check it in: trust anchors,
//! chain certificates and a decryption key, all from the published vectors
//! (tests/vectors/its), compiled in; for [`pki_intake`], a fixed PKI (see its module);
//! [`gn_packet`] and [`prepared_verify`] need none.
//!
//! Every function here must return normally for every input: a panic is a finding.

mod gn;
mod intake;
mod pkcs11;
mod prepared;

use std::sync::OnceLock;

pub use gn::gn_packet;
pub use intake::pki_intake;
pub use pkcs11::pkcs11_templates;
pub use prepared::prepared_verify;

use vss_crypto::{Curve, PrivateKey};
use vss_its::asn::Ieee1609Dot2Data;
use vss_its::{
    Cert, DataEncryptionKey, Decryptor, ItsTime, Psid, SignedMessage, TrustAnchors, Validator,
    Verdict,
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
    trust: TrustAnchors,
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
        let mut trust = TrustAnchors::new();
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
    assert_eq!(
        again, bytes,
        "strict decoding accepted a non-canonical encoding"
    );
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
    let _ = TrustAnchors::new().add(cert.clone());
    let env = environment();
    let mut validator = Validator::new(env.trust.clone(), 8);
    let first = validator.verify_certificate(&cert, &env.chain, env.now);
    let second = validator.verify_certificate(&cert, &env.chain, env.now);
    assert_eq!(
        first.verdict, second.verdict,
        "a warm cache changed the verdict"
    );
}

/// Verifying signed data: one verdict, the same with the cache cold and warm, at the
/// message's own generation time (so captured messages can be Valid) and at a fixed time.
pub fn verify(bytes: &[u8]) {
    let env = environment();
    let generated = SignedMessage::from_bytes(bytes).ok().and_then(|m| {
        m.header()
            .generation_time
            .as_ref()
            .map(ItsTime::from_time64)
    });
    for now in [generated.unwrap_or(env.now), env.now] {
        let mut validator = Validator::new(env.trust.clone(), 8);
        let first = validator.verify_data(bytes, &env.chain, now);
        let second = validator.verify_data(bytes, &env.chain, now);
        assert_eq!(
            first.verdict, second.verdict,
            "a warm cache changed the verdict"
        );
        if first.verdict == Verdict::Valid {
            assert!(first.signer.is_some() && first.psid.is_some(), "{first:?}");
        }
    }
}

/// The in-process PKI of [`times`]: a root and an AA with fixed keys, valid from 2024-01-01
/// for 100 years, and a ticket (PSID 36) whose validity each input replaces.
struct TimesPki {
    trust: TrustAnchors,
    aa: Cert,
    aa_key: PrivateKey,
    ticket: Cert,
    ticket_key: PrivateKey,
}

fn times_pki() -> &'static TimesPki {
    use vss_its::asn::Duration;
    use vss_its::{issue_certificate, CertificateRequest, Permission, Profile};
    static PKI: OnceLock<TimesPki> = OnceLock::new();
    PKI.get_or_init(|| {
        let key = |byte: u8| PrivateKey::from_scalar(Curve::P256, &[byte; 32]).expect("scalar");
        let start = ItsTime::from_system_time(
            std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_704_067_200),
        )
        .expect("2024 is a 1609.2 time");
        let request = |profile, key: &PrivateKey, duration| {
            let mut r = CertificateRequest::new(profile, key.public_key().clone(), duration);
            r.start = start;
            r
        };
        let root_key = key(1);
        let root = issue_certificate(
            &request(Profile::Root, &root_key, Duration::Years(100)),
            None,
            &root_key,
        )
        .expect("root");
        let aa_key = key(2);
        let mut aa = request(Profile::Aa, &aa_key, Duration::Years(100));
        aa.encryption_key = Some(aa_key.public_key().clone());
        let aa = issue_certificate(&aa, Some(&root), &root_key).expect("aa");
        let ticket_key = key(3);
        let mut ticket = request(Profile::At, &ticket_key, Duration::Hours(24));
        ticket.app_permissions = vec![Permission::psid(Psid::CAM)];
        let ticket = issue_certificate(&ticket, Some(&aa), &aa_key).expect("ticket");
        let mut trust = TrustAnchors::new();
        trust.add(root).expect("self-signed");
        TimesPki {
            trust,
            aa,
            aa_key,
            ticket,
            ticket_key,
        }
    })
}

/// The time fields [`times`] reads from its input (big-endian, zero-padded to 32 bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeFields {
    /// `generationTime`, when bit 0 of the flags is set.
    pub generation: Option<u64>,
    /// `expiryTime`, when bit 1 of the flags is set.
    pub expiry: Option<u64>,
    /// The ticket's `validityPeriod.start`.
    pub start: u32,
    /// The ticket's `validityPeriod.duration`.
    pub duration: vss_its::asn::Duration,
    /// The receiver's clock (TAI microseconds).
    pub now: u64,
}

impl TimeFields {
    /// Reads flags (1 byte), generation (8), expiry (8), start (4), duration choice (1) and
    /// value (2), now (8).
    pub fn from_bytes(bytes: &[u8]) -> Self {
        use vss_its::asn::Duration;
        let mut b = [0u8; 32];
        let len = bytes.len().min(b.len());
        b[..len].copy_from_slice(&bytes[..len]);
        let u64_at = |i: usize| u64::from_be_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        let n = u16::from_be_bytes([b[22], b[23]]);
        let duration = match b[21] % 7 {
            0 => Duration::Microseconds(n),
            1 => Duration::Milliseconds(n),
            2 => Duration::Seconds(n),
            3 => Duration::Minutes(n),
            4 => Duration::Hours(n),
            5 => Duration::SixtyHours(n),
            _ => Duration::Years(n),
        };
        TimeFields {
            generation: (b[0] & 1 != 0).then(|| u64_at(1)),
            expiry: (b[0] & 2 != 0).then(|| u64_at(9)),
            start: u32::from_be_bytes(b[17..21].try_into().expect("4 bytes")),
            duration,
            now: u64_at(24),
        }
    }
}

/// Time fields of a valid message and of its signer's certificate set from the input: the
/// ticket re-signed by its AA with the fuzzed validity, a CAM signed with the fuzzed
/// generation and expiry times, verified at the fuzzed clock and at the generation time.
/// One verdict, the same cold and warm, with a reason unless Valid; Valid only inside every
/// window; a time after [`ItsTime::LAST`] in a message whose chain holds is InvalidTimestamp.
pub fn times(bytes: &[u8]) {
    use vss_its::asn::{Certificate, CertificateBase, ExplicitCertificate, Time32, Time64};
    let fields = TimeFields::from_bytes(bytes);
    let pki = times_pki();
    let mut base: CertificateBase = (**pki.ticket.asn()).clone();
    base.to_be_signed.validity_period = vss_its::asn::ValidityPeriod {
        start: Time32(fields.start),
        duration: fields.duration.clone(),
    };
    let unsigned = Certificate::from(ExplicitCertificate::new(base.clone()).expect("explicit"));
    let digest = Cert::from_asn(unsigned)
        .expect("encodes")
        .signed_digest(Some(&pki.aa));
    let signature = pki.aa_key.sign_digest(&digest).expect("sign");
    base.signature = Some(vss_its::signature_to_asn(&signature).expect("signature"));
    let ticket = Cert::from_asn(Certificate::from(
        ExplicitCertificate::new(base).expect("explicit"),
    ))
    .expect("encodes");
    let validity = ticket.validity();
    let _ = (validity.start.to_string(), validity.end.to_string());

    let time = |micros: u64| ItsTime::from_time64(&Time64(micros));
    let mut request = vss_its::SignedDataRequest::new(Psid::CAM, b"a CAM");
    request.signer = vss_its::SignerKind::Certificate;
    request.generation_time = fields.generation.map(time);
    request.expiry_time = fields.expiry.map(time);
    let data = vss_its::sign_data(&request, Some(&ticket), &pki.ticket_key).expect("sign");
    let message = vss_its::encode_data(&data).expect("encodes");
    let chain = [pki.aa.clone()];
    let beyond = |t: Option<u64>| t.is_some_and(|t| time(t) > ItsTime::LAST);
    for now in [Some(fields.now), fields.generation].into_iter().flatten() {
        let now = time(now);
        let mut validator = Validator::new(pki.trust.clone(), 8);
        let first = validator.verify_data(&message, &chain, now);
        let second = validator.verify_data(&message, &chain, now);
        assert_eq!(first, second, "a warm cache changed the report");
        assert_eq!(first.is_valid(), first.reason.is_empty(), "{first:?}");
        let _ = now.to_string();
        if first.is_valid() {
            assert!(validity.contains(now), "{first:?}");
            assert!(!beyond(fields.generation) && !beyond(fields.expiry));
            if let Some(g) = fields.generation.map(time) {
                assert!(validity.contains(g), "{first:?}");
            }
            if let Some(e) = fields.expiry.map(time) {
                assert!(e > now, "{first:?}");
            }
        }
        let chain_holds = Validator::new(pki.trust.clone(), 8)
            .verify_certificate(&ticket, &chain, now)
            .is_valid();
        if chain_holds && (beyond(fields.generation) || beyond(fields.expiry)) {
            assert_eq!(first.verdict, Verdict::InvalidTimestamp, "{first:?}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed seeds of `its_times` pass its checks (on stable: `cargo test` here).
    #[test]
    fn the_its_times_seeds_pass() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/seeds/its_times");
        let mut seeds = 0;
        for entry in std::fs::read_dir(dir).expect("seeds") {
            let bytes = std::fs::read(entry.expect("seed").path()).expect("seed");
            times(&bytes);
            seeds += 1;
        }
        assert!(seeds >= 7, "{seeds} seeds");
        let forged = std::fs::read(format!("{dir}/forged_generation")).expect("seed");
        let forged = TimeFields::from_bytes(&forged);
        assert_eq!(forged.generation, Some(0xFF00_0000_0000_0000));
    }

    /// Seeds with random bytes in their fields (xorshift64*, fixed seed), so the target's
    /// checks run on stable too.
    #[test]
    fn random_time_fields_pass() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/seeds/its_times");
        let seeds: Vec<Vec<u8>> = std::fs::read_dir(dir)
            .expect("seeds")
            .map(|e| std::fs::read(e.expect("seed").path()).expect("seed"))
            .collect();
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = || {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_F491_4F6C_DD1D)
        };
        for i in 0..1000 {
            let mut input = seeds[i % seeds.len()].clone();
            // Replace one field, or a few random bytes, of a seed.
            let at = (next() % 32) as usize;
            let len = 1 + (next() % 8) as usize;
            for b in input.iter_mut().skip(at).take(len) {
                *b = next() as u8;
            }
            times(&input);
        }
    }
}
