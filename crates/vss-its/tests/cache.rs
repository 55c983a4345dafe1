//! The certificate cache: each chain is validated once, capacity bounds it, and expired
//! certificates leave it.

mod common;

use common::{now, request, Issued, Pki};
use vss_crypto::{Curve, PrivateKey};
use vss_its::asn::Duration;
use vss_its::{
    encode_data, sign_data, CertCache, Permission, Profile, Psid, SignedDataRequest, SignerKind,
    Validator, Verdict,
};

fn tickets(pki: &Pki, n: usize) -> Vec<Issued> {
    (0..n)
        .map(|_| {
            let key = PrivateKey::generate(Curve::P256).expect("key");
            let mut r = request(Profile::At, &key, Duration::Hours(168));
            r.app_permissions = vec![Permission::psid(Psid::CAM)];
            common::issue(&r, Some(&pki.aa), key)
        })
        .collect()
}

fn cam(at: &Issued, n: usize, signer: SignerKind) -> Vec<u8> {
    let payload = n.to_be_bytes();
    let mut r = SignedDataRequest::new(Psid::CAM, &payload);
    r.generation_time = Some(now());
    r.signer = signer;
    encode_data(&sign_data(&r, Some(&at.cert), &at.key).expect("sign")).expect("encode")
}

#[test]
fn ten_thousand_messages_from_a_hundred_signers_validate_each_chain_once() {
    let pki = Pki::new(Curve::P256, None);
    let signers = tickets(&pki, 100);
    let mut validator = Validator::new(pki.trust(), 200);
    let chain = [pki.aa.cert.clone()];
    for i in 0..10_000 {
        let at = &signers[i % 100];
        // Each signer sends its certificate first, then its digest (the CAM rule).
        let kind = if i < 100 {
            SignerKind::Certificate
        } else {
            SignerKind::Digest
        };
        let report = validator.verify_data(&cam(at, i, kind), &chain, now());
        assert_eq!(
            report.verdict,
            Verdict::Valid,
            "message {i}: {}",
            report.reason
        );
    }
    let stats = validator.cache_stats();
    // 100 tickets and the AA: 101 chain validations, no more.
    assert_eq!(stats.inserts, 101, "{stats:?}");
    assert_eq!(stats.evictions, 0);
    assert_eq!(validator.cache().len(), 101);
    // The 9,900 digest messages each found their signer.
    assert!(stats.hits >= 9_900, "{stats:?}");
}

#[test]
fn capacity_bounds_the_cache_and_evicts_the_least_recently_used() {
    let pki = Pki::new(Curve::P256, None);
    let signers = tickets(&pki, 20);
    let mut validator = Validator::new(pki.trust(), 10);
    let chain = [pki.aa.cert.clone()];
    for (i, at) in signers.iter().enumerate() {
        let report = validator.verify_data(&cam(at, i, SignerKind::Certificate), &chain, now());
        assert_eq!(report.verdict, Verdict::Valid, "{}", report.reason);
        assert!(validator.cache().len() <= 10);
    }
    let stats = validator.cache_stats();
    assert_eq!(validator.cache().len(), 10);
    assert!(stats.evictions >= 11, "{stats:?}");
    // The most recent signer is still known by digest; the first one is not.
    let last = signers.last().expect("signers");
    assert_eq!(
        validator
            .verify_data(&cam(last, 0, SignerKind::Digest), &[], now())
            .verdict,
        Verdict::Valid
    );
    let first = &signers[0];
    assert_eq!(
        validator
            .verify_data(&cam(first, 0, SignerKind::Digest), &[], now())
            .verdict,
        Verdict::SignerNotFound
    );
}

#[test]
fn expired_certificates_leave_the_cache_and_p2pcd_finds_by_hashed_id3() {
    let pki = Pki::new(Curve::P256, None);
    let at = &tickets(&pki, 1)[0];
    let mut validator = Validator::new(pki.trust(), 10);
    let report = validator.verify_data(
        &cam(at, 0, SignerKind::Certificate),
        std::slice::from_ref(&pki.aa.cert),
        now(),
    );
    assert_eq!(report.verdict, Verdict::Valid, "{}", report.reason);
    let found = validator.cache().by_hashed_id3(&at.cert.hashed_id3());
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].cert, at.cert);

    let after = at.cert.validity().end;
    let report = validator.verify_data(&cam(at, 1, SignerKind::Digest), &[], after);
    assert_eq!(report.verdict, Verdict::SignerNotFound);
    assert!(validator.cache_stats().expired >= 1);

    let mut cache = CertCache::new(0);
    assert_eq!(cache.capacity(), 1);
    cache.purge_expired(now());
    assert!(cache.is_empty());
}
