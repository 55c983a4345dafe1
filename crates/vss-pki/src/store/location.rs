//! Where a PKI's records live: an SQLite file, or a PostgreSQL database that several
//! processes share. The one place that tells a PostgreSQL URL from a path.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use super::{PkiStore, PostgresStore, SqliteStore, StoreError};

/// The schemes of a PostgreSQL connection URL.
const POSTGRES_SCHEMES: [&str; 2] = ["postgres://", "postgresql://"];

/// Where a PKI's records live.
#[derive(Clone, PartialEq, Eq)]
pub enum StoreLocation {
    /// An SQLite file at this path ([`SqliteStore`]).
    Sqlite(PathBuf),
    /// A PostgreSQL database at this `postgres://` or `postgresql://` URL ([`PostgresStore`]).
    Postgres(String),
}

impl StoreLocation {
    /// Whether it is a PostgreSQL database.
    pub fn is_postgres(&self) -> bool {
        matches!(self, StoreLocation::Postgres(_))
    }

    /// The kind of store: `sqlite` or `postgresql`.
    pub fn kind(&self) -> &'static str {
        match self {
            StoreLocation::Sqlite(_) => "sqlite",
            StoreLocation::Postgres(_) => "postgresql",
        }
    }
}

impl fmt::Debug for StoreLocation {
    /// The path, or that it is a PostgreSQL URL (which may hold a password) without it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreLocation::Sqlite(path) => f.debug_tuple("Sqlite").field(path).finish(),
            StoreLocation::Postgres(_) => f.write_str("Postgres(..)"),
        }
    }
}

/// Text that names no store: it is empty.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("an empty path names no store: give an SQLite file or a postgres://… URL")]
pub struct EmptyStoreLocation;

impl FromStr for StoreLocation {
    type Err = EmptyStoreLocation;

    /// A `postgres://` or `postgresql://` URL names a PostgreSQL database, any other text
    /// the path of an SQLite file; empty text names nothing.
    fn from_str(text: &str) -> Result<Self, EmptyStoreLocation> {
        if POSTGRES_SCHEMES
            .iter()
            .any(|scheme| text.starts_with(scheme))
        {
            Ok(StoreLocation::Postgres(text.to_string()))
        } else if text.is_empty() {
            Err(EmptyStoreLocation)
        } else {
            Ok(StoreLocation::Sqlite(PathBuf::from(text)))
        }
    }
}

/// Opens the store at `location`: [`SqliteStore`] (created if absent) or [`PostgresStore`].
pub fn open_store(location: &StoreLocation) -> Result<Box<dyn PkiStore>, StoreError> {
    Ok(match location {
        StoreLocation::Sqlite(path) => Box::new(SqliteStore::open(path)?),
        StoreLocation::Postgres(url) => Box::new(PostgresStore::connect(url)?),
    })
}
