//! What a PKI remembers: registered stations, issued certificates, the ids of the requests
//! it answered (so a replay is refused) and an audit log. Issuance and its records commit
//! together or not at all.
//!
//! Backends: [`SqliteStore`] (a file in the PKI directory, the default) and [`PostgresStore`]
//! (one PostgreSQL database shared by several authority processes); [`open_store`] opens the one a
//! [`StoreLocation`] names.

mod group_commit;
mod location;
mod postgres;
mod records;
mod rows;
mod schema;
mod sqlite;
mod timed;

pub use location::{open_store, EmptyStoreLocation, StoreLocation};
pub use postgres::PostgresStore;
pub use records::{
    AuditEntry, AuditEvent, IssueList, IssuedCertificate, IssuedList, Outcome, Station,
    DEFAULT_PSIDS,
};
pub use sqlite::SqliteStore;
pub use timed::{process_cpu_time, thread_cpu_time, Timed};

use std::fmt;

use vss_its::HashedId8;

use crate::lists::ListKind;

/// Which authority wrote a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The root CA.
    Root,
    /// The enrolment authority.
    Ea,
    /// The authorization authority.
    Aa,
}

impl Role {
    /// The name stored and shown: `root`, `ea`, `aa`.
    pub fn name(self) -> &'static str {
        match self {
            Role::Root => "root",
            Role::Ea => "ea",
            Role::Aa => "aa",
        }
    }

    fn parse(name: &str) -> Result<Self, StoreError> {
        match name {
            "root" => Ok(Role::Root),
            "ea" => Ok(Role::Ea),
            "aa" => Ok(Role::Aa),
            other => Err(StoreError::Corrupt(format!("unknown role '{other}'"))),
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why the store refused or failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The request id was answered before: a replay.
    #[error("request {0} was answered before (replay)")]
    Replay(String),
    /// A station with this canonical id is registered already.
    #[error("station '{0}' is registered already")]
    StationExists(String),
    /// A canonical id to register is not 1–64 characters of `A-Z a-z 0-9 . _ -` (not
    /// starting with `.`); the id is shown escaped and cut to 64 characters.
    #[error(
        "invalid canonical id '{0}': use 1-64 characters of A-Z a-z 0-9 . _ - (not starting with '.')"
    )]
    InvalidCanonicalId(String),
    /// The database holds something this code cannot read.
    #[error("corrupt store: {0}")]
    Corrupt(String),
    /// The database failed.
    #[error("store: {0}")]
    Database(String),
}

/// The records of one PKI; shared by the threads of its services.
pub trait PkiStore: Send + Sync {
    /// Registers a station at the EA; its canonical id must be a label
    /// ([`StoreError::InvalidCanonicalId`] otherwise).
    fn register_station(&self, station: &Station) -> Result<(), StoreError>;

    /// The station with this canonical id.
    fn station(&self, canonical_id: &str) -> Result<Option<Station>, StoreError>;

    /// Whether `role` has answered the request with this id already.
    fn seen(&self, role: Role, request_id: &[u8]) -> Result<bool, StoreError>;

    /// Records the answer to a request, its certificate and an audit line in one
    /// transaction; [`StoreError::Replay`] (and nothing written) if the id was seen.
    fn record(&self, role: Role, request_id: &[u8], outcome: &Outcome) -> Result<(), StoreError>;

    /// Records as [`PkiStore::record`] does, but the commit need not be durable on its own:
    /// the next synchronous commit to this store, from any process, makes it so (a
    /// database's log is flushed in order). For a record whose answer stays in the process
    /// until such a commit follows, as the EA's in an AA's process ([`crate::authority::LocalEa`]).
    fn record_deferred(
        &self,
        role: Role,
        request_id: &[u8],
        outcome: &Outcome,
    ) -> Result<(), StoreError> {
        self.record(role, request_id, outcome)
    }

    /// The certificate with this HashedId8, if this PKI issued it.
    fn issued(&self, hashed_id8: &HashedId8) -> Result<Option<IssuedCertificate>, StoreError>;

    /// Every certificate `role` issued, in order of issue.
    fn issued_by(&self, role: Role) -> Result<Vec<IssuedCertificate>, StoreError>;

    /// The audit log, oldest first.
    fn audit(&self) -> Result<Vec<AuditEntry>, StoreError>;

    /// Revokes the certificate with this HashedId8 (and writes an audit line): whether it
    /// was not revoked before.
    fn revoke(&self, hashed_id8: &HashedId8) -> Result<bool, StoreError>;

    /// The revoked certificates, in order of revocation.
    fn revoked(&self) -> Result<Vec<HashedId8>, StoreError>;

    /// The last list of `kind` issued.
    fn last_list(&self, kind: ListKind) -> Result<Option<IssuedList>, StoreError>;

    /// Issues a list of `kind` while holding the store's lock for it, so that issuers
    /// in several processes take turns: `issue` gets the last one and the revocations as
    /// they are then, and what it returns is kept as the last one. When `issue` fails,
    /// nothing is kept.
    fn issue_list(&self, kind: ListKind, issue: IssueList<'_>) -> crate::Result<IssuedList>;
}

/// Refuses a canonical id that is no label (see [`StoreError::InvalidCanonicalId`]): it is
/// written to the audit log and printed, so it holds nothing that could break a line.
fn check_canonical_id(id: &str) -> Result<(), StoreError> {
    vss_hsm::check_label(id).map_err(|e| match e {
        vss_hsm::Error::InvalidLabel(shown) => StoreError::InvalidCanonicalId(shown),
        other => StoreError::InvalidCanonicalId(other.to_string()),
    })
}

/// Now, in Unix seconds.
fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}
