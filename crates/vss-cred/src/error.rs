//! The crate's error, [`Error`]: what failed, for every public function of the crate but
//! the two layers the card links on its own (the group encodings of [`crate::group`], with
//! [`EncodingError`], and the card's side of [`crate::holder`], with [`HolderError`]).
//!
//! The building blocks keep their own error as the source of one variant each, where it
//! carries structure a caller matches on: the BBS draft's ([`BbsError`]), an attribute
//! value's ([`AttributeError`]), an artefact's ([`CodecError`]), a predicate's
//! ([`PredicateError`]) and the card's answer ([`HolderError`]).

use crate::attributes::AttributeError;
use crate::bbs::{BbsError, CIPHERSUITE_ID};
use crate::codec::CodecError;
use crate::group::EncodingError;
use crate::holder::HolderError;
use crate::predicates::PredicateError;
use std::path::PathBuf;

/// A `Result` with the crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What failed in the credential system.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Bytes are not a scalar or a point of the group.
    #[error(transparent)]
    Encoding(#[from] EncodingError),
    /// A BBS operation failed: a bound, an index, a degenerate value, a signature or a
    /// proof that does not verify.
    #[error(transparent)]
    Bbs(#[from] BbsError),
    /// A value is not one of its attribute's type.
    #[error(transparent)]
    Value(#[from] AttributeError),
    /// A range, inspection or revocation sub-protocol failed.
    #[error(transparent)]
    Predicate(#[from] PredicateError),
    /// An artefact is too large, not its JSON, or of another format version.
    #[error(transparent)]
    Codec(#[from] CodecError),
    /// The card refused or failed.
    #[error("card: {0}")]
    Card(#[from] HolderError),

    /// The system parameters are not this ciphersuite's.
    #[error(
        "system parameters are not those of {}",
        String::from_utf8_lossy(CIPHERSUITE_ID)
    )]
    SystemParameters,
    /// No attributes, more than [`crate::spec::MAX_ATTRIBUTES`], or a name too long, empty
    /// or repeated.
    #[error("credential specification is malformed: {0}")]
    Specification(&'static str),
    /// An attribute the specification does not have.
    #[error("no attribute {0:?} in the credential specification")]
    UnknownAttribute(String),
    /// An attribute's value is not of its type.
    #[error("attribute {name:?}: {source}")]
    Attribute {
        /// The attribute.
        name: String,
        /// What is wrong with its value.
        source: Box<Error>,
    },

    /// The offer does not list exactly the specification's attributes in order.
    #[error("the offer's attributes are not the specification's")]
    AttributesMismatch,
    /// The request answers another offer, or the offer was already used.
    #[error("the request does not answer an open offer")]
    UnknownNonce,
    /// The proof of knowledge of the commitment does not verify.
    #[error("the commitment's proof of knowledge is invalid")]
    InvalidCommitmentProof,
    /// The issued signature does not verify on the user's side.
    #[error("the issued signature does not verify")]
    InvalidSignature,
    /// A revocation handle is missing or present against the specification.
    #[error("revocation handle does not match the specification")]
    Handle,
    /// A secret key that is not the key of the public parameters it came with.
    #[error("the secret key does not match the issuer's public key")]
    KeyMismatch,

    /// The policy is malformed: unknown attributes, a nonce of the wrong size, a scope too
    /// long.
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
    /// The presentation's proof does not verify.
    #[error("the proof does not verify")]
    InvalidProof,
    /// A range, inspection or revocation statement failed.
    #[error("{what}: {source}")]
    Statement {
        /// `range`, `inspection` or `revocation`.
        what: &'static str,
        /// Why.
        source: Box<Error>,
    },
    /// The credential is not revocable (it has no revocation handle).
    #[error("the credential is not revocable")]
    NotRevocable,
    /// The credential's witness cannot be brought up to date.
    #[error("the credential's witness: {0}")]
    Witness(#[source] Box<Error>),

    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What happened.
        source: std::io::Error,
    },
    /// A file is not the artefact it should be.
    #[error("{path}: {source}")]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        source: CodecError,
    },
    /// A file could not be written atomically, or a role's key store refused (a wrong PIN,
    /// a blocked PIN, a tampered key file).
    #[cfg(feature = "service")]
    #[error(transparent)]
    Store(#[from] vss_hsm::Error),
    /// The role directory already holds a role.
    #[error("{0} already holds this role")]
    Exists(PathBuf),
    /// The nonce names no open offer or policy: never made, already answered, or expired.
    #[error("the nonce names no open offer or policy (unknown, already used or expired)")]
    NotOpen,
    /// This many offers or policies are already open, the most allowed
    /// ([`crate::roles::MAX_OPEN`], or [`crate::roles::MAX_OPEN_REMOTE`] for a service); each
    /// closes when answered or after [`crate::roles::OPEN_TTL`].
    #[cfg(feature = "service")]
    #[error("{0} offers or policies are open already (each closes when answered or after {ttl} s)", ttl = crate::roles::OPEN_TTL.as_secs())]
    TooManyOpen(usize),

    /// The credential read back from the card is not one.
    #[error("the credential on the card: {0}")]
    Stored(#[source] CodecError),
    /// The inspector did not open the member number.
    #[error("the inspector did not open the member number")]
    NotInspected,

    /// A service's bounds are out of range.
    #[cfg(feature = "service")]
    #[error(transparent)]
    Limits(#[from] vss_net::LimitsError),
    /// A service stopped accepting connections.
    #[cfg(feature = "service")]
    #[error(transparent)]
    Accept(std::io::Error),
}

impl Error {
    /// `self` as the failure of the named statement (`range`, `inspection`, `revocation`).
    pub fn statement(what: &'static str) -> impl FnOnce(Error) -> Error {
        move |e| Error::Statement {
            what,
            source: Box::new(e),
        }
    }

    /// The predicate error inside, through any statement it failed.
    pub fn predicate(&self) -> Option<&PredicateError> {
        match self {
            Error::Predicate(e) => Some(e),
            Error::Statement { source, .. } => source.predicate(),
            _ => None,
        }
    }
}
