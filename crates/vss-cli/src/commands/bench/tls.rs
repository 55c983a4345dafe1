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
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};
use serde_json::json;
use vss_crypto::KeyAlgorithm;
use vss_hsm::{GenerateKeyRequest, SoftHsm};

use super::finish;
use crate::output::{progress, Format, Table};
use vss_testbed::bench::measure::{percentile, process_cpu};

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
    #[arg(
        long,
        value_name = "KEYS",
        value_delimiter = ',',
        default_value = "rsa2048,rsa4096,p256"
    )]
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
    /// The last line the server printed after it started (`vss tls serve`'s counts when it
    /// stops).
    last_line: Arc<std::sync::Mutex<String>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Running {
    /// Stops `vss tls serve` with SIGTERM and reads its counts: signatures, batches and the
    /// largest batch.
    fn batches(&mut self) -> Option<(u64, u64, u64)> {
        let pid = self.child.id().to_string();
        Command::new("kill").args(["-TERM", &pid]).status().ok()?;
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.child.try_wait().ok()?.is_none() {
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        // The reader thread sees the last line at end of file, just after the exit.
        std::thread::sleep(Duration::from_millis(100));
        let line = self.last_line.lock().ok()?.clone();
        let numbers: Vec<u64> = line
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|w| w.parse().ok())
            .collect();
        // "stopped: H handshakes (F failed, R refused at the cap); S signatures in B
        // batches (largest L)"
        match numbers[..] {
            [_, _, _, signatures, batches, largest] => Some((signatures, batches, largest)),
            _ => None,
        }
    }

    /// The CPU time the server has used so far (every thread, live or gone).
    fn cpu(&self) -> Result<Duration> {
        process_cpu(self.child.id())
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
    /// `vss tls serve`'s signatures, batches and largest batch over the whole run.
    batches: Option<(u64, u64, u64)>,
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
        let dir = tempfile::Builder::new()
            .prefix("vss-bench-tls-")
            .tempdir()?;
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
        openssl(
            dir,
            &[
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:P-256",
                "-nodes",
                "-keyout",
                "ca.key",
                "-out",
                "ca.pem",
                "-subj",
                "/CN=vss bench CA",
                "-days",
                "2",
            ],
        )?;
        let mut genpkey = vec!["genpkey".to_owned()];
        genpkey.extend(keygen);
        genpkey.extend(["-out".into(), "file.key".into()]);
        openssl(dir, &genpkey.iter().map(String::as_str).collect::<Vec<_>>())?;
        openssl(
            dir,
            &[
                "req",
                "-new",
                "-key",
                "file.key",
                "-subj",
                "/CN=localhost",
                "-out",
                "file.csr",
            ],
        )?;
        openssl(
            dir,
            &[
                "x509", "-req", "-in", "file.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-extfile",
                "san.ext", "-days", "2", "-out", "file.pem",
            ],
        )?;
        openssl(
            dir,
            &[
                "x509",
                "-new",
                "-subj",
                "/CN=localhost",
                "-force_pubkey",
                "vss-pub.pem",
                "-CA",
                "ca.pem",
                "-CAkey",
                "ca.key",
                "-extfile",
                "san.ext",
                "-days",
                "2",
                "-out",
                "vss.pem",
            ],
        )?;
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
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .next()
                .unwrap_or("")
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
    last_line: Arc<std::sync::Mutex<String>>,
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
        for line in lines.map_while(std::result::Result::ok) {
            if let Ok(mut last) = last_line.lock() {
                *last = line;
            }
        }
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
            _ => Err("OpenSSL's pkcs11 engine is not installed (apt-get install \
                 libengine-pkcs11-openssl, or --engine)"
                .into()),
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
                    .arg(format!(
                        "pkcs11:object={LABEL};type=private;pin-value={}",
                        setup.pin
                    ))
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
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start the server: {e}"))?;
        let last_line = Arc::new(std::sync::Mutex::new(String::new()));
        let last = Arc::clone(&last_line);
        let port = match port {
            Some(port) => {
                let stdout = child.stdout.take().ok_or("no stdout")?;
                wait_ready(stdout, "ACCEPT", move |_| Some(port), last)
            }
            None => {
                let stderr = child.stderr.take().ok_or("no stderr")?;
                let port = |line: &str| {
                    line.split_whitespace()
                        .find_map(|w| w.strip_prefix("127.0.0.1:"))
                        .and_then(|p| p.parse().ok())
                };
                wait_ready(stderr, "terminating TLS on", port, last)
            }
        };
        match port {
            Ok(port) => Ok(Running {
                child,
                port,
                last_line,
            }),
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
    let mut tcp = TcpStream::connect(("127.0.0.1", port))?;
    tcp.set_nodelay(true)?;
    tcp.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut conn = ClientConnection::new(Arc::clone(config), ServerName::try_from("localhost")?)?;
    while conn.is_handshaking() {
        conn.complete_io(&mut tcp)?;
    }
    let took = start.elapsed();
    conn.send_close_notify();
    let _ = conn.complete_io(&mut tcp);
    Ok(took)
}

/// `clients` threads making handshakes until `seconds` pass: every connection time, and
/// the failures.
fn load(
    config: &Arc<ClientConfig>,
    port: u16,
    clients: u32,
    seconds: Duration,
) -> (Vec<Duration>, Vec<String>) {
    let deadline = Instant::now() + seconds;
    let threads: Vec<_> = (0..clients)
        .map(|_| {
            let config = Arc::clone(config);
            std::thread::spawn(move || {
                let (mut times, mut errors) = (Vec::new(), Vec::new());
                while Instant::now() < deadline {
                    match handshake(&config, port) {
                        Ok(took) => times.push(took),
                        Err(e) => {
                            errors.push(e.to_string());
                            // A server that fails keeps failing: stop this client.
                            break;
                        }
                    }
                }
                (times, errors)
            })
        })
        .collect();
    let (mut times, mut errors) = (Vec::new(), Vec::new());
    for thread in threads {
        match thread.join() {
            Ok((t, e)) => {
                times.extend(t);
                errors.extend(e);
            }
            Err(_) => errors.push("a client thread panicked".into()),
        }
    }
    (times, errors)
}

/// The path the transfer asks for; served from the run's directory by `s_server -WWW`, and
/// by the bench's backend behind `vss tls serve`.
const TRANSFER_PATH: &str = "transfer.bin";

/// Fetches the transfer file over one connection: the body's length and the time it took.
fn fetch(config: &Arc<ClientConfig>, port: u16) -> Result<(u64, Duration)> {
    let start = Instant::now();
    let tcp = TcpStream::connect(("127.0.0.1", port))?;
    tcp.set_read_timeout(Some(Duration::from_secs(60)))?;
    let conn = ClientConnection::new(Arc::clone(config), ServerName::try_from("localhost")?)?;
    let mut tls = StreamOwned::new(conn, tcp);
    tls.write_all(format!("GET /{TRANSFER_PATH} HTTP/1.0\r\n\r\n").as_bytes())?;
    let mut buf = vec![0u8; 1 << 16];
    let (mut head, mut body) = (Vec::new(), 0u64);
    loop {
        let n = match tls.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            // s_server closes without close_notify after an HTTP/1.0 answer.
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(e) => return Err(e.into()),
        };
        if body == 0 && head.len() < 4096 && !head.ends_with(b"\r\n\r\n") {
            let mut rest = &buf[..n];
            while let Some((&b, tail)) = rest.split_first() {
                head.push(b);
                rest = tail;
                if head.ends_with(b"\r\n\r\n") {
                    break;
                }
            }
            body += rest.len() as u64;
        } else {
            body += n as u64;
        }
    }
    Ok((body, start.elapsed()))
}

/// The backend behind `vss tls serve`: a connection that asks for the transfer file gets it
/// (an HTTP/1.0 answer of `size` bytes); any other just ends.
fn backend(size: u64) -> Result<SocketAddr> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || serve_backend(stream, size));
        }
    });
    Ok(addr)
}

fn serve_backend(mut stream: TcpStream, size: u64) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && head.len() < 4096 {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    if !head.starts_with(format!("GET /{TRANSFER_PATH} ").as_bytes()) {
        return;
    }
    let chunk = vec![0x5a_u8; 1 << 20];
    if stream.write_all(b"HTTP/1.0 200 ok\r\n\r\n").is_err() {
        return;
    }
    let mut left = size;
    while left > 0 {
        let n = left.min(chunk.len() as u64) as usize;
        if stream.write_all(&chunk[..n]).is_err() {
            return;
        }
        left -= n as u64;
    }
}

/// "128M" and the like: bytes.
fn parse_size(text: &str) -> Result<u64> {
    let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => text.split_at(i),
        None => (text, ""),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| anyhow!("--transfer {text:?}: a number with K, M or G"))?;
    let scale = match unit {
        "" => 1,
        "K" | "k" => 1 << 10,
        "M" | "m" => 1 << 20,
        "G" | "g" => 1 << 30,
        _ => bail!("--transfer {text:?}: the unit is K, M or G"),
    };
    let bytes = n
        .checked_mul(scale)
        .filter(|b| (1..=MAX_TRANSFER).contains(b))
        .ok_or_else(|| anyhow!("--transfer is 1 byte to 4G"))?;
    Ok(bytes)
}

/// Seed 002's OpenVPN connection times (dual-core ARM, software → offload), seconds.
const SEED_CONNECTION: [(&str, f64, f64); 3] = [
    ("rsa1024", 0.042, 0.020),
    ("rsa2048", 0.203, 0.040),
    ("rsa4096", 1.437, 0.184),
];

impl TlsArgs {
    /// Runs the benchmark.
    pub fn run(self) -> Result<ExitCode> {
        if !(0.1..=600.0).contains(&self.seconds) {
            bail!("--seconds is 0.1 to 600");
        }
        if self.keys.is_empty() {
            bail!("--keys names no key");
        }
        let transfer = self.transfer.as_deref().map(parse_size).transpose()?;
        let seconds = Duration::from_secs_f64(self.seconds);
        let pkcs11 = self.pkcs11_paths();
        if let (Err(why), true) = (&pkcs11, self.module.is_some() || self.engine.is_some()) {
            bail!("server (b) cannot run: {why}");
        }
        let backend = backend(transfer.unwrap_or(0))?;
        let bar = progress((self.keys.len() * Server::ALL.len()) as u64, "tls");
        let mut rows = Vec::new();
        let mut transfers = Vec::new();
        for (k, &key) in self.keys.iter().enumerate() {
            let setup = Setup::new(key)?;
            if let (Some(size), 0) = (transfer, k) {
                let file = std::fs::File::create(setup.path(TRANSFER_PATH))?;
                file.set_len(size)?;
            }
            let client = setup.client(false)?;
            for server in Server::ALL {
                let outcome =
                    self.start(server, &setup, backend, &pkcs11)
                        .and_then(|mut running| {
                            let mut measured = measure(&running, &client, self.clients, seconds)
                                .map_err(|e| e.to_string());
                            if let (Some(size), 0) = (transfer, k) {
                                let aes = setup.client(true).map_err(|e| e.to_string())?;
                                transfers.push(Transfer {
                                    server,
                                    outcome: move_bytes(&running, &aes, size)
                                        .map_err(|e| e.to_string()),
                                });
                            }
                            if let (Ok(load), Server::VssTls) = (&mut measured, server) {
                                load.batches = running.batches();
                            }
                            measured
                        });
                rows.push(Row {
                    key,
                    server,
                    outcome,
                });
                bar.inc(1);
            }
        }
        bar.finish_and_clear();
        self.report(&rows, &transfers, transfer)
    }

    fn report(
        &self,
        rows: &[Row],
        transfers: &[Transfer],
        transfer: Option<u64>,
    ) -> Result<ExitCode> {
        let reference = |key: KeyAlgorithm| {
            rows.iter()
                .find(|r| r.key == key && r.server == Server::OpensslFile)
                .and_then(|r| r.outcome.as_ref().ok())
                .map(|l| l.per_second)
        };
        let mut table = Table::new(&[
            "key",
            "server",
            "handshakes/s",
            "p50 ms",
            "p99 ms",
            "CPU ms/handshake",
            "× (a)",
        ]);
        let mut json_rows = Vec::new();
        let mut failed = Vec::new();
        let mut batch_lines = Vec::new();
        for row in rows {
            match &row.outcome {
                Ok(load) => {
                    let ratio = reference(row.key).map(|r| load.per_second / r);
                    table.row(vec![
                        row.key.to_string(),
                        row.server.name().into(),
                        format!("{:.0}", load.per_second),
                        format!("{:.2}", load.p50.as_secs_f64() * 1e3),
                        format!("{:.2}", load.p99.as_secs_f64() * 1e3),
                        format!("{:.3}", load.cpu_per_handshake.as_secs_f64() * 1e3),
                        ratio.map_or("-".into(), |r| format!("{r:.2}")),
                    ]);
                    json_rows.push(json!({
                        "key": row.key.name(), "server": row.server.id(),
                        "handshakes": load.handshakes, "per_second": load.per_second,
                        "p50_ms": load.p50.as_secs_f64() * 1e3,
                        "p99_ms": load.p99.as_secs_f64() * 1e3,
                        "cpu_ms_per_handshake": load.cpu_per_handshake.as_secs_f64() * 1e3,
                        "ratio_to_openssl_file": ratio,
                        "signing_batches": load.batches.map(|(signatures, batches, largest)| json!({
                            "signatures": signatures, "batches": batches, "largest": largest,
                            "mean": signatures as f64 / batches.max(1) as f64,
                        })),
                    }));
                    if let Some((signatures, batches, largest)) = load.batches {
                        batch_lines.push(format!(
                            "{}: {signatures} signatures in {batches} batches (mean {:.2}, largest {largest})",
                            row.key,
                            signatures as f64 / batches.max(1) as f64
                        ));
                    }
                }
                Err(why) => {
                    if row.server != Server::OpensslPkcs11 || self.pkcs11_paths().is_ok() {
                        failed.push(format!("{} / {}: {why}", row.key, row.server.id()));
                    }
                    table.row(vec![
                        row.key.to_string(),
                        row.server.name().into(),
                        format!("not run: {why}"),
                        String::new(),
                        String::new(),
                        String::new(),
                        String::new(),
                    ]);
                    json_rows.push(json!({
                        "key": row.key.name(), "server": row.server.id(), "error": why,
                    }));
                }
            }
        }
        let mut text = table.render();
        if !batch_lines.is_empty() {
            text.push_str(&format!(
                "vss tls serve signing: {}\n",
                batch_lines.join("; ")
            ));
        }
        let mut json_transfers = Vec::new();
        if let Some(size) = transfer {
            let file = transfers
                .iter()
                .find(|t| t.server == Server::OpensslFile)
                .and_then(|t| t.outcome.as_ref().ok())
                .map(|(mb_s, _)| *mb_s);
            let mut t = Table::new(&["transfer (AES-256-GCM)", "MB/s", "server CPU s/MB", "× (a)"]);
            for transfer in transfers {
                match &transfer.outcome {
                    Ok((mb_s, cpu)) => {
                        let ratio = file.map(|f| mb_s / f);
                        t.row(vec![
                            transfer.server.name().into(),
                            format!("{mb_s:.0}"),
                            format!("{cpu:.5}"),
                            ratio.map_or("-".into(), |r| format!("{r:.2}")),
                        ]);
                        json_transfers.push(json!({
                            "server": transfer.server.id(), "mb_per_s": mb_s,
                            "cpu_s_per_mb": cpu, "ratio_to_openssl_file": ratio,
                        }));
                    }
                    Err(why) => {
                        failed.push(format!("transfer / {}: {why}", transfer.server.id()));
                        t.row(vec![
                            transfer.server.name().into(),
                            format!("failed: {why}"),
                            String::new(),
                            String::new(),
                        ]);
                        json_transfers.push(json!({"server": transfer.server.id(), "error": why}));
                    }
                }
            }
            text.push('\n');
            text.push_str(&format!("{} MB through each server:\n", size >> 20));
            text.push_str(&t.render());
        }
        text.push_str(&format!(
            "\n{} clients, {} s per server. Seed 002 (OpenVPN on a dual-core ARM, software → \
             offload): connection time {}.\n",
            self.clients,
            self.seconds,
            SEED_CONNECTION
                .iter()
                .map(|(k, sw, hw)| format!("{k} {sw} s → {hw} s"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        let json = json!({
            "clients": self.clients, "seconds": self.seconds,
            "rows": json_rows, "transfer_bytes": transfer, "transfer": json_transfers,
            "seed_002_connection_s": SEED_CONNECTION.iter()
                .map(|(k, sw, hw)| json!({"key": k, "software": sw, "offload": hw}))
                .collect::<Vec<_>>(),
        });
        finish(
            self.format,
            &json,
            &text,
            failed.is_empty(),
            &format!("some servers failed: {}", failed.join("; ")),
        )
    }
}

/// One load run against a started server.
fn measure(
    running: &Running,
    client: &Arc<ClientConfig>,
    clients: u32,
    seconds: Duration,
) -> std::result::Result<Load, String> {
    // One handshake first: the server is up and the key works (and s_server's engine has
    // logged in) before the clock starts.
    handshake(client, running.port).map_err(|e| format!("first handshake: {e}"))?;
    let cpu_before = running.cpu().map_err(|e| e.to_string())?;
    let start = Instant::now();
    let (mut times, errors) = load(client, running.port, clients, seconds);
    let wall = start.elapsed();
    let cpu = running.cpu().map_err(|e| e.to_string())? - cpu_before;
    if let Some(first) = errors.first() {
        return Err(format!(
            "{} failed handshakes, the first: {first}",
            errors.len()
        ));
    }
    if times.is_empty() {
        return Err("no handshake completed".into());
    }
    times.sort();
    let handshakes = times.len();
    Ok(Load {
        handshakes,
        per_second: handshakes as f64 / wall.as_secs_f64(),
        p50: percentile(&times, 0.50),
        p99: percentile(&times, 0.99),
        cpu_per_handshake: cpu / handshakes as u32,
        batches: None,
    })
}

/// The transfer through a started server: MB/s, and the server's CPU seconds per MB (the
/// fastest of three runs).
fn move_bytes(running: &Running, client: &Arc<ClientConfig>, size: u64) -> Result<(f64, f64)> {
    // Three times, the fastest kept: the first also warms the server's page cache.
    let mut best: Option<(f64, f64)> = None;
    for _ in 0..3 {
        let cpu_before = running.cpu()?;
        let (got, took) = fetch(client, running.port)?;
        let cpu = running.cpu()? - cpu_before;
        if got != size {
            bail!("received {got} bytes of {size}");
        }
        let mb = size as f64 / (1u64 << 20) as f64;
        let run = (mb / took.as_secs_f64(), cpu.as_secs_f64() / mb);
        if best.is_none_or(|(rate, _)| run.0 > rate) {
            best = Some(run);
        }
    }
    best.ok_or_else(|| anyhow!("no transfer"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_take_k_m_g_and_are_bounded() {
        assert_eq!(parse_size("128M").ok(), Some(128 << 20));
        assert_eq!(parse_size("4k").ok(), Some(4096));
        assert_eq!(parse_size("1").ok(), Some(1));
        for bad in ["", "0", "M", "5T", "5G", "99999999999999999999", "-1"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }
}
