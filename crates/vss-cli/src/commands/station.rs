//! `vss station …`: a station's side of the PKI — enrol at an EA, get pseudonyms from an AA,
//! list what it holds. Keys stay in the station's key store; certificates go to its
//! repository (default STORE/repository) beside `.meta` files naming their keys.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};
use serde_json::json;
use vss_pki::station::{
    enroll, pseudonyms, CertKind, Entry, Repository, TicketBatch, DEFAULT_TICKET_CONCURRENCY,
    MAX_TICKETS, MAX_TICKET_CONCURRENCY,
};

use super::station_trust::{TrustShowArgs, TrustUpdateArgs};
use crate::files::read_cert;
use crate::output::{Format, Table};
use crate::store::StoreArgs;

/// The station's PKI client.
#[derive(Subcommand)]
pub enum StationCommand {
    /// Enrol at an EA (or re-enrol with the stored enrolment credential).
    Enroll {
        #[command(flatten)]
        station: StationArgs,
        /// The station's canonical id, as registered at the EA.
        #[arg(long)]
        canonical_id: String,
        /// Label of the canonical key in the store.
        #[arg(long, value_name = "LABEL")]
        canonical_key: String,
        /// The EA's URL (e.g. http://127.0.0.1:8080).
        #[arg(long, value_name = "URL")]
        ea: String,
        /// The EA's certificate.
        #[arg(long, value_name = "FILE")]
        ea_cert: PathBuf,
    },
    /// Get N authorization tickets (pseudonyms) from an AA, in parallel.
    Pseudonyms {
        #[command(flatten)]
        station: StationArgs,
        /// The AA's URL.
        #[arg(long, value_name = "URL")]
        aa: String,
        /// The AA's certificate.
        #[arg(long, value_name = "FILE")]
        aa_cert: PathBuf,
        /// The certificate of the EA that issued the enrolment credential.
        #[arg(long, value_name = "FILE")]
        ea_cert: PathBuf,
        /// How many tickets (at most 10000); checked before anything is sent.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=MAX_TICKETS as u64))]
        count: u64,
        /// Requests in flight at once (at most 64).
        #[arg(long, default_value_t = DEFAULT_TICKET_CONCURRENCY as u64, value_parser = clap::value_parser!(u64).range(1..=MAX_TICKET_CONCURRENCY as u64))]
        concurrency: u64,
        /// A PSID the tickets carry [default: 36 and 37]. Repeatable.
        #[arg(long = "psid")]
        psids: Vec<vss_its::Psid>,
    },
    /// List the enrolment credential and the pseudonyms, each with its key label and validity.
    List {
        #[command(flatten)]
        station: StationArgs,
    },
    /// Update the trust store from the C-ITS trust lists: the ECTL verified under the pinned
    /// TLM certificate, then each listed root's CTL and CRL from its distribution centre,
    /// verified under the root. The store is replaced only when every list checks out.
    TrustUpdate(TrustUpdateArgs),
    /// Print the trust store: the TLM, the ECTL, each root with its EAs and AAs and what its
    /// CRL revokes.
    TrustShow(TrustShowArgs),
}

/// The station's key store, repository and output format.
#[derive(Args)]
pub struct StationArgs {
    #[command(flatten)]
    store: StoreArgs,
    /// The certificate repository [default: STORE/repository].
    #[arg(long, value_name = "DIR")]
    repository: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

impl StationArgs {
    /// The repository (created if absent); the default one only inside a key store, so
    /// that a wrong --store is named as such, not given a repository.
    fn repository(&self) -> Result<Repository> {
        let dir = match &self.repository {
            Some(dir) => dir.clone(),
            None => {
                let store = self.store.dir()?;
                vss_hsm::StoreConfig::read(&store)?;
                store.join("repository")
            }
        };
        Ok(Repository::open(&dir)?)
    }
}

impl StationCommand {
    /// Runs the subcommand.
    pub fn run(self) -> Result<ExitCode> {
        match self {
            StationCommand::Enroll {
                station,
                canonical_id,
                canonical_key,
                ea,
                ea_cert,
            } => {
                let repository = station.repository()?;
                let hsm = station.store.open()?;
                let entry = enroll(
                    hsm.as_ref(),
                    &repository,
                    &canonical_id,
                    &canonical_key,
                    &ea,
                    &read_cert(&ea_cert)?,
                )?;
                show(station.format, &[entry])?;
            }
            StationCommand::Pseudonyms {
                station,
                aa,
                aa_cert,
                ea_cert,
                count,
                concurrency,
                psids,
            } => {
                let repository = station.repository()?;
                let hsm = station.store.open()?;
                let psids = if psids.is_empty() {
                    vss_pki::store::DEFAULT_PSIDS.to_vec()
                } else {
                    psids
                };
                let spinner = crate::output::spinner(&format!("asking {aa} for {count} tickets"));
                let result = pseudonyms(
                    hsm.as_ref(),
                    &repository,
                    &aa,
                    &read_cert(&aa_cert)?,
                    &read_cert(&ea_cert)?,
                    &psids,
                    TicketBatch {
                        count: count as usize,
                        concurrency: concurrency as usize,
                    },
                );
                spinner.finish_and_clear();
                show(station.format, &result?)?;
            }
            StationCommand::TrustUpdate(args) => return args.run(),
            StationCommand::TrustShow(args) => return args.run(),
            StationCommand::List { station } => {
                let repository = station.repository()?;
                let mut all = repository.list(CertKind::Enrolment)?;
                all.extend(repository.list(CertKind::Pseudonym)?);
                show(station.format, &all)?;
            }
        }
        Ok(ExitCode::SUCCESS)
    }
}

fn show(format: Format, entries: &[Entry]) -> Result<()> {
    match format {
        Format::Json => crate::output::print_json(&json!(entries
            .iter()
            .map(|e| json!({
                "kind": e.meta.kind,
                "hashed_id8": e.meta.hashed_id8,
                "verification_key": e.meta.verification_key,
                "encryption_key": e.meta.encryption_key,
                "start": e.meta.start,
                "end": e.meta.end,
                "issuer": e.meta.issuer,
            }))
            .collect::<Vec<_>>())),
        Format::Table => {
            let mut table = Table::new(&["kind", "hashed_id8", "key", "start", "end"]);
            for e in entries {
                table.row(vec![
                    serde_json::to_value(e.meta.kind)?
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                    e.meta.hashed_id8.clone(),
                    e.meta.verification_key.clone(),
                    e.meta.start.clone(),
                    e.meta.end.clone(),
                ]);
            }
            crate::output::emit(&table.render())
        }
    }
}
