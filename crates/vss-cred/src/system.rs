//! A credential system kept in files, as `vss cred` runs it: the roles in one directory
//! ([`SystemDir`], laid out as [`crate::layout`] says), each operation opening the roles it
//! needs there. The secret keys open with the roles' PIN; the card's PIN is the caller's to
//! verify.

use crate::group::{Scalar, G1};
use crate::holder::SecretHolder;
use crate::issuance::{self, Credential, IssuerParameters};
use crate::layout::SystemDir;
use crate::predicates::range::{RangeParams, DEFAULT_RANGE_BASE};
use crate::presentation::{
    Equality, InspectionRequest, PresentationPolicy, PresentationToken, RangePredicate,
    VerifiedPresentation,
};
use crate::roles::{
    read_keyed, write_artefact, write_keyed, InspectionResult, Inspector, Issuer, Revocation,
    Verifier,
};
use crate::spec::{CredentialSpecification, SystemParameters};
use crate::Error;
use std::path::Path;

/// System setup in `dir`: the system parameters, an issuer of `spec`, a revocation
/// authority when the specification is revocable, an inspector, and the verifier's range
/// parameters. The issuer's, the authority's and the inspector's keys are each kept in a
/// store of their own under `pin` and `puk`.
pub fn setup(
    dir: &SystemDir,
    spec: CredentialSpecification,
    pin: &str,
    puk: &str,
) -> crate::Result<()> {
    write_artefact(&dir.system_parameters(), &SystemParameters::generate())?;
    let issuer = Issuer::create(&dir.issuer(), spec, pin, puk)?;
    if issuer.parameters().specification.revocable {
        Revocation::create(&dir.revocation(), pin, puk)?;
    }
    Inspector::create(&dir.inspector(), pin, puk)?;
    write_keyed(
        &dir.range_parameters(),
        RangeParams::new(DEFAULT_RANGE_BASE)?,
    )
}

/// The issuer's public parameters, read without its PIN.
pub fn issuer_parameters(dir: &SystemDir) -> crate::Result<IssuerParameters> {
    Issuer::parameters_in(&dir.issuer())
}

/// The issuer, its key store opened with the roles' PIN.
pub fn open_issuer(dir: &SystemDir, pin: &str) -> crate::Result<Issuer> {
    Issuer::open(&dir.issuer(), pin)
}

/// Issues a credential of `attributes` to the card (its PIN verified) whose public point is
/// `secret_point`: the issuer's offer, the card's request, a revocation handle from the
/// authority in `dir` (opened with the roles' PIN) when the specification is revocable,
/// the issuer's answer, checked.
pub fn issue(
    dir: &SystemDir,
    issuer: &Issuer,
    role_pin: &str,
    card: &mut dyn SecretHolder,
    secret_point: &G1,
    attributes: &[(String, String)],
) -> crate::Result<Credential> {
    let offer = issuer.offer(attributes)?;
    let (request, pending) = issuance::request(card, secret_point, issuer.parameters(), &offer)?;
    let revocation = match issuer.parameters().specification.revocable {
        true => Some(Revocation::open(&dir.revocation(), role_pin)?.issue_handle()?),
        false => None,
    };
    let response = issuer.issue(&request, revocation)?;
    pending.complete(issuer.parameters(), &response)
}

/// What a verifier's policy asks, beside the issuer and a fresh nonce.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PolicyRequest {
    /// Attributes disclosed as they are.
    pub reveal: Vec<String>,
    /// Attributes that must equal a value (they are disclosed).
    pub equal: Vec<Equality>,
    /// Hidden date or integer attributes that must lie in a range.
    pub ranges: Vec<RangePredicate>,
    /// Hidden attributes encrypted for the inspector, with the grounds to open them on.
    pub inspect: Vec<(String, String)>,
    /// Whether the credential must not be revoked (the authority's current state).
    pub revocation: bool,
    /// The scope of the card's pseudonym, if one is asked for.
    pub scope: Option<String>,
}

/// The verifier's policy for `request` with a fresh nonce, checked against the issuer's
/// specification and opened at the verifier (its nonce then answered once).
pub fn policy(dir: &SystemDir, request: PolicyRequest) -> crate::Result<PresentationPolicy> {
    let parameters = issuer_parameters(dir)?;
    let mut policy = PresentationPolicy::new(&parameters);
    policy.reveal = request.reveal;
    policy.equal = request.equal;
    policy.ranges = request.ranges;
    if !policy.ranges.is_empty() {
        policy.range_parameters = Some(read_keyed(&dir.range_parameters())?);
    }
    if !request.inspect.is_empty() {
        let inspector = Inspector::public_in(&dir.inspector())?;
        for (attribute, grounds) in request.inspect {
            policy.inspect.push(InspectionRequest {
                attribute,
                inspector,
                grounds,
            });
        }
    }
    if request.revocation {
        policy.revocation = Some(Revocation::info_in(&dir.revocation())?);
    }
    policy.scope = request.scope;
    policy.check(&parameters.specification)?;
    Verifier::open(&dir.verifier()).open_policy(&policy)?;
    Ok(policy)
}

/// Brings the credential's witness up to date from the removal log of the revocation
/// authority in `revocation` (read without its PIN); whether it had one to update.
pub fn update_witness(credential: &mut Credential, revocation: &Path) -> crate::Result<bool> {
    let Some(witness) = &credential.witness else {
        return Ok(false);
    };
    let removals = Revocation::removals_in(revocation, witness.epoch())?;
    credential
        .update_witness(&removals)
        .map_err(|e| Error::Witness(Box::new(e)))?;
    Ok(true)
}

/// Verifies a token against the verifier's open policy with its nonce, which is then
/// closed, and the issuer's `parameters`.
pub fn verify(
    dir: &SystemDir,
    token: &PresentationToken,
    parameters: &IssuerParameters,
) -> crate::Result<VerifiedPresentation> {
    Verifier::open(&dir.verifier()).verify(token, parameters)
}

/// Opens the token's attributes encrypted for the inspector, its key opened with the
/// roles' PIN, once the token is checked against its own policy and the issuer's
/// `parameters`.
pub fn inspect(
    dir: &SystemDir,
    pin: &str,
    token: &PresentationToken,
    parameters: &IssuerParameters,
) -> crate::Result<Vec<InspectionResult>> {
    Inspector::open(&dir.inspector(), pin)?.inspect(token, parameters)
}

/// Revokes the credential with `handle` at the revocation authority, its key opened with
/// the roles' PIN.
pub fn revoke(dir: &SystemDir, pin: &str, handle: &Scalar) -> crate::Result<()> {
    Revocation::open(&dir.revocation(), pin)?.revoke(handle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::holder::{LocalHolder, SecretHolder};
    use crate::scenario::{john_dow, vip_ticket, MATCHDAY};

    #[test]
    fn a_system_in_files_issues_presents_verifies_inspects_and_revokes() {
        let root = tempfile::tempdir().expect("tempdir");
        let dir = SystemDir::new(root.path());
        let (pin, puk) = ("1234", "12345678");
        setup(&dir, vip_ticket(), pin, puk).expect("setup");
        assert!(dir.system_parameters().is_file() && dir.range_parameters().is_file());
        let issuer = open_issuer(&dir, pin).expect("issuer");
        let mut card = LocalHolder::generate(SystemParameters::generate().secret_base);
        let p = card.public_point().expect("p");
        let mut credential =
            issue(&dir, &issuer, pin, &mut card, &p, &john_dow(MATCHDAY)).expect("credential");
        let request = PolicyRequest {
            equal: vec![Equality {
                attribute: "matchday".into(),
                value: MATCHDAY.into(),
            }],
            inspect: vec![("member_number".into(), "lottery".into())],
            revocation: true,
            ..PolicyRequest::default()
        };
        let policy = policy(&dir, request.clone()).expect("policy");
        let token = crate::presentation::present(&mut card, &credential, &policy).expect("token");
        let parameters = issuer_parameters(&dir).expect("parameters");
        let seen = verify(&dir, &token, &parameters).expect("verified");
        assert_eq!(seen.disclosed, [("matchday".into(), MATCHDAY.into())]);
        assert!(matches!(
            verify(&dir, &token, &parameters),
            Err(Error::NotOpen)
        ));
        let opened = inspect(&dir, pin, &token, &parameters).expect("inspect");
        assert_eq!(opened[0].value, crate::scenario::MEMBER_NUMBER);

        let handle = credential.handle.expect("revocable");
        revoke(&dir, pin, &handle).expect("revoke");
        let refused = update_witness(&mut credential, &dir.revocation());
        assert!(matches!(refused, Err(Error::Witness(_))), "{refused:?}");
        assert!(matches!(
            policy_of_unknown(&dir),
            Err(Error::UnknownAttribute(_))
        ));
    }

    fn policy_of_unknown(dir: &SystemDir) -> crate::Result<PresentationPolicy> {
        policy(
            dir,
            PolicyRequest {
                reveal: vec!["shoe_size".into()],
                ..PolicyRequest::default()
            },
        )
    }
}
