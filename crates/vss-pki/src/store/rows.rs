//! The store's boundary: records as the SQLite and PostgreSQL tables hold them (text, bytes)
//! and back. Both backends write the same bytes; a stored value this code cannot read is
//! [`StoreError::Corrupt`].

use vss_its::{HashedId8, Psid};

use super::records::{AuditEntry, AuditEvent, IssuedCertificate, Outcome, Station};
use super::{Role, StoreError};

/// PSIDs as stored: decimal, comma-separated.
pub(super) fn psids_text(psids: &[Psid]) -> String {
    psids
        .iter()
        .map(Psid::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// PSIDs from their stored text.
fn parse_psids(text: &str) -> Result<Vec<Psid>, StoreError> {
    text.split(',')
        .filter(|p| !p.is_empty())
        .map(|p| {
            p.parse()
                .map_err(|_| StoreError::Corrupt(format!("a PSID list '{text}'")))
        })
        .collect()
}

/// A row of `stations` as read: canonical id, curve, public key, PSIDs.
pub(super) type StationRow = (String, String, Vec<u8>, String);

/// The station of a row of `stations`.
pub(super) fn station_of(
    (canonical_id, curve, public_key, psids): StationRow,
) -> Result<Station, StoreError> {
    Ok(Station {
        canonical_id,
        curve: curve.parse().map_err(|_| {
            StoreError::Corrupt(format!("a station's key on unknown curve '{curve}'"))
        })?,
        public_key,
        psids: parse_psids(&psids)?,
    })
}

/// A HashedId8 from its stored bytes.
pub(super) fn hashed_id8_of(bytes: &[u8]) -> Result<HashedId8, StoreError> {
    <[u8; 8]>::try_from(bytes)
        .map(HashedId8)
        .map_err(|_| StoreError::Corrupt(format!("a HashedId8 of {} bytes", bytes.len())))
}

/// The columns of `certificates` that [`issued_of`] reads, in its order.
pub(super) const ISSUED_COLUMNS: &str = "hashed_id8, role, station, request_id, certificate";

/// A row of `certificates` as read: HashedId8, role, station, request id, certificate.
pub(super) type IssuedRow = (Vec<u8>, String, Option<String>, Vec<u8>, Vec<u8>);

/// The certificate of a row of `certificates`.
pub(super) fn issued_of(
    (id, role, station, request_id, certificate): IssuedRow,
) -> Result<IssuedCertificate, StoreError> {
    Ok(IssuedCertificate {
        hashed_id8: hashed_id8_of(&id)?,
        role: Role::parse(&role)?,
        station,
        request_id,
        certificate,
    })
}

/// A row of `audit` as read: seq, time, role, event, detail.
pub(super) type AuditRow = (i64, i64, String, String, String);

/// The audit line of a row of `audit`.
pub(super) fn audit_of((seq, at, role, event, detail): AuditRow) -> Result<AuditEntry, StoreError> {
    Ok(AuditEntry {
        seq,
        at,
        role: Role::parse(&role)?,
        event: AuditEvent::parse(&event)?,
        detail,
    })
}

/// An audit line to write: who, what, and its details.
pub(super) struct AuditLine {
    /// The authority.
    pub role: Role,
    /// What happened.
    pub event: AuditEvent,
    /// The details.
    pub detail: String,
}

impl AuditLine {
    /// The EA registered `station`.
    pub fn registration(station: &Station) -> AuditLine {
        AuditLine {
            role: Role::Ea,
            event: AuditEvent::Register,
            detail: format!("station {}", station.canonical_id),
        }
    }

    /// The root revoked the certificate `hashed_id8`.
    pub fn revocation(hashed_id8: &HashedId8) -> AuditLine {
        AuditLine {
            role: Role::Root,
            event: AuditEvent::Revoked,
            detail: format!("revoked {hashed_id8}"),
        }
    }

    /// `role` answered the request `request_id` with `outcome`, whose [`outcome_text`] is
    /// `text` (made once for the request's row and this line).
    pub fn outcome(role: Role, request_id: &[u8], outcome: &Outcome, text: &str) -> AuditLine {
        let id = hex::encode(request_id);
        let (event, detail) = match outcome {
            Outcome::Issued(c) => (
                AuditEvent::Issued,
                format!("request {id}: certificate {}", c.hashed_id8),
            ),
            Outcome::Refused { .. } => (AuditEvent::Refused, format!("request {id}: {text}")),
            Outcome::Answered(_) => (AuditEvent::Answered, format!("request {id}: {text}")),
        };
        AuditLine {
            role,
            event,
            detail,
        }
    }
}

/// An outcome as `requests.outcome` holds it: `issued`, the refusal's `code: reason`, or
/// the code answered.
pub(super) fn outcome_text(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Issued(_) => "issued".to_string(),
        Outcome::Refused { code, reason } => format!("{}: {reason}", code.name()),
        Outcome::Answered(code) => code.name(),
    }
}
