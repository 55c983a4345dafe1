//! `vss cred`: seed 003's privacy credentials over files (setup, issue, policy, present,
//! verify, inspect, revoke) and its scenario end to end.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use serde::Serialize;
use vss_cred::holder::Card;
use vss_cred::issuance::Credential;
use vss_cred::layout::SystemDir;
use vss_cred::presentation::{
    self, Equality, PresentationPolicy, PresentationToken, RangePredicate,
};
use vss_cred::roles::{read_artefact, write_artefact};
use vss_cred::scenario::vip_ticket;
use vss_cred::spec::CredentialSpecification;
use vss_cred::system::{self, PolicyRequest};
use zeroize::Zeroizing;

use super::card::{pin, CardArgs};
use crate::output::{self, Format, Table};
use crate::secrets::ReadOrAsk;
use vss_hsm::pin::PinSource;

mod scenario;
mod serve;

/// The variable holding the roles' PIN: their key stores' code, not the card's (`VSS_PIN`),
/// since `vss cred issue` needs both.
const ROLE_PIN_ENV: &str = "VSS_ROLE_PIN";
/// The variable holding the roles' PUK, read by `vss cred setup`.
const ROLE_PUK_ENV: &str = "VSS_ROLE_PUK";

/// Privacy credentials.
#[derive(Subcommand)]
pub enum CredCommand {
    /// System setup in DIR: system parameters, an issuer of --spec (default: seed 003's VIP
    /// ticket), a revocation authority, an inspector and a verifier, one directory each. The
    /// issuer's, inspector's and authority's keys are kept encrypted, each in a key store of
    /// its own (ROLE/store/) under the roles' PIN and PUK (VSS_ROLE_PIN, VSS_ROLE_PUK).
    Setup(SetupArgs),
    /// Issue a credential to the card (VSS_PIN) and store it on the card and in --out; the
    /// issuer's and authority's keys are opened with the roles' PIN (VSS_ROLE_PIN).
    Issue(IssueArgs),
    /// Write a presentation policy with a fresh nonce, opened at the verifier in DIR.
    Policy(PolicyArgs),
    /// Make a presentation token for --policy from --credential with the card (VSS_PIN).
    Present(PresentArgs),
    /// Verify a token against the verifier's open policy (its nonce is then used up).
    Verify(VerifyArgs),
    /// Open the token's inspectable attributes with the inspector's key in DIR (opened with
    /// the roles' PIN, VSS_ROLE_PIN).
    Inspect(InspectArgs),
    /// Revoke a credential at the revocation authority in DIR (its key opened with the roles'
    /// PIN, VSS_ROLE_PIN).
    Revoke(RevokeArgs),
    /// Seed 003's VIP-ticket scenario end to end on loopback, timed per step.
    Scenario(scenario::ScenarioArgs),
    /// Serve one role over HTTP (JSON): issuer, user (P2ABCE's calls), verifier,
    /// inspector or revocation, with its state in DIR (as `vss cred setup` made it); the
    /// issuer, inspector and revocation authority open their keys with the roles' PIN
    /// (VSS_ROLE_PIN).
    Serve(serve::ServeArgs),
}

/// The roles' directory.
#[derive(Args)]
pub struct DirArgs {
    /// The directory holding system.json and the roles' directories.
    #[arg(long, value_name = "DIR")]
    dir: PathBuf,
}

impl DirArgs {
    /// The credential system in the directory.
    fn system(&self) -> SystemDir {
        SystemDir::new(&self.dir)
    }
}

/// Where the roles' PIN comes from: it opens the key stores of the issuer, the inspector
/// and the revocation authority (not the card: its PIN is VSS_PIN).
#[derive(Args)]
pub struct RolePinArgs {
    /// Read the roles' PIN from the first line of this file (else $VSS_ROLE_PIN, else a
    /// prompt). It opens the roles' key stores; the card's PIN is VSS_PIN.
    #[arg(long, value_name = "FILE")]
    role_pin_file: Option<PathBuf>,
}

impl RolePinArgs {
    /// Reads the PIN (asked twice on a terminal when `new`).
    fn read(&self, new: bool) -> Result<Zeroizing<String>> {
        PinSource::new("role PIN", ROLE_PIN_ENV)
            .file(self.role_pin_file.as_deref())
            .read_or_ask(new)
    }
}

/// `vss cred setup`'s arguments.
#[derive(Args)]
pub struct SetupArgs {
    #[command(flatten)]
    dir: DirArgs,
    /// A credential specification (JSON); default: the VIP ticket.
    #[arg(long, value_name = "FILE")]
    spec: Option<PathBuf>,
    #[command(flatten)]
    role_pin: RolePinArgs,
    /// Read the roles' PUK from the first line of this file (else $VSS_ROLE_PUK, else a
    /// prompt): it unblocks a role's PIN (`vss hsm unblock --store DIR/ROLE/store`).
    #[arg(long, value_name = "FILE")]
    role_puk_file: Option<PathBuf>,
}

/// `vss cred issue`'s arguments.
#[derive(Args)]
pub struct IssueArgs {
    #[command(flatten)]
    dir: DirArgs,
    #[command(flatten)]
    card: CardArgs,
    /// An attribute, NAME=VALUE, once per attribute of the specification, in its order.
    #[arg(long = "attribute", value_name = "NAME=VALUE", required = true)]
    attributes: Vec<String>,
    #[command(flatten)]
    role_pin: RolePinArgs,
    /// The card's credential slot (0–15).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..16))]
    slot: u8,
    /// Where to write the credential.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

/// `vss cred policy`'s arguments.
#[derive(Args)]
pub struct PolicyArgs {
    #[command(flatten)]
    dir: DirArgs,
    /// Disclose an attribute.
    #[arg(long, value_name = "NAME")]
    reveal: Vec<String>,
    /// Require an attribute to equal a value (it is disclosed).
    #[arg(long, value_name = "NAME=VALUE")]
    equal: Vec<String>,
    /// Require a hidden date or integer attribute in a range, NAME=MIN..MAX.
    #[arg(long, value_name = "NAME=MIN..MAX")]
    range: Vec<String>,
    /// Encrypt a hidden attribute for the inspector in DIR, NAME=GROUNDS.
    #[arg(long, value_name = "NAME=GROUNDS")]
    inspect: Vec<String>,
    /// Require the credential not to be revoked (the authority's current state).
    #[arg(long)]
    revocation: bool,
    /// Ask for the card's pseudonym for this scope.
    #[arg(long, value_name = "SCOPE")]
    scope: Option<String>,
    /// Where to write the policy.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

/// `vss cred present`'s arguments.
#[derive(Args)]
pub struct PresentArgs {
    #[command(flatten)]
    card: CardArgs,
    /// The credential (written by `vss cred issue`).
    #[arg(long, value_name = "FILE")]
    credential: PathBuf,
    /// The verifier's policy.
    #[arg(long, value_name = "FILE")]
    policy: PathBuf,
    /// The revocation authority's directory, to bring the witness up to date first.
    #[arg(long, value_name = "DIR")]
    revocation: Option<PathBuf>,
    /// Where to write the token.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

/// `vss cred verify` and `inspect`'s arguments.
#[derive(Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    dir: DirArgs,
    /// The presentation token.
    #[arg(long, value_name = "FILE")]
    token: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// `vss cred inspect`'s arguments.
#[derive(Args)]
pub struct InspectArgs {
    #[command(flatten)]
    token: VerifyArgs,
    #[command(flatten)]
    role_pin: RolePinArgs,
}

/// `vss cred revoke`'s arguments.
#[derive(Args)]
pub struct RevokeArgs {
    #[command(flatten)]
    dir: DirArgs,
    #[command(flatten)]
    role_pin: RolePinArgs,
    /// The credential to revoke (its revocation handle is read from it).
    #[arg(long, value_name = "FILE")]
    credential: PathBuf,
}

fn pair(text: &str, sep: char) -> Result<(String, String)> {
    text.split_once(sep)
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .with_context(|| format!("{text:?} is not NAME{sep}VALUE"))
}

fn emit_artefact<T: Serialize>(path: &Path, value: &T) -> Result<ExitCode> {
    write_artefact(path, value)?;
    Ok(ExitCode::SUCCESS)
}

impl CredCommand {
    /// Runs the subcommand.
    pub fn run(self) -> Result<ExitCode> {
        match self {
            CredCommand::Setup(args) => setup(args),
            CredCommand::Issue(args) => issue(args),
            CredCommand::Policy(args) => policy(args),
            CredCommand::Present(args) => present(args),
            CredCommand::Verify(args) => verify(args),
            CredCommand::Inspect(args) => inspect(args),
            CredCommand::Revoke(args) => {
                let credential: Credential = read_artefact(&args.credential)?;
                let handle = credential.revocation_handle()?;
                let pin = args.role_pin.read(false)?;
                system::revoke(&args.dir.system(), &pin, &handle)?;
                Ok(ExitCode::SUCCESS)
            }
            CredCommand::Scenario(args) => scenario::run(args),
            CredCommand::Serve(args) => serve::run(args),
        }
    }
}

fn setup(args: SetupArgs) -> Result<ExitCode> {
    let spec: CredentialSpecification = match &args.spec {
        Some(path) => read_artefact(path)?,
        None => vip_ticket(),
    };
    let pin = args.role_pin.read(true)?;
    let puk = PinSource::new("role PUK", ROLE_PUK_ENV)
        .file(args.role_puk_file.as_deref())
        .read_or_ask(true)?;
    system::setup(&args.dir.system(), spec, &pin, &puk)?;
    output::emit(&format!("{}\n", args.dir.dir.display()))?;
    Ok(ExitCode::SUCCESS)
}

/// The card of a command that keeps its state on it (not the software card), its PIN
/// (VSS_PIN) verified.
fn open_card(card: &CardArgs) -> Result<Box<dyn Card + Send>> {
    let mut card = card.choice().open_lasting()?;
    card.verify_pin(&pin()?).context("card PIN")?;
    Ok(card)
}

fn issue(args: IssueArgs) -> Result<ExitCode> {
    let dir = args.dir.system();
    let role_pin = args.role_pin.read(false)?;
    let issuer = system::open_issuer(&dir, &role_pin)?;
    let attributes = args
        .attributes
        .iter()
        .map(|a| pair(a, '='))
        .collect::<Result<Vec<_>>>()?;
    let mut card = open_card(&args.card)?;
    let p = card.public_point()?;
    let credential = system::issue(&dir, &issuer, &role_pin, card.as_mut(), &p, &attributes)?;
    card.store_credential(args.slot, &credential.compact())?;
    emit_artefact(&args.out, &credential)
}

fn policy(args: PolicyArgs) -> Result<ExitCode> {
    let mut request = PolicyRequest {
        reveal: args.reveal,
        revocation: args.revocation,
        scope: args.scope,
        ..PolicyRequest::default()
    };
    for e in &args.equal {
        let (attribute, value) = pair(e, '=')?;
        request.equal.push(Equality { attribute, value });
    }
    for r in &args.range {
        let (attribute, bounds) = pair(r, '=')?;
        let (min, max) = bounds
            .split_once("..")
            .with_context(|| format!("{r:?} is not NAME=MIN..MAX"))?;
        request.ranges.push(RangePredicate {
            attribute,
            min: min.into(),
            max: max.into(),
        });
    }
    for i in &args.inspect {
        request.inspect.push(pair(i, '=')?);
    }
    let policy = system::policy(&args.dir.system(), request)?;
    emit_artefact(&args.out, &policy)
}

fn present(args: PresentArgs) -> Result<ExitCode> {
    let mut credential: Credential = read_artefact(&args.credential)?;
    let policy: PresentationPolicy = read_artefact(&args.policy)?;
    if let Some(dir) = &args.revocation {
        if system::update_witness(&mut credential, dir)? {
            write_artefact(&args.credential, &credential)?;
        }
    }
    let mut card = open_card(&args.card)?;
    let token = presentation::present(card.as_mut(), &credential, &policy)?;
    emit_artefact(&args.out, &token)
}

fn verify(args: VerifyArgs) -> Result<ExitCode> {
    let dir = args.dir.system();
    let parameters = system::issuer_parameters(&dir)?;
    let token: PresentationToken = read_artefact(&args.token)?;
    let verified = system::verify(&dir, &token, &parameters)?;
    let pseudonym = verified
        .pseudonym
        .map(|p| hex::encode(vss_cred::group::g1_to_bytes(&p)));
    match args.format {
        Format::Json => output::print_json(&serde_json::json!({
            "valid": true, "disclosed": verified.disclosed, "pseudonym": pseudonym,
        }))?,
        Format::Table => {
            let mut table = Table::new(&["attribute", "value"]);
            for (name, value) in &verified.disclosed {
                table.row(vec![name.clone(), value.clone()]);
            }
            if let Some(p) = pseudonym {
                table.row(vec!["(pseudonym)".into(), p]);
            }
            output::emit(&format!("valid\n{}", table.render()))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn inspect(args: InspectArgs) -> Result<ExitCode> {
    let dir = args.token.dir.system();
    let parameters = system::issuer_parameters(&dir)?;
    let token: PresentationToken = read_artefact(&args.token.token)?;
    let pin = args.role_pin.read(false)?;
    let opened = system::inspect(&dir, &pin, &token, &parameters)?;
    match args.token.format {
        Format::Json => output::print_json(&serde_json::to_value(&opened)?)?,
        Format::Table => {
            let mut table = Table::new(&["attribute", "value", "grounds"]);
            for o in &opened {
                table.row(vec![
                    o.attribute.clone(),
                    o.value.clone(),
                    o.grounds.clone(),
                ]);
            }
            output::emit(&table.render())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
