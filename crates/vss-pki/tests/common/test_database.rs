//! A PostgreSQL database made for one test on the server of `VSS_TEST_POSTGRES`, dropped
//! after it. Shared by the tests of `vss-pki` and `vss-cli` (included with `#[path]`).

// Each test file uses a different subset of this helper.
#![allow(dead_code)]

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use postgres::{Client, NoTls};
use vss_pki::store::{PkiStore, PostgresStore};

/// A database created for one test and dropped after it.
pub struct TestDatabase {
    server: String,
    name: String,
    /// The URL of the database.
    pub url: String,
}

impl TestDatabase {
    /// A fresh database on the server of `VSS_TEST_POSTGRES`, or `None` (and a line on
    /// stderr saying the test is skipped) when it is unset; a panic when it is unset while
    /// `VSS_REQUIRE_POSTGRES` is set.
    pub fn create(test: &str) -> Option<TestDatabase> {
        let Ok(server) = std::env::var("VSS_TEST_POSTGRES") else {
            // scripts/test installs PostgreSQL and sets VSS_REQUIRE_POSTGRES: there a missing
            // server is a failure, never a quiet pass.
            assert!(
                std::env::var_os("VSS_REQUIRE_POSTGRES").is_none(),
                "{test}: VSS_REQUIRE_POSTGRES is set but VSS_TEST_POSTGRES is not (run under scripts/with-postgres)"
            );
            eprintln!(
                "skipping {test}: VSS_TEST_POSTGRES is unset (run under scripts/with-postgres)"
            );
            return None;
        };
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let name = format!(
            "vss_test_{}_{}_{nanos}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        admin(&server)
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .expect("create the test database");
        let separator = if server.contains('?') { '&' } else { '?' };
        let url = format!("{server}{separator}dbname={name}");
        Some(TestDatabase { server, name, url })
    }

    /// Opens a store on this database.
    pub fn open(&self) -> Box<dyn PkiStore> {
        Box::new(PostgresStore::connect(&self.url).expect("connect"))
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let dropped = admin(&self.server).batch_execute(&format!(
            "DROP DATABASE IF EXISTS {} WITH (FORCE)",
            self.name
        ));
        if let Err(e) = dropped {
            eprintln!("could not drop the test database {}: {e}", self.name);
        }
    }
}

/// A connection to the server's maintenance database.
fn admin(server: &str) -> Client {
    Client::connect(server, NoTls).expect("connect to VSS_TEST_POSTGRES")
}
