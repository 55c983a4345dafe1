//! The PostgreSQL store: one database shared by several authority processes. Replays are
//! refused by the unique key on (role, request id), so two processes racing with one request
//! id record it once; each store keeps a small pool of connections for its threads.

use std::str::FromStr;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use postgres::{Client, Config, IsolationLevel, NoTls, Row, Transaction};
use vss_its::HashedId8;

use crate::lists::ListKind;

use super::rows::{
    audit_of, hashed_id8_of, issued_of, outcome_text, psids_text, station_of, AuditLine,
    ISSUED_COLUMNS,
};
use super::{
    now, schema, AuditEntry, IssueList, IssuedCertificate, IssuedList, Outcome, PkiStore, Role,
    Station, StoreError,
};

/// The advisory lock ("vss-pki" in ASCII) held while the schema is created, so that processes
/// starting at once do not race on `CREATE TABLE`.
const SCHEMA_LOCK: i64 = 0x0076_7373_2d70_6b69;

/// The advisory locks ("vss-list" in ASCII, plus the list's number) an issuer of a list
/// holds for its transaction, so that issuers in several processes take turns.
const LIST_LOCK: i64 = 0x0076_7373_2d6c_6973;

/// Connections a store opens at most; further threads wait for one to be free.
const POOL_SIZE: usize = 8;

/// How long a connection attempt may take when the URL sets no `connect_timeout`.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A PKI store in a PostgreSQL database, which several processes may share.
pub struct PostgresStore {
    config: Config,
    pool: Mutex<Pool>,
    freed: Condvar,
}

/// The connections of a store: those idle, and how many are in use.
struct Pool {
    idle: Vec<Client>,
    busy: usize,
}

/// A connection in use, counted until dropped (also when the caller panics).
struct Busy<'a>(&'a PostgresStore);

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.0.lock_pool().busy -= 1;
        self.0.freed.notify_one();
    }
}

fn db(e: postgres::Error) -> StoreError {
    let message = match (e.as_db_error(), std::error::Error::source(&e)) {
        // The server's message names the constraint or object at fault; its DETAIL, which
        // may echo row values, is left out.
        (Some(server), _) => format!("{} (SQLSTATE {})", server.message(), server.code().code()),
        (None, Some(cause)) => format!("{e}: {cause}"),
        (None, None) => e.to_string(),
    };
    StoreError::Database(format!("postgres: {message}"))
}

/// A read-committed transaction, whatever the server's default: an insert that meets a
/// concurrent insert of the same key then waits for it and, if it commits, inserts nothing
/// (where a stricter level would fail with a serialization error instead of a replay).
fn transaction(c: &mut Client) -> Result<Transaction<'_>, StoreError> {
    c.build_transaction()
        .isolation_level(IsolationLevel::ReadCommitted)
        .start()
        .map_err(db)
}

impl PostgresStore {
    /// Connects to the database at `url` (`postgres://user@host/db`, or a key=value
    /// connection string) and creates the schema if absent.
    pub fn connect(url: &str) -> Result<Self, StoreError> {
        let mut config = Config::from_str(url).map_err(db)?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        let store = PostgresStore {
            config,
            pool: Mutex::new(Pool {
                idle: Vec::new(),
                busy: 0,
            }),
            freed: Condvar::new(),
        };
        store.with(|c| {
            let mut tx = transaction(c)?;
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SCHEMA_LOCK])
                .map_err(db)?;
            tx.batch_execute(schema::POSTGRES).map_err(db)?;
            tx.commit().map_err(db)
        })?;
        Ok(store)
    }

    fn lock_pool(&self) -> MutexGuard<'_, Pool> {
        // The pool's bookkeeping stays consistent even if a holder panicked.
        self.pool.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes an idle connection, opens one if fewer than [`POOL_SIZE`] are open, or waits.
    fn take(&self) -> Result<(Busy<'_>, Client), StoreError> {
        let mut pool = self.lock_pool();
        loop {
            while let Some(client) = pool.idle.pop() {
                if !client.is_closed() {
                    pool.busy += 1;
                    return Ok((Busy(self), client));
                }
            }
            if pool.busy < POOL_SIZE {
                pool.busy += 1;
                drop(pool);
                let busy = Busy(self);
                // On failure `busy` is dropped, which frees the place.
                let client = self.config.connect(NoTls).map_err(db)?;
                return Ok((busy, client));
            }
            pool = self
                .freed
                .wait(pool)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn with<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&mut Client) -> Result<T, E>,
    ) -> Result<T, E> {
        let (busy, mut client) = self.take()?;
        let result = f(&mut client);
        if !client.is_closed() {
            self.lock_pool().idle.push(client);
        }
        drop(busy);
        result
    }
}

fn issued_from(row: &Row) -> Result<IssuedCertificate, StoreError> {
    issued_of((
        row.try_get(0).map_err(db)?,
        row.try_get(1).map_err(db)?,
        row.try_get(2).map_err(db)?,
        row.try_get(3).map_err(db)?,
        row.try_get(4).map_err(db)?,
    ))
}

impl PkiStore for PostgresStore {
    fn register_station(&self, station: &Station) -> Result<(), StoreError> {
        super::check_canonical_id(&station.canonical_id)?;
        self.with(|c| {
            let mut tx = transaction(c)?;
            let inserted = tx
                .execute(
                    "INSERT INTO stations (canonical_id, curve, public_key, psids, registered_at)
                     VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
                    &[
                        &station.canonical_id,
                        &station.curve.name(),
                        &station.public_key,
                        &psids_text(&station.psids),
                        &now(),
                    ],
                )
                .map_err(db)?;
            if inserted == 0 {
                return Err(StoreError::StationExists(station.canonical_id.clone()));
            }
            write_audit(&mut tx, &AuditLine::registration(station))?;
            tx.commit().map_err(db)
        })
    }

    fn station(&self, canonical_id: &str) -> Result<Option<Station>, StoreError> {
        self.with(|c| {
            let row = c
                .query_opt(
                    "SELECT canonical_id, curve, public_key, psids FROM stations WHERE canonical_id = $1",
                    &[&canonical_id],
                )
                .map_err(db)?;
            row.map(|row| {
                station_of((
                    row.try_get(0).map_err(db)?,
                    row.try_get(1).map_err(db)?,
                    row.try_get(2).map_err(db)?,
                    row.try_get(3).map_err(db)?,
                ))
            })
            .transpose()
        })
    }

    fn seen(&self, role: Role, request_id: &[u8]) -> Result<bool, StoreError> {
        self.with(|c| {
            c.query_opt(
                "SELECT 1 FROM requests WHERE role = $1 AND request_id = $2",
                &[&role.name(), &request_id],
            )
            .map(|found| found.is_some())
            .map_err(db)
        })
    }

    fn record(&self, role: Role, request_id: &[u8], outcome: &Outcome) -> Result<(), StoreError> {
        self.with(|c| record_in(transaction(c)?, role, request_id, outcome))
    }

    fn record_deferred(
        &self,
        role: Role,
        request_id: &[u8],
        outcome: &Outcome,
    ) -> Result<(), StoreError> {
        // An asynchronous commit: the next synchronous one flushes the log past it.
        self.with(|c| {
            let mut tx = transaction(c)?;
            tx.batch_execute("SET LOCAL synchronous_commit TO OFF")
                .map_err(db)?;
            record_in(tx, role, request_id, outcome)
        })
    }

    fn issued(&self, hashed_id8: &HashedId8) -> Result<Option<IssuedCertificate>, StoreError> {
        self.with(|c| {
            c.query_opt(
                &format!("SELECT {ISSUED_COLUMNS} FROM certificates WHERE hashed_id8 = $1"),
                &[&hashed_id8.0.as_slice()],
            )
            .map_err(db)?
            .as_ref()
            .map(issued_from)
            .transpose()
        })
    }

    fn issued_by(&self, role: Role) -> Result<Vec<IssuedCertificate>, StoreError> {
        self.with(|c| {
            c.query(
                &format!("SELECT {ISSUED_COLUMNS} FROM certificates WHERE role = $1 ORDER BY seq"),
                &[&role.name()],
            )
            .map_err(db)?
            .iter()
            .map(issued_from)
            .collect()
        })
    }

    fn audit(&self) -> Result<Vec<AuditEntry>, StoreError> {
        self.with(|c| {
            c.query(
                "SELECT seq, at, role, event, detail FROM audit ORDER BY seq",
                &[],
            )
            .map_err(db)?
            .iter()
            .map(|row| {
                audit_of((
                    row.try_get(0).map_err(db)?,
                    row.try_get(1).map_err(db)?,
                    row.try_get(2).map_err(db)?,
                    row.try_get(3).map_err(db)?,
                    row.try_get(4).map_err(db)?,
                ))
            })
            .collect()
        })
    }

    fn revoke(&self, hashed_id8: &HashedId8) -> Result<bool, StoreError> {
        self.with(|c| {
            let mut tx = transaction(c)?;
            let inserted = tx
                .execute(
                    "INSERT INTO revocations (hashed_id8, revoked_at) VALUES ($1, $2)
                     ON CONFLICT DO NOTHING",
                    &[&hashed_id8.0.as_slice(), &now()],
                )
                .map_err(db)?;
            if inserted == 1 {
                write_audit(&mut tx, &AuditLine::revocation(hashed_id8))?;
            }
            tx.commit().map_err(db)?;
            Ok(inserted == 1)
        })
    }

    fn revoked(&self) -> Result<Vec<HashedId8>, StoreError> {
        self.with(|c| revoked_in(&mut c.transaction().map_err(db)?))
    }

    fn last_list(&self, kind: ListKind) -> Result<Option<IssuedList>, StoreError> {
        self.with(|c| last_list_in(&mut c.transaction().map_err(db)?, kind))
    }

    fn issue_list(&self, kind: ListKind, issue: IssueList<'_>) -> crate::Result<IssuedList> {
        let lock = LIST_LOCK + kind as i64;
        self.with(|c| {
            let mut tx = transaction(c)?;
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&lock])
                .map_err(db)?;
            let last = last_list_in(&mut tx, kind)?;
            let issued = issue(last.as_ref(), &revoked_in(&mut tx)?)?;
            tx.execute(
                "INSERT INTO lists (name, sequence, issued_at, list) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (name) DO UPDATE SET
                 sequence = excluded.sequence, issued_at = excluded.issued_at, list = excluded.list",
                &[&kind.name(), &issued.sequence, &issued.issued_at, &issued.bytes],
            )
            .map_err(db)?;
            tx.commit().map_err(db)?;
            Ok(issued)
        })
    }
}

/// The transaction of [`PkiStore::record`], begun as `tx`.
fn record_in(
    mut tx: Transaction<'_>,
    role: Role,
    request_id: &[u8],
    outcome: &Outcome,
) -> Result<(), StoreError> {
    let text = outcome_text(outcome);
    // Racing another process with this id, the insert waits for its transaction:
    // if that commits, nothing is inserted here and this is a replay.
    let inserted = tx
        .execute(
            "INSERT INTO requests (role, request_id, received_at, outcome)
             VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
            &[&role.name(), &request_id, &now(), &text],
        )
        .map_err(db)?;
    if inserted == 0 {
        return Err(StoreError::Replay(hex::encode(request_id)));
    }
    if let Outcome::Issued(cert) = outcome {
        tx.execute(
            "INSERT INTO certificates
             (hashed_id8, role, station, request_id, certificate, issued_at)
             VALUES ($1, $2, $3, $4, $5, $6)",
            &[
                &cert.hashed_id8.0.as_slice(),
                &role.name(),
                &cert.station,
                &request_id,
                &cert.certificate,
                &now(),
            ],
        )
        .map_err(db)?;
    }
    write_audit(
        &mut tx,
        &AuditLine::outcome(role, request_id, outcome, &text),
    )?;
    tx.commit().map_err(db)
}

/// Writes `line` to the audit log.
fn write_audit(tx: &mut Transaction<'_>, line: &AuditLine) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO audit (at, role, event, detail) VALUES ($1, $2, $3, $4)",
        &[&now(), &line.role.name(), &line.event.name(), &line.detail],
    )
    .map(drop)
    .map_err(db)
}

fn revoked_in(tx: &mut Transaction<'_>) -> Result<Vec<HashedId8>, StoreError> {
    tx.query("SELECT hashed_id8 FROM revocations ORDER BY seq", &[])
        .map_err(db)?
        .iter()
        .map(|row| hashed_id8_of(row.try_get(0).map_err(db)?))
        .collect()
}

fn last_list_in(
    tx: &mut Transaction<'_>,
    kind: ListKind,
) -> Result<Option<IssuedList>, StoreError> {
    tx.query_opt(
        "SELECT sequence, issued_at, list FROM lists WHERE name = $1",
        &[&kind.name()],
    )
    .map_err(db)?
    .map(|row| {
        Ok(IssuedList {
            sequence: row.try_get(0).map_err(db)?,
            issued_at: row.try_get(1).map_err(db)?,
            bytes: row.try_get(2).map_err(db)?,
        })
    })
    .transpose()
}
