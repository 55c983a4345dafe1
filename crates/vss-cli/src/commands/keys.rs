//! `vss keys …`: generate, list, export and delete keys.

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;
use serde_json::json;
use vss_crypto::Curve;
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
        /// Curve: p224 p256 p384 bp256 bp384 (signing), k283 b283 p192 (key encapsulation only).
        #[arg(long, default_value = "p256")]
        curve: Curve,
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
    /// Print a key's public key as SEC1 hex (uncompressed unless --compressed).
    ExportPublic {
        #[command(flatten)]
        store: StoreArgs,
        /// Label of the key.
        #[arg(long)]
        label: String,
        /// Print the compressed form (02/03 ‖ x).
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
            .map(|k| json!({"label": k.label, "curve": k.curve.name()}))
            .collect::<Vec<_>>()))?,
        Format::Table => {
            let mut t = Table::new(&["label", "curve"]);
            for k in keys {
                t.row(vec![k.label.clone(), k.curve.to_string()]);
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
                curve,
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
                    created.push(hsm.generate_key(&GenerateKeyRequest::new(label, curve))?);
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
                let public = hsm.public_key(&hsm.key(&label)?.handle)?;
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
