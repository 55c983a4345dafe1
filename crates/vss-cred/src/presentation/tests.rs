//! The verifier's link check: statements about other blindings than the signature's proof
//! are refused.

use super::prove::{present, prove};
use super::*;
use crate::attributes::AttributeType;
use crate::group::Scalar;
use crate::holder::{LocalHolder, SecretHolder};
use crate::issuance::{request, IssuerSecret};
use crate::predicates::inspection::InspectorKey;
use crate::predicates::revocation::RevocationAuthority;
use crate::predicates::PredicateError;
use crate::spec::{AttributeSpec, SystemParameters};

type AddStatement = fn(&mut PresentationPolicy, &InspectorKey, &RevocationAuthority);

/// A prover whose range, inspection and non-revocation proofs speak of other blindings
/// than its signature proof: each statement verifies alone, the link check refuses it.
#[test]
fn statements_not_linked_to_the_credential_are_refused() {
    let spec = CredentialSpecification {
        version: 1,
        id: "urn:t".into(),
        attributes: vec![AttributeSpec {
            name: "n".into(),
            kind: AttributeType::Integer,
        }],
        revocable: true,
    };
    let issuer = IssuerSecret::generate(spec).expect("issuer");
    let mut ra = RevocationAuthority::new();
    let mut card = LocalHolder::generate(SystemParameters::generate().secret_base);
    let p = card.public_point().expect("p");
    let offer = issuer.offer(&[("n".into(), "42".into())]).expect("offer");
    let (req, pending) = request(&mut card, &p, &issuer.parameters, &offer).expect("request");
    let handle = ra.issue_handle().expect("handle");
    let response = issuer.issue(&offer, &req, Some(handle)).expect("issue");
    let credential = pending
        .complete(&issuer.parameters, &response)
        .expect("credential");
    let inspector = InspectorKey::new();
    let statements: [(&str, AddStatement); 3] = [
        ("range", |p, _, _| {
            p.ranges.push(RangePredicate {
                attribute: "n".into(),
                min: "0".into(),
                max: "100".into(),
            });
            p.range_parameters = Some(RangeParams::new(16).expect("params"));
        }),
        ("inspection", |p, k, _| {
            p.inspect.push(InspectionRequest {
                attribute: "n".into(),
                inspector: k.public(),
                grounds: "g".into(),
            })
        }),
        ("revocation", |p, _, ra| p.revocation = Some(ra.public())),
    ];
    for (what, add) in statements {
        let mut policy = PresentationPolicy::new(&issuer.parameters);
        add(&mut policy, &inspector, &ra);
        let honest = present(&mut card, &credential, &policy).expect("honest");
        assert!(
            verify(&policy, &honest, &issuer.parameters).is_ok(),
            "{what}"
        );
        let skewed = prove(&mut card, &credential, &policy, Scalar::from(1u8)).expect("skewed");
        match verify(&policy, &skewed, &issuer.parameters) {
            Err(ref e @ Error::Statement { what: w, .. }) => {
                assert_eq!(w, what);
                assert!(
                    matches!(e.predicate(), Some(PredicateError::InvalidProof(_))),
                    "{what}: {e:?}"
                );
            }
            other => panic!("{what}: {other:?}"),
        }
    }
}
