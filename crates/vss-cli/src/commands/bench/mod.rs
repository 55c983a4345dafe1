//! `vss bench …`: the seeds' sign/verify benchmark, sustained throughput, key
//! encapsulation, ITS signed-data verification, the PKI, and the GeoNetworking bridge.

mod cred;
mod daemon;
mod filter;
mod gn;
mod its_verify;
mod kem;
mod pki;
mod sign_verify;
mod throughput;
mod tls;

use std::{path::PathBuf, process::ExitCode};

use anyhow::Result;
use clap::Subcommand;

use vss_hsm::Backend;
use vss_testbed::HsmOptions;

/// Benchmarks.
#[derive(Subcommand)]
pub enum BenchCommand {
    /// The seed's sign/verify benchmark (PRESERVE D3.1.1 tables 4.1-4.7): runs of N signatures
    /// and verifications with messages growing by one byte, against the seeds' reference rows.
    SignVerify(sign_verify::SignVerifyArgs),
    /// Sustained signatures or verifications per second over N threads.
    Throughput(throughput::ThroughputArgs),
    /// Seed 004's key-encapsulation benchmark (PSEC-KEM, table 3): encapsulation and
    /// decapsulation latency and throughput, every decapsulated key checked.
    Kem(kem::KemArgs),
    /// 1609.2 signed-data verification (signer by digest or certificate; or seed 001's traffic),
    /// the certificate cache warm and cold, as a ratio to the raw ECDSA verify rate of the same run.
    ItsVerify(its_verify::ItsVerifyArgs),
    /// TS 102 941 enrolments and tickets per second of one PKI process, in-process and over
    /// HTTP, as a ratio to the raw P-256 signing rate of the same run.
    Pki(pki::PkiArgs),
    /// Seed 002's connection experiment: full TLS handshakes per second from N clients
    /// against openssl s_server (key in a file, and in VSS through libvss_pkcs11.so) and
    /// vss tls serve, with connection times, server CPU, and a bulk transfer.
    Tls(tls::TlsArgs),
    /// Seed 003's table: the VIP-ticket scenario with the card in process, on TCP and behind
    /// pcscd, per step mean/p50/p99, APDUs, bytes and the card's peak RSS.
    Cred(cred::CredArgs),
    /// `vss filter`'s loop on one core, over UDP on loopback and in process, as a ratio to
    /// the raw P-256 verify rate of the same run.
    Filter(filter::FilterArgs),
    /// Verifications per second and per CPU-second, p50/p99 latency: the entity in process,
    /// vssd through unary Verify and through VerifyStream, 1 to 64 clients, against the
    /// filter's loop on the same kind of messages in the same run.
    Daemon(daemon::DaemonArgs),
    /// The GeoNetworking bridge (`vss gn bridge`) beside `vss filter` on the same messages:
    /// packets per second and per CPU-second, then p50/p99 latency and loss at fixed rates
    /// through the bridge's loop over socket pairs (both directions) and the filter's over
    /// UDP. Exits 1 if the bridge verifies under 0.9x the filter's packets per CPU-second,
    /// has a p99 over 1 ms at 1,000 packets/s, or loses a packet at up to 10,000/s.
    Gn(gn::GnArgs),
}

impl BenchCommand {
    /// Runs the benchmark.
    pub fn run(self) -> Result<ExitCode> {
        match self {
            BenchCommand::SignVerify(args) => args.run(),
            BenchCommand::Throughput(args) => args.run(),
            BenchCommand::Kem(args) => args.run(),
            BenchCommand::ItsVerify(args) => args.run(),
            BenchCommand::Pki(args) => args.run(),
            BenchCommand::Filter(args) => args.run(),
            BenchCommand::Tls(args) => args.run(),
            BenchCommand::Cred(args) => args.run(),
            BenchCommand::Daemon(args) => args.run(),
            BenchCommand::Gn(args) => args.run(),
        }
    }
}

/// Which HSM a benchmark signs with.
#[derive(clap::Args)]
pub struct HsmArgs {
    /// HSM backend that signs.
    #[arg(long, value_enum, default_value_t)]
    hsm: Backend,
    /// SoftHSMv2 module for --hsm pkcs11.
    #[arg(long, value_name = "PATH", default_value = vss_hsm::DEFAULT_PKCS11_MODULE)]
    module: PathBuf,
}

impl HsmArgs {
    /// The options the testbed's benchmarks take.
    fn options(&self) -> HsmOptions {
        HsmOptions {
            backend: self.hsm,
            module: self.module.clone(),
        }
    }
}
