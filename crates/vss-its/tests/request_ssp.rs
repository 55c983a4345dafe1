//! The SSPs of PSID 623 (TS 102 941 §B.4): the EA, AA and EC certificates VSS issues carry
//! the bytes of ETSI's conformance-test certificates (tests/vectors/its/etsi-ats), the root
//! grants CAs the EU root CA's range, and `permits_cert_request` reads them.

mod common;

use std::path::Path;

use common::{forge, Pki};
use vss_crypto::Curve;
use vss_its::asn::{PsidSsp, ServiceSpecificPermissions, SspRange, SubjectPermissions};
use vss_its::{permits_cert_request, Cert, CertRequestPermission as P, Psid};

fn etsi(name: &str) -> Cert {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/vectors/its/etsi-ats")
        .join(name);
    Cert::from_bytes(&std::fs::read(&path).expect("vector")).expect("certificate")
}

/// The PSID 623 entry of a certificate's appPermissions.
fn cert_request_entry(cert: &Cert) -> PsidSsp {
    cert.tbs()
        .app_permissions
        .iter()
        .flat_map(|s| s.0.iter())
        .find(|p| Psid::from_asn(&p.psid) == Some(Psid::CERT_REQUEST))
        .cloned()
        .expect("PSID 623")
}

fn bitmap(cert: &Cert) -> Vec<u8> {
    match cert_request_entry(cert).ssp {
        Some(ServiceSpecificPermissions::BitmapSsp(b)) => b.0.to_vec(),
        other => panic!("not a bitmapSsp: {other:?}"),
    }
}

#[test]
fn issued_authorities_carry_etsi_conformance_ssps_byte_for_byte() {
    let pki = Pki::new(Curve::P256, None);
    assert_eq!(bitmap(&pki.ea.cert), bitmap(&etsi("CERT_TS_A_EA.oer")));
    assert_eq!(bitmap(&pki.aa.cert), bitmap(&etsi("CERT_TS_A_AA.oer")));
    assert_eq!(bitmap(&pki.aa.cert), bitmap(&etsi("CERT_IUT_A_AA.oer")));
    assert_eq!(bitmap(&pki.ec.cert), bitmap(&etsi("CERT_TS_A_EC.oer")));
    assert_eq!(bitmap(&pki.ea.cert), [0x01, 0x0E]);
    assert_eq!(bitmap(&pki.aa.cert), [0x01, 0x32]);
    assert_eq!(bitmap(&pki.ec.cert), [0x01, 0xC0]);
    assert_eq!(vss_its::SSP_AA_CERT_REQUEST, [0x01, 0x32]);
}

#[test]
fn the_root_grants_cas_the_eu_root_range_for_psid_623() {
    let pki = Pki::new(Curve::P256, None);
    let groups = pki
        .root
        .cert
        .tbs()
        .cert_issue_permissions
        .clone()
        .expect("groups");
    let ranges: Vec<_> = groups
        .0
        .iter()
        .filter_map(|g| match &g.subject_permissions {
            SubjectPermissions::Explicit(r) => Some(r.0.clone()),
            _ => None,
        })
        .flatten()
        .collect();
    let [range] = ranges.as_slice() else {
        panic!("one explicit range: {ranges:?}")
    };
    assert_eq!(Psid::from_asn(&range.psid), Some(Psid::CERT_REQUEST));
    let Some(SspRange::BitmapSspRange(r)) = &range.ssp_range else {
        panic!("not a bitmap range: {range:?}")
    };
    assert_eq!(
        (r.ssp_value.as_ref(), r.ssp_bitmask.as_ref()),
        (&[0x01, 0x3E][..], &[0xFF, 0xC1][..])
    );
}

#[test]
fn permissions_are_read_from_the_bits() {
    let pki = Pki::new(Curve::P256, None);
    let (ea, aa, ec) = (pki.ea.cert.tbs(), pki.aa.cert.tbs(), pki.ec.cert.tbs());
    assert!(permits_cert_request(ea, P::EnrolmentResponse));
    assert!(permits_cert_request(ea, P::AuthorizationValidationResponse));
    assert!(!permits_cert_request(ea, P::AuthorizationResponse));
    assert!(permits_cert_request(aa, P::AuthorizationValidationRequest));
    assert!(permits_cert_request(aa, P::AuthorizationResponse));
    assert!(!permits_cert_request(aa, P::EnrolmentResponse));
    assert!(permits_cert_request(ec, P::EnrolmentRequest));
    assert!(permits_cert_request(ec, P::AuthorizationRequest));
    assert!(!permits_cert_request(ec, P::EnrolmentResponse));
    // ETSI's own certificates read the same way.
    assert!(permits_cert_request(
        etsi("CERT_TS_A_EA.oer").tbs(),
        P::EnrolmentResponse
    ));
    assert!(!permits_cert_request(
        etsi("CERT_TS_A_AA.oer").tbs(),
        P::EnrolmentResponse
    ));
    // A ticket has no PSID 623.
    assert!(!permits_cert_request(
        pki.at.cert.tbs(),
        P::AuthorizationRequest
    ));
}

#[test]
fn an_absent_ssp_permits_all_and_another_version_none() {
    let pki = Pki::new(Curve::P256, None);
    let with_ssp = |ssp: Option<ServiceSpecificPermissions>| {
        forge(&pki.ea.cert, &pki.root, |tbs| {
            for p in tbs.app_permissions.iter_mut().flat_map(|s| s.0.iter_mut()) {
                p.ssp = ssp.clone();
            }
        })
    };
    let legacy = with_ssp(None);
    assert!(permits_cert_request(legacy.tbs(), P::AuthorizationResponse));
    assert!(permits_cert_request(legacy.tbs(), P::EnrolmentResponse));
    let bits = |b: &'static [u8]| {
        Some(ServiceSpecificPermissions::BitmapSsp(
            vss_its::asn::BitmapSsp(rasn::types::OctetString::from_static(b)),
        ))
    };
    let version_2 = with_ssp(bits(&[0x02, 0xFE]));
    assert!(!permits_cert_request(version_2.tbs(), P::EnrolmentResponse));
    let short = with_ssp(bits(&[0x01]));
    assert!(!permits_cert_request(short.tbs(), P::EnrolmentResponse));
    let opaque = with_ssp(Some(ServiceSpecificPermissions::Opaque(
        rasn::types::OctetString::from_static(&[0x01, 0xFE]),
    )));
    assert!(!permits_cert_request(opaque.tbs(), P::EnrolmentResponse));
}
