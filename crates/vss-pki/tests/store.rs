//! The SQLite store: stations, replay refusal, issuance recorded with its request in one
//! transaction, the audit log, and records that survive reopening and concurrent writers.

#[path = "common/store_checks.rs"]
mod store_checks;

use tempfile::TempDir;
use vss_pki::authority::PkiDir;
use vss_pki::store::{PkiStore, Role, SqliteStore, StoreLocation};

/// A fresh store in its own directory (removed when the directory is dropped).
fn fresh() -> (TempDir, SqliteStore) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = SqliteStore::open(&dir.path().join("pki.sqlite")).expect("open");
    (dir, store)
}

#[test]
fn stations_register_once() {
    let (_dir, store) = fresh();
    store_checks::stations_register_once(&store);
}

#[test]
fn a_replayed_request_is_refused_and_writes_nothing() {
    let (_dir, store) = fresh();
    store_checks::a_replayed_request_is_refused_and_writes_nothing(&store);
}

#[test]
fn a_failed_issuance_leaves_no_request_record() {
    let (_dir, store) = fresh();
    store_checks::a_failed_issuance_leaves_no_request_record(&store);
}

#[test]
fn refusals_and_answers_are_audited_and_count_as_seen() {
    let (_dir, store) = fresh();
    store_checks::refusals_and_answers_are_audited_and_count_as_seen(&store);
}

#[test]
fn records_survive_reopening_and_concurrent_writers_lose_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("pki.sqlite");
    store_checks::records_survive_reopening_and_concurrent_writers_lose_nothing(&|| {
        Box::new(SqliteStore::open(&path).expect("open"))
    });
}

#[test]
fn deferred_records_are_records_and_replays_cross_over() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("pki.sqlite");
    store_checks::deferred_records_are_records_and_replays_cross_over(&|| {
        Box::new(SqliteStore::open(&path).expect("open"))
    });
}

#[test]
fn a_request_id_raced_by_two_writers_is_recorded_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("pki.sqlite");
    store_checks::a_request_id_raced_by_two_writers_is_recorded_once(&|| {
        Box::new(SqliteStore::open(&path).expect("open"))
    });
}

#[test]
fn lists_take_turns_and_revocations_are_shared() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("pki.sqlite");
    store_checks::lists_take_turns_and_revocations_are_shared(&|| {
        Box::new(SqliteStore::open(&path).expect("open"))
    });
}

#[test]
fn a_pki_dir_opens_sqlite_at_a_path_or_at_its_default() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pki = PkiDir::new(dir.path());
    let default = dir.path().join("pki.sqlite");
    let named = dir.path().join("other.sqlite");
    let spec = named.to_str().expect("utf-8 path");
    let location: StoreLocation = spec.parse().expect("a path");
    assert_eq!(location, StoreLocation::Sqlite(named.clone()));
    for (location, path) in [
        (None, default.as_path()),
        (Some(&location), named.as_path()),
    ] {
        let store = pki.open_store(location).expect("open");
        let id = path.to_string_lossy();
        store
            .record(Role::Ea, id.as_bytes(), &store_checks::answered())
            .expect("record");
        let direct = SqliteStore::open(path).expect("open");
        assert!(direct.seen(Role::Ea, id.as_bytes()).expect("seen"), "{id}");
    }
}

#[test]
fn store_locations_parse_postgres_urls_and_sqlite_paths() {
    for url in ["postgres://u@h/db", "postgresql://u@h/db"] {
        let location: StoreLocation = url.parse().expect("a URL");
        assert_eq!(location, StoreLocation::Postgres(url.into()));
        assert_eq!(location.kind(), "postgresql");
    }
    for path in [
        "pki.sqlite",
        "postgres.sqlite",
        "postgres:/x",
        "./postgres://x",
    ] {
        let location: StoreLocation = path.parse().expect("a path");
        assert_eq!(location, StoreLocation::Sqlite(path.into()));
        assert_eq!(location.kind(), "sqlite");
    }
    assert!("".parse::<StoreLocation>().is_err());
    let shown = format!(
        "{:?}",
        StoreLocation::Postgres("postgres://u:secret@h/db".into())
    );
    assert!(!shown.contains("secret"), "{shown}");
}

#[test]
fn stored_text_is_unchanged_and_unknown_values_are_corrupt() {
    let (dir, store) = fresh();
    let raw = rusqlite::Connection::open(dir.path().join("pki.sqlite")).expect("raw");
    let texts = |sql: &str| -> Vec<String> {
        let mut statement = raw.prepare(sql).expect("prepare");
        let rows = statement.query_map([], |row| row.get(0)).expect("query");
        rows.map(|r| r.expect("row")).collect()
    };
    let execute = |sql: &str| {
        raw.execute(sql, []).expect("execute");
    };
    store_checks::stored_text_is_unchanged_and_unknown_values_are_corrupt(
        &store,
        store_checks::Raw {
            texts: &texts,
            execute: &execute,
        },
    );
}

/// A database made with the schema before the request table lost its rowid and the
/// sequences their AUTOINCREMENT (2026-11-26), opened as a store.
fn with_earlier_schema(dir: &TempDir, name: &str) -> SqliteStore {
    let path = dir.path().join(name);
    let old = rusqlite::Connection::open(&path).expect("old");
    old.execute_batch(
        "CREATE TABLE requests (role TEXT NOT NULL, request_id BLOB NOT NULL,
             received_at INTEGER NOT NULL, outcome TEXT NOT NULL, PRIMARY KEY (role, request_id));
         CREATE TABLE certificates (seq INTEGER PRIMARY KEY AUTOINCREMENT,
             hashed_id8 BLOB NOT NULL UNIQUE, role TEXT NOT NULL, station TEXT,
             request_id BLOB NOT NULL, certificate BLOB NOT NULL, issued_at INTEGER NOT NULL);
         CREATE TABLE audit (seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL,
             role TEXT NOT NULL, event TEXT NOT NULL, detail TEXT NOT NULL);",
    )
    .expect("the earlier schema");
    drop(old);
    SqliteStore::open(&path).expect("open")
}

/// A database made with the earlier schema opens and behaves the same.
#[test]
fn a_store_made_with_the_earlier_schema_still_works() {
    let dir = tempfile::tempdir().expect("tempdir");
    store_checks::a_replayed_request_is_refused_and_writes_nothing(&with_earlier_schema(
        &dir, "a.sqlite",
    ));
    store_checks::refusals_and_answers_are_audited_and_count_as_seen(&with_earlier_schema(
        &dir, "b.sqlite",
    ));
}
