//! The SQLite store: one file, WAL journal, synchronous commits, so an acknowledged record
//! survives a crash; several processes may open it. Records made at once by several threads
//! share a transaction and its fsync (group commit).

use std::path::Path;
use std::sync::Mutex;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use vss_its::HashedId8;

use crate::lists::ListKind;

use super::group_commit::{GroupCommit, Job};
use super::rows::{
    audit_of, hashed_id8_of, issued_of, outcome_text, psids_text, station_of, AuditLine, IssuedRow,
    ISSUED_COLUMNS,
};
use super::{
    now, schema, AuditEntry, IssueList, IssuedCertificate, IssuedList, Outcome, PkiStore, Role,
    Station, StoreError,
};

/// A PKI store in one SQLite file.
pub struct SqliteStore {
    connection: Mutex<Connection>,
    records: GroupCommit,
}

fn db(e: rusqlite::Error) -> StoreError {
    StoreError::Database(e.to_string())
}

impl SqliteStore {
    /// Opens (creating if needed) the store at `path`.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let connection = Connection::open(path).map_err(db)?;
        connection
            .execute_batch(
                "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 10000;",
            )
            .map_err(db)?;
        connection.execute_batch(schema::SQLITE).map_err(db)?;
        Ok(SqliteStore {
            connection: Mutex::new(connection),
            records: GroupCommit::default(),
        })
    }

    fn with<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, E>,
    ) -> Result<T, E> {
        let mut connection = self
            .connection
            .lock()
            .map_err(|_| StoreError::Database("a thread panicked holding the store".into()))?;
        f(&mut connection)
    }
}

fn issued_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<IssuedRow> {
    Ok((
        row.get(0)?,
        row.get(1)?,
        row.get(2)?,
        row.get(3)?,
        row.get(4)?,
    ))
}

impl PkiStore for SqliteStore {
    fn register_station(&self, station: &Station) -> Result<(), StoreError> {
        super::check_canonical_id(&station.canonical_id)?;
        self.with(|c| {
            let tx = c
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(db)?;
            let inserted = tx
                .execute(
                    "INSERT OR IGNORE INTO stations (canonical_id, curve, public_key, psids, registered_at)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![
                        station.canonical_id,
                        station.curve.name(),
                        station.public_key,
                        psids_text(&station.psids),
                        now()
                    ],
                )
                .map_err(db)?;
            if inserted == 0 {
                return Err(StoreError::StationExists(station.canonical_id.clone()));
            }
            write_audit(&tx, &AuditLine::registration(station))?;
            tx.commit().map_err(db)
        })
    }

    fn station(&self, canonical_id: &str) -> Result<Option<Station>, StoreError> {
        self.with(|c| {
            c.prepare_cached(
                "SELECT canonical_id, curve, public_key, psids FROM stations WHERE canonical_id = ?1",
            )
            .and_then(|mut s| {
                s.query_row(params![canonical_id], |row| {
                    Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
                })
            })
            .optional()
            .map_err(db)?
            .map(station_of)
            .transpose()
        })
    }

    fn seen(&self, role: Role, request_id: &[u8]) -> Result<bool, StoreError> {
        self.with(|c| {
            c.prepare_cached("SELECT 1 FROM requests WHERE role = ?1 AND request_id = ?2")
                .and_then(|mut s| s.query_row(params![role.name(), request_id], |_| Ok(())))
                .optional()
                .map(|found| found.is_some())
                .map_err(db)
        })
    }

    fn record(&self, role: Role, request_id: &[u8], outcome: &Outcome) -> Result<(), StoreError> {
        let job = Job {
            role,
            request_id: request_id.to_vec(),
            outcome: outcome.clone(),
        };
        self.records.submit(job, |jobs| {
            self.with(|c| Ok::<_, StoreError>(commit_jobs(c, jobs)))
                .unwrap_or_else(|e| jobs.iter().map(|_| Err(copy(&e))).collect())
        })
    }

    fn record_deferred(
        &self,
        role: Role,
        request_id: &[u8],
        outcome: &Outcome,
    ) -> Result<(), StoreError> {
        // With synchronous = NORMAL a WAL commit is not fsynced; the next FULL commit's fsync
        // of the WAL, or a checkpoint, makes it durable with everything before it.
        let synchronous = |c: &Connection, level: &str| {
            c.prepare_cached(&format!("PRAGMA synchronous = {level}"))
                .and_then(|mut s| s.execute([]))
                .map_err(db)
        };
        self.with(|c| {
            synchronous(c, "NORMAL")?;
            let recorded = record_in(c, role, request_id, outcome);
            synchronous(c, "FULL")?;
            recorded
        })
    }

    fn issued(&self, hashed_id8: &HashedId8) -> Result<Option<IssuedCertificate>, StoreError> {
        self.with(|c| {
            c.prepare_cached(&format!(
                "SELECT {ISSUED_COLUMNS} FROM certificates WHERE hashed_id8 = ?1"
            ))
            .and_then(|mut s| s.query_row(params![hashed_id8.0.as_slice()], issued_row))
            .optional()
            .map_err(db)?
            .map(issued_of)
            .transpose()
        })
    }

    fn issued_by(&self, role: Role) -> Result<Vec<IssuedCertificate>, StoreError> {
        self.with(|c| {
            let mut statement = c
                .prepare(&format!(
                    "SELECT {ISSUED_COLUMNS} FROM certificates WHERE role = ?1 ORDER BY seq"
                ))
                .map_err(db)?;
            let rows = statement
                .query_map(params![role.name()], issued_row)
                .map_err(db)?;
            rows.map(|r| r.map_err(db).and_then(issued_of)).collect()
        })
    }

    fn audit(&self) -> Result<Vec<AuditEntry>, StoreError> {
        self.with(|c| {
            let mut statement = c
                .prepare("SELECT seq, at, role, event, detail FROM audit ORDER BY seq")
                .map_err(db)?;
            let rows = statement
                .query_map([], |row| {
                    Ok((
                        row.get(0)?,
                        row.get(1)?,
                        row.get(2)?,
                        row.get(3)?,
                        row.get(4)?,
                    ))
                })
                .map_err(db)?;
            rows.map(|r| r.map_err(db).and_then(audit_of)).collect()
        })
    }

    fn revoke(&self, hashed_id8: &HashedId8) -> Result<bool, StoreError> {
        self.with(|c| {
            let tx = c
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(db)?;
            let inserted = tx
                .execute(
                    "INSERT OR IGNORE INTO revocations (hashed_id8, revoked_at) VALUES (?1, ?2)",
                    params![hashed_id8.0.as_slice(), now()],
                )
                .map_err(db)?;
            if inserted == 1 {
                write_audit(&tx, &AuditLine::revocation(hashed_id8))?;
            }
            tx.commit().map_err(db)?;
            Ok(inserted == 1)
        })
    }

    fn revoked(&self) -> Result<Vec<HashedId8>, StoreError> {
        self.with(|c| revoked_in(c))
    }

    fn last_list(&self, kind: ListKind) -> Result<Option<IssuedList>, StoreError> {
        self.with(|c| last_list_in(c, kind))
    }

    fn issue_list(&self, kind: ListKind, issue: IssueList<'_>) -> crate::Result<IssuedList> {
        self.with(|c| {
            let tx = c
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(db)?;
            let last = last_list_in(&tx, kind)?;
            let issued = issue(last.as_ref(), &revoked_in(&tx)?)?;
            tx.execute(
                "INSERT INTO lists (name, sequence, issued_at, list) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (name) DO UPDATE SET
                 sequence = excluded.sequence, issued_at = excluded.issued_at, list = excluded.list",
                params![kind.name(), issued.sequence, issued.issued_at, issued.bytes],
            )
            .map_err(db)?;
            tx.commit().map_err(db)?;
            Ok(issued)
        })
    }
}

/// One record in a transaction of its own on `c`.
fn record_in(
    c: &mut Connection,
    role: Role,
    request_id: &[u8],
    outcome: &Outcome,
) -> Result<(), StoreError> {
    let tx = c
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(db)?;
    record_rows(&tx, role, request_id, outcome)?;
    tx.commit().map_err(db)
}

/// The same error again, for each record of a failed group.
fn copy(e: &StoreError) -> StoreError {
    StoreError::Database(e.to_string())
}

/// The records of `jobs` in one transaction, each in a savepoint so that a replay or a
/// failure leaves the others; each one's result, in order.
fn commit_jobs(c: &mut Connection, jobs: &[Job]) -> Vec<Result<(), StoreError>> {
    if let [job] = jobs {
        // Alone, a record needs no savepoint.
        return vec![record_in(c, job.role, &job.request_id, &job.outcome)];
    }
    let fail_all = |e: rusqlite::Error| {
        let e = db(e);
        jobs.iter().map(|_| Err(copy(&e))).collect()
    };
    let mut tx = match c.transaction_with_behavior(TransactionBehavior::Immediate) {
        Ok(tx) => tx,
        Err(e) => return fail_all(e),
    };
    let mut results = Vec::with_capacity(jobs.len());
    for job in jobs {
        let result = tx.savepoint().map_err(db).and_then(|savepoint| {
            record_rows(&savepoint, job.role, &job.request_id, &job.outcome)?;
            savepoint.commit().map_err(db)
        });
        results.push(result);
    }
    match tx.commit() {
        Ok(()) => results,
        Err(e) => fail_all(e),
    }
}

/// The rows of one record: the request, its certificate, an audit line.
fn record_rows(
    tx: &Connection,
    role: Role,
    request_id: &[u8],
    outcome: &Outcome,
) -> Result<(), StoreError> {
    let text = outcome_text(outcome);
    let inserted = tx
        .prepare_cached(
            "INSERT OR IGNORE INTO requests (role, request_id, received_at, outcome)
             VALUES (?1, ?2, ?3, ?4)",
        )
        .and_then(|mut s| s.execute(params![role.name(), request_id, now(), text]))
        .map_err(db)?;
    if inserted == 0 {
        return Err(StoreError::Replay(hex::encode(request_id)));
    }
    if let Outcome::Issued(cert) = outcome {
        tx.prepare_cached(
            "INSERT INTO certificates
             (hashed_id8, role, station, request_id, certificate, issued_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )
        .and_then(|mut s| {
            s.execute(params![
                cert.hashed_id8.0.as_slice(),
                role.name(),
                cert.station,
                request_id,
                cert.certificate,
                now()
            ])
        })
        .map_err(db)?;
    }
    write_audit(tx, &AuditLine::outcome(role, request_id, outcome, &text))
}

/// Writes `line` to the audit log.
fn write_audit(tx: &Connection, line: &AuditLine) -> Result<(), StoreError> {
    tx.prepare_cached("INSERT INTO audit (at, role, event, detail) VALUES (?1, ?2, ?3, ?4)")
        .and_then(|mut s| {
            s.execute(params![
                now(),
                line.role.name(),
                line.event.name(),
                line.detail
            ])
        })
        .map(drop)
        .map_err(db)
}

fn revoked_in(c: &Connection) -> Result<Vec<HashedId8>, StoreError> {
    let mut statement = c
        .prepare("SELECT hashed_id8 FROM revocations ORDER BY seq")
        .map_err(db)?;
    let rows = statement
        .query_map([], |row| row.get::<_, Vec<u8>>(0))
        .map_err(db)?;
    rows.map(|r| r.map_err(db).and_then(|id| hashed_id8_of(&id)))
        .collect()
}

fn last_list_in(c: &Connection, kind: ListKind) -> Result<Option<IssuedList>, StoreError> {
    c.query_row(
        "SELECT sequence, issued_at, list FROM lists WHERE name = ?1",
        params![kind.name()],
        |row| {
            Ok(IssuedList {
                sequence: row.get(0)?,
                issued_at: row.get(1)?,
                bytes: row.get(2)?,
            })
        },
    )
    .optional()
    .map_err(db)
}
