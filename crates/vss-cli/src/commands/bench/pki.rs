//! `vss bench pki`: enrolments and authorization tickets per second of one PKI process
//! (keys in a soft HSM, records in SQLite or, with `--database`, PostgreSQL), in-process and
//! over HTTP on loopback, as a ratio to the raw P-256 signing rate measured in the same run;
//! with `--clients N`, also tickets over HTTP from N concurrent clients, and with
//! `--postgres URL` the same PKI's tickets over HTTP on PostgreSQL. The harness is
//! [`vss_testbed::bench::pki`].

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use vss_testbed::bench::pki::{self, PkiOptions};

use crate::output::Format;

/// Options of `vss bench pki`.
#[derive(Args)]
pub struct PkiArgs {
    /// Enrolment requests in each measurement.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    enrolments: u32,
    /// Authorization requests in each measurement.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    tickets: u32,
    /// Where the records go: a postgres://… URL [default: SQLite in a temporary directory].
    #[arg(long, value_name = "URL|PATH")]
    database: Option<String>,
    /// Also measure tickets over HTTP with the records in this PostgreSQL database, from one
    /// client and from --clients clients.
    #[arg(long, value_name = "URL", value_parser = postgres_url)]
    postgres: Option<String>,
    /// Concurrent HTTP clients for a further ticket measurement (1: none beyond the
    /// sequential one).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=256))]
    clients: u32,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// A `postgres://…` or `postgresql://…` URL, as `--postgres` takes.
fn postgres_url(text: &str) -> std::result::Result<String, String> {
    if text.starts_with("postgres://") || text.starts_with("postgresql://") {
        Ok(text.to_string())
    } else {
        Err("a postgres://… or postgresql://… URL".into())
    }
}

impl PkiArgs {
    /// Runs the benchmark.
    pub fn run(self) -> Result<ExitCode> {
        let report = pki::run(&PkiOptions {
            enrolments: self.enrolments,
            tickets: self.tickets,
            database: self.database,
            postgres: self.postgres,
            clients: self.clients,
        })?;
        crate::output::finish(self.format, &report)
    }
}
