//! `vss bench tls`: seed 002's connection experiment in one run. One server, `clients`
//! client threads each making new full handshakes (no resumption) for `seconds`, for each
//! key, against (a) `openssl s_server` with the key in a file, (b) `openssl s_server` with
//! the key in VSS through `libvss_pkcs11.so` and OpenSSL's pkcs11 engine, (c) `vss tls
//! serve`. Per row: handshakes/s, connection time p50 and p99, the server's CPU per handshake
//! (from /proc), and the ratio to (a). A transfer pushes its bytes through each server with
//! AES-256-GCM: MB/s and server CPU seconds per MB.
//!
//! - `certs`: the throw-away store with the key, the CA and certificates, the client's
//!   configuration;
//! - `server`: the servers under test and their process control;
//! - `load`: the client load and what it measured;
//! - `transfer`: the bulk transfer and its sizes;
//! - `report`: the tables and the JSON document.

mod certs;
mod load;
mod report;
mod server;
mod transfer;

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Result};
use vss_crypto::KeyAlgorithm;

use crate::report::{progress, Report};
use certs::Setup;
use report::{Measured, Row};
use server::{Launch, Pkcs11Paths, Server};
use transfer::{Transfer, TRANSFER_PATH};

/// What `vss bench tls` runs.
#[derive(Debug, Clone)]
pub struct TlsOptions {
    /// Client threads, each making new full handshakes one after another.
    pub clients: u32,
    /// Seconds each server is loaded (0.1–600).
    pub seconds: f64,
    /// The keys; the three servers are loaded with each.
    pub keys: Vec<KeyAlgorithm>,
    /// Bytes to push through each server with AES-256-GCM, as `--transfer` takes them
    /// (suffix K, M or G; with the first key only).
    pub transfer: Option<String>,
    /// The PKCS#11 module of server (b); `None`: libvss_pkcs11.so beside `vss`.
    pub module: Option<PathBuf>,
    /// OpenSSL's pkcs11 engine for server (b); `None`: the first
    /// /usr/lib/*/engines-3/pkcs11.so.
    pub engine: Option<PathBuf>,
    /// The `vss` executable that runs server (c), `vss tls serve`.
    pub vss: PathBuf,
}

/// Runs the benchmark. Server (b) not running because its engine or module is missing is
/// said in its row, and fails the run only when `module` or `engine` was given.
pub fn run(options: &TlsOptions) -> Result<Report> {
    if !(0.1..=600.0).contains(&options.seconds) {
        bail!("--seconds is 0.1 to 600");
    }
    if options.keys.is_empty() {
        bail!("--keys names no key");
    }
    let transfer = options
        .transfer
        .as_deref()
        .map(transfer::parse_size)
        .transpose()?;
    let seconds = Duration::from_secs_f64(options.seconds);
    let pkcs11 = Pkcs11Paths::find(
        options.module.as_deref(),
        options.engine.as_deref(),
        &options.vss,
    );
    if let (Err(why), true) = (
        &pkcs11,
        options.module.is_some() || options.engine.is_some(),
    ) {
        bail!("server (b) cannot run: {why}");
    }
    let backend = transfer::backend(transfer.unwrap_or(0))?;
    let bar = progress((options.keys.len() * Server::ALL.len()) as u64, "tls");
    let mut rows = Vec::new();
    let mut transfers = Vec::new();
    for (k, &key) in options.keys.iter().enumerate() {
        let setup = Setup::new(key)?;
        let size = transfer.filter(|_| k == 0);
        if let Some(size) = size {
            let file = std::fs::File::create(setup.path(TRANSFER_PATH))?;
            file.set_len(size)?;
        }
        let client = setup.client(false)?;
        let launch = Launch {
            setup: &setup,
            backend,
            pkcs11: &pkcs11,
            vss: &options.vss,
        };
        for server in Server::ALL {
            let outcome = server::start(server, &launch).and_then(|mut running| {
                let mut measured = load::measure(&running, &client, options.clients, seconds);
                if let Some(size) = size {
                    let aes = setup.client(true).map_err(|e| e.to_string())?;
                    transfers.push(Transfer {
                        server,
                        outcome: transfer::move_bytes(&running, &aes, size)
                            .map_err(|e| e.to_string()),
                    });
                }
                if let (Ok(load), Server::VssTls) = (&mut measured, server) {
                    load.batches = running.batches();
                }
                measured
            });
            rows.push(Row {
                key,
                server,
                outcome,
            });
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    Ok(report::report(&Measured {
        clients: options.clients,
        seconds: options.seconds,
        rows: &rows,
        transfers: &transfers,
        transfer,
        pkcs11_available: pkcs11.is_ok(),
    }))
}
