//! `vss bench pki`: enrolments and authorization tickets per second of one PKI process
//! (keys in a soft HSM, records in SQLite or PostgreSQL), in-process and over HTTP on
//! loopback, as a ratio to the raw P-256 signing rate measured in the same run; with more
//! than one client, also tickets over HTTP from concurrent clients, and with a PostgreSQL
//! URL the same PKI's tickets over HTTP on PostgreSQL.
//!
//! A ticket's time over HTTP is split, each part measured in the HTTP run: the store's calls,
//! the transport (the round trip of a request the AA refuses at once, less that refusal's
//! in-process time) and the rest, cryptography and codec. The crypto floor (1 sign, 2
//! verify, 2 ECDH, timed alone) is reported beside it, and so is the disk's flush (a page
//! written and synced beside the SQLite file, timed alone): a ticket waits for one, the AA's
//! durable record.
//!
//! - `setup`: the throw-away PKI, its requests, the PKI served over HTTP;
//! - `measure`: the timings, the references and the benchmark's phases;
//! - `cpu`: the CPU time a measurement used and its shares;
//! - `report`: the rates and shares as JSON and text.

mod cpu;
mod measure;
mod report;
mod setup;

use std::time::Duration;

use anyhow::Result;

use self::measure::{CryptoFloor, HttpTickets, InProcess, Transport};
use self::setup::Bench;
use crate::report::Report;

/// Options of the PKI benchmark.
#[derive(Debug, Clone)]
pub struct PkiOptions {
    /// Enrolment requests in each measurement.
    pub enrolments: u32,
    /// Authorization requests in each measurement.
    pub tickets: u32,
    /// Where the records go: a `postgres://…` URL; SQLite in a temporary directory when
    /// `None` or empty.
    pub database: Option<String>,
    /// Also measure tickets over HTTP with the records in this PostgreSQL database.
    pub postgres: Option<String>,
    /// Concurrent HTTP clients for a further ticket measurement (1: none beyond the
    /// sequential one).
    pub clients: u32,
}

/// What one run of the benchmark measured.
struct Measured {
    /// Raw P-256 signatures per second.
    raw_sign: f64,
    floor: CryptoFloor,
    /// One flush of the disk.
    flush: Duration,
    in_process: InProcess,
    /// Enrolments over HTTP: the time, and whether every one was answered.
    http_enrol: (Duration, bool),
    http: HttpTickets,
    transport: Transport,
    /// Tickets over HTTP on PostgreSQL, when asked for.
    postgres: Option<HttpTickets>,
}

/// Runs the benchmark; its check fails if a request of the benchmark was refused.
pub fn run(options: &PkiOptions) -> Result<Report> {
    let bench = Bench::new(options.database.as_deref())?;
    // Connected first, so that a database out of reach fails the run at once.
    let postgres_bench = options
        .postgres
        .as_deref()
        .map(|url| Bench::new(Some(url)))
        .transpose()?;
    let (e, t) = (options.enrolments, options.tickets);

    // The references: raw P-256 signatures and the crypto floor, the same run.
    let raw_sign = measure::raw_sign_rate()?;
    let floor = CryptoFloor::measure()?;
    let flush = measure::disk_flush(bench.dir.path())?;

    // In-process: the authorities without HTTP.
    let (in_process, enrolled) = measure::in_process(&bench, e, t)?;

    // Over HTTP on loopback, as `vss pki serve` runs.
    let (_runtime, url) = bench.serve()?;
    let enrolments = bench.enrolment_requests(e)?;
    let enrol_url = format!("{url}/ea/enrolment");
    let http_enrol = measure::measure(&enrolments, true, "enrolments over HTTP", |r| {
        Ok(vss_pki::http::post(&enrol_url, r).is_ok())
    })?;
    let station = (&enrolled.ec, &enrolled.ec_key);
    let http = measure::http_tickets(&bench, station, t, options.clients, &url)?;
    let transport = measure::transport(&enrolled.aa, &url, t, &bench.store)?;
    let postgres = postgres_bench
        .as_ref()
        .map(|pg| measure::postgres_tickets(pg, t, options.clients))
        .transpose()?;
    let measured = Measured {
        raw_sign,
        floor,
        flush,
        in_process,
        http_enrol,
        http,
        transport,
        postgres,
    };
    Ok(report::report(options, &measured))
}
