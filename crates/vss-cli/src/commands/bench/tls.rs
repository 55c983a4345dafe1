//! `vss bench tls`: seed 002's connection experiment in one run. One server, `--clients`
//! client threads each making new full handshakes (no resumption) for `--seconds`, for each
//! key, against (a) `openssl s_server` with the key in a file, (b) `openssl s_server` with
//! the key in VSS through `libvss_pkcs11.so` and OpenSSL's pkcs11 engine, (c) `vss tls
//! serve`. Per row: handshakes/s, connection time p50 and p99, the server's CPU per handshake
//! (from /proc), and the ratio to (a). `--transfer SIZE` pushes SIZE bytes through each
//! server with AES-256-GCM: MB/s and server CPU seconds per MB.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::pki_types::pem::PemObject;
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};
use serde_json::json;
use vss_crypto::KeyAlgorithm;
use vss_hsm::{GenerateKeyRequest, SoftHsm};

use super::finish;
use crate::output::{progress, Format, Table};

/// The label of the benchmark key in its throw-away store.
const LABEL: &str = "bench";
/// How long a server may take to start listening.
const START_TIMEOUT: Duration = Duration::from_secs(20);
/// The largest transfer: 4 GiB.
const MAX_TRANSFER: u64 = 4 << 30;

/// Options of `vss bench tls`.
#[derive(Args)]
pub struct TlsArgs {
    /// Client threads, each making new full handshakes one after another.
    #[arg(long, value_name = "N", default_value_t = 10,
          value_parser = clap::value_parser!(u32).range(1..=256))]
    clients: u32,
    /// Seconds each server is loaded (0.1–600).
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
    seconds: f64,
    /// Keys: rsa2048 rsa3072 rsa4096 p256 p384 (comma-separated).
    #[arg(long, value_name = "KEYS", value_delimiter = ',', default_value = "rsa2048,rsa4096,p256")]
    keys: Vec<KeyAlgorithm>,
    /// Also push this many bytes through each server with AES-256-GCM (suffix K, M or G;
    /// with the first key only).
    #[arg(long, value_name = "SIZE")]
    transfer: Option<String>,
    /// The PKCS#11 module of server (b) [default: libvss_pkcs11.so beside this vss].
    #[arg(long, value_name = "FILE")]
    module: Option<PathBuf>,
    /// OpenSSL's pkcs11 engine for server (b) [default: the first
    /// /usr/lib/*/engines-3/pkcs11.so].
    #[arg(long, value_name = "FILE")]
    engine: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// The three servers of the experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Server {
    /// `openssl s_server`, the key in a PEM file.
    OpensslFile,
    /// `openssl s_server -engine pkcs11`, the key in VSS through libvss_pkcs11.so.
    OpensslPkcs11,
    /// `vss tls serve`.
    VssTls,
}

impl Server {
    const ALL: [Server; 3] = [Server::OpensslFile, Server::OpensslPkcs11, Server::VssTls];

    fn name(self) -> &'static str {
        match self {
            Server::OpensslFile => "openssl s_server, key in file",
            Server::OpensslPkcs11 => "openssl s_server, key in VSS (pkcs11)",
            Server::VssTls => "vss tls serve",
        }
    }

    fn id(self) -> &'static str {
        match self {
            Server::OpensslFile => "openssl-file",
            Server::OpensslPkcs11 => "openssl-pkcs11",
            Server::VssTls => "vss-tls",
        }
    }
}

/// A running server, killed when dropped.
struct Running {
    child: Child,
    port: u16,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Running {
    /// The CPU time the server has used so far, from /proc (every thread, live or gone).
    fn cpu(&self, ticks_per_second: f64) -> Result<Duration> {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id()))?;
        // Fields after the command name (which may hold spaces) are space-separated;
        // utime and stime are the 14th and 15th fields of the line.
        let after = stat
            .rfind(')')
            .map(|i| &stat[i + 2..])
            .ok_or_else(|| anyhow!("unreadable /proc stat"))?;
        let fields: Vec<&str> = after.split_whitespace().collect();
        let ticks: f64 = fields
            .get(11..13)
            .ok_or_else(|| anyhow!("short /proc stat"))?
            .iter()
            .map(|f| f.parse::<f64>().unwrap_or(0.0))
            .sum();
        Ok(Duration::from_secs_f64(ticks / ticks_per_second))
    }
}

/// One row of the report.
struct Row {
    key: KeyAlgorithm,
    server: Server,
    outcome: std::result::Result<Load, String>,
}

/// What one load run measured.
struct Load {
    handshakes: usize,
    per_second: f64,
    p50: Duration,
    p99: Duration,
    cpu_per_handshake: Duration,
}

/// What one transfer measured.
struct Transfer {
    server: Server,
    outcome: std::result::Result<(f64, f64), String>,
}

/// The files of one key's run: the store with the key, a CA, the certificates.
struct Setup {
    dir: tempfile::TempDir,
    pin: String,
}

impl Setup {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn new(key: KeyAlgorithm) -> Result<Self> {
        let dir = tempfile::Builder::new().prefix("vss-bench-tls-").tempdir()?;
        let mut pin = [0u8; 12];
        vss_crypto::random_bytes(&mut pin)?;
        let setup = Setup {
            dir,
            pin: hex::encode(pin),
        };
        let store = setup.path("store");
        SoftHsm::init(&store, &setup.pin, &format!("{}-puk", setup.pin))?;
        let hsm = vss_hsm::open(&store, &setup.pin)?;
        let info = hsm.generate_key(&GenerateKeyRequest::new(LABEL, key))?;
        let public_pem = match key {
            KeyAlgorithm::Rsa(_) => hsm.rsa_public_key(&info.handle)?.to_spki_pem()?,
            KeyAlgorithm::Ec(_) => hsm.public_key(&info.handle)?.to_spki_pem()?,
        };
        std::fs::write(setup.path("vss-pub.pem"), public_pem)?;
        std::fs::write(setup.path("san.ext"), "subjectAltName=DNS:localhost\n")?;
        let keygen: Vec<String> = match key {
            KeyAlgorithm::Rsa(bits) => vec![
                "-algorithm".into(),
                "RSA".into(),
                "-pkeyopt".into(),
                format!("rsa_keygen_bits:{}", bits.bits()),
            ],
            KeyAlgorithm::Ec(curve) => vec![
                "-algorithm".into(),
                "EC".into(),
                "-pkeyopt".into(),
                format!(
                    "ec_paramgen_curve:{}",
                    match curve {
                        vss_crypto::Curve::P384 => "P-384",
                        _ => "P-256",
                    }
                ),
            ],
        };
        let dir = setup.dir.path();
        openssl(dir, &["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
            "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-subj", "/CN=vss bench CA",
            "-days", "2"])?;
        let mut genpkey = vec!["genpkey".to_owned()];
        genpkey.extend(keygen);
        genpkey.extend(["-out".into(), "file.key".into()]);
        openssl(dir, &genpkey.iter().map(String::as_str).collect::<Vec<_>>())?;
        openssl(dir, &["req", "-new", "-key", "file.key", "-subj", "/CN=localhost", "-out",
            "file.csr"])?;
        openssl(dir, &["x509", "-req", "-in", "file.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-extfile", "san.ext", "-days", "2", "-out", "file.pem"])?;
        openssl(dir, &["x509", "-new", "-subj", "/CN=localhost", "-force_pubkey",
            "vss-pub.pem", "-CA", "ca.pem", "-CAkey", "ca.key", "-extfile", "san.ext", "-days",
            "2", "-out", "vss.pem"])?;
        Ok(setup)
    }

    /// A client configuration trusting the run's CA, resumption off.
    fn client(&self, aes_256_only: bool) -> Result<Arc<ClientConfig>> {
        let mut roots = RootCertStore::empty();
        for cert in CertificateDer::pem_file_iter(self.path("ca.pem"))? {
            roots.add(cert?)?;
        }
        let mut provider = rustls::crypto::aws_lc_rs::default_provider();
        if aes_256_only {
            provider.cipher_suites =
                vec![rustls::crypto::aws_lc_rs::cipher_suite::TLS13_AES_256_GCM_SHA384];
        }
        let mut config = ClientConfig::builder_with_provider(Arc::new(provider))
            .with_protocol_versions(&[&rustls::version::TLS13])?
            .with_root_certificates(roots)
            .with_no_client_auth();
        config.resumption = rustls::client::Resumption::disabled();
        Ok(Arc::new(config))
    }
}

fn openssl(dir: &Path, args: &[&str]) -> Result<()> {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .context("cannot run openssl (apt-get install openssl)")?;
    if !out.status.success() {
        bail!(
            "openssl {}: {}",
            args.first().unwrap_or(&""),
            String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or("")
        );
    }
    Ok(())
}

/// A port nothing listens on now.
fn free_port() -> Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Reads `reader` in a thread until `ready` appears in a line (the port parsed from it when
/// `port` says how), then drains it; the port, or an error after [`START_TIMEOUT`].
fn wait_ready(
    reader: impl Read + Send + 'static,
    ready: &'static str,
    port: impl Fn(&str) -> Option<u16> + Send + 'static,
) -> Result<u16> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut lines = BufReader::new(reader).lines();
        for line in lines.by_ref().map_while(std::result::Result::ok) {
            if line.contains(ready) {
                let _ = tx.send(port(&line));
                break;
            }
        }
        for _ in lines {}
    });
    rx.recv_timeout(START_TIMEOUT)
        .map_err(|_| anyhow!("the server did not start within {START_TIMEOUT:?}"))?
        .ok_or_else(|| anyhow!("the server printed no port"))
}

/// The pkcs11 engine's configuration for OpenSSL, naming `module`.
fn engine_config(setup: &Setup, engine: &Path, module: &Path) -> Result<PathBuf> {
    let path = setup.path("engine.cnf");
    std::fs::write(
        &path,
        format!(
            "openssl_conf = openssl_init\n[openssl_init]\nengines = engine_section\n\
             [engine_section]\npkcs11 = pkcs11_section\n[pkcs11_section]\nengine_id = pkcs11\n\
             dynamic_path = {}\nMODULE_PATH = {}\ninit = 0\n",
            engine.display(),
            module.display()
        ),
    )?;
    Ok(path)
}

/// Paths server (b) needs, or why it cannot run here.
struct Pkcs11Paths {
    engine: PathBuf,
    module: PathBuf,
}

impl TlsArgs {
    fn pkcs11_paths(&self) -> std::result::Result<Pkcs11Paths, String> {
        let module = match &self.module {
            Some(m) => m.clone(),
            None => std::env::current_exe()
                .map_err(|e| e.to_string())?
                .with_file_name("libvss_pkcs11.so"),
        };
        if !module.is_file() {
            return Err(format!(
                "no PKCS#11 module at {} (cargo build -p vss-pkcs11, or --module)",
                module.display()
            ));
        }
        let engine = match &self.engine {
            Some(e) => Some(e.clone()),
            None => std::fs::read_dir("/usr/lib")
                .map_err(|e| e.to_string())?
                .flatten()
                .map(|d| d.path().join("engines-3/pkcs11.so"))
                .find(|p| p.is_file()),
        };
        match engine {
            Some(engine) if engine.is_file() => Ok(Pkcs11Paths { engine, module }),
            _ => Err(
                "OpenSSL's pkcs11 engine is not installed (apt-get install \
                 libengine-pkcs11-openssl, or --engine)"
                    .into(),
            ),
        }
    }

    fn start(
        &self,
        server: Server,
        setup: &Setup,
        backend: SocketAddr,
        pkcs11: &std::result::Result<Pkcs11Paths, String>,
    ) -> std::result::Result<Running, String> {
        let fail = |e: anyhow::Error| e.to_string();
        let s_server = |port: u16| {
            let mut cmd = Command::new("openssl");
            cmd.args(["s_server", "-accept", &format!("127.0.0.1:{port}"), "-WWW"])
                .current_dir(setup.dir.path())
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::null());
            cmd
        };
        let (mut cmd, port) = match server {
            Server::OpensslFile => {
                let port = free_port().map_err(fail)?;
                let mut cmd = s_server(port);
                cmd.args(["-cert", "file.pem", "-key", "file.key"]);
                (cmd, Some(port))
            }
            Server::OpensslPkcs11 => {
                let paths = pkcs11.as_ref().map_err(Clone::clone)?;
                let port = free_port().map_err(fail)?;
                let config = engine_config(setup, &paths.engine, &paths.module).map_err(fail)?;
                let mut cmd = s_server(port);
                cmd.args(["-engine", "pkcs11", "-keyform", "engine", "-key"])
                    .arg(format!("pkcs11:object={LABEL};type=private;pin-value={}", setup.pin))
                    .args(["-cert", "vss.pem"])
                    .env("OPENSSL_CONF", config)
                    .env("VSS_STORE", setup.path("store"));
                (cmd, Some(port))
            }
            Server::VssTls => {
                let exe = std::env::current_exe().map_err(|e| e.to_string())?;
                let mut cmd = Command::new(exe);
                cmd.args(["tls", "serve", "--listen", "127.0.0.1:0", "--backend"])
                    .arg(backend.to_string())
                    .arg("--store")
                    .arg(setup.path("store"))
                    .arg("--cert")
                    .arg(setup.path("vss.pem"))
                    .args(["--key", LABEL])
                    .env("VSS_PIN", &setup.pin)
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped());
                (cmd, None)
            }
        };
        let mut child = cmd.spawn().map_err(|e| format!("cannot start the server: {e}"))?;
        let port = match port {
            Some(port) => {
                let stdout = child.stdout.take().ok_or("no stdout")?;
                wait_ready(stdout, "ACCEPT", move |_| Some(port))
            }
            None => {
                let stderr = child.stderr.take().ok_or("no stderr")?;
                wait_ready(stderr, "terminating TLS on", |line| {
                    line.split_whitespace()
                        .find_map(|w| w.strip_prefix("127.0.0.1:"))
                        .and_then(|p| p.parse().ok())
                })
            }
        };
        match port {
            Ok(port) => Ok(Running { child, port }),
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                Err(e.to_string())
            }
        }
    }
}

/// One full handshake: its time from connect to the end of the handshake.
fn handshake(config: &Arc<ClientConfig>, port: u16) -> Result<Duration> {
    let start = Instant::now();
    let tcp = TcpStream::connect(("127.0.0.1", port))?;
    tcp.set_nodelay(true)?;
    tcp.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut conn = ClientConnection::new(Arc::clone(config), ServerName::try_from("localhost")?)?;
    let mut tls = StreamOwned::new(conn.clone_placeholder(), tcp);
    drop(&mut conn);
    while tls.conn.is_handshaking() {
        tls.conn.complete_io(&mut tls.sock)?;
    }
    let took = start.elapsed();
    tls.conn.send_close_notify();
    let _ = tls.conn.complete_io(&mut tls.sock);
    Ok(took)
}
