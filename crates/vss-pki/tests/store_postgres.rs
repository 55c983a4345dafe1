//! The PostgreSQL store, against a real server: the checks every store passes, plus two
//! stores on one database (as two authority processes) writing and racing at once, and
//! processes creating the schema at once. Each test has its own database.
//!
//! The server comes from `VSS_TEST_POSTGRES` (a `postgres://` URL of a role that may create
//! databases; `scripts/with-postgres` starts a throwaway one); without it these tests skip.

#[path = "common/store_checks.rs"]
mod store_checks;

#[path = "common/test_database.rs"]
mod test_database;

use test_database::TestDatabase;
use vss_pki::store::{open_store, PostgresStore, Role, StoreLocation};

#[test]
fn stations_register_once() {
    let Some(db) = TestDatabase::create("stations_register_once") else {
        return;
    };
    store_checks::stations_register_once(db.open().as_ref());
}

#[test]
fn a_replayed_request_is_refused_and_writes_nothing() {
    let Some(db) = TestDatabase::create("a_replayed_request_is_refused_and_writes_nothing") else {
        return;
    };
    store_checks::a_replayed_request_is_refused_and_writes_nothing(db.open().as_ref());
}

#[test]
fn a_failed_issuance_leaves_no_request_record() {
    let Some(db) = TestDatabase::create("a_failed_issuance_leaves_no_request_record") else {
        return;
    };
    store_checks::a_failed_issuance_leaves_no_request_record(db.open().as_ref());
}

#[test]
fn refusals_and_answers_are_audited_and_count_as_seen() {
    let Some(db) = TestDatabase::create("refusals_and_answers_are_audited_and_count_as_seen")
    else {
        return;
    };
    store_checks::refusals_and_answers_are_audited_and_count_as_seen(db.open().as_ref());
}

#[test]
fn records_survive_reopening_and_concurrent_writers_lose_nothing() {
    let Some(db) =
        TestDatabase::create("records_survive_reopening_and_concurrent_writers_lose_nothing")
    else {
        return;
    };
    store_checks::records_survive_reopening_and_concurrent_writers_lose_nothing(&|| db.open());
}

#[test]
fn deferred_records_are_records_and_replays_cross_over() {
    let Some(db) = TestDatabase::create("deferred_records_are_records_and_replays_cross_over")
    else {
        return;
    };
    store_checks::deferred_records_are_records_and_replays_cross_over(&|| db.open());
}

#[test]
fn a_request_id_raced_by_two_writers_is_recorded_once() {
    let Some(db) = TestDatabase::create("a_request_id_raced_by_two_writers_is_recorded_once")
    else {
        return;
    };
    store_checks::a_request_id_raced_by_two_writers_is_recorded_once(&|| db.open());
}

#[test]
fn lists_take_turns_and_revocations_are_shared() {
    let Some(db) = TestDatabase::create("lists_take_turns_and_revocations_are_shared") else {
        return;
    };
    store_checks::lists_take_turns_and_revocations_are_shared(&|| db.open());
}

#[test]
fn processes_starting_at_once_create_the_schema_once() {
    let Some(db) = TestDatabase::create("processes_starting_at_once_create_the_schema_once") else {
        return;
    };
    let url = db.url.as_str();
    std::thread::scope(|s| {
        let starts: Vec<_> = (0..8)
            .map(|_| s.spawn(move || PostgresStore::connect(url).map(drop)))
            .collect();
        for start in starts {
            start.join().expect("thread").expect("connect");
        }
    });
    store_checks::stations_register_once(db.open().as_ref());
}

#[test]
fn open_store_opens_postgres_for_its_urls() {
    let Some(db) = TestDatabase::create("open_store_opens_postgres_for_its_urls") else {
        return;
    };
    let (_, rest) = db.url.split_once("://").expect("a URL");
    for url in [format!("postgres://{rest}"), format!("postgresql://{rest}")] {
        let location: StoreLocation = url.parse().expect("a URL");
        assert!(location.is_postgres());
        let store = open_store(&location).expect("open");
        store
            .record(Role::Ea, url.as_bytes(), &store_checks::answered())
            .expect("record");
        assert!(db.open().seen(Role::Ea, url.as_bytes()).expect("seen"));
    }
}

#[test]
fn stored_text_is_unchanged_and_unknown_values_are_corrupt() {
    let Some(db) = TestDatabase::create("stored_text_is_unchanged_and_unknown_values_are_corrupt")
    else {
        return;
    };
    let store = db.open();
    let raw =
        std::sync::Mutex::new(postgres::Client::connect(&db.url, postgres::NoTls).expect("raw"));
    let texts = |sql: &str| -> Vec<String> {
        let rows = raw.lock().expect("raw").query(sql, &[]).expect("query");
        rows.iter().map(|row| row.get(0)).collect()
    };
    let execute = |sql: &str| {
        raw.lock()
            .expect("raw")
            .batch_execute(sql)
            .expect("execute");
    };
    store_checks::stored_text_is_unchanged_and_unknown_values_are_corrupt(
        store.as_ref(),
        store_checks::Raw {
            texts: &texts,
            execute: &execute,
        },
    );
    drop(raw);
}
