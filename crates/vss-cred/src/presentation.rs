//! Presentation (P2ABCE's presentation policy and token): the user proves, with the card's
//! share, that it holds a credential of the policy's issuer; discloses the attributes the
//! policy reveals or fixes by equality; and, when the policy names a scope, shows the card's
//! scope-exclusive pseudonym. Everything is bound to the policy, its nonce included, by the
//! proof's presentation header.

use crate::bbs::{self, Proof, ProofInit, ProverMessage};
use crate::codec::{self, Versioned};
use crate::group::{g1_to_bytes, i2osp, random_scalar, Scalar, G1};
use crate::holder::{scope_base, CardCommitment, HolderError, SecretHolder, MAX_SCOPE_LEN};
use crate::issuance::{Credential, IssuerParameters};
use crate::predicates::inspection::{InspectionProof, InspectionProtocol, InspectorPublicKey};
use crate::predicates::range::{RangeParams, RangeProof, RangeProtocol};
use crate::predicates::revocation::{NonRevocationProof, NonRevocationProtocol, RevocationInfo};
use crate::predicates::PredicateError;
use crate::spec::{CredentialSpecification, SECRET_INDEX};
use crate::Error;
use ark_ff::Zero;
use serde::{Deserialize, Serialize};

/// Octets in a verifier's nonce.
pub const NONCE_LEN: usize = 32;
/// The presentation header's prefix.
const TRANSCRIPT_LABEL: &[u8] = b"VSS-CRED-PRESENTATION-v1";

/// An attribute the policy fixes to a value (the seed's "matchday = 2013-08-07Z").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Equality {
    /// The attribute.
    pub attribute: String,
    /// The value it must have.
    pub value: String,
}

/// A hidden date or integer attribute that must lie in `[min, max]` (values of its type).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RangePredicate {
    /// The attribute.
    pub attribute: String,
    /// The least value allowed.
    pub min: String,
    /// The greatest value allowed.
    pub max: String,
}

/// A hidden attribute encrypted for an inspector, who may open it on the stated grounds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InspectionRequest {
    /// The attribute (a date or an integer).
    pub attribute: String,
    /// The inspector's public key.
    pub inspector: InspectorPublicKey,
    /// Why it may be opened; bound into the proof.
    pub grounds: String,
}

/// A verifier's presentation policy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PresentationPolicy {
    /// Format version.
    pub version: u32,
    /// The issuer whose credential is asked for, hex of its public key.
    #[serde(with = "codec::bytes")]
    pub issuer_public_key: Vec<u8>,
    /// The credential specification asked for.
    pub specification_id: String,
    /// Attributes disclosed as they are.
    #[serde(default)]
    pub reveal: Vec<String>,
    /// Attributes that must equal a value.
    #[serde(default)]
    pub equal: Vec<Equality>,
    /// Hidden attributes that must lie in a range.
    #[serde(default)]
    pub ranges: Vec<RangePredicate>,
    /// The verifier's range parameters, when the policy has ranges.
    #[serde(default)]
    pub range_parameters: Option<RangeParams>,
    /// Hidden attributes encrypted for inspectors.
    #[serde(default)]
    pub inspect: Vec<InspectionRequest>,
    /// The revocation authority's current state, when credentials must not be revoked.
    #[serde(default)]
    pub revocation: Option<RevocationInfo>,
    /// The scope of the pseudonym shown, if any.
    #[serde(default)]
    pub scope: Option<String>,
    /// The verifier's fresh nonce.
    #[serde(with = "codec::bytes")]
    pub nonce: Vec<u8>,
}

impl Versioned for PresentationPolicy {
    fn version(&self) -> u32 {
        self.version
    }
}

/// A scope-exclusive pseudonym with the card's commitment for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pseudonym {
    /// `nym = H(scope)·sk`.
    #[serde(with = "codec::g1")]
    pub nym: G1,
    /// `T_nym = H(scope)·r`.
    #[serde(with = "codec::g1")]
    pub t: G1,
}

/// What the user sends the verifier.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PresentationToken {
    /// Format version.
    pub version: u32,
    /// The policy answered.
    pub policy: PresentationPolicy,
    /// The disclosed attributes (revealed and fixed by equality), in the specification's order.
    pub disclosed: Vec<(String, String)>,
    /// The BBS proof (the draft's octets).
    #[serde(with = "codec::bytes")]
    pub proof: Vec<u8>,
    /// The pseudonym, when the policy names a scope.
    #[serde(default)]
    pub pseudonym: Option<Pseudonym>,
    /// One range proof per range predicate, in the policy's order.
    #[serde(default)]
    pub ranges: Vec<RangeProof>,
    /// One verifiable encryption per inspection request, in the policy's order.
    #[serde(default)]
    pub inspections: Vec<InspectionProof>,
    /// The proof that the credential's handle is in the accumulator, when asked for.
    #[serde(default)]
    pub non_revocation: Option<NonRevocationProof>,
}

impl Versioned for PresentationToken {
    fn version(&self) -> u32 {
        self.version
    }
}

impl PresentationPolicy {
    /// A policy for the issuer's credentials with a fresh nonce.
    pub fn new(issuer: &IssuerParameters) -> Self {
        let mut nonce = [0u8; NONCE_LEN];
        rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut nonce);
        PresentationPolicy {
            version: codec::VERSION,
            issuer_public_key: issuer.public_key.clone(),
            specification_id: issuer.specification.id.clone(),
            reveal: Vec::new(),
            equal: Vec::new(),
            ranges: Vec::new(),
            range_parameters: None,
            inspect: Vec::new(),
            revocation: None,
            scope: None,
            nonce: nonce.to_vec(),
        }
    }

    /// Checks the policy against the credential specification it asks for: known
    /// attributes, values of their types, predicates on hidden dates and integers only.
    pub fn check(&self, spec: &CredentialSpecification) -> crate::Result<()> {
        let disclosed = self.disclosed_indexes(spec)?;
        self.linked(spec, &disclosed).map(|_| ())
    }

    /// The disclosed attributes' message indexes, once the credential is checked to be of
    /// the policy's issuer and specification and to meet its equalities.
    fn answered_by(&self, credential: &Credential) -> crate::Result<Vec<usize>> {
        let issuer = &credential.issuer;
        let spec = &issuer.specification;
        if self.issuer_public_key != issuer.public_key || self.specification_id != spec.id {
            return Err(Error::WrongCredential);
        }
        let disclosed_indexes = self.disclosed_indexes(spec)?;
        for eq in &self.equal {
            let held = credential
                .attributes
                .iter()
                .find(|(n, _)| *n == eq.attribute);
            if held.map(|(_, v)| v) != Some(&eq.value) {
                return Err(Error::Unsatisfied(eq.attribute.clone()));
            }
        }
        Ok(disclosed_indexes)
    }

    /// The disclosed attributes' message indexes, ascending, checked against the specification.
    fn disclosed_indexes(&self, spec: &CredentialSpecification) -> crate::Result<Vec<usize>> {
        if self.nonce.len() != NONCE_LEN {
            return Err(Error::Policy("nonce is not 32 bytes"));
        }
        if self
            .scope
            .as_ref()
            .is_some_and(|s| s.is_empty() || s.len() > MAX_SCOPE_LEN)
        {
            return Err(Error::Policy("scope empty or longer than 255 bytes"));
        }
        let mut indexes = Vec::new();
        for name in self
            .reveal
            .iter()
            .chain(self.equal.iter().map(|e| &e.attribute))
        {
            let (index, a) = spec.attribute(name)?;
            if indexes.contains(&index) {
                return Err(Error::Policy("an attribute is named twice"));
            }
            indexes.push(index);
            if let Some(eq) = self.equal.iter().find(|e| e.attribute == *name) {
                a.kind.encode(&eq.value).map_err(|_| {
                    Error::Policy("an equality's value is not of its attribute's type")
                })?;
            }
        }
        indexes.sort_unstable();
        Ok(indexes)
    }

    /// The message indexes the range, inspection and revocation statements speak of, each
    /// hidden, with the bounds of each range.
    fn linked(&self, spec: &CredentialSpecification, disclosed: &[usize]) -> crate::Result<Linked> {
        let mut ranges = Vec::with_capacity(self.ranges.len());
        for r in &self.ranges {
            let (index, a) = spec.attribute(&r.attribute)?;
            let bound = |v: &str| {
                a.kind.ordinal(v).ok().flatten().ok_or(Error::Policy(
                    "a range bound is not a date or integer of its attribute",
                ))
            };
            ranges.push((index, bound(&r.min)?, bound(&r.max)?));
        }
        if !ranges.is_empty() && self.range_parameters.is_none() {
            return Err(Error::Policy("ranges without range parameters"));
        }
        let mut inspections = Vec::with_capacity(self.inspect.len());
        for i in &self.inspect {
            let (index, a) = spec.attribute(&i.attribute)?;
            if a.kind == crate::attributes::AttributeType::String {
                return Err(Error::Policy("only dates and integers can be inspected"));
            }
            inspections.push(index);
        }
        let handle = match (&self.revocation, spec.handle_index()) {
            (Some(_), Some(index)) => Some(index),
            (Some(_), None) => {
                return Err(Error::Policy(
                    "revocation asked of an unrevocable credential",
                ))
            }
            (None, _) => None,
        };
        let all = ranges
            .iter()
            .map(|r| r.0)
            .chain(inspections.iter().copied());
        if all.clone().any(|i| disclosed.contains(&i)) {
            return Err(Error::Policy(
                "a disclosed attribute is also in a predicate",
            ));
        }
        Ok(Linked {
            ranges,
            inspections,
            handle,
        })
    }

    fn transcript(&self, pseudonym: Option<&Pseudonym>) -> Vec<u8> {
        let policy = serde_json::to_vec(self).expect("policies serialize");
        let mut ph = TRANSCRIPT_LABEL.to_vec();
        ph.extend_from_slice(&i2osp(policy.len() as u64, 8));
        ph.extend_from_slice(&policy);
        if let Some(p) = pseudonym {
            ph.extend_from_slice(&g1_to_bytes(&p.nym));
            ph.extend_from_slice(&g1_to_bytes(&p.t));
        }
        ph
    }
}

/// The hidden messages other statements share their blindings with.
struct Linked {
    ranges: Vec<(usize, u64, u64)>,
    inspections: Vec<usize>,
    handle: Option<usize>,
}

impl Linked {
    fn indexes(&self) -> impl Iterator<Item = usize> + '_ {
        self.ranges
            .iter()
            .map(|r| r.0)
            .chain(self.inspections.iter().copied())
            .chain(self.handle)
    }
}

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
fn prove(
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

/// What a verified token shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedPresentation {
    /// The disclosed attributes.
    pub disclosed: Vec<(String, String)>,
    /// The pseudonym, when the policy names a scope.
    pub pseudonym: Option<G1>,
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attributes::AttributeType;
    use crate::holder::LocalHolder;
    use crate::issuance::{request, IssuerSecret};
    use crate::predicates::inspection::InspectorKey;
    use crate::predicates::revocation::RevocationAuthority;
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
}
