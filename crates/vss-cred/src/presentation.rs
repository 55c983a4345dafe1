//! Presentation (P2ABCE's presentation policy and token): the user proves, with the card's
//! share, that it holds a credential of the policy's issuer; discloses the attributes the
//! policy reveals or fixes by equality; and, when the policy names a scope, shows the card's
//! scope-exclusive pseudonym. Everything is bound to the policy, its nonce included, by the
//! proof's presentation header.

use crate::bbs::{self, BbsError, Proof, ProofInit, ProverMessage};
use crate::codec::{self, Versioned};
use crate::group::{g1_to_bytes, i2osp, random_scalar, G1};
use crate::holder::{scope_base, HolderError, SecretHolder, MAX_SCOPE_LEN};
use crate::issuance::{Credential, IssuanceError, IssuerParameters};
use crate::spec::{CredentialSpecification, SpecError, SECRET_INDEX};
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
}

impl Versioned for PresentationToken {
    fn version(&self) -> u32 {
        self.version
    }
}

/// Why a presentation was not made or not accepted.
#[derive(Debug, thiserror::Error)]
pub enum PresentationError {
    /// The policy is malformed: unknown attributes, a nonce of the wrong size, a scope too long.
    #[error("the policy is malformed: {0}")]
    Policy(&'static str),
    /// The policy names another issuer or specification than the credential's.
    #[error("the credential is not of the policy's issuer and specification")]
    WrongCredential,
    /// The credential does not satisfy an equality of the policy.
    #[error("attribute {0:?} does not have the value the policy requires")]
    Unsatisfied(String),
    /// The token answers another policy (another nonce, issuer, or predicates).
    #[error("the token does not answer this policy")]
    PolicyMismatch,
    /// The disclosed attributes are not those the policy asks for.
    #[error("the disclosed attributes are not those the policy asks for")]
    Disclosure,
    /// The pseudonym is missing, unasked for, or does not match the proof.
    #[error("the pseudonym does not verify")]
    Pseudonym,
    /// The proof does not verify.
    #[error("the proof does not verify")]
    InvalidProof,
    /// A specification or attribute problem.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// A credential problem.
    #[error(transparent)]
    Issuance(#[from] IssuanceError),
    /// The card did not answer.
    #[error("card: {0}")]
    Holder(#[from] HolderError),
    /// A BBS bound or encoding problem.
    #[error(transparent)]
    Bbs(#[from] BbsError),
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
            scope: None,
            nonce: nonce.to_vec(),
        }
    }

    /// The disclosed attributes' message indexes, ascending, checked against the specification.
    fn disclosed_indexes(
        &self,
        spec: &CredentialSpecification,
    ) -> Result<Vec<usize>, PresentationError> {
        if self.nonce.len() != NONCE_LEN {
            return Err(PresentationError::Policy("nonce is not 32 bytes"));
        }
        if self
            .scope
            .as_ref()
            .is_some_and(|s| s.is_empty() || s.len() > MAX_SCOPE_LEN)
        {
            return Err(PresentationError::Policy(
                "scope empty or longer than 255 bytes",
            ));
        }
        let mut indexes = Vec::new();
        for name in self
            .reveal
            .iter()
            .chain(self.equal.iter().map(|e| &e.attribute))
        {
            let (index, a) = spec.attribute(name)?;
            if indexes.contains(&index) {
                return Err(PresentationError::Policy("an attribute is named twice"));
            }
            indexes.push(index);
            if let Some(eq) = self.equal.iter().find(|e| e.attribute == *name) {
                a.kind.encode(&eq.value).map_err(|_| {
                    PresentationError::Policy("an equality's value is not of its attribute's type")
                })?;
            }
        }
        indexes.sort_unstable();
        Ok(indexes)
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

/// Makes a presentation token for the policy from the credential, with the card's share.
pub fn present(
    holder: &mut dyn SecretHolder,
    credential: &Credential,
    policy: &PresentationPolicy,
) -> Result<PresentationToken, PresentationError> {
    let issuer = &credential.issuer;
    let spec = &issuer.specification;
    if policy.issuer_public_key != issuer.public_key || policy.specification_id != spec.id {
        return Err(PresentationError::WrongCredential);
    }
    let disclosed_indexes = policy.disclosed_indexes(spec)?;
    for eq in &policy.equal {
        let held = credential
            .attributes
            .iter()
            .find(|(n, _)| *n == eq.attribute);
        if held.map(|(_, v)| v) != Some(&eq.value) {
            return Err(PresentationError::Unsatisfied(eq.attribute.clone()));
        }
    }
    let known = credential.known_messages()?;
    let card = holder.commit(policy.scope.as_deref().map(str::as_bytes))?;
    let pseudonym = match (policy.scope.is_some(), card.nym) {
        (true, Some(n)) => Some(Pseudonym { nym: n.nym, t: n.t }),
        (false, None) => None,
        _ => return Err(PresentationError::Holder(HolderError::Malformed)),
    };
    let mut messages = vec![ProverMessage::External {
        point: credential.secret_point,
        commitment: card.t,
    }];
    for (index, value) in &known {
        messages.push(if disclosed_indexes.contains(index) {
            ProverMessage::Disclosed(*value)
        } else {
            ProverMessage::Hidden {
                value: *value,
                blinding: None,
            }
        });
    }
    let pk = issuer.key()?;
    let signature = bbs::Signature::from_bytes(&credential.signature)?;
    let init = ProofInit::new(
        &pk,
        &signature,
        &spec.header(),
        &messages,
        &mut random_scalar,
    )?;
    let challenge = init.challenge(&policy.transcript(pseudonym.as_ref()))?;
    let response = holder.respond(&challenge)?;
    let proof = init.finalize(challenge, &[(SECRET_INDEX, response)])?;
    let disclosed = disclosed_indexes
        .iter()
        .map(|i| credential.attributes[i - crate::spec::FIRST_ATTRIBUTE_INDEX].clone())
        .collect();
    Ok(PresentationToken {
        version: codec::VERSION,
        policy: policy.clone(),
        disclosed,
        proof: proof.to_bytes(),
        pseudonym,
    })
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
) -> Result<VerifiedPresentation, PresentationError> {
    if token.policy != *policy {
        return Err(PresentationError::PolicyMismatch);
    }
    let spec = &issuer.specification;
    if policy.issuer_public_key != issuer.public_key || policy.specification_id != spec.id {
        return Err(PresentationError::WrongCredential);
    }
    let disclosed_indexes = policy.disclosed_indexes(spec)?;
    if token.disclosed.len() != disclosed_indexes.len() {
        return Err(PresentationError::Disclosure);
    }
    let mut disclosed = Vec::with_capacity(disclosed_indexes.len());
    for (index, (name, value)) in disclosed_indexes.iter().zip(&token.disclosed) {
        let (expected, a) = spec.attribute(name)?;
        if expected != *index {
            return Err(PresentationError::Disclosure);
        }
        if let Some(eq) = policy.equal.iter().find(|e| e.attribute == *name) {
            if eq.value != *value {
                return Err(PresentationError::Unsatisfied(name.clone()));
            }
        }
        let m = a
            .kind
            .encode(value)
            .map_err(|_| PresentationError::Disclosure)?;
        disclosed.push((*index, m));
    }
    let proof = Proof::from_bytes(&token.proof).map_err(|_| PresentationError::InvalidProof)?;
    if proof.m_hat.len() + disclosed.len() != spec.message_count() {
        return Err(PresentationError::InvalidProof);
    }
    let pk = issuer.key()?;
    let ph = policy.transcript(token.pseudonym.as_ref());
    bbs::proof_verify(&pk, &proof, &spec.header(), &ph, &disclosed)
        .map_err(|_| PresentationError::InvalidProof)?;
    let secret_response = proof.m_hat[0];
    match (&policy.scope, &token.pseudonym) {
        (Some(scope), Some(p)) => {
            if scope_base(scope.as_bytes()) * secret_response != p.t + p.nym * proof.challenge {
                return Err(PresentationError::Pseudonym);
            }
        }
        (None, None) => {}
        _ => return Err(PresentationError::Pseudonym),
    }
    Ok(VerifiedPresentation {
        disclosed: token.disclosed.clone(),
        pseudonym: token.pseudonym.map(|p| p.nym),
    })
}
