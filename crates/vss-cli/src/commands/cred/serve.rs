//! `vss cred serve`: one role of the credential system over HTTP, its state in the
//! system's directory.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::Args;
use vss_cred::issuance::IssuerParameters;
use vss_cred::service::inspector::InspectorService;
use vss_cred::service::issuer::IssuerService;
use vss_cred::service::revocation::RevocationService;
use vss_cred::service::user::{CardOpener, UserConfig, UserService};
use vss_cred::service::verifier::VerifierService;
use vss_cred::service::{default_limits, Role};
use vss_cred::system;
use vss_net::ServeLimits;

use super::{DirArgs, RolePinArgs};
use crate::commands::card::pin;
use crate::commands::signal::until_signal;

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
    #[arg(long, value_name = "MS", default_value_t = default_limits().request_timeout.as_millis() as u64)]
    request_timeout_ms: u64,
    #[command(flatten)]
    role_pin: RolePinArgs,
    /// Milliseconds a connection may wait for a request (1–3600000).
    #[arg(long, value_name = "MS", default_value_t = default_limits().idle_timeout.as_millis() as u64)]
    idle_timeout_ms: u64,
    /// Milliseconds a write may stay blocked by a client that does not read its answers,
    /// then the connection is closed (1–3600000).
    #[arg(long, value_name = "MS", default_value_t = default_limits().write_timeout.as_millis() as u64)]
    write_timeout_ms: u64,
    /// Connections served at once (1–65536).
    #[arg(long, value_name = "N", default_value_t = default_limits().max_connections)]
    max_connections: usize,
}

/// The role's service, its state in the credential system's directory.
fn role(args: &ServeArgs) -> Result<Role> {
    let dir = args.dir.system();
    let revocation = args.revocation_url.clone();
    let issuers =
        || -> Result<Vec<IssuerParameters>> { Ok(vec![system::issuer_parameters(&dir)?]) };
    Ok(match args.role {
        RoleKind::Issuer => Role::Issuer(Arc::new(IssuerService::open(
            &dir.issuer(),
            &args.role_pin.read(false)?,
            revocation,
        )?)),
        RoleKind::Revocation => Role::Revocation(Arc::new(RevocationService::open(
            &dir.revocation(),
            &args.role_pin.read(false)?,
        )?)),
        RoleKind::Inspector => Role::Inspector(Arc::new(InspectorService::open(
            &dir.inspector(),
            &args.role_pin.read(false)?,
        )?)),
        RoleKind::Verifier => Role::Verifier(Arc::new(VerifierService::open(
            &dir.verifier(),
            issuers()?,
            revocation,
        ))),
        RoleKind::User => {
            let opener: CardOpener =
                Arc::new(|address: &str| Ok(vss_card::connect::open_address(address)?));
            let pin = match &args.card {
                Some(_) => Some(pin()?),
                None => None,
            };
            Role::User(Arc::new(UserService::new(UserConfig {
                opener,
                card: args.card.clone(),
                pin,
                issuers: issuers()?,
                revocation,
            })))
        }
    })
}

/// Runs `vss cred serve` until the service stops or a signal ends it (then a line says so).
pub fn run(args: ServeArgs) -> Result<ExitCode> {
    let role = role(&args)?;
    let config = ServeLimits {
        request_timeout: std::time::Duration::from_millis(args.request_timeout_ms),
        idle_timeout: std::time::Duration::from_millis(args.idle_timeout_ms),
        write_timeout: std::time::Duration::from_millis(args.write_timeout_ms),
        max_connections: args.max_connections,
        ..default_limits()
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .with_context(|| format!("listen on {}", args.listen))?;
        eprintln!("vss cred: listening on {}", listener.local_addr()?);
        let serving = vss_cred::service::serve(role, listener, config);
        until_signal(async { serving.await.context("the service stopped") }).await
    })?;
    Ok(ExitCode::SUCCESS)
}
