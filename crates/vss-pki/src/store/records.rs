//! What the store records, as typed values: stations, issued certificates, the outcome of a
//! request, lists as issued, and the lines of the audit log.

use std::fmt;

use vss_crypto::{Curve, PublicKey};
use vss_its::{HashedId8, Psid};

use super::{Role, StoreError};
use crate::messages::ResponseCode;

/// A station the EA knows: its canonical id and canonical public key (SEC 1), and the PSIDs
/// its authorization tickets may carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Station {
    /// The canonical id (the `itsId` of its first enrolment request).
    pub canonical_id: String,
    /// The curve of the canonical key (stored as VSS names curves: `p256` …).
    pub curve: Curve,
    /// The canonical public key, SEC 1 encoded.
    pub public_key: Vec<u8>,
    /// The PSIDs the EA confirms in authorization validation (e.g. 36 CAM, 37 DENM).
    pub psids: Vec<Psid>,
}

/// The PSIDs a station's tickets may carry when none are named: CAM (36) and DENM (37).
pub const DEFAULT_PSIDS: [Psid; 2] = [Psid::CAM, Psid::DENM];

impl Station {
    /// The station `canonical_id` with the canonical key `key` (kept compressed), whose
    /// tickets may carry `psids`, or [`DEFAULT_PSIDS`] when none are given.
    pub fn new(canonical_id: &str, key: &PublicKey, psids: &[Psid]) -> Station {
        Station {
            canonical_id: canonical_id.to_string(),
            curve: key.curve(),
            public_key: key.to_sec1_compressed().to_vec(),
            psids: if psids.is_empty() {
                DEFAULT_PSIDS.to_vec()
            } else {
                psids.to_vec()
            },
        }
    }
}

/// A certificate an authority issued, as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssuedCertificate {
    /// Its HashedId8.
    pub hashed_id8: HashedId8,
    /// The issuing authority.
    pub role: Role,
    /// The station it was issued to (`None` for pseudonymous tickets).
    pub station: Option<String>,
    /// The id of the request it answered.
    pub request_id: Vec<u8>,
    /// The certificate, COER.
    pub certificate: Vec<u8>,
}

/// How a request ended, recorded with its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A certificate was issued (and is recorded with the request).
    Issued(IssuedCertificate),
    /// The request was refused without a certificate: the standard's response code, and why.
    Refused {
        /// The response code it was answered with.
        code: ResponseCode,
        /// Why, in words.
        reason: String,
    },
    /// Something other than issuance was answered (e.g. an authorization validation), with
    /// this response code.
    Answered(ResponseCode),
}

/// A list as issued: its place in the sequence of its kind (a trust list carries it modulo
/// 256), when it was issued (its thisUpdate or generation time, Time32 seconds) and its signed
/// bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssuedList {
    /// 1 for the first list of its kind, one more for each after it.
    pub sequence: i64,
    /// When it was issued, Time32 seconds (strictly increasing along the sequence).
    pub issued_at: i64,
    /// The signed list.
    pub bytes: Vec<u8>,
}

/// What issues a list: given the last list of its kind and the revocations, the new one.
pub type IssueList<'a> =
    &'a mut dyn FnMut(Option<&IssuedList>, &[HashedId8]) -> crate::Result<IssuedList>;

/// What an audit line records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AuditEvent {
    /// A station was registered at the EA.
    Register,
    /// A certificate was issued.
    Issued,
    /// A request was refused.
    Refused,
    /// A request was answered without a certificate.
    Answered,
    /// The root revoked a certificate.
    Revoked,
}

impl AuditEvent {
    /// The name stored and shown: `register`, `issued`, `refused`, `answered`, `revoked`.
    pub fn name(self) -> &'static str {
        match self {
            AuditEvent::Register => "register",
            AuditEvent::Issued => "issued",
            AuditEvent::Refused => "refused",
            AuditEvent::Answered => "answered",
            AuditEvent::Revoked => "revoked",
        }
    }

    /// The event of a stored name; an unknown one is [`StoreError::Corrupt`].
    pub(super) fn parse(name: &str) -> Result<Self, StoreError> {
        [
            AuditEvent::Register,
            AuditEvent::Issued,
            AuditEvent::Refused,
            AuditEvent::Answered,
            AuditEvent::Revoked,
        ]
        .into_iter()
        .find(|event| event.name() == name)
        .ok_or_else(|| StoreError::Corrupt(format!("unknown audit event '{name}'")))
    }
}

impl fmt::Display for AuditEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One line of the audit log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    /// Order of writing (increasing).
    pub seq: i64,
    /// Unix time in seconds.
    pub at: i64,
    /// The authority.
    pub role: Role,
    /// What happened.
    pub event: AuditEvent,
    /// Details (request id, HashedId8, response code): never key material.
    pub detail: String,
}
