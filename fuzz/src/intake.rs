//! The PKI request intake: the enrolment authority's `enrol` and `validate` and the
//! authorization authority's `authorize`, in a fixed PKI: a root, an EA and an AA whose
//! certificates are committed in `fixtures/pki_intake/`, their keys (scalars of one repeated
//! byte) in an in-memory HSM, records in an in-memory SQLite store, the station `car-1`
//! registered with its enrolment credential on record, the clock at 2024-06-01T00:00:00Z.
//!
//! An input's first byte says where the rest goes. Bit 7 set: the rest is a request message,
//! sent as it is. Bit 7 clear: the rest is the plaintext of a request, encrypted to the
//! authority first, so that what lies behind decryption (signed `EtsiTs102941Data`, the
//! proof of possession, `InnerEcRequest`, `InnerAtRequest`, the EC signature) is fuzzed too.
//! The low seven bits modulo 3 pick the intake: 0 enrolment, 1 authorization validation,
//! 2 authorization.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use vss_crypto::{
    AesCcm, Curve, PrivateKey, PublicKey, RsaEncryptionPadding, RsaPublicKey, RsaSignatureScheme,
    Signature,
};
use vss_hsm::{GenerateKeyRequest, Hsm, ImportKeyRequest, KeyHandle, KeyInfo};
use vss_its::asn::{Ieee1609Dot2Content, SymmetricCiphertext};
use vss_its::{
    Cert, DataEncryptionKey, Decryptor, ItsTime, Psid, Recipient, SignedMessage, TrustAnchors,
    Validator,
};
use vss_pki::authority::{labels, Aa, Answer, Ea, EaLink, KnownEa};
use vss_pki::messages::{
    AuthorizationResponseCode, AuthorizationValidationResponseCode, EnrolmentResponseCode,
    EtsiTs102941Data, EtsiTs102941DataContent,
};
use vss_pki::protocol::request_hash;
use vss_pki::store::{IssuedCertificate, Outcome, PkiStore, Role, SqliteStore, Station};
use zeroize::Zeroizing;

macro_rules! fixture {
    ($name:literal) => {
        include_bytes!(concat!("../fixtures/pki_intake/", $name)).as_slice()
    };
}

/// The fixed keys, P-256 scalars of one repeated byte: for fuzzing only.
#[derive(Debug, Clone, Copy)]
enum Key {
    /// The root CA's signing key (needed only to remake the fixture).
    #[cfg(test)]
    Root = 0x11,
    Ea = 0x12,
    EaEncryption = 0x13,
    Aa = 0x14,
    AaEncryption = 0x15,
    /// The station's canonical key, registered at the EA.
    Canonical = 0x21,
    /// The key of the station's enrolment credential (`ec.oer`).
    Ec = 0x22,
    /// The new key of the enrolment seeds.
    NewEc = 0x23,
    /// The new key of the re-enrolment seed.
    RenewedEc = 0x24,
    /// The ticket key of the authorization seeds.
    Ticket = 0x25,
}

impl Key {
    fn private(self) -> PrivateKey {
        PrivateKey::from_scalar(Curve::P256, &[self as u8; 32]).expect("a scalar below the order")
    }
}

/// The keys the station holds: an `ok` certifies one of them, never a key of the input's.
const STATION_KEYS: [Key; 4] = [Key::Ec, Key::NewEc, Key::RenewedEc, Key::Ticket];

/// The registered station.
const STATION: &str = "car-1";

/// The PSIDs the EA confirms for it.
const STATION_PSIDS: [Psid; 2] = vss_pki::store::DEFAULT_PSIDS;

/// The authorities' clock: 2024-06-01T00:00:00Z.
fn now() -> ItsTime {
    ItsTime::from_system_time(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_717_200_000))
        .expect("2024 is a 1609.2 time")
}

/// An HSM that holds the authorities' fixed keys in memory: no files, no PIN.
struct MemoryHsm(HashMap<&'static str, PrivateKey>);

fn key_info(label: &str, key: &PrivateKey) -> KeyInfo {
    KeyInfo {
        handle: KeyHandle::new(label),
        label: label.to_owned(),
        algorithm: key.curve().into(),
    }
}

impl MemoryHsm {
    fn private(&self, key: &KeyHandle) -> vss_hsm::Result<&PrivateKey> {
        self.0
            .get(key.id())
            .ok_or_else(|| vss_hsm::Error::KeyNotFound(key.id().to_owned()))
    }

    fn fixed() -> vss_hsm::Error {
        vss_hsm::Error::Unsupported("the fuzzing HSM's keys are fixed".into())
    }

    /// Every key here is an EC key: the RSA operations say so.
    fn not_rsa(&self, key: &KeyHandle) -> vss_hsm::Error {
        match self.private(key) {
            Ok(private) => vss_hsm::Error::WrongKeyType {
                label: key.id().to_owned(),
                algorithm: private.curve().into(),
                needs: "an RSA key",
            },
            Err(e) => e,
        }
    }
}

impl Hsm for MemoryHsm {
    /// Keys held in this process's memory, as the soft store holds them once open.
    fn backend(&self) -> vss_hsm::Backend {
        vss_hsm::Backend::Soft
    }

    fn generate_key(&self, _: &GenerateKeyRequest) -> vss_hsm::Result<KeyInfo> {
        Err(Self::fixed())
    }

    fn import_key(&self, _: &ImportKeyRequest<'_>) -> vss_hsm::Result<KeyInfo> {
        Err(Self::fixed())
    }

    fn keys(&self) -> vss_hsm::Result<Vec<KeyInfo>> {
        let mut keys: Vec<KeyInfo> = self.0.iter().map(|(l, k)| key_info(l, k)).collect();
        keys.sort_by(|a, b| a.label.cmp(&b.label));
        Ok(keys)
    }

    fn key(&self, label: &str) -> vss_hsm::Result<KeyInfo> {
        let key = self.private(&KeyHandle::new(label))?;
        Ok(key_info(label, key))
    }

    fn public_key(&self, key: &KeyHandle) -> vss_hsm::Result<PublicKey> {
        Ok(self.private(key)?.public_key().clone())
    }

    fn sign_digest(&self, key: &KeyHandle, digest: &[u8]) -> vss_hsm::Result<Signature> {
        Ok(self.private(key)?.sign_digest(digest)?)
    }

    fn ecdh(&self, key: &KeyHandle, peer: &PublicKey) -> vss_hsm::Result<Zeroizing<Vec<u8>>> {
        Ok(self.private(key)?.diffie_hellman(peer)?)
    }

    fn rsa_public_key(&self, key: &KeyHandle) -> vss_hsm::Result<RsaPublicKey> {
        Err(self.not_rsa(key))
    }

    fn rsa_sign_digest(
        &self,
        key: &KeyHandle,
        _: RsaSignatureScheme,
        _: &[u8],
    ) -> vss_hsm::Result<Vec<u8>> {
        Err(self.not_rsa(key))
    }

    fn rsa_sign_pkcs1_raw(&self, key: &KeyHandle, _: &[u8]) -> vss_hsm::Result<Vec<u8>> {
        Err(self.not_rsa(key))
    }

    fn rsa_decrypt(
        &self,
        key: &KeyHandle,
        _: RsaEncryptionPadding,
        _: &[u8],
    ) -> vss_hsm::Result<Zeroizing<Vec<u8>>> {
        Err(self.not_rsa(key))
    }

    fn delete_key(&self, _: &KeyHandle) -> vss_hsm::Result<()> {
        Err(Self::fixed())
    }
}

/// The EA, called in-process by the AA at the authorities' clock.
struct Direct(Arc<Ea>);

impl EaLink for Direct {
    fn validate(&self, request: &[u8]) -> Result<Vec<u8>, String> {
        match self.0.validate(request, now()) {
            Ok(Answer::Response { body, .. }) => Ok(body),
            Ok(Answer::Refused(code)) => Err(format!("refused: {code:?}")),
            Err(e) => Err(e.to_string()),
        }
    }
}

/// The fixed PKI.
struct Pki {
    trust: TrustAnchors,
    ea: Arc<Ea>,
    aa: Aa,
    ea_decryption: PrivateKey,
    aa_decryption: PrivateKey,
    store: Arc<SqliteStore>,
    station_keys: Vec<PublicKey>,
}

impl Pki {
    /// The EA and AA of certificates `ea` and `aa` under `root`, with the station registered.
    fn new(root: Cert, ea: Cert, aa: Cert) -> Self {
        let hsm: Arc<dyn Hsm> = Arc::new(MemoryHsm(HashMap::from([
            (labels::EA, Key::Ea.private()),
            (labels::EA_ENCRYPTION, Key::EaEncryption.private()),
            (labels::AA, Key::Aa.private()),
            (labels::AA_ENCRYPTION, Key::AaEncryption.private()),
        ])));
        let store = Arc::new(
            SqliteStore::open(std::path::Path::new(":memory:")).expect("an in-memory store"),
        );
        let canonical = Key::Canonical.private();
        store
            .register_station(&Station {
                canonical_id: STATION.into(),
                curve: canonical.curve(),
                public_key: canonical.public_key().to_sec1_compressed().to_vec(),
                psids: STATION_PSIDS.to_vec(),
            })
            .expect("registers");
        let mut trust = TrustAnchors::new();
        trust.add(root).expect("a self-signed root");
        let ea = Arc::new(Ea::new(ea, hsm.clone(), store.clone(), trust.clone()));
        let known = KnownEa {
            cert: ea.cert().clone(),
            link: Arc::new(Direct(ea.clone())),
        };
        Pki {
            aa: Aa::new(aa, hsm, store.clone(), vec![known]),
            ea,
            trust,
            ea_decryption: Key::EaEncryption.private(),
            aa_decryption: Key::AaEncryption.private(),
            store,
            station_keys: STATION_KEYS
                .iter()
                .map(|k| k.private().public_key().clone())
                .collect(),
        }
    }
}

/// Built once per fuzzing process: the committed certificates, the station's enrolment
/// credential on record as issued by the EA.
fn pki() -> &'static Pki {
    static PKI: OnceLock<Pki> = OnceLock::new();
    PKI.get_or_init(fixture_pki)
}

/// A PKI of the committed fixture with the station's enrolment credential on record.
fn fixture_pki() -> Pki {
    let cert = |bytes: &[u8]| Cert::from_bytes(bytes).expect("a committed certificate");
    let pki = Pki::new(
        cert(fixture!("root.oer")),
        cert(fixture!("ea.oer")),
        cert(fixture!("aa.oer")),
    );
    let ec = cert(fixture!("ec.oer"));
    let request_id = request_hash(ec.bytes());
    let issued = IssuedCertificate {
        hashed_id8: ec.hashed_id8(),
        role: Role::Ea,
        station: Some(STATION.into()),
        request_id: request_id.to_vec(),
        certificate: ec.bytes().to_vec(),
    };
    pki.store
        .record(Role::Ea, &request_id, &Outcome::Issued(issued))
        .expect("records the enrolment credential");
    pki
}

/// Which intake an input goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Endpoint {
    Enrol,
    Validate,
    Authorize,
}

/// A response code of any of the three protocols.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Code {
    Enrolment(EnrolmentResponseCode),
    Validation(AuthorizationValidationResponseCode),
    Authorization(AuthorizationResponseCode),
}

impl Code {
    fn is_ok(self) -> bool {
        matches!(
            self,
            Code::Enrolment(EnrolmentResponseCode::Ok)
                | Code::Validation(AuthorizationValidationResponseCode::Ok)
                | Code::Authorization(AuthorizationResponseCode::Ok)
        )
    }
}

/// An intake's answer: its code, and the encrypted response unless the request was refused
/// unopened.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Reply {
    code: Code,
    response: Option<Vec<u8>>,
}

impl Endpoint {
    fn of(byte: u8) -> Self {
        match (byte & 0x7F) % 3 {
            0 => Endpoint::Enrol,
            1 => Endpoint::Validate,
            _ => Endpoint::Authorize,
        }
    }

    /// The authority's certificate: what requests are encrypted to and responses signed by.
    fn authority(self, pki: &Pki) -> &Cert {
        match self {
            Endpoint::Enrol | Endpoint::Validate => pki.ea.cert(),
            Endpoint::Authorize => pki.aa.cert(),
        }
    }

    /// The private half of the authority's encryption key.
    fn decryption(self, pki: &Pki) -> &PrivateKey {
        match self {
            Endpoint::Enrol | Endpoint::Validate => &pki.ea_decryption,
            Endpoint::Authorize => &pki.aa_decryption,
        }
    }

    /// The code of a request whose plaintext does not decode.
    fn cant_parse(self) -> Code {
        match self {
            Endpoint::Enrol => Code::Enrolment(EnrolmentResponseCode::CantParse),
            Endpoint::Validate => Code::Validation(AuthorizationValidationResponseCode::CantParse),
            Endpoint::Authorize => Code::Authorization(AuthorizationResponseCode::ItsAaCantParse),
        }
    }

    /// The code of a request answered before.
    fn replay(self) -> Code {
        match self {
            Endpoint::Enrol => Code::Enrolment(EnrolmentResponseCode::DeniedRequest),
            Endpoint::Validate => {
                Code::Validation(AuthorizationValidationResponseCode::DeniedRequest)
            }
            Endpoint::Authorize => {
                Code::Authorization(AuthorizationResponseCode::ItsAaOutOfSyncRequest)
            }
        }
    }

    /// Sends `request`. The intake answers every request with a code: an `Err` (HTTP 500)
    /// is a finding.
    fn ask(self, pki: &Pki, request: &[u8]) -> Reply {
        fn reply<C: Copy + std::fmt::Debug>(
            answer: vss_pki::Result<Answer<C>>,
            code: fn(C) -> Code,
        ) -> Reply {
            match answer {
                Ok(Answer::Response { code: c, body }) => Reply {
                    code: code(c),
                    response: Some(body),
                },
                Ok(Answer::Refused(c)) => Reply {
                    code: code(c),
                    response: None,
                },
                Err(e) => panic!("the intake failed instead of answering: {e}"),
            }
        }
        match self {
            Endpoint::Enrol => reply(pki.ea.enrol(request, now()), Code::Enrolment),
            Endpoint::Validate => reply(pki.ea.validate(request, now()), Code::Validation),
            Endpoint::Authorize => reply(pki.aa.authorize(request, now()), Code::Authorization),
        }
    }
}

/// An input through the intake: see the module's documentation for its layout.
///
/// Checks: the intake answers with a code and never fails; a request is answered with an
/// encrypted response exactly when the authority's key opens it, else refused (`cantparse`
/// when it opens to a plaintext that does not decode); each response opens with the
/// request's key, is signed by the authority, answers this request with the same code, and
/// carries a certificate (or confirmed attributes) exactly when `ok`; `ok` certifies only a
/// key the station holds, with a certificate that chains to the root and no PSID the station
/// may not have, and validates only a request the AA signed; the same request sent again is
/// refused the same way, or answered with the replay code, also when it is encrypted afresh.
pub fn pki_intake(bytes: &[u8]) {
    intake(pki(), bytes);
}

/// [`pki_intake`] on `pki`, giving the first answer's code (none for an empty input).
fn intake(pki: &Pki, bytes: &[u8]) -> Option<Code> {
    let (&first, rest) = bytes.split_first()?;
    let endpoint = Endpoint::of(first);
    Some(if first & 0x80 != 0 {
        raw(pki, endpoint, rest)
    } else {
        sealed(pki, endpoint, rest)
    })
}

/// `request` sent as it is, twice.
fn raw(pki: &Pki, endpoint: Endpoint, request: &[u8]) -> Code {
    let opened = vss_its::decode_data(request).ok().and_then(|data| {
        let decryptor = Decryptor::Certificate(endpoint.authority(pki), endpoint.decryption(pki));
        vss_its::decrypt_data(&data, decryptor).ok()
    });
    let first = endpoint.ask(pki, request);
    let again = endpoint.ask(pki, request);
    match &opened {
        None => {
            assert!(first.response.is_none(), "answered unopened: {first:?}");
            assert_eq!(again, first, "refused one way, then another");
        }
        Some(opened) => {
            assert!(
                first.response.is_some(),
                "refused though it opens: {first:?}"
            );
            check(pki, endpoint, request, &opened.bytes, &opened.key, &first);
            check(pki, endpoint, request, &opened.bytes, &opened.key, &again);
            assert_eq!(
                again.code,
                endpoint.replay(),
                "a replay answered: {again:?}"
            );
        }
    }
    first.code
}

/// `plaintext` encrypted to the authority and sent, twice, each time under a fresh key: the
/// second time it is a replay (the authorities tell requests by their decrypted bytes).
fn sealed(pki: &Pki, endpoint: Endpoint, plaintext: &[u8]) -> Code {
    let decodes = vss_its::decode_data(plaintext).is_ok();
    let [first, again] = [(); 2].map(|()| {
        let key = DataEncryptionKey::generate().expect("a random key");
        let request = seal(plaintext, endpoint.authority(pki), &key);
        let reply = endpoint.ask(pki, &request);
        if decodes {
            check(pki, endpoint, &request, plaintext, &key, &reply);
        } else {
            let refused = Reply {
                code: endpoint.cant_parse(),
                response: None,
            };
            assert_eq!(reply, refused, "an undecodable plaintext answered");
        }
        reply.code
    });
    if decodes {
        assert_eq!(
            again,
            endpoint.replay(),
            "the same request re-sealed answered again"
        );
    } else {
        assert_eq!(first, again, "the same plaintext got two codes");
    }
    first
}

/// `plaintext`, any bytes, encrypted to `recipient` under `key` as a station encrypts a
/// request: the structure `encrypt_data` makes, its ciphertext replaced by `plaintext`
/// sealed under the same key and nonce.
fn seal(plaintext: &[u8], recipient: &Cert, key: &DataEncryptionKey) -> Vec<u8> {
    let recipients = [Recipient::Certificate(recipient)];
    let mut data =
        vss_its::encrypt_data(&vss_its::unsecured(b""), &recipients, key).expect("encrypts");
    let Ieee1609Dot2Content::EncryptedData(encrypted) = &mut data.content else {
        unreachable!("encrypt_data makes encrypted data");
    };
    let SymmetricCiphertext::Aes128ccm(ccm) = &mut encrypted.ciphertext else {
        unreachable!("encrypt_data uses AES-128-CCM");
    };
    let sealed = AesCcm::new(key.as_bytes())
        .and_then(|aes| aes.seal(ccm.nonce.as_ref(), &[], plaintext))
        .expect("seals");
    ccm.ccm_ciphertext = vss_its::asn::Opaque(sealed.into());
    vss_its::encode_data(&data).expect("encodes")
}

/// The encrypted response `reply` to `request`, whose plaintext is `plaintext` and whose
/// data-encryption key is `key`.
fn check(
    pki: &Pki,
    endpoint: Endpoint,
    request: &[u8],
    plaintext: &[u8],
    key: &DataEncryptionKey,
    reply: &Reply,
) {
    let body = reply.response.as_deref().expect("an encrypted response");
    let data = vss_its::decode_data(body).expect("the response decodes");
    let opened = vss_its::decrypt_data(&data, Decryptor::PreSharedKey(key))
        .expect("the response opens with the request's key");
    let message = SignedMessage::from_asn(opened.data).expect("the response is signed");
    let authority = endpoint.authority(pki);
    assert_eq!(message.signer_digest(), Some(authority.hashed_id8()));
    assert_eq!(message.psid(), Some(Psid::CERT_REQUEST));
    let digest = message.signed_digest(Some(authority)).expect("a digest");
    let signature = message.signature().expect("a signature");
    let key = authority.verification_key().expect("the authority's key");
    let verifies = key
        .verifying_key()
        .expect("a verifying key")
        .verify_digest(&digest, &signature);
    assert!(verifies, "a response not signed by the authority");
    let envelope: EtsiTs102941Data =
        vss_pki::messages::decode("EtsiTs102941Data", message.payload().expect("a payload"))
            .expect("the response's envelope decodes");
    let hash = request_hash(request);
    match (endpoint, envelope.content) {
        (Endpoint::Enrol, EtsiTs102941DataContent::EnrolmentResponse(r)) => {
            assert_eq!(*r.request_hash, hash, "answers another request");
            assert_eq!(Code::Enrolment(r.response_code), reply.code);
            issued(
                pki,
                r.certificate,
                reply.code,
                pki.ea.cert(),
                &[Psid::CERT_REQUEST],
            );
        }
        (Endpoint::Authorize, EtsiTs102941DataContent::AuthorizationResponse(r)) => {
            assert_eq!(*r.request_hash, hash, "answers another request");
            assert_eq!(Code::Authorization(r.response_code), reply.code);
            issued(
                pki,
                r.certificate,
                reply.code,
                pki.aa.cert(),
                &STATION_PSIDS,
            );
        }
        (Endpoint::Validate, EtsiTs102941DataContent::AuthorizationValidationResponse(r)) => {
            assert_eq!(*r.request_hash, hash, "answers another request");
            assert_eq!(Code::Validation(r.response_code), reply.code);
            let confirmed = r.confirmed_subject_attributes;
            assert_eq!(confirmed.is_some(), reply.code.is_ok(), "{reply:?}");
            if let Some(attributes) = confirmed {
                let psids = attributes.app_permissions.map(|a| a.0).unwrap_or_default();
                let psids: Vec<_> = psids.iter().map(|p| Psid::from_asn(&p.psid)).collect();
                assert!(!psids.is_empty(), "confirmed no PSIDs");
                assert!(
                    psids
                        .iter()
                        .all(|p| p.is_some_and(|p| STATION_PSIDS.contains(&p))),
                    "confirmed PSIDs {psids:?}"
                );
                let signed = SignedMessage::from_bytes(plaintext).expect("a signed request");
                let report =
                    Validator::new(pki.trust.clone(), 8).verify_message(&signed, &[], now());
                assert!(report.is_valid(), "validated a request: {report:?}");
                assert_eq!(report.signer, Some(pki.aa.cert().hashed_id8()));
            }
        }
        (endpoint, content) => panic!("{endpoint:?} answered with {content:?}"),
    }
}

/// The certificate of a response with `code` from the authority `issuer`: present exactly
/// when `ok`; then for a key the station holds, valid under the root at the authorities'
/// clock, with PSIDs from `allowed` only.
fn issued(
    pki: &Pki,
    certificate: Option<vss_its::asn::Certificate>,
    code: Code,
    issuer: &Cert,
    allowed: &[Psid],
) {
    assert_eq!(certificate.is_some(), code.is_ok(), "{code:?}");
    let Some(certificate) = certificate else {
        return;
    };
    let cert = Cert::from_asn(certificate).expect("the certificate encodes");
    let key = cert.verification_key().expect("a verification key");
    assert!(
        pki.station_keys.contains(&key),
        "certified a key the station does not hold"
    );
    let report = Validator::new(pki.trust.clone(), 8).verify_certificate(
        &cert,
        std::slice::from_ref(issuer),
        now(),
    );
    assert!(report.is_valid(), "{report:?}");
    let psids = cert.tbs().app_permissions.clone().map(|a| a.0);
    for p in psids.unwrap_or_default() {
        let psid = Psid::from_asn(&p.psid);
        assert!(
            psid.is_some_and(|p| allowed.contains(&p)),
            "PSID {psid:?} certified"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vss_its::asn::Duration;
    use vss_its::{issue_certificate, CertificateRequest, Profile};
    use vss_pki::messages::AuthorizationValidationRequest;
    use vss_pki::station::{authorization_request, enrolment_request, Outer, TicketKeys};

    const SEEDS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/seeds/pki_intake");

    fn seed(name: &str) -> Vec<u8> {
        std::fs::read(format!("{SEEDS}/{name}")).expect("a committed seed")
    }

    /// The committed seeds pass the checks, and the genuine requests among them get the
    /// codes they were made for (so the fixture and the seeds still fit each other).
    #[test]
    fn the_pki_intake_seeds_pass() {
        let mut seeds = 0;
        for entry in std::fs::read_dir(SEEDS).expect("seeds") {
            pki_intake(&std::fs::read(entry.expect("seed").path()).expect("seed"));
            seeds += 1;
        }
        assert!(seeds >= 9, "{seeds} seeds");
        // A PKI of its own: the other tests may have sent these requests to the shared one.
        let fresh = fixture_pki();
        let code = |name: &str| intake(&fresh, &seed(name)).expect("a code");
        for name in ["enrol", "enrol_renewal"] {
            assert_eq!(
                code(name),
                Code::Enrolment(EnrolmentResponseCode::Ok),
                "{name}"
            );
        }
        assert_eq!(
            code("enrol_unknown_station"),
            Code::Enrolment(EnrolmentResponseCode::UnknownIts)
        );
        assert_eq!(
            code("validate"),
            Code::Validation(AuthorizationValidationResponseCode::Ok)
        );
        for name in ["authorize", "authorize_without_pop"] {
            let ok = Code::Authorization(AuthorizationResponseCode::Ok);
            assert_eq!(code(name), ok, "{name}");
        }
        // Each raw seed is a request sent above already, sealed afresh: now it is a replay.
        for (name, endpoint) in [
            ("enrol_raw", Endpoint::Enrol),
            ("validate_raw", Endpoint::Validate),
            ("authorize_raw", Endpoint::Authorize),
        ] {
            assert_eq!(code(name), endpoint.replay(), "{name}");
        }
    }

    /// Seeds with a few random bytes replaced (xorshift64*, fixed seed), so the target's
    /// checks run on stable too.
    #[test]
    fn random_changes_to_the_pki_intake_seeds_pass() {
        let seeds: Vec<Vec<u8>> = std::fs::read_dir(SEEDS)
            .expect("seeds")
            .map(|e| std::fs::read(e.expect("seed").path()).expect("seed"))
            .collect();
        let mut state = 0x2545_F491_4F6C_DD1D_u64;
        let mut next = || {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_F491_4F6C_DD1D)
        };
        for i in 0..300 {
            let mut input = seeds[i % seeds.len()].clone();
            let at = 1 + (next() % (input.len() as u64 - 1)) as usize;
            let len = 1 + (next() % 4) as usize;
            for b in input.iter_mut().skip(at).take(len) {
                *b = next() as u8;
            }
            pki_intake(&input);
        }
    }

    /// The root, EA and AA as `vss pki init` makes them (root 10 years, EA and AA 4, from
    /// 2024-01-01), with the fixed keys.
    fn authorities() -> [Cert; 3] {
        let start = ItsTime::from_system_time(
            std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_704_067_200),
        )
        .expect("2024 is a 1609.2 time");
        let root_key = Key::Root.private();
        let mut root = CertificateRequest::new(
            Profile::Root,
            root_key.public_key().clone(),
            Duration::Years(10),
        );
        root.name = Some("fuzz-root".into());
        root.start = start;
        let root = issue_certificate(&root, None, &root_key).expect("root");
        let authority = |profile: Profile, key: Key, encryption: Key| {
            let mut r = CertificateRequest::new(
                profile,
                key.private().public_key().clone(),
                Duration::Years(4),
            );
            r.name = Some(format!("fuzz-{profile}"));
            r.start = start;
            r.encryption_key = Some(encryption.private().public_key().clone());
            issue_certificate(&r, Some(&root), &root_key).expect("authority")
        };
        let ea = authority(Profile::Ea, Key::Ea, Key::EaEncryption);
        let aa = authority(Profile::Aa, Key::Aa, Key::AaEncryption);
        [root, ea, aa]
    }

    /// Remakes `fixtures/pki_intake/` (new authority certificates and enrolment credential:
    /// their signatures are random) and the seeds made with it, from the station's code:
    /// `cargo test -- --ignored remake_the_pki_intake_fixture_and_seeds`.
    #[test]
    #[ignore = "rewrites fixtures/pki_intake and seeds/pki_intake"]
    fn remake_the_pki_intake_fixture_and_seeds() {
        let [root, ea, aa] = authorities();
        let pki = Pki::new(root.clone(), ea.clone(), aa.clone());
        let canonical = Key::Canonical.private();
        let ec_key = Key::Ec.private();
        let request = enrolment_request(STATION, &ec_key, Outer::Canonical(&canonical), &ea, now())
            .expect("request");
        let Answer::Response { body, .. } = pki.ea.enrol(&request.bytes, now()).expect("enrol")
        else {
            panic!("the enrolment was refused");
        };
        let ec = request
            .read_response(&body, &ea)
            .expect("a response")
            .certificate
            .expect("an enrolment credential");
        let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/pki_intake");
        std::fs::create_dir_all(fixtures).expect("mkdir");
        for (name, cert) in [("root", &root), ("ea", &ea), ("aa", &aa), ("ec", &ec)] {
            std::fs::write(format!("{fixtures}/{name}.oer"), cert.bytes()).expect("write");
        }

        let open = |endpoint: Endpoint, bytes: &[u8]| {
            let data = vss_its::decode_data(bytes).expect("decodes");
            let decryptor =
                Decryptor::Certificate(endpoint.authority(&pki), endpoint.decryption(&pki));
            vss_its::decrypt_data(&data, decryptor)
                .expect("decrypts")
                .bytes
        };
        let enrolment = |its_id: &str, new: Key, outer: Outer<'_>| {
            enrolment_request(its_id, &new.private(), outer, &ea, now()).expect("request")
        };
        let first = enrolment(STATION, Key::NewEc, Outer::Canonical(&canonical));
        let renewal = enrolment(STATION, Key::RenewedEc, Outer::Enrolment(&ec, &ec_key));
        let stranger = enrolment("car-9", Key::NewEc, Outer::Canonical(&canonical));
        let ticket = Key::Ticket.private();
        let authorization = authorization_request(
            TicketKeys::signing(&ticket),
            &ec,
            &ec_key,
            &ea,
            &aa,
            &[Psid::CAM],
            now(),
        )
        .expect("request");
        let at_request = open(Endpoint::Authorize, &authorization.bytes);
        let envelope = SignedMessage::from_bytes(&at_request)
            .expect("signed")
            .payload()
            .expect("a payload")
            .to_vec();
        let without_pop = vss_its::encode_data(&vss_its::unsecured(&envelope)).expect("encodes");
        // The validation request the AA sends for it.
        let decoded: EtsiTs102941Data =
            vss_pki::messages::decode("EtsiTs102941Data", &envelope).expect("decodes");
        let EtsiTs102941DataContent::AuthorizationRequest(inner) = decoded.content else {
            panic!("not an authorization request");
        };
        let validation =
            EtsiTs102941Data::new(EtsiTs102941DataContent::AuthorizationValidationRequest(
                Box::new(AuthorizationValidationRequest::new(
                    inner.shared_at_request.clone(),
                    inner.ec_signature.clone(),
                )),
            ));
        let payload = vss_pki::messages::encode("EtsiTs102941Data", &validation).expect("encodes");
        let mut signing = vss_its::SignedDataRequest::new(Psid::CERT_REQUEST, &payload);
        signing.generation_time = Some(now());
        signing.signer = vss_its::SignerKind::Certificate;
        let signed = vss_its::sign_data(&signing, Some(&aa), &Key::Aa.private()).expect("signs");
        let validation = vss_its::encode_data(&signed).expect("encodes");
        let key = DataEncryptionKey::generate().expect("a key");
        let validation_raw = vss_its::encrypt_data(&signed, &[Recipient::Certificate(&ea)], &key)
            .and_then(|d| vss_its::encode_data(&d))
            .expect("encrypts");

        std::fs::create_dir_all(SEEDS).expect("mkdir");
        for (name, first_byte, rest) in [
            ("enrol", 0x00, open(Endpoint::Enrol, &first.bytes)),
            ("enrol_renewal", 0x00, open(Endpoint::Enrol, &renewal.bytes)),
            (
                "enrol_unknown_station",
                0x00,
                open(Endpoint::Enrol, &stranger.bytes),
            ),
            ("enrol_raw", 0x80, first.bytes.clone()),
            ("validate", 0x01, validation),
            ("validate_raw", 0x81, validation_raw),
            ("authorize", 0x02, at_request),
            ("authorize_without_pop", 0x02, without_pop),
            ("authorize_raw", 0x82, authorization.bytes.clone()),
        ] {
            let mut bytes = vec![first_byte];
            bytes.extend(rest);
            std::fs::write(format!("{SEEDS}/{name}"), bytes).expect("write");
        }
    }
}
