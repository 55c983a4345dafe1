//! `vss keys …`: generate, list, export and delete keys.

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;
use serde_json::json;
use vss_crypto::KeyAlgorithm;
use vss_hsm::{GenerateKeyRequest, KeyInfo};

use crate::output::{emit, print_json, Format, Table};
use crate::store::StoreArgs;

/// Key management.
#[derive(Subcommand)]
pub enum KeysCommand {
    /// Generate a key pair inside the store.
    Generate {
        #[command(flatten)]
        store: StoreArgs,
        /// Label of the new key (1-64 of A-Z a-z 0-9 . _ -).
        #[arg(long)]
        label: String,
        /// Algorithm: a curve, p224 p256 p384 bp256 bp384 (signing) or k283 b283 p192 (key
        /// encapsulation only); or RSA, rsa2048 rsa3072 rsa4096 (RSA-1024 is refused).
        #[arg(long, visible_alias = "curve", default_value = "p256")]
        algorithm: KeyAlgorithm,
        /// Generate this many keys (at most 1000000), labelled LABEL-0 … LABEL-(N-1).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
        count: Option<u32>,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// List the keys in the store.
    List {
        #[command(flatten)]
        store: StoreArgs,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Print a key's public key: SEC1 hex for an EC key (uncompressed unless --compressed),
    /// a PEM SubjectPublicKeyInfo for an RSA key.
    ExportPublic {
        #[command(flatten)]
        store: StoreArgs,
        /// Label of the key.
        #[arg(long)]
        label: String,
        /// Print the compressed form of an EC key (02/03 ‖ x).
        #[arg(long)]
        compressed: bool,
    },
    /// Delete a key for good.
    Delete {
        #[command(flatten)]
        store: StoreArgs,
        /// Label of the key.
        #[arg(long)]
        label: String,
    },
}

fn print_keys(keys: &[KeyInfo], format: Format) -> Result<()> {
    match format {
        Format::Json => print_json(&json!(keys
            .iter()
            .map(|k| {
                let mut key = json!({"label": k.label, "algorithm": k.algorithm.name()});
                if let Some(curve) = k.algorithm.curve() {
                    key["curve"] = json!(curve.name());
                }
                key
            })
            .collect::<Vec<_>>()))?,
        Format::Table => {
            let mut t = Table::new(&["label", "algorithm"]);
            for k in keys {
                t.row(vec![k.label.clone(), k.algorithm.to_string()]);
            }
            emit(&t.render())?;
        }
    }
    Ok(())
}

impl KeysCommand {
    /// Runs the subcommand.
    pub fn run(self) -> Result<ExitCode> {
        match self {
            KeysCommand::Generate {
                store,
                label,
                algorithm,
                count,
                format,
            } => {
                let hsm = store.open()?;
                let labels: Box<dyn Iterator<Item = String>> = match count {
                    None => Box::new(std::iter::once(label)),
                    Some(n) => Box::new((0..n).map(move |i| format!("{label}-{i}"))),
                };
                let mut created = Vec::new();
                for label in labels {
                    created.push(hsm.generate_key(&GenerateKeyRequest::new(label, algorithm))?);
                }
                print_keys(&created, format)?;
            }
            KeysCommand::List { store, format } => {
                let hsm = store.open()?;
                print_keys(&hsm.keys()?, format)?;
            }
            KeysCommand::ExportPublic {
                store,
                label,
                compressed,
            } => {
                let hsm = store.open()?;
                let key = hsm.key(&label)?;
                if let KeyAlgorithm::Rsa(_) = key.algorithm {
                    if compressed {
                        anyhow::bail!(
                            "--compressed is for EC keys: '{label}' is {}",
                            key.algorithm
                        );
                    }
                    emit(&hsm.rsa_public_key(&key.handle)?.to_spki_pem()?)?;
                    return Ok(ExitCode::SUCCESS);
                }
                let public = hsm.public_key(&key.handle)?;
                if compressed {
                    emit(&format!("{}\n", hex::encode(public.to_sec1_compressed())))?;
                } else {
                    emit(&format!("{}\n", hex::encode(public.to_sec1_uncompressed())))?;
                }
            }
            KeysCommand::Delete { store, label } => {
                let hsm = store.open()?;
                hsm.delete_key(&hsm.key(&label)?.handle)?;
                eprintln!("deleted key '{label}'");
            }
        }
        Ok(ExitCode::SUCCESS)
    }
}
