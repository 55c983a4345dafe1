//! The entity under test: a throw-away key store with its PIN file, the bench PKI's root and
//! AA on disk, and one configuration that this process and `vssd` both open.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use vss_core::config::{
    DaemonConfig, EngineConfig, HsmConfig, PolicyKind, ReplayCheckConfig, RepositoryConfig,
    StatisticsConfig, TrustConfig, VerificationConfig,
};
use vss_core::replay::{ReplayConfig, MAX_AGE_LIMIT, MAX_CAPACITY};
use vss_core::Config;
use vss_engine::EngineKind;
use vss_hsm::scratch::ScratchStore;
use vss_hsm::Backend;
use vss_its::Cert;

use crate::bench::ticket_pki::Pki;

/// How `vssd` batches `VerifyStream` requests and how many clients it serves.
pub(crate) struct DaemonSettings {
    pub(crate) batch_max: usize,
    pub(crate) batch_deadline: Duration,
    pub(crate) max_connections: usize,
}

/// The entity's directory and configuration; removed when dropped.
pub(crate) struct Entity {
    scratch: ScratchStore,
    /// The configuration (absolute paths).
    pub(crate) config: Config,
    /// Where it is written.
    pub(crate) path: PathBuf,
}

impl Entity {
    /// Builds it for `pki`: its root trusted, its AA known; every message verified (policy
    /// `always`); replays refused within [`MAX_AGE_LIMIT`] (the messages are all signed
    /// before the first measurement), `remembered` of them kept; statistics off.
    pub(crate) fn new(
        pki: &Pki,
        engine: EngineKind,
        daemon: DaemonSettings,
        remembered: usize,
    ) -> Result<Entity> {
        let scratch =
            ScratchStore::create("vss-bench-daemon-", "keys", Backend::Soft, Path::new(""))?;
        let root = scratch.dir();
        let pin_file = root.join("pin");
        vss_hsm::write_atomic(&pin_file, scratch.pin().as_bytes())?;
        let repository = root.join("repository");
        std::fs::create_dir(&repository)?;
        let anchor = write_cert(root, "root.cert", pki.root())?;
        let authority = write_cert(root, "aa.cert", &pki.aa)?;
        let config = Config {
            hsm: HsmConfig {
                store: scratch.store().to_path_buf(),
                pin_file: Some(pin_file),
            },
            repository: RepositoryConfig { dir: repository },
            trust: TrustConfig::new(vec![anchor], vec![authority], 16_384),
            pki: None,
            pseudonyms: Default::default(),
            verification: VerificationConfig {
                policy: PolicyKind::Always,
                ..Default::default()
            },
            replay: ReplayCheckConfig {
                enabled: true,
                max_age: MAX_AGE_LIMIT,
                max_lead: ReplayConfig::default().max_lead,
                capacity: remembered.clamp(1, MAX_CAPACITY),
            },
            engine: EngineConfig { kind: engine },
            frames: None,
            statistics: StatisticsConfig::default(),
            daemon: DaemonConfig {
                socket: root.join("vssd.sock"),
                batch_max: daemon.batch_max,
                batch_deadline: daemon.batch_deadline,
                max_connections: daemon.max_connections,
                // Every client of the bench is this user.
                max_connections_per_client: daemon.max_connections,
                ..Default::default()
            },
        };
        let path = root.join("vss.toml");
        let text = toml::to_string(&config).context("cannot write the configuration")?;
        std::fs::write(&path, text).with_context(|| format!("{}", path.display()))?;
        Ok(Entity {
            scratch,
            config,
            path,
        })
    }

    /// Its directory (for `vssd`'s log).
    pub(crate) fn dir(&self) -> &Path {
        self.scratch.dir()
    }

    /// Its key store, opened.
    pub(crate) fn open_store(&self) -> Result<Box<dyn vss_hsm::Hsm>> {
        Ok(self.scratch.open()?)
    }
}

fn write_cert(dir: &Path, name: &str, cert: &Cert) -> Result<PathBuf> {
    let path = dir.join(name);
    std::fs::write(&path, cert.bytes()).with_context(|| format!("{}", path.display()))?;
    Ok(path)
}
