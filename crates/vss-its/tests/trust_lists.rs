//! A trust anchor with lists (a root CA's CTL and CRL, TS 102 941 §6.3): a chain through an
//! AA on the CRL is `Revoked`, through one missing from the CTL `UnlistedCa`; a CRL past its
//! next update refuses under `StaleCrlPolicy::Refuse` (also for what the cache held) and only
//! warns under `Warn`; a new trust store empties the cache.

mod common;

use std::collections::HashSet;

use common::{message, now, Pki};
use vss_crypto::Curve;
use vss_its::{
    encode_data, sign_data, AnchorLists, HashedId8, ItsTime, Psid, SignerKind, StaleCrlPolicy,
    TrustAnchors, Validator, Verdict,
};

const HOUR: u64 = 3_600_000_000;

/// A message of the PKI's AT, its signer named by certificate.
fn cam(pki: &Pki) -> Vec<u8> {
    let data = sign_data(
        &message(Psid::CAM, SignerKind::Certificate),
        Some(&pki.at.cert),
        &pki.at.key,
    )
    .expect("sign");
    encode_data(&data).expect("encode")
}

/// The PKI's root trusted with lists: `listed` on its CTL, `revoked` on its CRL, the CRL
/// due `due`.
fn trust(pki: &Pki, listed: &[HashedId8], revoked: &[HashedId8], due: ItsTime) -> TrustAnchors {
    let mut trust = pki.trust();
    let lists = AnchorLists {
        listed: listed.iter().copied().collect(),
        revoked: revoked.iter().copied().collect(),
        crl_next_update: due,
    };
    trust
        .set_lists(pki.root.cert.hashed_id8(), lists)
        .expect("the root is an anchor");
    trust
}

fn verdict(validator: &mut Validator, pki: &Pki, at: ItsTime) -> (Verdict, String) {
    let report = validator.verify_data(&cam(pki), std::slice::from_ref(&pki.aa.cert), at);
    (report.verdict, report.reason)
}

#[test]
fn a_listed_unrevoked_aa_is_accepted_a_revoked_one_and_an_unlisted_one_refused() {
    let pki = Pki::new(Curve::P256, None);
    let (ea, aa) = (pki.ea.cert.hashed_id8(), pki.aa.cert.hashed_id8());
    let due = now().plus_micros(24 * HOUR);

    let mut listed = Validator::new(trust(&pki, &[ea, aa], &[], due), 16);
    assert_eq!(verdict(&mut listed, &pki, now()).0, Verdict::Valid);

    let mut revoked = Validator::new(trust(&pki, &[ea, aa], &[aa], due), 16);
    let (v, reason) = verdict(&mut revoked, &pki, now());
    assert_eq!(v, Verdict::Revoked, "{reason}");
    assert!(reason.contains(&aa.to_string()), "{reason}");

    let mut unlisted = Validator::new(trust(&pki, &[ea], &[], due), 16);
    let (v, reason) = verdict(&mut unlisted, &pki, now());
    assert_eq!(v, Verdict::UnlistedCa, "{reason}");
    assert!(reason.contains("not on the CTL"), "{reason}");

    let mut plain = Validator::new(pki.trust(), 16);
    assert_eq!(
        verdict(&mut plain, &pki, now()).0,
        Verdict::Valid,
        "an anchor without lists trusts what it issued, as before"
    );
}

#[test]
fn a_stale_crl_refuses_even_what_the_cache_holds_unless_the_policy_warns() {
    let pki = Pki::new(Curve::P256, None);
    let (ea, aa) = (pki.ea.cert.hashed_id8(), pki.aa.cert.hashed_id8());
    let due = now().plus_micros(HOUR);
    let later = due.plus_micros(1);

    let mut refusing = Validator::new(trust(&pki, &[ea, aa], &[], due), 16);
    assert_eq!(verdict(&mut refusing, &pki, now()).0, Verdict::Valid);
    assert_eq!(refusing.cache().len(), 2, "the AA and the AT are cached");
    let (v, reason) = verdict(&mut refusing, &pki, later);
    assert_eq!(v, Verdict::UnlistedCa, "{reason}");
    assert!(reason.contains("CRL"), "{reason}");
    assert_eq!(
        refusing.trust().stale_crls(later),
        vec![pki.root.cert.hashed_id8()]
    );

    let warning = trust(&pki, &[ea, aa], &[], due).with_stale_crl(StaleCrlPolicy::Warn);
    assert_eq!(warning.next_crl_due(now()), None, "nothing to expire");
    let mut warning = Validator::new(warning, 16);
    assert_eq!(verdict(&mut warning, &pki, later).0, Verdict::Valid);
    assert_eq!(
        warning.trust().stale_crls(later),
        vec![pki.root.cert.hashed_id8()],
        "the caller is told, to warn"
    );
}

#[test]
fn a_new_trust_store_empties_the_cache_so_a_revocation_takes_effect_at_once() {
    let pki = Pki::new(Curve::P256, None);
    let (ea, aa) = (pki.ea.cert.hashed_id8(), pki.aa.cert.hashed_id8());
    let due = now().plus_micros(24 * HOUR);
    let mut validator = Validator::new(trust(&pki, &[ea, aa], &[], due), 16);
    assert_eq!(verdict(&mut validator, &pki, now()).0, Verdict::Valid);

    validator.set_trust(trust(&pki, &[ea, aa], &[aa], due));
    assert!(validator.cache().is_empty());
    let by_digest = encode_data(
        &sign_data(
            &message(Psid::CAM, SignerKind::Digest),
            Some(&pki.at.cert),
            &pki.at.key,
        )
        .expect("sign"),
    )
    .expect("encode");
    assert_eq!(
        validator.verify_data(&by_digest, &[], now()).verdict,
        Verdict::SignerNotFound,
        "the AT is no longer cached"
    );
    assert_eq!(verdict(&mut validator, &pki, now()).0, Verdict::Revoked);
}

#[test]
fn lists_are_only_for_anchors() {
    let pki = Pki::new(Curve::P256, None);
    let lists = AnchorLists {
        listed: HashSet::new(),
        revoked: HashSet::new(),
        crl_next_update: now(),
    };
    let err = pki
        .trust()
        .set_lists(pki.aa.cert.hashed_id8(), lists)
        .expect_err("the AA is not an anchor");
    assert!(err.to_string().contains("not a trust anchor"), "{err}");
}
