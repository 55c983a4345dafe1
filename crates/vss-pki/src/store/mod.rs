//! What a PKI remembers: registered stations, issued certificates, the ids of the requests
//! it answered (so a replay is refused) and an audit log. Issuance and its records commit
//! together or not at all.
//!
//! Backends: [`SqliteStore`] (a file in the PKI directory, the default) and [`PostgresStore`]
//! (one PostgreSQL database shared by several authority processes); [`open_store`] picks one
//! from a path or a URL.

mod group_commit;
mod postgres;
mod sqlite;

pub use postgres::PostgresStore;
pub use sqlite::SqliteStore;

use std::fmt;
use std::path::Path;

use vss_crypto::PublicKey;

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

/// A station the EA knows: its canonical id and canonical public key (SEC 1), and the PSIDs
/// its authorization tickets may carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Station {
    /// The canonical id (the `itsId` of its first enrolment request).
    pub canonical_id: String,
    /// The curve of the canonical key, as VSS names curves (`p256` …).
    pub curve: String,
    /// The canonical public key, SEC 1 encoded.
    pub public_key: Vec<u8>,
    /// The PSIDs the EA confirms in authorization validation (e.g. 36 CAM, 37 DENM).
    pub psids: Vec<u64>,
}

/// The PSIDs a station's tickets may carry when none are named: CAM (36) and DENM (37).
pub const DEFAULT_PSIDS: [u64; 2] = [36, 37];

impl Station {
    /// The station `canonical_id` with the canonical key `key` (kept compressed), whose
    /// tickets may carry `psids`, or [`DEFAULT_PSIDS`] when none are given.
    pub fn new(canonical_id: &str, key: &PublicKey, psids: &[u64]) -> Station {
        Station {
            canonical_id: canonical_id.to_string(),
            curve: key.curve().to_string(),
            public_key: key.to_sec1_compressed().to_vec(),
            psids: if psids.is_empty() {
                DEFAULT_PSIDS.to_vec()
            } else {
                psids.to_vec()
            },
        }
    }
}

/// Refuses a canonical id that is no label (see [`StoreError::InvalidCanonicalId`]): it is
/// written to the audit log and printed, so it holds nothing that could break a line.
fn check_canonical_id(id: &str) -> Result<(), StoreError> {
    vss_hsm::check_label(id).map_err(|e| match e {
        vss_hsm::Error::InvalidLabel(shown) => StoreError::InvalidCanonicalId(shown),
        other => StoreError::InvalidCanonicalId(other.to_string()),
    })
}

/// PSIDs as stored: decimal, comma-separated.
fn psids_text(psids: &[u64]) -> String {
    psids
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// A row of `stations` as read: canonical id, curve, public key, PSIDs.
type StationRow = (String, String, Vec<u8>, String);

fn station_of((canonical_id, curve, public_key, psids): StationRow) -> Result<Station, StoreError> {
    Ok(Station {
        canonical_id,
        curve,
        public_key,
        psids: parse_psids(&psids)?,
    })
}

/// PSIDs from their stored text.
fn parse_psids(text: &str) -> Result<Vec<u64>, StoreError> {
    text.split(',')
        .filter(|p| !p.is_empty())
        .map(|p| {
            p.parse()
                .map_err(|_| StoreError::Corrupt(format!("a PSID list '{text}'")))
        })
        .collect()
}

/// A certificate an authority issued, as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssuedCertificate {
    /// Its HashedId8.
    pub hashed_id8: [u8; 8],
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
    /// The request was answered without a certificate: the standard's response code.
    Refused(String),
    /// Something other than issuance was answered (e.g. an authorization validation).
    Answered(String),
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
    &'a mut dyn FnMut(Option<&IssuedList>, &[[u8; 8]]) -> crate::Result<IssuedList>;

/// One line of the audit log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    /// Order of writing (increasing).
    pub seq: i64,
    /// Unix time in seconds.
    pub at: i64,
    /// The authority.
    pub role: Role,
    /// What happened: `register`, `issued`, `refused`, `answered`.
    pub event: String,
    /// Details (request id, HashedId8, response code): never key material.
    pub detail: String,
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
    fn issued(&self, hashed_id8: &[u8; 8]) -> Result<Option<IssuedCertificate>, StoreError>;

    /// Every certificate `role` issued, in order of issue.
    fn issued_by(&self, role: Role) -> Result<Vec<IssuedCertificate>, StoreError>;

    /// The audit log, oldest first.
    fn audit(&self) -> Result<Vec<AuditEntry>, StoreError>;

    /// Revokes the certificate with this HashedId8 (and writes an audit line): whether it
    /// was not revoked before.
    fn revoke(&self, hashed_id8: &[u8; 8]) -> Result<bool, StoreError>;

    /// The revoked certificates, in order of revocation.
    fn revoked(&self) -> Result<Vec<[u8; 8]>, StoreError>;

    /// The last list of `kind` issued.
    fn last_list(&self, kind: ListKind) -> Result<Option<IssuedList>, StoreError>;

    /// Issues a list of `kind` while holding the store's lock for it, so that issuers
    /// in several processes take turns: `issue` gets the last one and the revocations as
    /// they are then, and what it returns is kept as the last one. When `issue` fails,
    /// nothing is kept.
    fn issue_list(&self, kind: ListKind, issue: IssueList<'_>) -> crate::Result<IssuedList>;
}

fn hashed_id8_of(bytes: Vec<u8>) -> Result<[u8; 8], StoreError> {
    <[u8; 8]>::try_from(bytes.as_slice())
        .map_err(|_| StoreError::Corrupt(format!("a HashedId8 of {} bytes", bytes.len())))
}

fn revocation_detail(hashed_id8: &[u8; 8]) -> String {
    format!("revoked {}", hex::encode_upper(hashed_id8))
}

/// Opens the store that `spec` names: a `postgres://` or `postgresql://` URL opens
/// [`PostgresStore`], any other text opens [`SqliteStore`] at that path, and an empty `spec`
/// opens [`SqliteStore`] at `default_sqlite`.
pub fn open_store(spec: &str, default_sqlite: &Path) -> Result<Box<dyn PkiStore>, StoreError> {
    if spec.starts_with("postgres://") || spec.starts_with("postgresql://") {
        Ok(Box::new(PostgresStore::connect(spec)?))
    } else if spec.is_empty() {
        Ok(Box::new(SqliteStore::open(default_sqlite)?))
    } else {
        Ok(Box::new(SqliteStore::open(Path::new(spec))?))
    }
}

/// The columns of `certificates` that [`issued_of`] reads, in its order.
const ISSUED_COLUMNS: &str = "hashed_id8, role, station, request_id, certificate";

/// A row of `certificates` as read: HashedId8, role, station, request id, certificate.
type IssuedRow = (Vec<u8>, String, Option<String>, Vec<u8>, Vec<u8>);

fn issued_of(
    (id, role, station, request_id, certificate): IssuedRow,
) -> Result<IssuedCertificate, StoreError> {
    Ok(IssuedCertificate {
        hashed_id8: id
            .try_into()
            .map_err(|_| StoreError::Corrupt("a HashedId8 that is not 8 bytes".into()))?,
        role: Role::parse(&role)?,
        station,
        request_id,
        certificate,
    })
}

/// A row of `audit` as read: seq, time, role, event, detail.
type AuditRow = (i64, i64, String, String, String);

fn audit_of((seq, at, role, event, detail): AuditRow) -> Result<AuditEntry, StoreError> {
    Ok(AuditEntry {
        seq,
        at,
        role: Role::parse(&role)?,
        event,
        detail,
    })
}

/// The audit detail of a station's registration (written with role `ea`, event `register`).
fn registration_detail(station: &Station) -> String {
    format!("station {}", station.canonical_id)
}

fn audit_line(outcome: &Outcome, request_id: &[u8]) -> (&'static str, String) {
    let id = hex::encode(request_id);
    match outcome {
        Outcome::Issued(c) => (
            "issued",
            format!(
                "request {id}: certificate {}",
                hex::encode_upper(c.hashed_id8)
            ),
        ),
        Outcome::Refused(code) => ("refused", format!("request {id}: {code}")),
        Outcome::Answered(code) => ("answered", format!("request {id}: {code}")),
    }
}

fn outcome_name(outcome: &Outcome) -> &str {
    match outcome {
        Outcome::Issued(_) => "issued",
        Outcome::Refused(code) | Outcome::Answered(code) => code,
    }
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// A store that measures the time spent in another store's calls, and the CPU time of the
/// threads that made them (for `vss bench pki`).
pub struct Timed {
    inner: Box<dyn PkiStore>,
    nanos: std::sync::atomic::AtomicU64,
    cpu_nanos: std::sync::atomic::AtomicU64,
}

/// The CPU time the calling thread has used.
pub fn thread_cpu_time() -> std::time::Duration {
    cpu_time(rustix::time::ClockId::ThreadCPUTime)
}

/// The CPU time the whole process has used, all threads together.
pub fn process_cpu_time() -> std::time::Duration {
    cpu_time(rustix::time::ClockId::ProcessCPUTime)
}

fn cpu_time(clock: rustix::time::ClockId) -> std::time::Duration {
    let t = rustix::time::clock_gettime(clock);
    std::time::Duration::new(
        u64::try_from(t.tv_sec).unwrap_or(0),
        u32::try_from(t.tv_nsec).unwrap_or(0),
    )
}

impl Timed {
    /// Measures `inner`.
    pub fn new(inner: Box<dyn PkiStore>) -> Self {
        Timed {
            inner,
            nanos: std::sync::atomic::AtomicU64::new(0),
            cpu_nanos: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// The time spent in the store so far.
    pub fn spent(&self) -> std::time::Duration {
        std::time::Duration::from_nanos(self.nanos.load(std::sync::atomic::Ordering::Relaxed))
    }

    /// The CPU time the store's calls used so far (waits for the disk or for a lock are not
    /// CPU time).
    pub fn cpu_spent(&self) -> std::time::Duration {
        std::time::Duration::from_nanos(self.cpu_nanos.load(std::sync::atomic::Ordering::Relaxed))
    }

    fn time<T>(&self, call: impl FnOnce(&dyn PkiStore) -> T) -> T {
        let add = |counter: &std::sync::atomic::AtomicU64, d: std::time::Duration| {
            let nanos = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
            counter.fetch_add(nanos, std::sync::atomic::Ordering::Relaxed);
        };
        let (started, cpu_started) = (std::time::Instant::now(), thread_cpu_time());
        let result = call(self.inner.as_ref());
        add(&self.nanos, started.elapsed());
        add(
            &self.cpu_nanos,
            thread_cpu_time().saturating_sub(cpu_started),
        );
        result
    }
}

impl PkiStore for Timed {
    fn register_station(&self, station: &Station) -> Result<(), StoreError> {
        self.time(|s| s.register_station(station))
    }

    fn station(&self, canonical_id: &str) -> Result<Option<Station>, StoreError> {
        self.time(|s| s.station(canonical_id))
    }

    fn seen(&self, role: Role, request_id: &[u8]) -> Result<bool, StoreError> {
        self.time(|s| s.seen(role, request_id))
    }

    fn record(&self, role: Role, request_id: &[u8], outcome: &Outcome) -> Result<(), StoreError> {
        self.time(|s| s.record(role, request_id, outcome))
    }

    fn record_deferred(
        &self,
        role: Role,
        request_id: &[u8],
        outcome: &Outcome,
    ) -> Result<(), StoreError> {
        self.time(|s| s.record_deferred(role, request_id, outcome))
    }

    fn issued(&self, hashed_id8: &[u8; 8]) -> Result<Option<IssuedCertificate>, StoreError> {
        self.time(|s| s.issued(hashed_id8))
    }

    fn issued_by(&self, role: Role) -> Result<Vec<IssuedCertificate>, StoreError> {
        self.time(|s| s.issued_by(role))
    }

    fn audit(&self) -> Result<Vec<AuditEntry>, StoreError> {
        self.time(|s| s.audit())
    }

    fn revoke(&self, hashed_id8: &[u8; 8]) -> Result<bool, StoreError> {
        self.time(|s| s.revoke(hashed_id8))
    }

    fn revoked(&self) -> Result<Vec<[u8; 8]>, StoreError> {
        self.time(|s| s.revoked())
    }

    fn last_list(&self, kind: ListKind) -> Result<Option<IssuedList>, StoreError> {
        self.time(|s| s.last_list(kind))
    }

    fn issue_list(&self, kind: ListKind, issue: IssueList<'_>) -> crate::Result<IssuedList> {
        self.time(|s| s.issue_list(kind, issue))
    }
}
