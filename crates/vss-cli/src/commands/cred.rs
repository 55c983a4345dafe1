//! `vss cred`: seed 003's privacy credentials over files (setup, issue, policy, present,
//! verify, inspect, revoke) and its scenario end to end.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use serde::Serialize;
use vss_card::connect::CardAddress;
use vss_card::process::{card_binary, CardProcess};
use vss_cred::holder::Card;
use vss_cred::issuance::{self, Credential, IssuerParameters};
use vss_cred::predicates::range::{RangeParams, DEFAULT_RANGE_BASE};
use vss_cred::presentation::{
    self, Equality, InspectionRequest, PresentationPolicy, PresentationToken, RangePredicate,
};
use vss_cred::roles::{
    read_artefact, read_keyed, write_artefact, write_keyed, Inspector, Issuer, Revocation, Verifier,
};
use vss_cred::scenario::{self, vip_ticket};
use vss_cred::spec::{CredentialSpecification, SystemParameters};
use vss_hsm::pin::{PinSource, PIN_ENV, PUK_ENV};
use zeroize::Zeroizing;

use super::card::{pin, CardArgs, CardKind};
use crate::output::{self, Format, Table};
use crate::secrets::ReadOrAsk;

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
    Scenario(ScenarioArgs),
    /// Serve one role over HTTP (JSON): issuer, user (P2ABCE's calls), verifier,
    /// inspector or revocation, with its state in DIR (as `vss cred setup` made it); the
    /// issuer, inspector and revocation authority open their keys with the roles' PIN
    /// (VSS_ROLE_PIN).
    Serve(ServeArgs),
}

/// The roles `vss cred serve` runs.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RoleKind {
    /// Offers and issues credentials (DIR/issuer).
    Issuer,
    /// The user service with its card (P2ABCE's /createSmartcard, /initIoTsmartcard, …).
    User,
    /// Hands out policies and verifies tokens (DIR/verifier, the issuer in DIR/issuer).
    Verifier,
    /// Opens inspectable attributes (DIR/inspector).
    Inspector,
    /// The revocation authority (DIR/revocation).
    Revocation,
}

/// `vss cred serve`'s arguments.
#[derive(Args)]
pub struct ServeArgs {
    #[command(flatten)]
    dir: DirArgs,
    /// The role.
    #[arg(long, value_enum)]
    role: RoleKind,
    /// Address to listen on (port 0: any free port, printed on start).
    #[arg(long, value_name = "ADDR")]
    listen: std::net::SocketAddr,
    /// The revocation service's base URL (issuer: handles; verifier: the state in policies;
    /// user: witness updates).
    #[arg(long, value_name = "URL")]
    revocation_url: Option<String>,
    /// The user's card, already set up: software, tcp:HOST:PORT, pcsc or pcsc:READER (its
    /// PIN from VSS_PIN); else the card of /createSmartcard or /initIoTsmartcard.
    #[arg(long = "card-address", value_name = "ADDRESS")]
    card: Option<String>,
    /// Milliseconds a request may take (1–3600000).
    #[arg(long, value_name = "MS", default_value_t = 60_000)]
    request_timeout_ms: u64,
    #[command(flatten)]
    role_pin: RolePinArgs,
    /// Milliseconds a connection may wait for a request (1–3600000).
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    idle_timeout_ms: u64,
    /// Connections served at once (1–65536).
    #[arg(long, value_name = "N", default_value_t = 256)]
    max_connections: usize,
}

/// The roles' directory.
#[derive(Args)]
pub struct DirArgs {
    /// The directory holding system.json and the roles' directories.
    #[arg(long, value_name = "DIR")]
    dir: PathBuf,
}

impl DirArgs {
    /// The issuer's public parameters (no PIN needed).
    fn parameters(&self) -> Result<IssuerParameters> {
        Ok(Issuer::parameters_in(&self.dir.join("issuer"))?)
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

/// `vss cred scenario`'s arguments.
#[derive(Args)]
pub struct ScenarioArgs {
    /// Where the card is; `tcp` starts its own card process unless --card-addr names one.
    #[arg(long, value_enum, default_value_t = CardKind::Soft)]
    card: CardKind,
    /// The PC/SC reader, for --card pcsc (default: the first whose card has the application).
    #[arg(long, value_name = "NAME")]
    reader: Option<String>,
    /// A running card's TCP address, for --card tcp.
    #[arg(long, value_name = "ADDR")]
    card_addr: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
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
                let handle = credential
                    .handle
                    .context("the credential is not revocable")?;
                let pin = args.role_pin.read(false)?;
                Revocation::open(&args.dir.dir.join("revocation"), &pin)?.revoke(&handle)?;
                Ok(ExitCode::SUCCESS)
            }
            CredCommand::Scenario(args) => run_scenario(args),
            CredCommand::Serve(args) => serve(args),
        }
    }
}

fn setup(args: SetupArgs) -> Result<ExitCode> {
    let dir = &args.dir.dir;
    let spec: CredentialSpecification = match &args.spec {
        Some(path) => read_artefact(path)?,
        None => vip_ticket(),
    };
    let pin = args.role_pin.read(true)?;
    let puk = PinSource::new("role PUK", ROLE_PUK_ENV)
        .file(args.role_puk_file.as_deref())
        .read_or_ask(true)?;
    write_artefact(&dir.join("system.json"), &SystemParameters::generate())?;
    let issuer = Issuer::create(&dir.join("issuer"), spec, &pin, &puk)?;
    if issuer.parameters().specification.revocable {
        Revocation::create(&dir.join("revocation"), &pin, &puk)?;
    }
    Inspector::create(&dir.join("inspector"), &pin, &puk)?;
    write_keyed(
        &dir.join("verifier/range-parameters.json"),
        RangeParams::new(DEFAULT_RANGE_BASE)?,
    )?;
    output::emit(&format!("{}\n", dir.display()))?;
    Ok(ExitCode::SUCCESS)
}

fn open_card(card: &CardArgs) -> Result<Box<dyn Card + Send>> {
    if card.card == CardKind::Soft {
        bail!("a software card lives only as long as this command: use --card tcp or pcsc");
    }
    let mut card = card.open()?;
    card.verify_pin(&pin()?).context("card PIN")?;
    Ok(card)
}

fn issue(args: IssueArgs) -> Result<ExitCode> {
    let role_pin = args.role_pin.read(false)?;
    let issuer = Issuer::open(&args.dir.dir.join("issuer"), &role_pin)?;
    let attributes = args
        .attributes
        .iter()
        .map(|a| pair(a, '='))
        .collect::<Result<Vec<_>>>()?;
    let mut card = open_card(&args.card)?;
    let p = card.public_point()?;
    let offer = issuer.offer(&attributes)?;
    let (request, pending) = issuance::request(card.as_mut(), &p, issuer.parameters(), &offer)?;
    let revocation = match issuer.parameters().specification.revocable {
        true => {
            Some(Revocation::open(&args.dir.dir.join("revocation"), &role_pin)?.issue_handle()?)
        }
        false => None,
    };
    let response = issuer.issue(&request, revocation)?;
    let credential = pending.complete(issuer.parameters(), &response)?;
    card.store_credential(args.slot, &serde_json::to_vec(&credential)?)?;
    emit_artefact(&args.out, &credential)
}

fn policy(args: PolicyArgs) -> Result<ExitCode> {
    let dir = &args.dir.dir;
    let parameters = args.dir.parameters()?;
    let mut policy = PresentationPolicy::new(&parameters);
    policy.reveal = args.reveal.clone();
    for e in &args.equal {
        let (attribute, value) = pair(e, '=')?;
        policy.equal.push(Equality { attribute, value });
    }
    for r in &args.range {
        let (attribute, bounds) = pair(r, '=')?;
        let (min, max) = bounds
            .split_once("..")
            .with_context(|| format!("{r:?} is not NAME=MIN..MAX"))?;
        policy.ranges.push(RangePredicate {
            attribute,
            min: min.into(),
            max: max.into(),
        });
    }
    if !policy.ranges.is_empty() {
        policy.range_parameters = Some(read_keyed(&dir.join("verifier/range-parameters.json"))?);
    }
    for i in &args.inspect {
        let (attribute, grounds) = pair(i, '=')?;
        let inspector = Inspector::public_in(&dir.join("inspector"))?;
        policy.inspect.push(InspectionRequest {
            attribute,
            inspector,
            grounds,
        });
    }
    if args.revocation {
        policy.revocation = Some(Revocation::info_in(&dir.join("revocation"))?);
    }
    policy.scope = args.scope;
    policy.check(&parameters.specification)?;
    Verifier::open(&dir.join("verifier")).open_policy(&policy)?;
    emit_artefact(&args.out, &policy)
}

fn present(args: PresentArgs) -> Result<ExitCode> {
    let mut credential: Credential = read_artefact(&args.credential)?;
    let policy: PresentationPolicy = read_artefact(&args.policy)?;
    if let (Some(dir), Some(witness)) = (&args.revocation, &credential.witness) {
        let removals = Revocation::removals_in(dir, witness.epoch())?;
        credential
            .update_witness(&removals)
            .context("the credential's witness")?;
        write_artefact(&args.credential, &credential)?;
    }
    let mut card = open_card(&args.card)?;
    let token = presentation::present(card.as_mut(), &credential, &policy)?;
    emit_artefact(&args.out, &token)
}

fn verify(args: VerifyArgs) -> Result<ExitCode> {
    let parameters = args.dir.parameters()?;
    let token: PresentationToken = read_artefact(&args.token)?;
    let verified = Verifier::open(&args.dir.dir.join("verifier")).verify(&token, &parameters)?;
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
    let dir = &args.token.dir;
    let parameters = dir.parameters()?;
    let token: PresentationToken = read_artefact(&args.token.token)?;
    let pin = args.role_pin.read(false)?;
    let opened = Inspector::open(&dir.dir.join("inspector"), &pin)?.inspect(&token, &parameters)?;
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

/// A fresh PIN and PUK for the scenario's card: VSS_PIN and VSS_PUK when set.
fn scenario_codes() -> (String, String) {
    let pin = std::env::var(PIN_ENV).unwrap_or_else(|_| "4711".into());
    let puk = std::env::var(PUK_ENV).unwrap_or_else(|_| "12345678".into());
    (pin, puk)
}

fn run_scenario(args: ScenarioArgs) -> Result<ExitCode> {
    super::card::check_card_options(args.card, args.card_addr.as_deref(), args.reader.as_deref())?;
    let roles = tempfile::tempdir()?;
    let mut own_card = None;
    let address = match (args.card, &args.card_addr) {
        (CardKind::Soft, _) => CardAddress::Software,
        (CardKind::Pcsc, _) => CardAddress::Pcsc(args.reader.clone()),
        (CardKind::Tcp, Some(addr)) => CardAddress::Tcp(addr.clone()),
        (CardKind::Tcp, None) => {
            let state = roles.path().join("card.state");
            let (process, addr) = CardProcess::start_tcp(&card_binary(), &state, false)
                .context("starting a card process (vss-card)")?;
            own_card = Some(process);
            CardAddress::Tcp(addr.to_string())
        }
    };
    let mut card = vss_card::connect::open(&address)
        .with_context(|| format!("cannot reach the card ({address:?})"))?;
    let (pin, puk) = scenario_codes();
    let report = scenario::run(card.as_mut(), &roles.path().join("roles"), &pin, &puk)?;
    drop(card);
    drop(own_card);
    match args.format {
        Format::Json => output::print_json(&serde_json::to_value(&report)?)?,
        Format::Table => {
            let mut table = Table::new(&["step", "ms", "APDUs", "bytes"]);
            let s = &report.steps;
            for (name, step) in s.named() {
                table.row(vec![
                    name.into(),
                    format!("{:.2}", step.ms),
                    step.apdus.to_string(),
                    step.bytes.to_string(),
                ]);
            }
            let all_refused = report.refused.all();
            output::emit(&format!(
                "{}inspected member number: {}\nall six refusals refused: {all_refused}\npseudonyms: same scope equal {}, other scope differs {}\ncard peak RSS: {} kB\n",
                table.render(),
                report.inspected.member_number,
                report.pseudonym.same_scope_equal,
                report.pseudonym.other_scope_differs,
                report.card_max_rss_kb
            ))?;
        }
    }
    let ok = report.passed();
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn serve(args: ServeArgs) -> Result<ExitCode> {
    use std::sync::Arc;
    use vss_cred::service::{
        self, inspector, issuer, revocation, user, verifier, Role, ServeConfig,
    };
    let dir = &args.dir.dir;
    let issuers = || -> Result<Vec<IssuerParameters>> { Ok(vec![args.dir.parameters()?]) };
    let role = match args.role {
        RoleKind::Issuer => Role::Issuer(Arc::new(issuer::IssuerService::open(
            &dir.join("issuer"),
            &args.role_pin.read(false)?,
            args.revocation_url.clone(),
        )?)),
        RoleKind::Revocation => Role::Revocation(Arc::new(revocation::RevocationService::open(
            &dir.join("revocation"),
            &args.role_pin.read(false)?,
        )?)),
        RoleKind::Inspector => Role::Inspector(Arc::new(inspector::InspectorService::open(
            &dir.join("inspector"),
            &args.role_pin.read(false)?,
        )?)),
        RoleKind::Verifier => Role::Verifier(Arc::new(verifier::VerifierService::open(
            &dir.join("verifier"),
            issuers()?,
            args.revocation_url.clone(),
        ))),
        RoleKind::User => {
            let opener: user::CardOpener = Arc::new(|address: &str| {
                let address: CardAddress = address.parse().map_err(|e| format!("{e}"))?;
                vss_card::connect::open(&address).map_err(|e| format!("{e}"))
            });
            let pin = match &args.card {
                Some(_) => Some(pin()?),
                None => None,
            };
            Role::User(Arc::new(user::UserService::new(user::UserConfig {
                opener,
                card: args.card.clone(),
                pin,
                issuers: issuers()?,
                revocation: args.revocation_url.clone(),
            })))
        }
    };
    let config = ServeConfig {
        request_timeout: std::time::Duration::from_millis(args.request_timeout_ms),
        idle_timeout: std::time::Duration::from_millis(args.idle_timeout_ms),
        max_connections: args.max_connections,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.listen).await.with_context(|| format!("listen on {}", args.listen))?;
        eprintln!("vss cred: listening on {}", listener.local_addr()?);
        tokio::select! {
            served = service::serve(role, listener, config) => served.context("the service stopped"),
            () = super::tls::shutdown_signal() => Ok(()),
        }
    })?;
    Ok(ExitCode::SUCCESS)
}
