//! `vss its …`: IEEE 1609.2 / ETSI TS 103 097 certificates, signed and encrypted data —
//! decode, verify, issue certificates, sign, encrypt, decrypt.

mod encrypt;
mod issue;
mod verify;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Subcommand, ValueEnum};
use vss_its::{Cert, ItsTime};

use crate::files::read;
use crate::output::Format;
use crate::store::StoreArgs;

pub use encrypt::{DecryptArgs, EncryptArgs};
pub use issue::{IssueArgs, SignArgs};

/// ITS certificates, signed and encrypted data.
#[derive(Subcommand)]
pub enum ItsCommand {
    /// Print a COER certificate or Ieee1609Dot2Data as JSON (X.697 JER; octets in hex).
    Decode {
        /// The COER file.
        file: PathBuf,
        /// What the file holds [default: a certificate if it decodes as one, else data].
        #[arg(long = "as", value_enum)]
        kind: Option<Kind>,
    },
    /// Validate signed data or a certificate; exit 0 only for the verdict Valid.
    Verify(verify::VerifyArgs),
    /// Issue certificates.
    #[command(subcommand)]
    Cert(CertCommand),
    /// Sign a payload as 1609.2 signed data with a key in the store.
    Sign {
        #[command(flatten)]
        store: StoreArgs,
        #[command(flatten)]
        args: SignArgs,
    },
    /// Encrypt a payload or 1609.2 data to certificates' encryption keys (ECIES + AES-CCM).
    Encrypt(EncryptArgs),
    /// Decrypt 1609.2 encrypted data with a decryption key in the store.
    Decrypt {
        #[command(flatten)]
        store: StoreArgs,
        #[command(flatten)]
        args: DecryptArgs,
    },
}

/// `vss its cert …`.
#[derive(Subcommand)]
pub enum CertCommand {
    /// Build and sign a certificate of a TS 103 097 profile.
    Issue {
        #[command(flatten)]
        store: StoreArgs,
        #[command(flatten)]
        args: IssueArgs,
    },
}

/// What a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    /// A certificate.
    Certificate,
    /// Ieee1609Dot2Data (signed, encrypted or unsecured).
    Data,
}

impl ItsCommand {
    /// Runs the subcommand.
    pub fn run(self) -> Result<ExitCode> {
        match self {
            ItsCommand::Decode { file, kind } => decode(&file, kind),
            ItsCommand::Verify(args) => args.run(),
            ItsCommand::Cert(CertCommand::Issue { store, args }) => args.run(&store),
            ItsCommand::Sign { store, args } => args.run(&store),
            ItsCommand::Encrypt(args) => args.run(),
            ItsCommand::Decrypt { store, args } => args.run(&store),
        }
    }
}

fn decode(file: &Path, kind: Option<Kind>) -> Result<ExitCode> {
    let bytes = read(file)?;
    let as_certificate = || -> Result<serde_json::Value> {
        let cert = Cert::from_bytes(&bytes)?;
        Ok(vss_its::certificate_to_json(&cert)?)
    };
    let as_data = || -> Result<serde_json::Value> {
        Ok(vss_its::data_to_json(&vss_its::decode_data(&bytes)?)?)
    };
    let json = match kind {
        Some(Kind::Certificate) => as_certificate(),
        Some(Kind::Data) => as_data(),
        None => as_certificate().or_else(|cert_error| {
            as_data().map_err(|data_error| {
                anyhow::anyhow!(
                    "neither a certificate ({cert_error}) nor Ieee1609Dot2Data ({data_error})"
                )
            })
        }),
    }
    .with_context(|| file.display().to_string())?;
    crate::output::print_json(&json)?;
    Ok(ExitCode::SUCCESS)
}

/// Parses an RFC 3339 time (`2026-11-22T10:00:00Z`) from the 1609.2 epoch (2004) on.
fn parse_time(s: &str) -> Result<ItsTime, String> {
    let time =
        humantime::parse_rfc3339_weak(s).map_err(|e| format!("not an RFC 3339 time: {e}"))?;
    ItsTime::from_system_time(time).map_err(|e| format!("'{s}' is {e}"))
}

/// Encodes `data` and writes it with [`write_output`].
fn write_data(
    path: &Path,
    data: &vss_its::asn::Ieee1609Dot2Data,
    format: Format,
    fields: serde_json::Value,
) -> Result<()> {
    write_output(path, &vss_its::encode_data(data)?, format, fields)
}

/// Writes an output file atomically and says where it went: `fields` (a JSON object) with
/// the file's path and length added.
fn write_output(
    path: &Path,
    bytes: &[u8],
    format: Format,
    fields: serde_json::Value,
) -> Result<()> {
    vss_hsm::write_atomic(path, bytes)
        .with_context(|| format!("cannot write {}", path.display()))?;
    let mut what = fields;
    if let Some(map) = what.as_object_mut() {
        map.insert("file".into(), path.display().to_string().into());
        map.insert("bytes".into(), bytes.len().into());
    }
    match format {
        Format::Json => crate::output::print_json(&what),
        Format::Table => {
            let mut table = crate::output::Table::new(&["field", "value"]);
            if let Some(map) = what.as_object() {
                for (k, v) in map {
                    let text = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                    table.row(vec![k.clone(), text]);
                }
            }
            crate::output::emit(&table.render())
        }
    }
}
