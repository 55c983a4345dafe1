//! The system parameters and the credential specification: what every party agrees on
//! before a credential is issued, and where each attribute sits among the signed messages.

use crate::attributes::AttributeType;
use crate::bbs::{self, CIPHERSUITE_ID};
use crate::codec::{self, Versioned};
use crate::group::G1;
use crate::Error;
use serde::{Deserialize, Serialize};

/// The most attributes a credential specification lists.
pub const MAX_ATTRIBUTES: usize = 32;
/// The longest attribute name or specification identifier, in bytes.
pub const MAX_NAME_LEN: usize = 128;
/// Message index of the card's secret.
pub const SECRET_INDEX: usize = 0;
/// Message index of the prover's blinding, which keeps issuance unlinkable.
pub const PROVER_BLIND_INDEX: usize = 1;
/// Message index of the first attribute.
pub const FIRST_ATTRIBUTE_INDEX: usize = 2;

/// The system parameters (P2ABCE's "system parameters"): the ciphersuite and the generator
/// of the card's secret, which the card stores.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SystemParameters {
    /// Format version.
    pub version: u32,
    /// The BBS ciphersuite's identifier.
    pub ciphersuite: String,
    /// `H_1` of the ciphersuite: the generator of message 0, the card's secret.
    #[serde(with = "codec::g1")]
    pub secret_base: G1,
}

impl Versioned for SystemParameters {
    fn version(&self) -> u32 {
        self.version
    }
}

impl SystemParameters {
    /// The parameters of this implementation's ciphersuite.
    pub fn generate() -> Self {
        let gens = bbs::generators(SECRET_INDEX + 2).expect("two generators are within bounds");
        SystemParameters {
            version: codec::VERSION,
            ciphersuite: String::from_utf8_lossy(CIPHERSUITE_ID).into_owned(),
            secret_base: gens[SECRET_INDEX + 1],
        }
    }

    /// Checks parameters read from outside against this implementation's ciphersuite.
    pub fn check(&self) -> crate::Result<()> {
        if *self != SystemParameters::generate() {
            return Err(Error::SystemParameters);
        }
        Ok(())
    }
}

/// One attribute of a credential specification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttributeSpec {
    /// The attribute's name, unique in its specification.
    pub name: String,
    /// Its type.
    #[serde(rename = "type")]
    pub kind: AttributeType,
}

/// A credential specification (P2ABCE's "credential specification").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CredentialSpecification {
    /// Format version.
    pub version: u32,
    /// The specification's identifier, e.g. `urn:soccer:vip-ticket`.
    pub id: String,
    /// The attributes in signing order.
    pub attributes: Vec<AttributeSpec>,
    /// Whether credentials carry a revocation handle in the revocation authority's accumulator.
    pub revocable: bool,
}

impl Versioned for CredentialSpecification {
    fn version(&self) -> u32 {
        self.version
    }
}

impl CredentialSpecification {
    /// Checks the bounds and that names are unique and non-empty.
    pub fn check(&self) -> crate::Result<()> {
        if self.id.is_empty() || self.id.len() > MAX_NAME_LEN {
            return Err(Error::Specification("identifier empty or too long"));
        }
        if self.attributes.is_empty() || self.attributes.len() > MAX_ATTRIBUTES {
            return Err(Error::Specification("attribute count out of range"));
        }
        for (i, a) in self.attributes.iter().enumerate() {
            if a.name.is_empty() || a.name.len() > MAX_NAME_LEN {
                return Err(Error::Specification("attribute name empty or too long"));
            }
            if self.attributes[..i].iter().any(|b| b.name == a.name) {
                return Err(Error::Specification("attribute name repeated"));
            }
        }
        Ok(())
    }

    /// The number of signed messages: secret, prover blind, attributes, revocation handle.
    pub fn message_count(&self) -> usize {
        FIRST_ATTRIBUTE_INDEX + self.attributes.len() + usize::from(self.revocable)
    }

    /// The message index of the revocation handle, when credentials are revocable.
    pub fn handle_index(&self) -> Option<usize> {
        self.revocable
            .then_some(FIRST_ATTRIBUTE_INDEX + self.attributes.len())
    }

    /// The attribute's position in the specification and its message index.
    pub fn attribute(&self, name: &str) -> crate::Result<(usize, &AttributeSpec)> {
        self.attributes
            .iter()
            .enumerate()
            .find(|(_, a)| a.name == name)
            .map(|(i, a)| (FIRST_ATTRIBUTE_INDEX + i, a))
            .ok_or_else(|| Error::UnknownAttribute(name.to_string()))
    }

    /// The BBS header of every signature under this specification: its compact JSON.
    pub fn header(&self) -> Vec<u8> {
        [
            b"VSS-CRED-SPEC-v1:".as_slice(),
            &serde_json::to_vec(self).expect("specs serialize"),
        ]
        .concat()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> CredentialSpecification {
        CredentialSpecification {
            version: 1,
            id: "urn:test".into(),
            attributes: vec![
                AttributeSpec {
                    name: "a".into(),
                    kind: AttributeType::String,
                },
                AttributeSpec {
                    name: "b".into(),
                    kind: AttributeType::Integer,
                },
            ],
            revocable: true,
        }
    }

    #[test]
    fn layout_and_checks() {
        let s = spec();
        assert!(s.check().is_ok());
        assert_eq!(s.message_count(), 5);
        assert_eq!(s.handle_index(), Some(4));
        assert_eq!(s.attribute("b").map(|(i, _)| i).ok(), Some(3));
        assert!(matches!(s.attribute("c"), Err(Error::UnknownAttribute(_))));
        let mut twice = spec();
        twice.attributes[1].name = "a".into();
        assert!(matches!(twice.check(), Err(Error::Specification(_))));
        let params = SystemParameters::generate();
        assert!(params.check().is_ok());
        let mut other = params.clone();
        other.secret_base = crate::bbs::p1();
        assert!(matches!(other.check(), Err(Error::SystemParameters)));
    }
}
