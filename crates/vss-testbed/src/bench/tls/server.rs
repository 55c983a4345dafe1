//! The three servers under test and their process control: where server (b)'s engine and
//! module are, how each server is started and known to be listening, its CPU time, and
//! `vss tls serve`'s signing counts when it stops.

use std::io::{BufRead, BufReader, Read};
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};

use super::certs::{Setup, LABEL};
use crate::bench::measure::process_cpu;

/// How long a server may take to start listening.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// The three servers of the experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Server {
    /// `openssl s_server`, the key in a PEM file.
    OpensslFile,
    /// `openssl s_server -engine pkcs11`, the key in VSS through libvss_pkcs11.so.
    OpensslPkcs11,
    /// `vss tls serve`.
    VssTls,
}

impl Server {
    /// Every server, in the order of the report.
    pub(super) const ALL: [Server; 3] =
        [Server::OpensslFile, Server::OpensslPkcs11, Server::VssTls];

    /// Its name in the table.
    pub(super) fn name(self) -> &'static str {
        match self {
            Server::OpensslFile => "openssl s_server, key in file",
            Server::OpensslPkcs11 => "openssl s_server, key in VSS (pkcs11)",
            Server::VssTls => "vss tls serve",
        }
    }

    /// Its name in the JSON document and the failures.
    pub(super) fn id(self) -> &'static str {
        match self {
            Server::OpensslFile => "openssl-file",
            Server::OpensslPkcs11 => "openssl-pkcs11",
            Server::VssTls => "vss-tls",
        }
    }
}

/// Paths server (b) needs.
pub(super) struct Pkcs11Paths {
    engine: PathBuf,
    module: PathBuf,
}

impl Pkcs11Paths {
    /// The PKCS#11 `module` (default: libvss_pkcs11.so beside `vss`) and OpenSSL's pkcs11
    /// `engine` (default: the first /usr/lib/*/engines-3/pkcs11.so), or why server (b)
    /// cannot run here.
    pub(super) fn find(
        module: Option<&Path>,
        engine: Option<&Path>,
        vss: &Path,
    ) -> std::result::Result<Self, String> {
        let module = match module {
            Some(m) => m.to_path_buf(),
            None => vss.with_file_name("libvss_pkcs11.so"),
        };
        if !module.is_file() {
            return Err(format!(
                "no PKCS#11 module at {} (cargo build -p vss-pkcs11, or --module)",
                module.display()
            ));
        }
        let engine = match engine {
            Some(e) => Some(e.to_path_buf()),
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

    /// The pkcs11 engine's configuration for OpenSSL, written into the run's directory.
    fn engine_config(&self, setup: &Setup) -> Result<PathBuf> {
        let path = setup.path("engine.cnf");
        std::fs::write(
            &path,
            format!(
                "openssl_conf = openssl_init\n[openssl_init]\nengines = engine_section\n\
                 [engine_section]\npkcs11 = pkcs11_section\n[pkcs11_section]\nengine_id = pkcs11\n\
                 dynamic_path = {}\nMODULE_PATH = {}\ninit = 0\n",
                self.engine.display(),
                self.module.display()
            ),
        )?;
        Ok(path)
    }
}

/// What a server is started with: the run's files, the backend behind `vss tls serve`,
/// server (b)'s paths (or why it cannot run), and the `vss` executable.
pub(super) struct Launch<'a> {
    /// The run's store, keys and certificates.
    pub(super) setup: &'a Setup,
    /// The plain TCP backend `vss tls serve` forwards to.
    pub(super) backend: SocketAddr,
    /// Server (b)'s engine and module, or why it cannot run.
    pub(super) pkcs11: &'a std::result::Result<Pkcs11Paths, String>,
    /// The `vss` executable of server (c).
    pub(super) vss: &'a Path,
}

/// A running server, killed when dropped.
pub(super) struct Running {
    child: Child,
    /// The port it listens on.
    pub(super) port: u16,
    /// The last line the server printed after it started (`vss tls serve`'s counts when it
    /// stops).
    last_line: Arc<Mutex<String>>,
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
    pub(super) fn batches(&mut self) -> Option<(u64, u64, u64)> {
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
    pub(super) fn cpu(&self) -> Result<Duration> {
        process_cpu(self.child.id())
    }
}

/// Starts `server` and waits until it listens; why it could not, as the report says it.
pub(super) fn start(server: Server, launch: &Launch) -> std::result::Result<Running, String> {
    let (mut cmd, port) = command(server, launch).map_err(|e| e.to_string())?;
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start the server: {e}"))?;
    let last_line = Arc::new(Mutex::new(String::new()));
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

/// The command that runs `server`, and the port it will listen on when that is chosen
/// here (`vss tls serve` picks its own and says it).
fn command(server: Server, launch: &Launch) -> Result<(Command, Option<u16>)> {
    let setup = launch.setup;
    let s_server = |port: u16| {
        let mut cmd = Command::new("openssl");
        cmd.args(["s_server", "-accept", &format!("127.0.0.1:{port}"), "-WWW"])
            .current_dir(setup.dir())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        cmd
    };
    Ok(match server {
        Server::OpensslFile => {
            let port = free_port()?;
            let mut cmd = s_server(port);
            cmd.args(["-cert", "file.pem", "-key", "file.key"]);
            (cmd, Some(port))
        }
        Server::OpensslPkcs11 => {
            let paths = launch.pkcs11.as_ref().map_err(|why| anyhow!("{why}"))?;
            let port = free_port()?;
            let config = paths.engine_config(setup)?;
            let mut cmd = s_server(port);
            cmd.args(["-engine", "pkcs11", "-keyform", "engine", "-key"])
                .arg(format!(
                    "pkcs11:object={LABEL};type=private;pin-value={}",
                    setup.pin()
                ))
                .args(["-cert", "vss.pem"])
                .env("OPENSSL_CONF", config)
                .env("VSS_STORE", setup.store());
            (cmd, Some(port))
        }
        Server::VssTls => {
            let mut cmd = Command::new(launch.vss);
            cmd.args(["tls", "serve", "--listen", "127.0.0.1:0", "--backend"])
                .arg(launch.backend.to_string())
                .arg("--store")
                .arg(setup.store())
                .arg("--cert")
                .arg(setup.path("vss.pem"))
                .args(["--key", LABEL])
                .env(vss_hsm::pin::PIN_ENV, setup.pin())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped());
            (cmd, None)
        }
    })
}

/// A port nothing listens on now.
fn free_port() -> Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Reads `reader` in a thread until `ready` appears in a line (the port parsed from it when
/// `port` says how), then drains it, keeping the last line; the port, or an error after
/// [`START_TIMEOUT`].
fn wait_ready(
    reader: impl Read + Send + 'static,
    ready: &'static str,
    port: impl Fn(&str) -> Option<u16> + Send + 'static,
    last_line: Arc<Mutex<String>>,
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
