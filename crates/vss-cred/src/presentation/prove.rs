//! The prover's side: the signature's proof of knowledge with the card's share of the
//! secret message, and the range, inspection and revocation statements linked to it.

use super::{Linked, PresentationPolicy, PresentationToken, Pseudonym};
use crate::bbs::{self, ProofInit, ProverMessage};
use crate::codec;
use crate::group::{random_scalar, Scalar};
use crate::holder::{CardCommitment, HolderError, SecretHolder};
use crate::issuance::Credential;
use crate::predicates::inspection::{InspectionProof, InspectionProtocol};
use crate::predicates::range::{RangeProof, RangeProtocol};
use crate::predicates::revocation::{NonRevocationProof, NonRevocationProtocol};
use crate::spec::SECRET_INDEX;
use crate::Error;
use ark_ff::Zero;

/// Makes a presentation token for the policy from the credential, with the card's share.
pub fn present(
    holder: &mut dyn SecretHolder,
    credential: &Credential,
    policy: &PresentationPolicy,
) -> crate::Result<PresentationToken> {
    prove(holder, credential, policy, Scalar::zero())
}

/// [`present`], with the blindings of the range, inspection and revocation statements
/// moved by `skew` from those of the signature's proof (zero but in the test of the
/// verifier's link check).
pub(super) fn prove(
    holder: &mut dyn SecretHolder,
    credential: &Credential,
    policy: &PresentationPolicy,
    skew: Scalar,
) -> crate::Result<PresentationToken> {
    let issuer = &credential.issuer;
    let spec = &issuer.specification;
    let disclosed_indexes = policy.answered_by(credential)?;
    let linked = policy.linked(spec, &disclosed_indexes)?;
    let known = credential.known_messages()?;
    let blindings: Vec<(usize, Scalar)> = linked.indexes().map(|i| (i, random_scalar())).collect();
    let statements = Statements::init(policy, credential, &linked, &known, &blindings, skew)?;
    let card = holder.commit(policy.scope.as_deref().map(str::as_bytes))?;
    let pseudonym = match (policy.scope.is_some(), card.nym) {
        (true, Some(n)) => Some(Pseudonym { nym: n.nym, t: n.t }),
        (false, None) => None,
        _ => return Err(Error::Card(HolderError::Malformed)),
    };
    let messages = prover_messages(credential, &card, &known, &disclosed_indexes, &blindings);
    let pk = issuer.key()?;
    let signature = bbs::Signature::from_bytes(&credential.signature)?;
    let init = ProofInit::new(
        &pk,
        &signature,
        &spec.header(),
        &messages,
        &mut random_scalar,
    )?;
    let mut ph = policy.transcript(pseudonym.as_ref());
    ph.extend_from_slice(&statements.transcript);
    let challenge = init.challenge(&ph)?;
    let response = holder.respond(&challenge)?;
    let proof = init.finalize(challenge, &[(SECRET_INDEX, response)])?;
    let disclosed = disclosed_indexes
        .iter()
        .map(|i| credential.attributes[i - crate::spec::FIRST_ATTRIBUTE_INDEX].clone())
        .collect();
    let (ranges, inspections, non_revocation) = statements.prove(&challenge);
    Ok(PresentationToken {
        version: codec::VERSION,
        policy: policy.clone(),
        disclosed,
        proof: proof.to_bytes(),
        pseudonym,
        ranges,
        inspections,
        non_revocation,
    })
}

/// The blinding of the hidden message at `index`, when a statement shares it.
fn blinding(blindings: &[(usize, Scalar)], index: usize) -> Option<Scalar> {
    blindings.iter().find(|(i, _)| *i == index).map(|(_, b)| *b)
}

/// The messages of the signature's proof: the card's secret as an external message, the
/// disclosed ones, and the hidden ones with the blindings their statements share.
fn prover_messages(
    credential: &Credential,
    card: &CardCommitment,
    known: &[(usize, Scalar)],
    disclosed_indexes: &[usize],
    blindings: &[(usize, Scalar)],
) -> Vec<ProverMessage> {
    let mut messages = vec![ProverMessage::External {
        point: credential.secret_point,
        commitment: card.t,
    }];
    for (index, value) in known {
        messages.push(if disclosed_indexes.contains(index) {
            ProverMessage::Disclosed(*value)
        } else {
            ProverMessage::Hidden {
                value: *value,
                blinding: blinding(blindings, *index),
            }
        });
    }
    messages
}

/// The prover's range, inspection and revocation protocols, initialised, with the bytes
/// they add to the presentation header.
struct Statements {
    ranges: Vec<RangeProtocol>,
    inspections: Vec<InspectionProtocol>,
    revocation: Option<NonRevocationProtocol>,
    transcript: Vec<u8>,
}

impl Statements {
    /// Initialises the statements of `linked` on the credential's values, each with the
    /// blinding the signature's proof uses for its message, moved by `skew`.
    fn init(
        policy: &PresentationPolicy,
        credential: &Credential,
        linked: &Linked,
        known: &[(usize, Scalar)],
        blindings: &[(usize, Scalar)],
        skew: Scalar,
    ) -> crate::Result<Self> {
        let value_of = |index: usize| -> crate::Result<Scalar> {
            known
                .iter()
                .find(|(i, _)| *i == index)
                .map(|(_, v)| *v)
                .ok_or(Error::WrongCredential)
        };
        let sub_blinding_of = |index: usize| -> crate::Result<Scalar> {
            blinding(blindings, index)
                .map(|b| b + skew)
                .ok_or(Error::WrongCredential)
        };
        let mut transcript = Vec::new();
        let mut ranges = Vec::with_capacity(linked.ranges.len());
        for (index, min, max) in &linked.ranges {
            let params = policy
                .range_parameters
                .as_ref()
                .ok_or(Error::Policy("ranges without range parameters"))?;
            let blinding = sub_blinding_of(*index)?;
            let p = RangeProtocol::init(params, *min, *max, value_of(*index)?, blinding)
                .map_err(Error::statement("range"))?;
            p.challenge_bytes(&mut transcript);
            ranges.push(p);
        }
        let mut inspections = Vec::with_capacity(linked.inspections.len());
        for (request, index) in policy.inspect.iter().zip(&linked.inspections) {
            let blinding = sub_blinding_of(*index)?;
            let p = InspectionProtocol::init(
                &request.inspector,
                request.grounds.as_bytes(),
                value_of(*index)?,
                blinding,
            )
            .map_err(Error::statement("inspection"))?;
            p.challenge_bytes(&mut transcript);
            inspections.push(p);
        }
        let revocation = match (&policy.revocation, linked.handle) {
            (Some(info), Some(index)) => {
                let witness = credential.witness.as_ref().ok_or(Error::WrongCredential)?;
                let blinding = sub_blinding_of(index)?;
                let p = NonRevocationProtocol::init(info, value_of(index)?, witness, blinding)
                    .map_err(Error::statement("revocation"))?;
                p.challenge_bytes(&mut transcript);
                Some(p)
            }
            _ => None,
        };
        Ok(Statements {
            ranges,
            inspections,
            revocation,
            transcript,
        })
    }

    /// The statements' proofs for the challenge.
    fn prove(
        self,
        challenge: &Scalar,
    ) -> (
        Vec<RangeProof>,
        Vec<InspectionProof>,
        Option<NonRevocationProof>,
    ) {
        (
            self.ranges
                .into_iter()
                .map(|p| p.gen_proof(challenge))
                .collect(),
            self.inspections
                .into_iter()
                .map(|p| p.gen_proof(challenge))
                .collect(),
            self.revocation.map(|p| p.gen_proof(challenge)),
        )
    }
}
