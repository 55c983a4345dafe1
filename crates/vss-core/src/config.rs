//! The configuration of the security entity: one TOML file (seed 000's `pcom.cfg`). Every
//! key is documented here; an unknown key is an error, so a typo never silently falls back
//! to a default. Relative paths are taken from the file's directory.
//!
//! ```toml
//! [hsm]
//! store = "keys"                 # a `vss` key store (soft or PKCS#11, as its hsm.json says)
//! pin_file = "pin"               # optional: its PIN, one line (else $CREDENTIALS_DIRECTORY/
//!                                # vss-pin, else $VSS_PIN; see vss_core::pin)
//!
//! [repository]
//! dir = "repository"             # certificates beside their .meta (vss station …)
//!
//! [trust]                        # at least one of anchors and store
//! anchors = ["root-a.cert"]      # root certificates (COER)
//! authorities = ["aa-a.cert"]    # EA/AA certificates known in advance (as from a trust list)
//! cache_capacity = 1024          # validated certificates kept
//! store = "trust"                # optional: a station trust store (vss station trust-update):
//!                                # its roots are anchors, their CTLs and CRLs are obeyed
//! stale_crl = "refuse"           # a root's CRL past its next update: refuse | warn
//!
//! [trust.update]                 # optional: the entity keeps the store current itself
//! tlm_cert = "tlm.cert"          # the pinned TLM certificate
//! ectl = "http://dc.example/getectl/0123456789ABCDEF"   # or a file
//! every = "6h"                   # from 1m to 7d
//!
//! [pki]                          # optional: where new pseudonyms come from
//! aa_url = "http://127.0.0.1:8080"
//! aa_cert = "aa.cert"
//! ea_cert = "ea.cert"
//!
//! [pseudonyms]
//! psids = [36, 37]               # what the tickets are asked for
//! max_uses = 100                 # signatures per pseudonym before it changes
//! max_age = "5m"                 # time in use before it changes
//! min_pool = 5                   # refill below this many unused tickets …
//! ask_new_pseudonyms = true      # … if this is on (needs [pki])
//! request_count = 10             # tickets per refill
//! change_needs_listener = true   # change only with a network-id listener registered
//!
//! [verification]
//! policy = "sampling"            # always | sampling | on_demand
//! sample_every = 10              # sampling: one message in N per sender
//! prepared_keys_mb = 32          # memory for prepared keys of repeat signers (86 KiB per
//!                                # 256-bit key, 192 KiB per 384-bit one; 0 turns them off,
//!                                # at most 4096); the least recently used go first,
//!                                # once unused for a second
//! prepare_after = 8              # a signer's signatures checked by the library before its
//!                                # key is prepared (1-65536; a table costs ~9 verifications)
//!
//! [replay]                       # received messages accepted once, and only when fresh
//! enabled = true
//! max_age = "10s"                # older generation times are refused (at most 1h)
//! max_lead = "1s"                # … and those this far ahead of the clock (at most 1m)
//! capacity = 65536               # accepted messages remembered (at most 16777216)
//!
//! [engine]
//! kind = "cpu"                   # where batches of signatures are checked: cpu (all
//!                                # cores) | gpu (CUDA; a vss built with the gpu feature)
//!
//! [frames]                       # optional: frames addressed to this station
//! certificate = "rx.cert"        # a certificate with an encryption key …
//! key = "rx-enc"                 # … whose private half is this HSM key
//!
//! [statistics]
//! enabled = false
//! dir = "stats"
//! files = 4                      # stats.1 … stats.4, then stats.1 again
//! max_bytes = 65536              # per file
//!
//! [daemon]                       # vssd, the entity as a gRPC service (vss.v1)
//! socket = "/run/vss/vss.sock"   # Unix socket, mode 0660
//! metrics = "127.0.0.1:9464"     # optional: Prometheus /metrics over HTTP
//! batch_max = 64                 # VerifyStream: messages per engine batch (1-4096) …
//! batch_deadline = "2ms"         # … or what arrived within this (at most 1s)
//! max_message_bytes = 65536      # largest payload or message in a request (at most 16 MiB)
//! max_connections = 256          # connections at once, per listener (1-65536)
//! max_connections_per_client = 128 # per Unix uid / TCP peer address, per listener
//! max_streams_per_connection = 16 # HTTP/2 streams (calls) at once per connection (1-1024)
//! header_timeout = "10s"         # from accept: TLS handshake and HTTP/2 preface (at most 1h)
//! write_timeout = "10s"          # a write blocked by a client that does not read (at most 1h)
//! request_timeout = "10s"        # a unary call's limit (at most 1h)
//! stream_timeout = "1h"          # a VerifyStream's limit (at most 1h)
//! shutdown_grace = "10s"         # SIGTERM: in-flight calls get this long (at most 10m)
//!
//! [daemon.tcp]                   # optional: gRPC over TCP with mutual TLS
//! listen = "0.0.0.0:50051"
//! certificate = "vssd.pem"       # the server's X.509 certificate chain (PEM) …
//! key = "vssd.key"               # … and its key (PEM, PKCS#8)
//! client_ca = "clients-ca.pem"   # clients must present a certificate from this CA
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use vss_engine::EngineKind;
use vss_its::Psid;

use crate::replay::ReplayConfig;
use crate::{Error, Result};

mod daemon;
mod trust;
mod verification;

pub use daemon::{DaemonConfig, DaemonTcpConfig};
pub use trust::{TrustConfig, TrustUpdateConfig, MAX_UPDATE_EVERY, MIN_UPDATE_EVERY};
pub use verification::{PolicyKind, VerificationConfig, MAX_PREPARED_KEYS_MB};

/// The whole configuration.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The key store.
    pub hsm: HsmConfig,
    /// The certificate repository.
    pub repository: RepositoryConfig,
    /// Trust anchors and the certificate cache.
    pub trust: TrustConfig,
    /// The PKI that issues new pseudonyms (none: the pool is filled by other means).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pki: Option<PkiConfig>,
    /// The pseudonym policy.
    #[serde(default)]
    pub pseudonyms: PseudonymConfig,
    /// The verification policy.
    #[serde(default)]
    pub verification: VerificationConfig,
    /// Replay protection of verified messages.
    #[serde(default)]
    pub replay: ReplayCheckConfig,
    /// The engine that checks batches of signatures.
    #[serde(default)]
    pub engine: EngineConfig,
    /// The certificate and key that received frames are decrypted with (none: frames are
    /// refused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frames: Option<FramesConfig>,
    /// Statistics logging.
    #[serde(default)]
    pub statistics: StatisticsConfig,
    /// The daemon `vssd`: its sockets, metrics and limits.
    #[serde(default)]
    pub daemon: DaemonConfig,
}

/// `[frames]`: decryption of frames addressed to this station.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FramesConfig {
    /// A certificate (COER) that carries an encryption key.
    pub certificate: PathBuf,
    /// The label of that key's private half in the HSM.
    pub key: String,
}

/// `[hsm]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HsmConfig {
    /// A `vss` key store directory; its `hsm.json` names the backend (soft or PKCS#11).
    pub store: PathBuf,
    /// A file holding the key store's PIN (one line), so a service starts without a
    /// prompt; see [`crate::pin`] for the other places a PIN is looked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pin_file: Option<PathBuf>,
}

/// `[repository]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RepositoryConfig {
    /// The repository directory (`enrolment/`, `pseudonyms/`).
    pub dir: PathBuf,
}

/// `[pki]`: the authorization authority that issues new pseudonyms.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PkiConfig {
    /// The AA's base URL.
    pub aa_url: String,
    /// The AA's certificate.
    pub aa_cert: PathBuf,
    /// The certificate of the EA that issued the station's enrolment credential.
    pub ea_cert: PathBuf,
}

/// `[pseudonyms]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PseudonymConfig {
    /// The PSIDs new tickets are asked for.
    #[serde(default = "default_psids")]
    pub psids: Vec<Psid>,
    /// Signatures with one pseudonym before it changes.
    #[serde(default = "default_max_uses")]
    pub max_uses: u64,
    /// Time one pseudonym is in use before it changes (e.g. "5m").
    #[serde(default = "default_max_age", with = "duration_text")]
    pub max_age: Duration,
    /// Below this many unused tickets the pool is refilled.
    #[serde(default = "default_min_pool")]
    pub min_pool: usize,
    /// Whether to ask the AA for new tickets when the pool runs low.
    #[serde(default = "default_true")]
    pub ask_new_pseudonyms: bool,
    /// Tickets asked for in one refill.
    #[serde(default = "default_request_count")]
    pub request_count: usize,
    /// Change pseudonyms only while a listener is registered (seed 000: without the
    /// stack's network-id change, a new pseudonym would be linked to the old one).
    #[serde(default = "default_true")]
    pub change_needs_listener: bool,
}

/// What a station asks tickets for unless configured otherwise: the PKI's default PSIDs.
fn default_psids() -> Vec<Psid> {
    vss_pki::store::DEFAULT_PSIDS.to_vec()
}

fn default_max_uses() -> u64 {
    100
}

fn default_max_age() -> Duration {
    Duration::from_secs(300)
}

fn default_min_pool() -> usize {
    5
}

fn default_true() -> bool {
    true
}

fn default_request_count() -> usize {
    10
}

impl Default for PseudonymConfig {
    fn default() -> Self {
        PseudonymConfig {
            psids: default_psids(),
            max_uses: default_max_uses(),
            max_age: default_max_age(),
            min_pool: default_min_pool(),
            ask_new_pseudonyms: true,
            request_count: default_request_count(),
            change_needs_listener: true,
        }
    }
}

/// `[replay]`: a verified message is accepted once, and only when its generation time is
/// inside a window around now ([`crate::replay`]); on by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ReplayCheckConfig {
    /// Whether replays and stale messages are refused.
    #[serde(default = "default_true")]
    pub enabled: bool,
    /// How old a generation time may be (e.g. "10s").
    #[serde(default = "default_replay_max_age", with = "duration_text")]
    pub max_age: Duration,
    /// How far ahead of the clock a generation time may be (e.g. "1s").
    #[serde(default = "default_replay_max_lead", with = "duration_text")]
    pub max_lead: Duration,
    /// Accepted messages remembered.
    #[serde(default = "default_replay_capacity")]
    pub capacity: usize,
}

fn default_replay_max_age() -> Duration {
    ReplayConfig::default().max_age
}

fn default_replay_max_lead() -> Duration {
    ReplayConfig::default().max_lead
}

fn default_replay_capacity() -> usize {
    ReplayConfig::default().capacity
}

impl Default for ReplayCheckConfig {
    fn default() -> Self {
        ReplayCheckConfig {
            enabled: true,
            max_age: default_replay_max_age(),
            max_lead: default_replay_max_lead(),
            capacity: default_replay_capacity(),
        }
    }
}

impl ReplayCheckConfig {
    /// The replay window, when the check is on.
    pub fn window(&self) -> Option<ReplayConfig> {
        self.enabled.then_some(ReplayConfig {
            max_age: self.max_age,
            max_lead: self.max_lead,
            capacity: self.capacity,
        })
    }
}

/// `[engine]`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EngineConfig {
    /// Which engine.
    #[serde(default, with = "engine_kind")]
    pub kind: EngineKind,
}

/// What is wrong with a configuration's text: it is not TOML of the configuration's shape,
/// or a key's value breaks a rule the types cannot say.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// Not TOML, or not the configuration's keys and types (the parser's words).
    #[error("{0}")]
    Syntax(String),
    /// A key (`section.key`, or the keys together) and the rule its value breaks.
    #[error("{key}: {rule}")]
    Invalid {
        /// The key or keys.
        key: &'static str,
        /// What the value must be.
        rule: String,
    },
    /// The replay window's bounds.
    #[error("replay.{0}")]
    Replay(#[from] crate::replay::ReplayConfigError),
}

impl ConfigError {
    /// `key` breaks `rule`.
    pub fn invalid(key: &'static str, rule: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            key,
            rule: rule.into(),
        }
    }
}

/// `[engine] kind` as its name.
mod engine_kind {
    use serde::{Deserialize, Deserializer, Serializer};
    use vss_engine::EngineKind;

    /// Writes the engine's name.
    pub fn serialize<S: Serializer>(kind: &EngineKind, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(kind.name())
    }

    /// Reads an engine's name.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<EngineKind, D::Error> {
        String::deserialize(deserializer)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

/// `[statistics]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StatisticsConfig {
    /// Whether checkpoints are logged.
    #[serde(default)]
    pub enabled: bool,
    /// Where the files go.
    #[serde(default = "default_stats_dir")]
    pub dir: PathBuf,
    /// How many files rotate (`stats.1` … `stats.N`).
    #[serde(default = "default_stats_files")]
    pub files: usize,
    /// The most bytes one file holds.
    #[serde(default = "default_stats_bytes")]
    pub max_bytes: u64,
}

fn default_stats_dir() -> PathBuf {
    PathBuf::from("stats")
}

fn default_stats_files() -> usize {
    4
}

fn default_stats_bytes() -> u64 {
    65_536
}

impl Default for StatisticsConfig {
    fn default() -> Self {
        StatisticsConfig {
            enabled: false,
            dir: default_stats_dir(),
            files: default_stats_files(),
            max_bytes: default_stats_bytes(),
        }
    }
}

/// Durations as text ("30s", "5m", "1h 30m").
mod duration_text {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&humantime::format_duration(*d).to_string())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let text = String::deserialize(d)?;
        humantime::parse_duration(&text)
            .map_err(|e| serde::de::Error::custom(format!("'{text}' is not a duration: {e}")))
    }
}

/// The largest configuration file read: 1 MiB (a real one is a few KiB).
pub const MAX_CONFIG_LEN: u64 = 1024 * 1024;

impl Config {
    /// Reads and checks the configuration at `path`; relative paths in it are taken from
    /// the file's directory.
    pub fn load(path: &Path) -> Result<Config> {
        let error = |detail: String| Error::Config {
            path: path.to_path_buf(),
            detail,
        };
        let bytes =
            vss_hsm::read_bounded(path, MAX_CONFIG_LEN).map_err(|e| error(e.to_string()))?;
        let text = String::from_utf8(bytes).map_err(|_| error("not UTF-8 text".into()))?;
        let base = path.parent().unwrap_or(Path::new("."));
        Config::parse(&text, base).map_err(|e| Error::Config {
            path: path.to_path_buf(),
            detail: e.to_string(),
        })
    }

    /// Parses configuration text; relative paths are taken from `base`.
    pub fn parse(text: &str, base: &Path) -> Result<Config, ConfigError> {
        let mut config: Config =
            toml::from_str(text).map_err(|e| ConfigError::Syntax(e.to_string()))?;
        config.check()?;
        config.resolve(base);
        Ok(config)
    }

    fn check(&self) -> Result<(), ConfigError> {
        let p = &self.pseudonyms;
        self.trust.check()?;
        if p.max_uses == 0 {
            return Err(ConfigError::invalid(
                "pseudonyms.max_uses",
                "must be at least 1",
            ));
        }
        if p.psids.is_empty() {
            return Err(ConfigError::invalid(
                "pseudonyms.psids",
                "at least one PSID",
            ));
        }
        if p.ask_new_pseudonyms && self.pki.is_some() && p.request_count == 0 {
            return Err(ConfigError::invalid(
                "pseudonyms.request_count",
                "must be at least 1",
            ));
        }
        self.verification.check()?;
        if let Some(window) = self.replay.window() {
            window.check().map_err(ConfigError::Replay)?;
        }
        if self.statistics.files == 0 || self.statistics.max_bytes == 0 {
            return Err(ConfigError::invalid(
                "statistics.files and statistics.max_bytes",
                "must be at least 1",
            ));
        }
        self.daemon.check()
    }

    fn resolve(&mut self, base: &Path) {
        let at = |p: &mut PathBuf| {
            if p.is_relative() {
                *p = base.join(&*p);
            }
        };
        at(&mut self.hsm.store);
        if let Some(pin_file) = &mut self.hsm.pin_file {
            at(pin_file);
        }
        at(&mut self.daemon.socket);
        if let Some(tcp) = &mut self.daemon.tcp {
            at(&mut tcp.certificate);
            at(&mut tcp.key);
            at(&mut tcp.client_ca);
        }
        at(&mut self.repository.dir);
        self.trust.resolve(&at);
        if let Some(pki) = &mut self.pki {
            at(&mut pki.aa_cert);
            at(&mut pki.ea_cert);
        }
        if let Some(frames) = &mut self.frames {
            at(&mut frames.certificate);
        }
        at(&mut self.statistics.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
        [hsm]
        store = "keys"
        [repository]
        dir = "/var/vss/repository"
        [trust]
        anchors = ["root.cert"]
    "#;

    #[test]
    fn a_minimal_file_takes_the_defaults_and_resolves_relative_paths() {
        let config = Config::parse(MINIMAL, Path::new("/etc/vss")).expect("parse");
        assert_eq!(config.hsm.store, Path::new("/etc/vss/keys"));
        assert_eq!(config.repository.dir, Path::new("/var/vss/repository"));
        assert_eq!(config.trust.anchors, [PathBuf::from("/etc/vss/root.cert")]);
        assert_eq!(config.pseudonyms, PseudonymConfig::default());
        assert_eq!(config.verification.policy, PolicyKind::Always);
        assert_eq!(config.engine.kind, EngineKind::Cpu);
        assert!(config.pki.is_none());
        assert!(config.frames.is_none());
        assert!(!config.statistics.enabled);
        assert_eq!(config.replay.window(), Some(ReplayConfig::default()));
    }

    #[test]
    fn every_section_is_read() {
        let text = format!(
            "{MINIMAL}
            [pki]
            aa_url = \"http://127.0.0.1:8080\"
            aa_cert = \"aa.cert\"
            ea_cert = \"ea.cert\"
            [pseudonyms]
            psids = [36]
            max_uses = 3
            max_age = \"1m 30s\"
            min_pool = 2
            ask_new_pseudonyms = false
            request_count = 4
            change_needs_listener = false
            [frames]
            certificate = \"rx.cert\"
            key = \"rx-enc\"
            [verification]
            policy = \"on_demand\"
            [engine]
            kind = \"gpu\"
            [replay]
            max_age = \"30s\"
            max_lead = \"500ms\"
            capacity = 1000
            [statistics]
            enabled = true
            files = 3
            max_bytes = 1000
            "
        );
        let config = Config::parse(&text, Path::new("/c")).expect("parse");
        let p = &config.pseudonyms;
        assert_eq!((p.max_uses, p.min_pool, p.request_count), (3, 2, 4));
        assert_eq!(p.max_age, Duration::from_secs(90));
        assert!(!p.ask_new_pseudonyms);
        assert!(!p.change_needs_listener);
        assert_eq!(config.verification.policy, PolicyKind::OnDemand);
        assert_eq!(config.engine.kind, EngineKind::Gpu);
        assert_eq!(
            config.replay.window(),
            Some(ReplayConfig {
                max_age: Duration::from_secs(30),
                max_lead: Duration::from_millis(500),
                capacity: 1000,
            })
        );
        assert_eq!(config.pki.expect("pki").aa_cert, Path::new("/c/aa.cert"));
        assert_eq!(config.statistics.dir, Path::new("/c/stats"));
        let frames = config.frames.expect("frames");
        assert_eq!(
            (frames.certificate.as_path(), frames.key.as_str()),
            (Path::new("/c/rx.cert"), "rx-enc")
        );
    }

    #[test]
    fn unknown_keys_and_bad_values_are_errors_that_name_the_key() {
        for (extra, names) in [
            ("[pseudonyms]\nmax_use = 3", "max_use"),
            ("[verification]\npolicy = \"sometimes\"", "sometimes"),
            ("[pseudonyms]\nmax_age = \"soon\"", "soon"),
            ("[pseudonyms]\nmax_uses = 0", "max_uses"),
            ("[extra]\nx = 1", "extra"),
            ("[engine]\nkind = \"fpga\"", "'fpga' is not an engine"),
            (
                "[verification]\npolicy = \"sampling\"\nsample_every = 0",
                "sample_every",
            ),
            ("[replay]\nmax_age = \"2h\"", "replay.max_age"),
            ("[replay]\nmax_lead = \"2m\"", "replay.max_lead"),
            ("[replay]\ncapacity = 0", "replay.capacity"),
            ("[replay]\nwindow = \"10s\"", "window"),
            ("[daemon]\nbatch_max = 0", "daemon.batch_max"),
            ("[daemon]\nbatch_deadline = \"2s\"", "daemon.batch_deadline"),
            (
                "[daemon]\nmax_message_bytes = 20000000",
                "daemon.max_message_bytes",
            ),
            ("[daemon]\nshutdown_grace = \"0s\"", "daemon.shutdown_grace"),
            (
                "[daemon]\nshutdown_grace = \"11m\"",
                "daemon.shutdown_grace",
            ),
            ("[daemon]\nmax_connections = 0", "daemon.max_connections"),
            (
                "[daemon]\nmax_connections = 65537",
                "daemon.max_connections",
            ),
            (
                "[daemon]\nrequest_timeout = \"0s\"",
                "daemon.request_timeout",
            ),
            (
                "[daemon]\nrequest_timeout = \"61m\"",
                "daemon.request_timeout",
            ),
            ("[daemon]\nheader_timeout = \"0s\"", "daemon.header_timeout"),
            ("[daemon]\nwrite_timeout = \"61m\"", "daemon.write_timeout"),
            ("[daemon]\nstream_timeout = \"0s\"", "daemon.stream_timeout"),
            (
                "[daemon]\nmax_connections_per_client = 0",
                "daemon.max_connections_per_client",
            ),
            (
                "[daemon]\nmax_streams_per_connection = 1025",
                "daemon.max_streams_per_connection",
            ),
            ("[daemon]\nmetrics = \"nowhere\"", "metrics"),
        ] {
            let err =
                Config::parse(&format!("{MINIMAL}\n{extra}"), Path::new("/")).expect_err(extra);
            assert!(err.to_string().contains(names), "{extra}: {err}");
        }
        let off = Config::parse(
            &format!("{MINIMAL}\n[replay]\nenabled = false\ncapacity = 0"),
            Path::new("/"),
        )
        .expect("a window that is off is not checked");
        assert_eq!(off.replay.window(), None);
        let err = Config::parse("[hsm]\nstore = \"k\"", Path::new("/")).expect_err("missing");
        assert!(err.to_string().contains("repository"), "{err}");
    }

    #[test]
    fn a_configuration_written_as_toml_reads_back_the_same() {
        let text = r#"[hsm]
            store = "keys"
            pin_file = "pin"
            [repository]
            dir = "/var/vss/repository"
            [trust]
            anchors = ["root.cert"]
            [pki]
            aa_url = "http://127.0.0.1:8080"
            aa_cert = "aa.cert"
            ea_cert = "ea.cert"
            [pseudonyms]
            max_age = "1m 30s"
            [engine]
            kind = "gpu"
            [daemon]
            socket = "vssd.sock"
            metrics = "127.0.0.1:9464"
            batch_deadline = "500us"
            [daemon.tcp]
            listen = "[::1]:50051"
            certificate = "vssd.pem"
            key = "vssd.key"
            client_ca = "ca.pem""#;
        let config = Config::parse(text, Path::new("/etc/vss")).expect("parse");
        assert_eq!(
            config.hsm.pin_file.as_deref(),
            Some(Path::new("/etc/vss/pin"))
        );
        assert_eq!(config.daemon.socket, Path::new("/etc/vss/vssd.sock"));
        assert_eq!(config.daemon.batch_deadline, Duration::from_micros(500));
        let written = toml::to_string(&config).expect("serialize");
        assert_eq!(
            Config::parse(&written, Path::new("/elsewhere")).expect("reparse"),
            config,
            "{written}"
        );
    }

    #[test]
    fn load_names_the_file_in_its_errors() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("vss.toml");
        let err = Config::load(&path).expect_err("missing");
        assert!(err.to_string().contains("vss.toml"), "{err}");
        std::fs::write(&path, MINIMAL).expect("write");
        let config = Config::load(&path).expect("load");
        assert_eq!(config.hsm.store, dir.path().join("keys"));
    }

    #[test]
    fn an_oversized_or_endless_configuration_is_refused_with_a_bound() {
        let dir = tempfile::tempdir().expect("tempdir");
        let big = dir.path().join("big.toml");
        let mut text = MINIMAL.to_string();
        text.push_str(&"#".repeat(MAX_CONFIG_LEN as usize));
        std::fs::write(&big, text).expect("write");
        let endless = dir.path().join("endless.toml");
        std::os::unix::fs::symlink("/dev/zero", &endless).expect("link");
        for path in [big, endless] {
            let err = Config::load(&path).expect_err("too large");
            assert!(
                matches!(&err, Error::Config { path: p, detail } if *p == path && detail.contains("larger than 1048576 bytes")),
                "{err}"
            );
        }
    }
}
