//! `vss testbed up`: the loopback PKIs of [`Testbed`] with one station enrolled and
//! provisioned, and beside them a configuration for `vssd` that names its PIN file, its
//! socket and a free loopback port for metrics.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use vss_core::Result;

use crate::loopback::{io_error, Testbed, PIN};
use crate::HsmOptions;

/// The PKIs of a [`ServiceTestbed`]: the station is enrolled at the first and takes its
/// tickets from its AA; the second is trusted, as `vss demo`'s peer PKI is.
pub const SERVICE_PKIS: [&str; 2] = ["pki-a", "pki-b"];
/// The canonical id of a [`ServiceTestbed`]'s station.
pub const SERVICE_STATION: &str = "station-1";
/// The configuration file a [`ServiceTestbed`] writes for `vssd`, in its directory.
pub const SERVICE_CONFIG: &str = "vss.toml";
/// The file holding [`PIN`] beside it (mode 0600), named by `[hsm] pin_file`.
const SERVICE_PIN: &str = "pin";
/// The Unix socket `vssd` is to serve on, in the directory.
const SERVICE_SOCKET: &str = "vssd.sock";
/// The longest Unix socket path (Linux's `sun_path` less its NUL): 107 bytes.
pub const MAX_SOCKET_PATH: usize = 107;

/// A testbed for `vssd` (`vss testbed up`): [`SERVICE_PKIS`] on loopback, one station
/// enrolled at the first with tickets from its AA, and beside them a configuration for
/// `vssd` that names its PIN file, its socket and a free loopback port for metrics.
pub struct ServiceTestbed {
    /// The PKIs; closing it stops them and removes what was made.
    pub testbed: Testbed,
    /// The station's canonical id.
    pub station: String,
    /// The configuration file (absolute).
    pub config: PathBuf,
    /// The Unix socket in the configuration (`[daemon] socket`).
    pub socket: PathBuf,
    /// Where `vssd` is to serve metrics (`[daemon] metrics`).
    pub metrics: SocketAddr,
    /// The tickets in the station's pool.
    pub pseudonyms: usize,
}

impl ServiceTestbed {
    /// Builds it in `dir` (empty or new, as [`Testbed::in_dir`]) with `pseudonyms` tickets
    /// (the AA's batch bounds apply); the socket path must fit [`MAX_SOCKET_PATH`].
    pub fn up(dir: &Path, pseudonyms: usize) -> Result<ServiceTestbed> {
        let socket = std::path::absolute(dir)
            .map_err(|e| io_error(dir, e))?
            .join(SERVICE_SOCKET);
        if socket.as_os_str().len() > MAX_SOCKET_PATH {
            return Err(io_error(
                &socket,
                std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("longer than a Unix socket path may be ({MAX_SOCKET_PATH} bytes)"),
                ),
            )
            .into());
        }
        let testbed = Testbed::in_dir(dir, &SERVICE_PKIS)?;
        let home = &testbed.pkis[0];
        let station = testbed.station(SERVICE_STATION, &HsmOptions::soft())?;
        station.enroll(home)?;
        let tickets = station.pseudonyms(home, home, pseudonyms)?.len();
        let mut config = station.config(&testbed, home, home, &station.dir.join("stats"));
        config.hsm.pin_file = Some(PathBuf::from(SERVICE_PIN));
        config.daemon.socket = socket.clone();
        let metrics = free_loopback_port()?;
        config.daemon.metrics = Some(metrics);
        let dir = testbed.dir();
        write_private(&dir.join(SERVICE_PIN), PIN.as_bytes())?;
        let path = dir.join(SERVICE_CONFIG);
        let text = toml::to_string(&config).map_err(|e| vss_core::Error::Config {
            path: path.clone(),
            detail: e.to_string(),
        })?;
        std::fs::write(&path, text).map_err(|e| io_error(&path, e))?;
        Ok(ServiceTestbed {
            station: station.name.clone(),
            config: path,
            socket,
            metrics,
            pseudonyms: tickets,
            testbed,
        })
    }
}

/// A port on 127.0.0.1 that was free a moment ago (bound, then let go).
fn free_loopback_port() -> Result<SocketAddr> {
    let any = SocketAddr::from(([127, 0, 0, 1], 0));
    std::net::TcpListener::bind(any)
        .and_then(|listener| listener.local_addr())
        .map_err(|e| io_error(Path::new("127.0.0.1:0"), e).into())
}

/// Writes a new file only its owner may read (mode 0600).
fn write_private(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .and_then(|mut file| file.write_all(bytes))
        .map_err(|e| io_error(path, e).into())
}
