//! Presentation (P2ABCE's presentation policy and token): the user proves, with the card's
//! share, that it holds a credential of the policy's issuer; discloses the attributes the
//! policy reveals or fixes by equality; and, when the policy names a scope, shows the card's
//! scope-exclusive pseudonym. Everything is bound to the policy, its nonce included, by the
//! proof's presentation header.
//!
//! [`present`] is the prover's side, [`verify()`] the verifier's.

mod prove;
#[cfg(test)]
mod tests;
mod verify;

pub use prove::present;
pub use verify::verify;

use crate::codec::{self, Versioned};
use crate::group::{g1_to_bytes, i2osp, G1};
use crate::holder::MAX_SCOPE_LEN;
use crate::issuance::{Credential, IssuerParameters};
use crate::predicates::inspection::{InspectionProof, InspectorPublicKey};
use crate::predicates::range::{RangeParams, RangeProof};
use crate::predicates::revocation::{NonRevocationProof, RevocationInfo};
use crate::spec::CredentialSpecification;
use crate::Error;
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

/// What a verified token shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedPresentation {
    /// The disclosed attributes.
    pub disclosed: Vec<(String, String)>,
    /// The pseudonym, when the policy names a scope.
    pub pseudonym: Option<G1>,
}
