//! The verifier's side: the token against the verifier's own policy, the signature's proof
//! and each statement, and that every statement speaks of the signed message.

use super::{Linked, PresentationPolicy, PresentationToken, VerifiedPresentation};
use crate::bbs::{self, Proof};
use crate::group::Scalar;
use crate::holder::scope_base;
use crate::issuance::IssuerParameters;
use crate::predicates::PredicateError;
use crate::spec::CredentialSpecification;
use crate::Error;

/// Verifies a token against the verifier's own policy and the issuer's parameters. The
/// caller checks that the policy's nonce was its own and is used once.
pub fn verify(
    policy: &PresentationPolicy,
    token: &PresentationToken,
    issuer: &IssuerParameters,
) -> crate::Result<VerifiedPresentation> {
    if token.policy != *policy {
        return Err(Error::PolicyMismatch);
    }
    let spec = &issuer.specification;
    if policy.issuer_public_key != issuer.public_key || policy.specification_id != spec.id {
        return Err(Error::WrongCredential);
    }
    let disclosed = disclosed_messages(policy, token, spec)?;
    let proof = Proof::from_bytes(&token.proof).map_err(|_| Error::InvalidProof)?;
    if proof.m_hat.len() + disclosed.len() != spec.message_count() {
        return Err(Error::InvalidProof);
    }
    let disclosed_only: Vec<usize> = disclosed.iter().map(|(i, _)| *i).collect();
    let linked = policy.linked(spec, &disclosed_only)?;
    if token.ranges.len() != linked.ranges.len()
        || token.inspections.len() != linked.inspections.len()
        || token.non_revocation.is_some() != linked.handle.is_some()
    {
        return Err(Error::PolicyMismatch);
    }
    let mut ph = policy.transcript(token.pseudonym.as_ref());
    statement_challenges(policy, token, &linked, &mut ph)?;
    let pk = issuer.key()?;
    bbs::proof_verify(&pk, &proof, &spec.header(), &ph, &disclosed)
        .map_err(|_| Error::InvalidProof)?;
    verify_statements(policy, token, &linked, &proof, &disclosed_only)?;
    let secret_response = proof.m_hat[0];
    match (&policy.scope, &token.pseudonym) {
        (Some(scope), Some(p)) => {
            if scope_base(scope.as_bytes()) * secret_response != p.t + p.nym * proof.challenge {
                return Err(Error::Pseudonym);
            }
        }
        (None, None) => {}
        _ => return Err(Error::Pseudonym),
    }
    Ok(VerifiedPresentation {
        disclosed: token.disclosed.clone(),
        pseudonym: token.pseudonym.map(|p| p.nym),
    })
}

/// The token's disclosed attributes as messages by index, checked against the policy:
/// those it asks for, in order, with the values its equalities require.
fn disclosed_messages(
    policy: &PresentationPolicy,
    token: &PresentationToken,
    spec: &CredentialSpecification,
) -> crate::Result<Vec<(usize, Scalar)>> {
    let disclosed_indexes = policy.disclosed_indexes(spec)?;
    if token.disclosed.len() != disclosed_indexes.len() {
        return Err(Error::Disclosure);
    }
    let mut disclosed = Vec::with_capacity(disclosed_indexes.len());
    for (index, (name, value)) in disclosed_indexes.iter().zip(&token.disclosed) {
        let (expected, a) = spec.attribute(name)?;
        if expected != *index {
            return Err(Error::Disclosure);
        }
        if let Some(eq) = policy.equal.iter().find(|e| e.attribute == *name) {
            if eq.value != *value {
                return Err(Error::Unsatisfied(name.clone()));
            }
        }
        let m = a.kind.encode(value).map_err(|_| Error::Disclosure)?;
        disclosed.push((*index, m));
    }
    Ok(disclosed)
}

/// Appends what the token's statements add to the presentation header, as the prover did.
fn statement_challenges(
    policy: &PresentationPolicy,
    token: &PresentationToken,
    linked: &Linked,
    ph: &mut Vec<u8>,
) -> crate::Result<()> {
    if let Some(params) = &policy.range_parameters {
        for (proof, (_, min, max)) in token.ranges.iter().zip(&linked.ranges) {
            proof
                .challenge_bytes(params, *min, *max, ph)
                .map_err(Error::statement("range"))?;
        }
    }
    for (proof, request) in token.inspections.iter().zip(&policy.inspect) {
        proof
            .challenge_bytes(&request.inspector, request.grounds.as_bytes(), ph)
            .map_err(Error::statement("inspection"))?;
    }
    if let (Some(proof), Some(info)) = (&token.non_revocation, &policy.revocation) {
        proof
            .challenge_bytes(info, ph)
            .map_err(Error::statement("revocation"))?;
    }
    Ok(())
}

/// Verifies the token's statements under the signature proof's challenge, and that each
/// speaks of the signed message: its value response is the signature proof's.
fn verify_statements(
    policy: &PresentationPolicy,
    token: &PresentationToken,
    linked: &Linked,
    proof: &Proof,
    disclosed: &[usize],
) -> crate::Result<()> {
    let c = proof.challenge;
    let linked_to = |what: &'static str, response: Scalar, index: usize| {
        let position = (0..index).filter(|i| !disclosed.contains(i)).count();
        if response == proof.m_hat[position] {
            return Ok(());
        }
        let unlinked = PredicateError::InvalidProof("not linked to the credential");
        Err(Error::statement(what)(unlinked.into()))
    };
    if let Some(params) = &policy.range_parameters {
        for (p, (index, min, max)) in token.ranges.iter().zip(&linked.ranges) {
            p.verify(&c, params, *min, *max)
                .map_err(Error::statement("range"))?;
            linked_to("range", p.value_response(), *index)?;
        }
    }
    for ((p, request), index) in token
        .inspections
        .iter()
        .zip(&policy.inspect)
        .zip(&linked.inspections)
    {
        p.verify(&c, &request.inspector)
            .map_err(Error::statement("inspection"))?;
        linked_to("inspection", p.value_response(), *index)?;
    }
    if let (Some(p), Some(info), Some(index)) =
        (&token.non_revocation, &policy.revocation, linked.handle)
    {
        p.verify(&c, info).map_err(Error::statement("revocation"))?;
        linked_to("revocation", p.value_response(), index)?;
    }
    Ok(())
}
