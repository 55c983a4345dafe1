//! `[verification]`: which received messages are verified, and the prepared keys of the
//! signers heard again and again ([`vss_its::PreparedKeyPolicy`]: a table of a ticket's
//! key that makes its signatures several times cheaper to check, kept beside its cached
//! certificate once it has signed `prepare_after` messages, within `prepared_keys_mb`).

use serde::{Deserialize, Serialize};
use vss_its::PreparedKeyPolicy;

use super::ConfigError;

/// The largest `prepared_keys_mb`: 4 GiB, some 48,000 keys of 256 bits.
pub const MAX_PREPARED_KEYS_MB: u32 = 4096;
/// The largest `prepare_after`.
const MAX_PREPARE_AFTER: u32 = 65_536;

/// `[verification]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct VerificationConfig {
    /// Which messages are verified.
    #[serde(default)]
    pub policy: PolicyKind,
    /// With `sampling`: one message in this many per sender.
    #[serde(default = "default_sample_every")]
    pub sample_every: u64,
    /// The memory, in MiB, that prepared keys take at most (86 KiB per 256-bit key, 192 KiB
    /// per 384-bit one); 0 prepares none.
    #[serde(default = "default_prepared_keys_mb")]
    pub prepared_keys_mb: u32,
    /// Signatures of a signer checked by the library before its key is prepared.
    #[serde(default = "default_prepare_after")]
    pub prepare_after: u32,
}

fn default_sample_every() -> u64 {
    10
}

fn default_prepared_keys_mb() -> u32 {
    (PreparedKeyPolicy::DEFAULT_MAX_BYTES >> 20) as u32
}

fn default_prepare_after() -> u32 {
    PreparedKeyPolicy::DEFAULT_AFTER
}

impl Default for VerificationConfig {
    fn default() -> Self {
        VerificationConfig {
            policy: PolicyKind::default(),
            sample_every: default_sample_every(),
            prepared_keys_mb: default_prepared_keys_mb(),
            prepare_after: default_prepare_after(),
        }
    }
}

impl VerificationConfig {
    /// The validator's policy of prepared keys.
    pub fn prepared_keys(&self) -> PreparedKeyPolicy {
        PreparedKeyPolicy {
            max_bytes: (self.prepared_keys_mb as usize) << 20,
            after: self.prepare_after,
        }
    }

    pub(super) fn check(&self) -> Result<(), ConfigError> {
        if self.policy == PolicyKind::Sampling && self.sample_every == 0 {
            return Err(ConfigError::invalid(
                "verification.sample_every",
                "must be at least 1",
            ));
        }
        if self.prepared_keys_mb > MAX_PREPARED_KEYS_MB {
            return Err(ConfigError::invalid(
                "verification.prepared_keys_mb",
                format!("at most {MAX_PREPARED_KEYS_MB} (0 turns prepared keys off)"),
            ));
        }
        if !(1..=MAX_PREPARE_AFTER).contains(&self.prepare_after) {
            return Err(ConfigError::invalid(
                "verification.prepare_after",
                format!("1-{MAX_PREPARE_AFTER}: a signer's first messages take the library"),
            ));
        }
        Ok(())
    }
}

/// The names of the verification policies.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PolicyKind {
    /// Every message.
    #[default]
    Always,
    /// One in N per sender, and always the first of a new certificate.
    Sampling,
    /// None until the caller asks for a message.
    OnDemand,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<VerificationConfig, ConfigError> {
        let config: VerificationConfig =
            toml::from_str(text).map_err(|e| ConfigError::Syntax(e.to_string()))?;
        config.check().map(|()| config)
    }

    #[test]
    fn prepared_keys_default_to_32_mib_after_8_signatures() {
        let config = parse("").expect("defaults");
        assert_eq!(config, VerificationConfig::default());
        assert_eq!(config.prepared_keys(), PreparedKeyPolicy::default());
        assert_eq!(config.prepared_keys().max_bytes, 32 << 20);
        assert_eq!(config.prepared_keys().after, 8);
    }

    #[test]
    fn zero_mib_turns_prepared_keys_off() {
        let config = parse("prepared_keys_mb = 0\nprepare_after = 3").expect("off");
        assert!(!config.prepared_keys().enabled());
        assert_eq!(config.prepared_keys().after, 3);
    }

    #[test]
    fn out_of_range_values_are_refused() {
        for (text, key) in [
            ("prepared_keys_mb = 4097", "prepared_keys_mb"),
            ("prepare_after = 0", "prepare_after"),
            ("prepare_after = 65537", "prepare_after"),
        ] {
            let error = parse(text).expect_err(text).to_string();
            assert!(error.contains(key), "{text}: {error}");
        }
        assert!(parse("prepared_keys = 1").is_err(), "unknown key");
    }
}
