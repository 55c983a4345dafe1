//! The PSID 623 SSPs of TS 102 941 §B.4 on a real PKI (keys in a soft HSM, records in
//! SQLite, the AA reaching the EA in-process): `init` issues them as ETSI's conformance-test
//! certificates carry them, each side refuses a peer whose certificate lacks the permission
//! for its message, and authorities made before (PSID 623 without SSP) still serve.

#[path = "common/made_pki.rs"]
mod made_pki;

use std::sync::Arc;

use made_pki::MadePki;
use vss_crypto::{Curve, PrivateKey};
use vss_its::asn::{CertificateBase, ServiceSpecificPermissions};
use vss_its::{
    issue_certificate, Cert, CertRequestPermission as P, CertificateRequest, HsmKey, ItsTime,
    Permission, Profile, Psid, Signer, TrustAnchors,
};
use vss_pki::authority::{labels, Aa, Answer, Ea, KnownEa, LocalEa};
use vss_pki::messages::{AuthorizationResponseCode as Code, EnrolmentResponseCode as ECode};
use vss_pki::station::{
    authorization_request, enroll, enrolment_request, pseudonyms, CertKind, Outer, Repository,
    TicketBatch, TicketKeys,
};
use vss_pki::store::{AuditEvent, IssuedCertificate, Outcome, PkiStore, Role};
use vss_pki::Error;

/// The clock of the station and of the AA; the EA in the AA's process ([`LocalEa`]) reads
/// its own.
fn now() -> ItsTime {
    ItsTime::now()
}

fn etsi(name: &str) -> Cert {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/vectors/its/etsi-ats")
        .join(name);
    Cert::from_bytes(&std::fs::read(path).expect("vector")).expect("certificate")
}

/// The PSID 623 SSP of `cert`, as bytes of a `bitmapSsp`.
fn bitmap(cert: &Cert) -> Vec<u8> {
    let entry = cert
        .tbs()
        .app_permissions
        .iter()
        .flat_map(|s| s.0.iter())
        .find(|p| Psid::from_asn(&p.psid) == Some(Psid::CERT_REQUEST))
        .expect("PSID 623");
    match &entry.ssp {
        Some(ServiceSpecificPermissions::BitmapSsp(b)) => b.0.to_vec(),
        other => panic!("not a bitmapSsp: {other:?}"),
    }
}

/// A certificate of authority `profile` for `like`'s keys, issued by the PKI's root (its key
/// in the PKI's HSM) with PSID 623 SSP `ssp`, named `name`.
fn issued(pki: &MadePki, like: &Cert, profile: Profile, ssp: [u8; 2], name: &str) -> Cert {
    let (issuer, label) = (&pki.certs.root, labels::ROOT);
    let key = like.verification_key().expect("key");
    let mut r = CertificateRequest::new(profile, key, vss_its::asn::Duration::Years(1));
    r.name = Some(name.into());
    r.encryption_key = like.encryption_key().expect("encryption key");
    r.app_permissions = vec![Permission::bitmap(Psid::CERT_REQUEST, &ssp)];
    let signer = HsmKey::new(pki.hsm.as_ref(), label).expect("signer");
    issue_certificate(&r, Some(issuer), &signer).expect("issue")
}

/// A copy of the root-issued `cert` whose PSID 623 has no SSP, as `init` made them before.
fn without_ssp(pki: &MadePki, cert: &Cert) -> Cert {
    let mut base: CertificateBase = (**cert.asn()).clone();
    for p in base
        .to_be_signed
        .app_permissions
        .iter_mut()
        .flat_map(|s| s.0.iter_mut())
    {
        p.ssp = None;
    }
    let tbs = rasn::coer::encode(&base.to_be_signed).expect("encode");
    let root = &pki.certs.root;
    let digest = vss_its::signing_digest(cert.issuer().hash(), &tbs, Some(root.canonical_bytes()));
    let signer = HsmKey::new(pki.hsm.as_ref(), labels::ROOT).expect("signer");
    let signature = signer.sign_digest(&digest).expect("sign");
    base.signature = Some(vss_its::signature_to_asn(&signature).expect("signature"));
    let explicit = vss_its::asn::ExplicitCertificate::new(base).expect("explicit");
    Cert::from_asn(vss_its::asn::Certificate::from(explicit)).expect("certificate")
}

/// Whether `role` of `pki` refused a request because a certificate lacks `permission` (the
/// words of its name).
fn refused_for(pki: &MadePki, role: Role, permission: &str) -> bool {
    pki.store.audit().expect("audit").iter().any(|line| {
        line.role == role
            && line.event == AuditEvent::Refused
            && line.detail.contains("does not permit")
            && line.detail.contains(permission)
    })
}

/// Station `car-1` of `pki`: its canonical key, registered for CAM and DENM.
fn station(pki: &MadePki) -> PrivateKey {
    let canonical = PrivateKey::generate(Curve::P256).expect("key");
    pki.register("car-1", canonical.public_key(), &[Psid::CAM, Psid::DENM]);
    canonical
}

fn ea_of(pki: &MadePki, cert: &Cert) -> Arc<Ea> {
    let mut trust = TrustAnchors::new();
    trust.add(pki.certs.root.clone()).expect("anchor");
    Arc::new(Ea::new(
        cert.clone(),
        pki.hsm.clone(),
        pki.store.clone(),
        trust,
    ))
}

/// Enrols `car-1` (canonical key `canonical`) at `ea`: its credential and key.
fn enrol(ea: &Ea, canonical: &PrivateKey) -> (Cert, PrivateKey) {
    let key = PrivateKey::generate(Curve::P256).expect("key");
    let request = enrolment_request("car-1", &key, Outer::Canonical(canonical), ea.cert(), now())
        .expect("request");
    let Answer::Response { body, .. } = ea.enrol(&request.bytes, now()).expect("enrol") else {
        panic!("enrolment refused");
    };
    let response = request.read_response(&body, ea.cert()).expect("response");
    assert_eq!(response.code, ECode::Ok);
    (response.certificate.expect("credential"), key)
}

/// The AA with certificate `aa_cert` knowing `ea` as `ea_cert`.
fn aa_of(pki: &MadePki, aa_cert: &Cert, ea: &Arc<Ea>, ea_cert: &Cert) -> Aa {
    let known = KnownEa {
        cert: ea_cert.clone(),
        link: Arc::new(LocalEa(ea.clone())),
    };
    Aa::new(
        aa_cert.clone(),
        pki.hsm.clone(),
        pki.store.clone(),
        vec![known],
    )
}

/// Asks `aa` for a CAM ticket with credential `ec` of `ea_cert`: the code.
fn ask(aa: &Aa, ea_cert: &Cert, ec: &Cert, ec_key: &PrivateKey) -> Code {
    let ticket = PrivateKey::generate(Curve::P256).expect("key");
    let keys = TicketKeys::signing(&ticket);
    let request = authorization_request(keys, ec, ec_key, ea_cert, aa.cert(), &[Psid::CAM], now())
        .expect("request");
    aa.authorize(&request.bytes, now())
        .expect("authorize")
        .code()
}

#[test]
fn init_issues_the_ssps_of_etsis_conformance_certificates() {
    let pki = MadePki::new("alpha");
    assert_eq!(bitmap(pki.ea()), [0x01, 0x0E]);
    assert_eq!(bitmap(pki.ea()), bitmap(&etsi("CERT_TS_A_EA.oer")));
    assert_eq!(bitmap(pki.aa()), [0x01, 0x32]);
    assert_eq!(bitmap(pki.aa()), bitmap(&etsi("CERT_TS_A_AA.oer")));
    let canonical = station(&pki);
    let ea = ea_of(&pki, pki.ea());
    let (ec, ec_key) = enrol(&ea, &canonical);
    assert_eq!(bitmap(&ec), [0x01, 0xC0]);
    assert_eq!(bitmap(&ec), bitmap(&etsi("CERT_TS_A_EC.oer")));
    // The positive flow: re-enrolment with that credential, and a ticket.
    let key = PrivateKey::generate(Curve::P256).expect("key");
    let again = enrolment_request(
        "car-1",
        &key,
        Outer::Enrolment(&ec, &ec_key),
        pki.ea(),
        now(),
    )
    .expect("request");
    assert!(matches!(
        ea.enrol(&again.bytes, now()).expect("enrol"),
        Answer::Response {
            code: ECode::Ok,
            ..
        }
    ));
    let aa = aa_of(&pki, pki.aa(), &ea, pki.ea());
    assert_eq!(ask(&aa, pki.ea(), &ec, &ec_key), Code::Ok);
}

#[test]
fn a_station_refuses_authorities_without_the_permission_for_their_answer() {
    let pki = MadePki::new("alpha");
    let dir = tempfile::tempdir().expect("tempdir");
    let repository = Repository::open(dir.path()).expect("repository");
    let hsm = pki.hsm.as_ref();
    // Nothing listens there: a refusal by permission comes before anything is sent.
    let url = "http://127.0.0.1:9";
    // An "EA" that may sign what an AA signs, but no enrolment response.
    let ea = issued(
        &pki,
        pki.ea(),
        Profile::Ea,
        vss_its::SSP_AA_CERT_REQUEST,
        "not-an-ea",
    );
    match enroll(hsm, &repository, "car-1", labels::ROOT, url, &ea) {
        Err(Error::NotPermitted {
            authority: "EA",
            certificate,
            permission,
        }) => {
            assert_eq!(certificate, ea.hashed_id8());
            assert_eq!(permission, P::EnrolmentResponse);
        }
        other => panic!("not refused by permission: {:?}", other.err()),
    }
    // The EA's certificate as an AA's: it may not sign authorization responses.
    let ea = pki.ea();
    match pseudonyms(
        hsm,
        &repository,
        url,
        ea,
        ea,
        &[Psid::CAM],
        TicketBatch::of(1),
    ) {
        Err(
            e @ Error::NotPermitted {
                authority: "AA",
                permission: P::AuthorizationResponse,
                ..
            },
        ) => {
            assert!(e.to_string().contains("authorization responses"), "{e}");
        }
        other => panic!("not refused by permission: {:?}", other.err()),
    }
    assert!(repository
        .list(CertKind::Enrolment)
        .expect("list")
        .is_empty());
}

#[test]
fn authorities_refuse_peers_and_credentials_without_the_permission() {
    let pki = MadePki::new("alpha");
    let canonical = station(&pki);
    let ea = ea_of(&pki, pki.ea());
    let (ec, ec_key) = enrol(&ea, &canonical);
    // An AA that may answer stations but not ask the EA for validation: the EA says invalidaa.
    let mute = issued(&pki, pki.aa(), Profile::Aa, [0x01, 0x12], "mute-aa");
    assert_eq!(
        ask(&aa_of(&pki, &mute, &ea, pki.ea()), pki.ea(), &ec, &ec_key),
        Code::InvalidAa
    );
    assert!(refused_for(
        &pki,
        Role::Ea,
        "authorization validation requests"
    ));
    // An EA that may not answer validation requests: the AA does not ask it.
    let deaf = issued(&pki, pki.ea(), Profile::Ea, [0x01, 0x04], "deaf-ea");
    assert_eq!(
        ask(&aa_of(&pki, pki.aa(), &ea, &deaf), &deaf, &ec, &ec_key),
        Code::ItsAaInvalidEa
    );
    assert!(refused_for(
        &pki,
        Role::Aa,
        "authorization validation responses"
    ));
    // Credentials of car-1 recorded as the EA's, each lacking one permission.
    let recorded = |ssp: [u8; 2], id: &[u8]| {
        let key = PrivateKey::generate(Curve::P256).expect("key");
        let cert = issued_for(&pki, &key, ssp);
        pki.store
            .record(
                Role::Ea,
                id,
                &Outcome::Issued(IssuedCertificate {
                    hashed_id8: cert.hashed_id8(),
                    role: Role::Ea,
                    station: Some("car-1".into()),
                    request_id: id.to_vec(),
                    certificate: cert.bytes().to_vec(),
                }),
            )
            .expect("record");
        (cert, key)
    };
    let (no_tickets, key) = recorded([0x01, 0x80], b"recorded-ec-1");
    let aa = aa_of(&pki, pki.aa(), &ea, pki.ea());
    assert_eq!(
        ask(&aa, pki.ea(), &no_tickets, &key),
        Code::DeniedPermissions
    );
    assert!(refused_for(
        &pki,
        Role::Ea,
        "permit signing authorization requests"
    ));
    let (no_renewal, key) = recorded([0x01, 0x40], b"recorded-ec-2");
    let new = PrivateKey::generate(Curve::P256).expect("key");
    let again = enrolment_request(
        "car-1",
        &new,
        Outer::Enrolment(&no_renewal, &key),
        pki.ea(),
        now(),
    )
    .expect("request");
    assert_eq!(
        ea.enrol(&again.bytes, now()).expect("enrol").code(),
        ECode::DeniedPermissions
    );
    assert!(refused_for(
        &pki,
        Role::Ea,
        "permit signing enrolment requests"
    ));
    assert!(pki.store.issued_by(Role::Aa).expect("records").is_empty());
}

/// A credential for `key` of `car-1`, issued by the PKI's EA with PSID 623 SSP `ssp`.
fn issued_for(pki: &MadePki, key: &PrivateKey, ssp: [u8; 2]) -> Cert {
    let mut r = CertificateRequest::new(
        Profile::Ec,
        key.public_key().clone(),
        vss_its::asn::Duration::Years(1),
    );
    r.name = Some("car-1".into());
    r.app_permissions = vec![Permission::bitmap(Psid::CERT_REQUEST, &ssp)];
    let signer = HsmKey::new(pki.hsm.as_ref(), labels::EA).expect("signer");
    issue_certificate(&r, Some(pki.ea()), &signer).expect("issue")
}

#[test]
fn authorities_made_before_without_ssp_still_serve() {
    let pki = MadePki::new("alpha");
    let (old_ea, old_aa) = (without_ssp(&pki, pki.ea()), without_ssp(&pki, pki.aa()));
    assert!(old_ea
        .tbs()
        .app_permissions
        .iter()
        .flat_map(|s| s.0.iter())
        .all(|p| p.ssp.is_none()));
    let canonical = station(&pki);
    let ea = ea_of(&pki, &old_ea);
    let (ec, ec_key) = enrol(&ea, &canonical);
    let aa = aa_of(&pki, &old_aa, &ea, &old_ea);
    assert_eq!(ask(&aa, &old_ea, &ec, &ec_key), Code::Ok);
}
