//! `vss pki …`: an ETSI TS 102 941 PKI in a directory — create it, register stations, trust
//! another PKI, and serve its EA and AA over HTTP.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use clap::Subcommand;
use serde_json::json;
use vss_crypto::{Curve, PublicKey};
use vss_hsm::pin::{PinSource, PIN_ENV};
use vss_hsm::{Hsm, SoftHsm};
use vss_net::metrics::{MetricsConfig, Registry};
use vss_net::raise_open_file_limit;
use vss_pki::authority::{init, init_tlm, InitRequest, PkiDir, TrustedPki};
use vss_pki::http::{
    serve as serve_http, serve_with_metrics, HttpMetrics, ServeConfig, ServedPki, Serving,
    MAX_CONNECTIONS, MAX_TIMEOUT,
};
use vss_pki::store::{open_store, Role, Station};
use vss_pki::url::check_base_url;

use super::hsm::PukArgs;
use crate::files::read_cert;
use crate::output::Format;
use crate::secrets::ReadOrAsk;

/// An ETSI TS 102 941 PKI: root CA, enrolment authority (EA), authorization authority (AA).
#[derive(Subcommand)]
pub enum PkiCommand {
    /// Create a PKI in DIR: keys in DIR/keys, DIR/root.cert, DIR/ea.cert, DIR/aa.cert (COER);
    /// or, with --role tlm, a Trust List Manager: DIR/tlm.cert.
    Init {
        #[command(flatten)]
        pki: PkiArgs,
        /// The PKI's name (its certificates are NAME-root, NAME-ea, NAME-aa; a TLM's is NAME).
        #[arg(long)]
        name: String,
        /// What to create: a PKI (root CA, EA, AA) or a TLM, which signs the ECTL.
        #[arg(long, value_enum, default_value_t = InitRole::Pki)]
        role: InitRole,
        /// Curve of the authorities' signing keys: p256, bp256, p384 or bp384.
        #[arg(long, default_value = "p256")]
        curve: Curve,
        #[command(flatten)]
        puk: PukArgs,
        /// Output format of the summary.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Serve the EA and AA over HTTP until stopped.
    Serve {
        #[command(flatten)]
        pki: PkiArgs,
        /// Address to listen on.
        #[arg(long, default_value = "127.0.0.1:8080")]
        listen: SocketAddr,
        /// The URL this service is reached at [default: http://LISTEN].
        #[arg(long)]
        url: Option<String>,
        #[command(flatten)]
        roles: RoleArgs,
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(flatten)]
        limits: ServeLimits,
        /// Serve Prometheus metrics at http://ADDR/metrics: vss_pki_http_requests_total by
        /// endpoint and response code, vss_pki_http_request_duration_seconds by endpoint
        /// [default: off].
        #[arg(long, value_name = "ADDR")]
        metrics: Option<SocketAddr>,
    },
    /// Register a station at the EA: its canonical id and key, and the PSIDs of its tickets.
    RegisterStation {
        /// The PKI directory.
        #[arg(long)]
        dir: PathBuf,
        /// The station's canonical id.
        #[arg(long)]
        canonical_id: String,
        /// The canonical public key, SEC 1 hex (as `vss keys export-public` prints it).
        #[arg(long, value_name = "HEX")]
        public_key: String,
        /// Curve of the canonical key.
        #[arg(long, default_value = "p256")]
        curve: Curve,
        /// A PSID its tickets may carry [default: 36 and 37]. Repeatable.
        #[arg(long = "psid")]
        psids: Vec<u64>,
        #[command(flatten)]
        database: DatabaseArgs,
    },
    /// Certificate trust lists: the TLM's ECTL of root CAs, a root CA's CTL of EAs and AAs.
    #[command(subcommand)]
    Ctl(super::pki_lists::CtlCommand),
    /// Certificate revocation lists of root CAs.
    #[command(subcommand)]
    Crl(super::pki_lists::CrlCommand),
    /// A distribution centre: the lists of PKIs and TLMs over HTTP.
    #[command(subcommand)]
    Dc(super::pki_lists::DcCommand),
    /// Trust another PKI: this AA accepts its EA's credentials, this EA its AA's requests.
    Trust {
        /// The PKI directory.
        #[arg(long)]
        dir: PathBuf,
        /// A name for the other PKI.
        #[arg(long)]
        name: String,
        /// The other PKI's EA certificate.
        #[arg(long, value_name = "FILE")]
        ea_cert: PathBuf,
        /// The other PKI's root certificate [default: root.cert beside the EA certificate].
        #[arg(long, value_name = "FILE")]
        root_cert: Option<PathBuf>,
        /// Where the other EA serves (e.g. http://127.0.0.1:8081).
        #[arg(long, value_name = "URL")]
        ea_url: String,
    },
}

/// What `vss pki init` creates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum InitRole {
    /// A PKI: root CA, EA and AA.
    Pki,
    /// A Trust List Manager.
    Tlm,
}

/// How long `vss pki serve` waits for clients, and how many it serves at once.
#[derive(clap::Args)]
pub struct ServeLimits {
    /// The longest wait for a request head, on a new connection or a kept-alive one.
    #[arg(long, value_name = "MS", default_value_t = millis(ServeConfig::default().header_timeout),
          value_parser = timeout_ms())]
    header_timeout_ms: u64,
    /// The longest wait for a request body once its head arrived (then 408).
    #[arg(long, value_name = "MS", default_value_t = millis(ServeConfig::default().body_timeout),
          value_parser = timeout_ms())]
    body_timeout_ms: u64,
    /// How long an answered connection may sit idle before it is closed.
    #[arg(long, value_name = "MS",
          default_value_t = millis(ServeConfig::default().keep_alive_timeout),
          value_parser = timeout_ms())]
    keep_alive_timeout_ms: u64,
    /// Connections served at once; more are answered 503 with Retry-After and closed (at
    /// most the open-file limit less 64).
    #[arg(long, value_name = "N", default_value_t = ServeConfig::default().max_connections as u64,
          value_parser = clap::value_parser!(u64).range(1..=MAX_CONNECTIONS as u64))]
    max_connections: u64,
}

fn millis(duration: std::time::Duration) -> u64 {
    duration.as_millis() as u64
}

fn timeout_ms() -> clap::builder::RangedU64ValueParser {
    clap::value_parser!(u64).range(1..=millis(MAX_TIMEOUT))
}

impl ServeLimits {
    /// The bounds these options ask for.
    pub(super) fn config(&self) -> ServeConfig {
        use std::time::Duration;
        ServeConfig {
            header_timeout: Duration::from_millis(self.header_timeout_ms),
            body_timeout: Duration::from_millis(self.body_timeout_ms),
            keep_alive_timeout: Duration::from_millis(self.keep_alive_timeout_ms),
            max_connections: self.max_connections as usize,
            ..ServeConfig::default()
        }
    }
}

/// The PKI directory and the PIN of its key store.
#[derive(clap::Args)]
pub struct PkiArgs {
    /// The PKI directory.
    #[arg(long)]
    dir: PathBuf,
    /// Read the key store's PIN from the first line of this file (else $VSS_PIN, else a
    /// prompt).
    #[arg(long, value_name = "FILE")]
    pin_file: Option<PathBuf>,
}

impl PkiArgs {
    /// The PKI directory, checked to hold a PKI before its PIN is asked for, and its key
    /// store opened with that PIN.
    pub(super) fn open(&self) -> Result<(PkiDir, SoftHsm)> {
        let dir = PkiDir::new(&self.dir);
        dir.check()?;
        self.unlock(dir)
    }

    /// The same for a directory that holds a PKI or a TLM (the lists' commands).
    pub(super) fn open_lists(&self) -> Result<(PkiDir, SoftHsm)> {
        let dir = PkiDir::new(&self.dir);
        if !dir.holds_tlm() {
            dir.check()?;
        }
        self.unlock(dir)
    }

    fn unlock(&self, dir: PkiDir) -> Result<(PkiDir, SoftHsm)> {
        let pin = self.pin().read_or_ask(false)?;
        let hsm = SoftHsm::open(&dir.keys(), &pin)?;
        Ok((dir, hsm))
    }

    fn pin(&self) -> PinSource<'_> {
        PinSource::new("PIN", PIN_ENV).file(self.pin_file.as_deref())
    }
}

/// Which authorities a `pki serve` process serves, for a PKI run as several processes.
#[derive(clap::Args)]
pub struct RoleArgs {
    /// Serve the EA and the AA, or only one of them (several processes on one --database).
    #[arg(long, value_name = "both|ea|aa", default_value = "both")]
    role: Serving,
    /// With --role aa: where the AA reaches the PKI's EA for authorization validation;
    /// repeatable, asked in order, the next one only when the one before cannot be connected
    /// to [default: --url]. Serving both, the AA asks the EA in its own process.
    #[arg(long = "ea-url", value_name = "URL")]
    ea_urls: Vec<String>,
}

impl RoleArgs {
    /// What the process serves; an AA alone reaches the EA at its own URL when no --ea-url
    /// is given.
    fn served(&self, own_url: &str) -> Result<ServedPki> {
        if self.role != Serving::Aa && !self.ea_urls.is_empty() {
            bail!("--ea-url is for --role aa: an EA asks no EA, and serving both, the AA asks the EA in its own process");
        }
        for url in &self.ea_urls {
            check_base_url(url).context("--ea-url")?;
        }
        let ea_urls = if self.role == Serving::Aa && self.ea_urls.is_empty() {
            vec![own_url.to_string()]
        } else {
            self.ea_urls.clone()
        };
        Ok(ServedPki {
            serving: self.role,
            ea_urls,
        })
    }
}

/// Where the PKI's records live.
#[derive(clap::Args)]
pub struct DatabaseArgs {
    /// postgres://… to share one database between processes [default: DIR/pki.sqlite].
    #[arg(long, value_name = "URL|PATH")]
    database: Option<String>,
}

impl DatabaseArgs {
    /// --database as given.
    pub(super) fn given(&self) -> Option<&str> {
        self.database.as_deref()
    }

    /// The store of the PKI (or TLM) in `dir`: --database, or its SQLite file.
    pub(super) fn open(&self, dir: &PkiDir) -> Result<Box<dyn vss_pki::store::PkiStore>> {
        Ok(open_store(
            self.database.as_deref().unwrap_or(""),
            &dir.database(),
        )?)
    }
}

impl PkiCommand {
    /// Whether the subcommand serves until stopped.
    pub fn serves(&self) -> bool {
        matches!(self, PkiCommand::Serve { .. } | PkiCommand::Dc(_))
    }

    /// Runs the subcommand.
    pub fn run(self) -> Result<ExitCode> {
        match self {
            PkiCommand::Ctl(command) => return command.run(),
            PkiCommand::Crl(command) => return command.run(),
            PkiCommand::Dc(command) => return command.run(),
            PkiCommand::Init {
                pki,
                name,
                role,
                curve,
                puk,
                format,
            } => {
                let dir = PkiDir::new(&pki.dir);
                let mut request = InitRequest::new(&name);
                request.curve = curve;
                request.check(&dir)?;
                let pin = pki.pin().read_or_ask(true)?;
                let puk = puk.source().read_or_ask(true)?;
                SoftHsm::init(&dir.keys(), &pin, &puk)?;
                let hsm = SoftHsm::open(&dir.keys(), &pin)?;
                if role == InitRole::Tlm {
                    let tlm = init_tlm(&dir, &hsm, &request)?;
                    return summary(
                        format,
                        json!({
                            "name": name,
                            "dir": pki.dir.display().to_string(),
                            "tlm": tlm.hashed_id8().to_string(),
                        }),
                    )
                    .map(|()| ExitCode::SUCCESS);
                }
                let made = init(&dir, &hsm, &request)?;
                summary(
                    format,
                    json!({
                        "name": name,
                        "dir": pki.dir.display().to_string(),
                        "root": made.root.hashed_id8().to_string(),
                        "ea": made.ea.hashed_id8().to_string(),
                        "aa": made.aa.hashed_id8().to_string(),
                    }),
                )?;
            }
            PkiCommand::Serve {
                pki,
                listen,
                url,
                roles,
                database,
                limits,
                metrics,
            } => serve(&pki, listen, url, &roles, &database, &limits, metrics)?,
            PkiCommand::RegisterStation {
                dir,
                canonical_id,
                public_key,
                curve,
                psids,
                database,
            } => {
                let key = hex::decode(public_key.trim()).context("--public-key is not hex")?;
                let key = PublicKey::from_sec1(curve, &key).context("--public-key")?;
                let store = database.open(&PkiDir::new(&dir))?;
                let psids = if psids.is_empty() {
                    vec![36, 37]
                } else {
                    psids
                };
                store.register_station(&Station {
                    canonical_id: canonical_id.clone(),
                    curve: curve.to_string(),
                    public_key: key.to_sec1_compressed().to_vec(),
                    psids: psids.clone(),
                })?;
                eprintln!("registered station {canonical_id} (PSIDs {psids:?})");
            }
            PkiCommand::Trust {
                dir,
                name,
                ea_cert,
                root_cert,
                ea_url,
            } => {
                let root_path = root_cert.unwrap_or_else(|| sibling(&ea_cert, "root.cert"));
                let ea = read_cert(&ea_cert)?;
                let root = read_cert(&root_path)?;
                PkiDir::new(&dir).add_trusted(&TrustedPki {
                    name: name.clone(),
                    ea,
                    root,
                    ea_url,
                })?;
                eprintln!("trusting PKI {name}");
            }
        }
        Ok(ExitCode::SUCCESS)
    }
}

fn sibling(path: &Path, name: &str) -> PathBuf {
    path.parent().unwrap_or(Path::new(".")).join(name)
}

fn summary(format: Format, value: serde_json::Value) -> Result<()> {
    match format {
        Format::Json => crate::output::print_json(&value),
        Format::Table => {
            let mut table = crate::output::Table::new(&["field", "value"]);
            for (k, v) in value.as_object().into_iter().flatten() {
                table.row(vec![
                    k.clone(),
                    v.as_str().map_or_else(|| v.to_string(), str::to_string),
                ]);
            }
            crate::output::emit(&table.render())
        }
    }
}

fn serve(
    pki: &PkiArgs,
    listen: SocketAddr,
    url: Option<String>,
    roles: &RoleArgs,
    database: &DatabaseArgs,
    limits: &ServeLimits,
    metrics: Option<SocketAddr>,
) -> Result<()> {
    let open_files = raise_open_file_limit().context("cannot raise the open-file limit")?;
    let config = limits.config().fitted(open_files);
    let (dir, hsm) = pki.open()?;
    let hsm: Arc<dyn Hsm> = Arc::new(hsm);
    let store: Arc<dyn vss_pki::store::PkiStore> = Arc::from(database.open(&dir)?);
    let url = url.unwrap_or_else(|| format!("http://{listen}"));
    check_base_url(&url).context("--url")?;
    let services = vss_pki::http::services(&dir, hsm, store, &roles.served(&url)?)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the HTTP runtime")?;
    runtime.block_on(async {
        // The metrics listen first, so they answer once the PKI does.
        let metrics = match metrics {
            Some(address) => Some(
                tokio::net::TcpListener::bind(address)
                    .await
                    .with_context(|| format!("cannot listen on {address} for --metrics"))?,
            ),
            None => None,
        };
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .with_context(|| format!("cannot listen on {listen}"))?;
        let metrics_url = match &metrics {
            Some(listener) => format!("http://{}/metrics", listener.local_addr()?),
            None => "off".to_string(),
        };
        tracing::info!(
            dir = dir.path().to_string_lossy().as_ref(),
            ea = %dir.cert(Role::Ea)?.hashed_id8(),
            aa = %dir.cert(Role::Aa)?.hashed_id8(),
            url,
            max_connections = config.max_connections,
            open_files,
            header_timeout_ms = limits.header_timeout_ms,
            body_timeout_ms = limits.body_timeout_ms,
            keep_alive_timeout_ms = limits.keep_alive_timeout_ms,
            metrics = metrics_url,
            "serving the PKI"
        );
        let Some(metrics) = metrics else {
            return serve_http(listener, services, config)
                .await
                .context("the HTTP server stopped");
        };
        let mut registry = Registry::default();
        let counted = HttpMetrics::register(&mut registry);
        tokio::select! {
            stopped = serve_with_metrics(listener, services, config, counted) => {
                stopped.context("the HTTP server stopped")
            }
            stopped = vss_net::metrics::serve(metrics, Arc::new(registry), MetricsConfig::default()) => {
                stopped.context("the metrics server stopped")
            }
        }
    })
}
