//! The authorities' commands: `vss pki init`, `register-station`, `trust` and `serve`.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use serde_json::json;
use vss_crypto::{Curve, PublicKey};
use vss_hsm::{Hsm, SoftHsm};
use vss_net::metrics::Registry;
use vss_net::raise_open_file_limit;
use vss_pki::authority::{init, init_tlm, InitRequest, PeerPki, PkiDir};
use vss_pki::http::{serve as serve_http, serve_with_metrics, HttpMetrics, ServedPki, Serving};
use vss_pki::store::{PkiStore, Role, Station};
use vss_pki::url::check_base_url;

use super::args::{DatabaseArgs, LimitArgs, PkiArgs};
use super::show::show;
use crate::commands::hsm::PukArgs;
use crate::files::read_cert;
use crate::output::Format;
use crate::secrets::ReadOrAsk;

/// Options of `vss pki init`.
#[derive(clap::Args)]
pub struct InitArgs {
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
}

/// What `vss pki init` creates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum InitRole {
    /// A PKI: root CA, EA and AA.
    Pki,
    /// A Trust List Manager.
    Tlm,
}

impl InitArgs {
    /// Creates the PKI or TLM and prints the HashedId8 of its certificates.
    pub fn run(self) -> Result<ExitCode> {
        let dir = PkiDir::new(&self.pki.dir);
        let mut request = InitRequest::new(&self.name);
        request.curve = self.curve;
        request.check(&dir)?;
        let pin = self.pki.pin().read_or_ask(true)?;
        let puk = self.puk.source().read_or_ask(true)?;
        SoftHsm::init(&dir.keys(), &pin, &puk)?;
        let hsm = SoftHsm::open(&dir.keys(), &pin)?;
        let mut summary = json!({
            "name": self.name,
            "dir": self.pki.dir.display().to_string(),
        });
        if self.role == InitRole::Tlm {
            let tlm = init_tlm(&dir, &hsm, &request)?;
            summary["tlm"] = json!(tlm.hashed_id8().to_string());
        } else {
            let made = init(&dir, &hsm, &request)?;
            summary["root"] = json!(made.root.hashed_id8().to_string());
            summary["ea"] = json!(made.ea.hashed_id8().to_string());
            summary["aa"] = json!(made.aa.hashed_id8().to_string());
        }
        show(self.format, &summary)
    }
}

/// Options of `vss pki register-station`.
#[derive(clap::Args)]
pub struct RegisterStationArgs {
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
    psids: Vec<vss_its::Psid>,
    #[command(flatten)]
    database: DatabaseArgs,
}

impl RegisterStationArgs {
    /// Registers the station in the PKI's store.
    pub fn run(self) -> Result<ExitCode> {
        let key = hex::decode(self.public_key.trim()).context("--public-key is not hex")?;
        let key = PublicKey::from_sec1(self.curve, &key).context("--public-key")?;
        let store = self.database.open(&PkiDir::new(&self.dir))?;
        let station = Station::new(&self.canonical_id, &key, &self.psids);
        store.register_station(&station)?;
        eprintln!(
            "registered station {} (PSIDs {:?})",
            station.canonical_id, station.psids
        );
        Ok(ExitCode::SUCCESS)
    }
}

/// Options of `vss pki trust`.
#[derive(clap::Args)]
pub struct TrustArgs {
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
}

impl TrustArgs {
    /// Adds the other PKI to this one's trusted PKIs.
    pub fn run(self) -> Result<ExitCode> {
        let root_path = self.root_cert.unwrap_or_else(|| {
            let beside = self.ea_cert.parent().unwrap_or(Path::new("."));
            beside.join("root.cert")
        });
        let ea = read_cert(&self.ea_cert)?;
        let root = read_cert(&root_path)?;
        PkiDir::new(&self.dir).add_peer(&PeerPki {
            name: self.name.clone(),
            ea,
            root,
            ea_url: self.ea_url,
        })?;
        eprintln!("trusting PKI {}", self.name);
        Ok(ExitCode::SUCCESS)
    }
}

/// Options of `vss pki serve`.
#[derive(clap::Args)]
pub struct ServeArgs {
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
    limits: LimitArgs,
    /// Serve Prometheus metrics at http://ADDR/metrics: vss_pki_http_requests_total by
    /// endpoint and response code, vss_pki_http_request_duration_seconds by endpoint
    /// [default: off].
    #[arg(long, value_name = "ADDR")]
    metrics: Option<SocketAddr>,
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

impl ServeArgs {
    /// Serves the EA and AA (and the metrics, if asked) until stopped.
    pub fn run(self) -> Result<ExitCode> {
        let open_files = raise_open_file_limit().context("cannot raise the open-file limit")?;
        let limits = &self.limits;
        let config = limits.limits().fitted(open_files, 1);
        let (dir, hsm) = self.pki.open()?;
        let hsm: Arc<dyn Hsm> = Arc::new(hsm);
        let store: Arc<dyn PkiStore> = Arc::from(self.database.open(&dir)?);
        let url = self
            .url
            .unwrap_or_else(|| format!("http://{}", self.listen));
        check_base_url(&url).context("--url")?;
        let services = vss_pki::http::services(&dir, hsm, store, &self.roles.served(&url)?)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .context("cannot start the HTTP runtime")?;
        runtime.block_on(async {
            // The metrics listen first, so they answer once the PKI does.
            let metrics = match self.metrics {
                Some(address) => Some(
                    tokio::net::TcpListener::bind(address)
                        .await
                        .with_context(|| format!("cannot listen on {address} for --metrics"))?,
                ),
                None => None,
            };
            let listen = self.listen;
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
                write_timeout_ms = limits.write_timeout_ms,
                metrics = metrics_url,
                "serving the PKI"
            );
            crate::commands::signal::until_signal(async {
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
                    stopped = vss_net::metrics::serve(metrics, Arc::new(registry), vss_net::metrics::default_limits()) => {
                        stopped.context("the metrics server stopped")
                    }
                }
            })
            .await
        })?;
        Ok(ExitCode::SUCCESS)
    }
}
