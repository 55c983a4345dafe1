//! The harness of the vssd tests: a testbed PKI on loopback, a station enrolled with a few
//! pseudonyms, its `vss.toml` with a PIN file, the real `vssd` binary serving it on a Unix
//! socket in a temporary directory, and a tonic client on that socket.

// Each test file uses a different subset of these helpers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use tonic::transport::Channel;
use vss_core::Config;
use vss_proto::proto::security_entity_client::SecurityEntityClient;
use vss_testbed::{HsmOptions, Testbed, PIN};

/// How long vssd gets to start or stop.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// A station of a testbed with its configuration, ready for vssd.
pub struct Station {
    /// The PKIs (served while this lives).
    pub testbed: Testbed,
    /// The configuration file.
    pub config_path: PathBuf,
    /// The configuration in it.
    pub config: Config,
    /// A directory for the test's own files.
    pub dir: PathBuf,
}

impl Station {
    /// PKIs named `pkis` (the station enrols at the first), `tickets` pseudonyms, the socket
    /// in the testbed's directory; `adjust` changes the configuration before it is written.
    pub fn new(pkis: &[&str], tickets: usize, adjust: impl FnOnce(&mut Config)) -> Station {
        let testbed = Testbed::new(pkis).expect("testbed");
        let pki = &testbed.pkis[0];
        let station = testbed.station("S", &HsmOptions::soft()).expect("station");
        station.enroll(pki).expect("enrol");
        station.pseudonyms(pki, pki, tickets).expect("tickets");
        let dir = testbed.dir().join("daemon");
        std::fs::create_dir_all(&dir).expect("dir");
        let mut config = station.config(&testbed, pki, pki, &dir.join("stats"));
        let pin = dir.join("pin");
        std::fs::write(&pin, format!("{PIN}\n")).expect("pin");
        config.hsm.pin_file = Some(pin);
        config.daemon.socket = dir.join("run").join("vss.sock");
        adjust(&mut config);
        let config_path = dir.join("vss.toml");
        let station = Station {
            testbed,
            config_path,
            config,
            dir,
        };
        station.write_config(&station.config);
        station
    }

    /// Writes `config` to the configuration file.
    pub fn write_config(&self, config: &Config) {
        std::fs::write(&self.config_path, toml::to_string(config).expect("toml"))
            .expect("write config");
    }

    /// The statistics directory.
    pub fn stats(&self) -> PathBuf {
        self.config.statistics.dir.clone()
    }
}

/// A running vssd.
pub struct Daemon {
    /// The process.
    pub child: Child,
    /// Its socket.
    pub socket: PathBuf,
    /// Its stderr, in a file.
    pub log: PathBuf,
}

/// `vssd --config PATH` with `env` set, stderr to a file in `dir`.
pub fn command(config: &Path, dir: &Path, env: &[(&str, &str)]) -> (Command, PathBuf) {
    let log = dir.join(format!(
        "vssd-{}.log",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("time")
            .as_nanos()
    ));
    let mut command = Command::new(env!("CARGO_BIN_EXE_vssd"));
    command
        .arg("--config")
        .arg(config)
        .env_remove("VSS_PIN")
        .env_remove("CREDENTIALS_DIRECTORY")
        .env_remove("NOTIFY_SOCKET")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).expect("log"));
    for (key, value) in env {
        command.env(key, value);
    }
    (command, log)
}

impl Daemon {
    /// Starts vssd for `station` with `env` and waits until its socket answers.
    pub fn start(station: &Station, env: &[(&str, &str)]) -> Daemon {
        let (mut command, log) = command(&station.config_path, &station.dir, env);
        let child = command.spawn().expect("spawn vssd");
        let mut daemon = Daemon {
            child,
            socket: station.config.daemon.socket.clone(),
            log,
        };
        let started = Instant::now();
        while std::os::unix::net::UnixStream::connect(&daemon.socket).is_err() {
            if let Ok(Some(status)) = daemon.child.try_wait() {
                panic!("vssd exited with {status}: {}", daemon.stderr());
            }
            assert!(started.elapsed() < PATIENCE, "vssd did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        daemon
    }

    /// What it wrote to stderr.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Sends it `signal` (e.g. `TERM`, `HUP`) with kill(1).
    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.child.id().to_string())
            .status()
            .expect("kill");
        assert!(status.success());
    }

    /// Waits for it to exit.
    pub fn wait(&mut self) -> ExitStatus {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            assert!(started.elapsed() < PATIENCE, "vssd did not stop");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// A client on its socket.
    pub async fn client(&self) -> SecurityEntityClient<Channel> {
        vss_proto::client::connect(&self.socket)
            .await
            .expect("connect")
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        // Stopped already in most tests.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Lines of the statistics files in `dir` whose function is `function`.
pub fn stats_lines(dir: &Path, function: &str) -> usize {
    std::fs::read_dir(dir)
        .expect("stats dir")
        .map(|e| std::fs::read_to_string(e.expect("entry").path()).expect("stats"))
        .map(|text| {
            text.lines()
                .filter(|l| l.split('\t').nth(1) == Some(function))
                .count()
        })
        .sum()
}

fn openssl(dir: &Path, args: &[&str]) -> bool {
    Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A CA, a server certificate for localhost and a client certificate, PEM files in `dir`;
/// false when the openssl command is missing or fails.
pub fn certificates(dir: &Path) -> bool {
    let key = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
    ];
    let ca = [
        &["req", "-x509"][..],
        &key,
        &[
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-days",
            "1",
            "-subj",
            "/CN=vssd test CA",
        ],
        &["-addext", "basicConstraints=critical,CA:TRUE"],
        &["-addext", "keyUsage=critical,keyCertSign"],
    ]
    .concat();
    if !openssl(dir, &ca) {
        return false;
    }
    for (name, usage) in [("server", "serverAuth"), ("client", "clientAuth")] {
        let ext = format!("{name}.ext");
        std::fs::write(
            dir.join(&ext),
            format!(
                "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage={usage}\n"
            ),
        )
        .expect("ext");
        let (keyfile, csr, pem) = (
            format!("{name}.key"),
            format!("{name}.csr"),
            format!("{name}.pem"),
        );
        let request = [
            &["req"][..],
            &key,
            &["-keyout", &keyfile, "-out", &csr, "-subj", "/CN=localhost"],
        ]
        .concat();
        let sign = [
            "x509",
            "-req",
            "-in",
            &csr,
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            &pem,
            "-days",
            "1",
            "-extfile",
            &ext,
        ];
        if !openssl(dir, &request) || !openssl(dir, &sign) {
            return false;
        }
    }
    true
}

/// A client on a new connection to `socket` whose windows are HTTP/2's least (64 KiB): it
/// takes few answers to fill them, and then vssd stops reading its requests.
pub async fn small_window_client(socket: &Path) -> SecurityEntityClient<Channel> {
    let path = socket.to_path_buf();
    let connector = tower::service_fn(move |_: tonic::transport::Uri| {
        let path = path.clone();
        async move {
            Ok::<_, std::io::Error>(hyper_util::rt::TokioIo::new(
                tokio::net::UnixStream::connect(&path).await?,
            ))
        }
    });
    let channel = tonic::transport::Endpoint::from_static("http://localhost")
        .initial_stream_window_size(65_535)
        .initial_connection_window_size(65_535)
        .connect_with_connector(connector)
        .await
        .expect("connect");
    SecurityEntityClient::new(channel)
}
