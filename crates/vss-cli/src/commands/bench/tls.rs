//! `vss bench tls`: seed 002's connection experiment in one run (the harness is
//! [`vss_testbed::bench::tls`]). One server, `--clients` client threads each making new full
//! handshakes (no resumption) for `--seconds`, for each key, against (a) `openssl s_server`
//! with the key in a file, (b) `openssl s_server` with the key in VSS through
//! `libvss_pkcs11.so` and OpenSSL's pkcs11 engine, (c) `vss tls serve`. `--transfer SIZE`
//! pushes SIZE bytes through each server with AES-256-GCM.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use vss_crypto::KeyAlgorithm;
use vss_testbed::bench::tls::{self, TlsOptions};

use crate::output::Format;

/// Options of `vss bench tls`.
#[derive(Args)]
pub struct TlsArgs {
    /// Client threads, each making new full handshakes one after another.
    #[arg(long, value_name = "N", default_value_t = 10,
          value_parser = clap::value_parser!(u32).range(1..=256))]
    clients: u32,
    /// Seconds each server is loaded (0.1–600).
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
    seconds: f64,
    /// Keys: rsa2048 rsa3072 rsa4096 p256 p384 (comma-separated).
    #[arg(
        long,
        value_name = "KEYS",
        value_delimiter = ',',
        default_value = "rsa2048,rsa4096,p256"
    )]
    keys: Vec<KeyAlgorithm>,
    /// Also push this many bytes through each server with AES-256-GCM (suffix K, M or G;
    /// with the first key only).
    #[arg(long, value_name = "SIZE")]
    transfer: Option<String>,
    /// The PKCS#11 module of server (b) [default: libvss_pkcs11.so beside this vss].
    #[arg(long, value_name = "FILE")]
    module: Option<PathBuf>,
    /// OpenSSL's pkcs11 engine for server (b) [default: the first
    /// /usr/lib/*/engines-3/pkcs11.so].
    #[arg(long, value_name = "FILE")]
    engine: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

impl TlsArgs {
    /// Runs the benchmark, this `vss` serving as server (c).
    pub fn run(self) -> Result<ExitCode> {
        let report = tls::run(&TlsOptions {
            clients: self.clients,
            seconds: self.seconds,
            keys: self.keys,
            transfer: self.transfer,
            module: self.module,
            engine: self.engine,
            vss: std::env::current_exe()?,
        })?;
        crate::output::finish(self.format, &report)
    }
}
