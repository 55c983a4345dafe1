//! `vss bench …`: the seeds' sign/verify benchmark and sustained throughput.

mod references;
mod sign_verify;
mod throughput;

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;
use vss_crypto::Curve;
use vss_hsm::{GenerateKeyRequest, Hsm, KeyHandle, SoftHsm};

/// Benchmarks.
#[derive(Subcommand)]
pub enum BenchCommand {
    /// The seed's sign/verify benchmark (PRESERVE D3.1.1 tables 4.1-4.7): runs of N signatures
    /// and verifications with messages growing by one byte, against the seeds' reference rows.
    SignVerify(sign_verify::SignVerifyArgs),
    /// Sustained signatures or verifications per second over N threads.
    Throughput(throughput::ThroughputArgs),
}

impl BenchCommand {
    /// Runs the benchmark.
    pub fn run(self) -> Result<ExitCode> {
        match self {
            BenchCommand::SignVerify(args) => args.run(),
            BenchCommand::Throughput(args) => args.run(),
        }
    }
}

/// The HSM backend a benchmark signs with.
#[derive(Debug, Clone, Copy, Default, clap::ValueEnum)]
pub enum HsmKind {
    /// The software key store (a throw-away store in a temporary directory).
    #[default]
    Soft,
}

impl HsmKind {
    fn name(self) -> &'static str {
        match self {
            HsmKind::Soft => "soft",
        }
    }
}

/// A throw-away key store holding one signing key; removed when dropped.
pub struct BenchHsm {
    _dir: tempfile::TempDir,
    hsm: Box<dyn Hsm>,
    key: KeyHandle,
}

impl BenchHsm {
    fn new(kind: HsmKind, curve: Curve) -> Result<Self> {
        let dir = tempfile::Builder::new().prefix("vss-bench-").tempdir()?;
        let mut pin_bytes = [0u8; 16];
        vss_crypto::random_bytes(&mut pin_bytes)?;
        let pin = zeroize::Zeroizing::new(hex::encode(pin_bytes));
        match kind {
            HsmKind::Soft => SoftHsm::init(dir.path(), &pin, &format!("{}-puk", *pin))?,
        }
        let hsm = vss_hsm::open(dir.path(), &pin)?;
        let key = hsm
            .generate_key(&GenerateKeyRequest::new("bench", curve))?
            .handle;
        Ok(BenchHsm {
            _dir: dir,
            hsm,
            key,
        })
    }
}

/// A progress bar on stderr when it is a terminal; hidden otherwise.
fn progress(total: u64, what: &str) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(total);
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} ({eta} left)")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(what.to_owned());
    bar
}
