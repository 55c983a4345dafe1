//! Which kind of key store holds the keys: the one name of a backend, for configuration
//! files, command lines and reports alike.

use std::fmt;
use std::str::FromStr;

/// The kind of key store: the soft store (keys encrypted at rest in its directory) or a
/// PKCS#11 token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Backend {
    /// Key files encrypted at rest in the store directory.
    #[default]
    Soft,
    /// A PKCS#11 token.
    Pkcs11,
}

impl Backend {
    /// Its name as `hsm.json`, the command line and reports write it: `soft`, `pkcs11`.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Soft => "soft",
            Backend::Pkcs11 => "pkcs11",
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no backend's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown backend '{0}' (soft or pkcs11)")]
pub struct UnknownBackend(pub String);

impl FromStr for Backend {
    type Err = UnknownBackend;

    fn from_str(name: &str) -> Result<Self, UnknownBackend> {
        match name {
            "soft" => Ok(Backend::Soft),
            "pkcs11" => Ok(Backend::Pkcs11),
            other => Err(UnknownBackend(other.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_others_are_refused() {
        for backend in [Backend::Soft, Backend::Pkcs11] {
            assert_eq!(backend.name().parse::<Backend>(), Ok(backend));
            assert_eq!(backend.to_string(), backend.name());
        }
        assert_eq!(
            "tpm".parse::<Backend>(),
            Err(UnknownBackend("tpm".to_string()))
        );
    }
}
