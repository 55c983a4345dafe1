//! Issuance and presentation end to end with the secret held apart from the user service:
//! the seed's VIP ticket, its equality predicate and pseudonym, and the refusals.

use vss_cred::holder::{LocalHolder, SecretHolder};
use vss_cred::issuance::{self, Credential, IssuerSecret};
use vss_cred::presentation::{self, Equality, PresentationPolicy};
use vss_cred::spec::{CredentialSpecification, SystemParameters};
use vss_cred::Error;

fn vip_spec() -> CredentialSpecification {
    CredentialSpecification {
        revocable: false,
        ..vss_cred::scenario::vip_ticket()
    }
}

fn john(matchday: &str) -> Vec<(String, String)> {
    vss_cred::scenario::john_dow(matchday)
}

fn issue(issuer: &IssuerSecret, card: &mut LocalHolder, matchday: &str) -> Credential {
    let p = card.public_point().expect("public point");
    let offer = issuer.offer(&john(matchday)).expect("offer");
    let (request, pending) =
        issuance::request(card, &p, &issuer.parameters, &offer).expect("request");
    let response = issuer.issue(&offer, &request, None).expect("issue");
    pending
        .complete(&issuer.parameters, &response)
        .expect("complete")
}

fn gate_policy(issuer: &IssuerSecret) -> PresentationPolicy {
    let mut policy = PresentationPolicy::new(&issuer.parameters);
    policy.equal.push(Equality {
        attribute: "matchday".into(),
        value: "2013-08-07Z".into(),
    });
    policy.scope = Some("urn:soccer:gate".into());
    policy
}

#[test]
fn vip_ticket_issued_blind_and_presented_with_the_cards_share() {
    let system = SystemParameters::generate();
    let issuer = IssuerSecret::generate(vip_spec()).expect("issuer");
    let mut card = LocalHolder::generate(system.secret_base);
    let credential = issue(&issuer, &mut card, "2013-08-07Z");

    let policy = gate_policy(&issuer);
    let token = presentation::present(&mut card, &credential, &policy).expect("present");
    let seen = presentation::verify(&policy, &token, &issuer.parameters).expect("verify");
    assert_eq!(
        seen.disclosed,
        vec![("matchday".to_string(), "2013-08-07Z".to_string())]
    );
    let nym = seen.pseudonym.expect("pseudonym");

    let again = presentation::present(&mut card, &credential, &policy).expect("present again");
    let seen_again =
        presentation::verify(&policy, &again, &issuer.parameters).expect("verify again");
    assert_eq!(
        seen_again.pseudonym,
        Some(nym),
        "same card, same scope: same pseudonym"
    );
    assert_ne!(again.proof, token.proof, "proofs are randomized");

    let mut shop = gate_policy(&issuer);
    shop.scope = Some("urn:soccer:shop".into());
    let other = presentation::present(&mut card, &credential, &shop).expect("present to shop");
    let seen_shop = presentation::verify(&shop, &other, &issuer.parameters).expect("verify shop");
    assert_ne!(
        seen_shop.pseudonym,
        Some(nym),
        "another scope: another pseudonym"
    );
}

#[test]
fn refusals() {
    let system = SystemParameters::generate();
    let issuer = IssuerSecret::generate(vip_spec()).expect("issuer");
    let mut card = LocalHolder::generate(system.secret_base);
    let policy = gate_policy(&issuer);

    let other_day = issue(&issuer, &mut card, "2013-08-14Z");
    assert!(matches!(
        presentation::present(&mut card, &other_day, &policy),
        Err(Error::Unsatisfied(_))
    ));

    let credential = issue(&issuer, &mut card, "2013-08-07Z");
    let mut other_card = LocalHolder::generate(system.secret_base);
    let stolen = presentation::present(&mut other_card, &credential, &policy)
        .expect("a proof without the card");
    assert!(matches!(
        presentation::verify(&policy, &stolen, &issuer.parameters),
        Err(Error::InvalidProof)
    ));

    let token = presentation::present(&mut card, &credential, &policy).expect("present");
    let mut tampered = token.clone();
    let last = tampered.proof.len() - 1;
    tampered.proof[last] ^= 1;
    assert!(presentation::verify(&policy, &tampered, &issuer.parameters).is_err());
    let mut lied = token.clone();
    lied.disclosed[0].1 = "2013-08-14Z".into();
    assert!(presentation::verify(&policy, &lied, &issuer.parameters).is_err());
    let fresh = gate_policy(&issuer);
    assert!(matches!(
        presentation::verify(&fresh, &token, &issuer.parameters),
        Err(Error::PolicyMismatch)
    ));
    let mut no_nym = token.clone();
    no_nym.pseudonym = None;
    assert!(presentation::verify(&policy, &no_nym, &issuer.parameters).is_err());

    let offer = issuer.offer(&john("2013-08-07Z")).expect("offer");
    let p = card.public_point().expect("p");
    let (mut request, _) =
        issuance::request(&mut card, &p, &issuer.parameters, &offer).expect("request");
    request.s_secret += vss_cred::group::Scalar::from(1u8);
    assert!(matches!(
        issuer.issue(&offer, &request, None),
        Err(Error::InvalidCommitmentProof)
    ));
    let mut bad = john("2013-08-07Z");
    bad[3].1 = "not a number".into();
    assert!(matches!(issuer.offer(&bad), Err(Error::Attribute { .. })));
}

#[test]
fn inspectable_member_number_range_and_revocation() {
    use vss_cred::predicates::range::RangeParams;
    use vss_cred::presentation::{InspectionRequest, RangePredicate};
    use vss_cred::roles::{Inspector, Revocation};

    let dir = tempfile::tempdir().expect("tempdir");
    let system = SystemParameters::generate();
    let mut spec = vip_spec();
    spec.revocable = true;
    let issuer = IssuerSecret::generate(spec).expect("issuer");
    let (pin, puk) = ("1234", "12345678");
    let mut ra =
        Revocation::create(&dir.path().join("revocation"), pin, puk).expect("revocation authority");
    let inspector = Inspector::create(&dir.path().join("inspector"), pin, puk).expect("inspector");
    let mut card = LocalHolder::generate(system.secret_base);

    let p = card.public_point().expect("p");
    let offer = issuer.offer(&john("2013-08-07Z")).expect("offer");
    let (request, pending) =
        issuance::request(&mut card, &p, &issuer.parameters, &offer).expect("request");
    let response = issuer
        .issue(&offer, &request, Some(ra.issue_handle().expect("handle")))
        .expect("issue");
    let mut credential = pending
        .complete(&issuer.parameters, &response)
        .expect("complete");
    let handle = credential.handle.expect("revocable");

    let policy = |ra: &Revocation| {
        let mut policy = gate_policy(&issuer);
        policy.inspect.push(InspectionRequest {
            attribute: "member_number".into(),
            inspector: inspector.public(),
            grounds: "lottery of matchday 2013-08-07".into(),
        });
        policy.ranges.push(RangePredicate {
            attribute: "birthday".into(),
            min: "1900-01-01Z".into(),
            max: "1995-08-07Z".into(),
        });
        policy.range_parameters = Some(RangeParams::new(16).expect("range parameters"));
        policy.revocation = Some(ra.info());
        policy
    };

    let gate = policy(&ra);
    let token = presentation::present(&mut card, &credential, &gate).expect("present");
    presentation::verify(&gate, &token, &issuer.parameters).expect("verify");
    let opened = inspector
        .inspect(&token, &issuer.parameters)
        .expect("inspect");
    assert_eq!(opened.len(), 1);
    assert_eq!(opened[0].value, "23784638726");
    assert_eq!(opened[0].grounds, "lottery of matchday 2013-08-07");

    let mut young = gate.clone();
    young.ranges[0].min = "1990-01-01Z".into();
    assert!(matches!(
        presentation::present(&mut card, &credential, &young),
        Err(Error::Statement { what: "range", .. })
    ));

    let mut swapped = token.clone();
    swapped.inspections[0] = presentation::present(&mut card, &credential, &gate)
        .expect("other")
        .inspections[0]
        .clone();
    assert!(matches!(
        presentation::verify(&gate, &swapped, &issuer.parameters),
        Err(Error::InvalidProof)
    ));

    // Another credential is revoked: ours updates its witness from the public log and still presents.
    let other_offer = issuer.offer(&john("2013-08-07Z")).expect("offer");
    let (other_request, _) =
        issuance::request(&mut card, &p, &issuer.parameters, &other_offer).expect("request");
    let other = issuer
        .issue(
            &other_offer,
            &other_request,
            Some(ra.issue_handle().expect("handle")),
        )
        .expect("issue");
    ra.revoke(&other.handle.expect("handle"))
        .expect("revoke other");
    let after = policy(&ra);
    let stale = presentation::present(&mut card, &credential, &after);
    assert!(
        matches!(
            stale,
            Err(Error::Statement {
                what: "revocation",
                ..
            })
        ),
        "stale witness"
    );
    credential
        .update_witness(&ra.removals_since(0).expect("log"))
        .expect("update");
    let token =
        presentation::present(&mut card, &credential, &after).expect("present after update");
    presentation::verify(&after, &token, &issuer.parameters).expect("verify after update");

    // Ours is revoked: its witness cannot be updated, and the old one does not verify.
    let epoch = ra.info().epoch;
    ra.revoke(&handle).expect("revoke ours");
    let revoked = policy(&ra);
    assert!(credential
        .update_witness(&ra.removals_since(epoch).expect("log"))
        .is_err());
    let mut relabelled = credential.clone();
    relabelled.witness = None;
    assert!(presentation::present(&mut card, &relabelled, &revoked).is_err());
    assert!(presentation::present(&mut card, &credential, &revoked).is_err());
}
