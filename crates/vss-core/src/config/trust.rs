//! `[trust]`: what verification trusts. Root certificates from files, a station trust store
//! from the C-ITS trust lists (`vss station trust-update`), or both; and, with
//! `[trust.update]`, the entity keeps that store current itself.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use vss_its::StaleCrlPolicy;
use vss_pki::station::EctlSource;

use super::{duration_text, ConfigError};

/// The shortest time between two trust updates.
pub const MIN_UPDATE_EVERY: Duration = Duration::from_secs(60);
/// The longest time between two trust updates.
pub const MAX_UPDATE_EVERY: Duration = Duration::from_secs(7 * 24 * 3600);

/// `[trust]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TrustConfig {
    /// Root certificates (COER files) that verification trusts.
    #[serde(default)]
    pub anchors: Vec<PathBuf>,
    /// EA and AA certificates known in advance (validated under the anchors at start, as a
    /// trust list would deliver them), so digest-signed tickets resolve.
    #[serde(default)]
    pub authorities: Vec<PathBuf>,
    /// How many validated certificates the cache keeps.
    #[serde(default = "default_cache_capacity")]
    pub cache_capacity: usize,
    /// A station trust store: its root CAs are anchors, each with its CTL and CRL, and its
    /// EAs and AAs are validated at start like `authorities`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store: Option<PathBuf>,
    /// With `store`: what a chain through a root whose CRL is past its next update gets.
    #[serde(default)]
    pub stale_crl: StaleCrlPolicy,
    /// With `store`: the entity updates it from the lists on a schedule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub update: Option<TrustUpdateConfig>,
}

fn default_cache_capacity() -> usize {
    1024
}

/// `[trust.update]`: where the lists come from and how often they are fetched.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TrustUpdateConfig {
    /// The TLM's certificate, pinned.
    pub tlm_cert: PathBuf,
    /// The ECTL: a distribution centre's URL for it, or a file.
    pub ectl: String,
    /// Time between two updates (1 minute to 7 days).
    #[serde(default = "default_every", with = "duration_text")]
    pub every: Duration,
}

fn default_every() -> Duration {
    Duration::from_secs(6 * 3600)
}

impl TrustConfig {
    /// Trust in `anchors`, with `authorities` validated in advance, caching
    /// `cache_capacity` certificates; no trust store.
    pub fn new(anchors: Vec<PathBuf>, authorities: Vec<PathBuf>, cache_capacity: usize) -> Self {
        TrustConfig {
            anchors,
            authorities,
            cache_capacity,
            store: None,
            stale_crl: StaleCrlPolicy::default(),
            update: None,
        }
    }

    /// Checks what the types cannot say.
    pub(super) fn check(&self) -> Result<(), ConfigError> {
        if self.anchors.is_empty() && self.store.is_none() {
            return Err(ConfigError::invalid(
                "trust",
                "at least one of anchors and store",
            ));
        }
        if let Some(update) = &self.update {
            if self.store.is_none() {
                return Err(ConfigError::invalid(
                    "trust.update",
                    "needs trust.store, where the lists are kept",
                ));
            }
            if !(MIN_UPDATE_EVERY..=MAX_UPDATE_EVERY).contains(&update.every) {
                return Err(ConfigError::invalid("trust.update.every", "from 1m to 7d"));
            }
        }
        Ok(())
    }

    /// Takes relative paths from `base`.
    pub(super) fn resolve(&mut self, at: &impl Fn(&mut PathBuf)) {
        self.anchors.iter_mut().for_each(at);
        self.authorities.iter_mut().for_each(at);
        if let Some(store) = &mut self.store {
            at(store);
        }
        if let Some(update) = &mut self.update {
            at(&mut update.tlm_cert);
            if let EctlSource::File(mut file) = EctlSource::parse(&update.ectl) {
                at(&mut file);
                update.ectl = file.display().to_string();
            }
        }
    }

    /// The store's directory and its update, when both are set.
    pub fn update_of(&self) -> Option<(&Path, &TrustUpdateConfig)> {
        Some((self.store.as_deref()?, self.update.as_ref()?))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use vss_its::StaleCrlPolicy;

    use crate::config::ConfigError;
    use crate::Config;

    const BASE: &str = r#"
        [hsm]
        store = "keys"
        [repository]
        dir = "repository"
    "#;

    fn parse(trust: &str) -> Result<Config, ConfigError> {
        Config::parse(&format!("{BASE}\n{trust}"), Path::new("/etc/vss"))
    }

    #[test]
    fn a_trust_store_with_its_update_is_read_and_its_paths_resolved() {
        let config = parse(
            r#"
            [trust]
            store = "trust"
            stale_crl = "warn"
            [trust.update]
            tlm_cert = "tlm.cert"
            ectl = "http://dc.example/getectl/0123456789ABCDEF"
            every = "30m"
            "#,
        )
        .expect("parse");
        let trust = &config.trust;
        assert!(trust.anchors.is_empty());
        assert_eq!(trust.store.as_deref(), Some(Path::new("/etc/vss/trust")));
        assert_eq!(trust.stale_crl, StaleCrlPolicy::Warn);
        let (store, update) = trust.update_of().expect("an update");
        assert_eq!(store, Path::new("/etc/vss/trust"));
        assert_eq!(update.tlm_cert, Path::new("/etc/vss/tlm.cert"));
        assert_eq!(update.ectl, "http://dc.example/getectl/0123456789ABCDEF");
        assert_eq!(update.every, std::time::Duration::from_secs(1800));

        let file = parse(
            "[trust]\nstore = \"trust\"\n[trust.update]\ntlm_cert = \"t\"\nectl = \"ectl.oer\"",
        )
        .expect("parse");
        let update = file.trust.update.expect("an update");
        assert_eq!(update.ectl, "/etc/vss/ectl.oer", "a file is resolved too");
        assert_eq!(update.every, std::time::Duration::from_secs(6 * 3600));
        assert_eq!(file.trust.stale_crl, StaleCrlPolicy::Refuse);
    }

    #[test]
    fn trust_needs_anchors_or_a_store_and_an_update_needs_a_store_and_a_sane_period() {
        let cases = [
            ("[trust]\ncache_capacity = 8", "at least one of anchors and store"),
            (
                "[trust]\nanchors = [\"r\"]\n[trust.update]\ntlm_cert = \"t\"\nectl = \"e\"",
                "needs trust.store",
            ),
            (
                "[trust]\nstore = \"s\"\n[trust.update]\ntlm_cert = \"t\"\nectl = \"e\"\nevery = \"10s\"",
                "from 1m to 7d",
            ),
            (
                "[trust]\nstore = \"s\"\n[trust.update]\ntlm_cert = \"t\"\nectl = \"e\"\nevery = \"8d\"",
                "from 1m to 7d",
            ),
            ("[trust]\nstore = \"s\"\nstale_crl = \"ignore\"", "unknown variant"),
        ];
        for (trust, expected) in cases {
            let err = parse(trust).expect_err(trust);
            assert!(err.to_string().contains(expected), "{trust}: {err}");
        }
    }
}
