//! The tables of a PKI's store, the same in both backends but for their column types: the
//! text and bytes [`super::rows`] reads and writes.

/// The SQLite schema (created if absent).
pub(super) const SQLITE: &str = "
CREATE TABLE IF NOT EXISTS stations (
    canonical_id  TEXT PRIMARY KEY,
    curve         TEXT NOT NULL,
    public_key    BLOB NOT NULL,
    psids         TEXT NOT NULL,
    registered_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS requests (
    role        TEXT NOT NULL,
    request_id  BLOB NOT NULL,
    received_at INTEGER NOT NULL,
    outcome     TEXT NOT NULL,
    PRIMARY KEY (role, request_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS certificates (
    seq         INTEGER PRIMARY KEY,
    hashed_id8  BLOB NOT NULL UNIQUE,
    role        TEXT NOT NULL,
    station     TEXT,
    request_id  BLOB NOT NULL,
    certificate BLOB NOT NULL,
    issued_at   INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS audit (
    seq    INTEGER PRIMARY KEY,
    at     INTEGER NOT NULL,
    role   TEXT NOT NULL,
    event  TEXT NOT NULL,
    detail TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS revocations (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    hashed_id8 BLOB NOT NULL UNIQUE,
    revoked_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS lists (
    name      TEXT PRIMARY KEY,
    sequence  INTEGER NOT NULL,
    issued_at INTEGER NOT NULL,
    list      BLOB NOT NULL
);
";

/// The PostgreSQL schema (created if absent).
pub(super) const POSTGRES: &str = "
CREATE TABLE IF NOT EXISTS stations (
    canonical_id  TEXT PRIMARY KEY,
    curve         TEXT NOT NULL,
    public_key    BYTEA NOT NULL,
    psids         TEXT NOT NULL,
    registered_at BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS requests (
    role        TEXT NOT NULL,
    request_id  BYTEA NOT NULL,
    received_at BIGINT NOT NULL,
    outcome     TEXT NOT NULL,
    PRIMARY KEY (role, request_id)
);
CREATE TABLE IF NOT EXISTS certificates (
    seq         BIGSERIAL PRIMARY KEY,
    hashed_id8  BYTEA NOT NULL UNIQUE,
    role        TEXT NOT NULL,
    station     TEXT,
    request_id  BYTEA NOT NULL,
    certificate BYTEA NOT NULL,
    issued_at   BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS audit (
    seq    BIGSERIAL PRIMARY KEY,
    at     BIGINT NOT NULL,
    role   TEXT NOT NULL,
    event  TEXT NOT NULL,
    detail TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS revocations (
    seq        BIGSERIAL PRIMARY KEY,
    hashed_id8 BYTEA NOT NULL UNIQUE,
    revoked_at BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS lists (
    name      TEXT PRIMARY KEY,
    sequence  BIGINT NOT NULL,
    issued_at BIGINT NOT NULL,
    list      BYTEA NOT NULL
);
";
