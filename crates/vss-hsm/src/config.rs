//! The store directory's configuration: which backend holds its keys.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::public_copies::WithPublicCopies;
use crate::{atomic, Backend, Error, Hsm, Pkcs11Hsm, Result, SoftHsm, TokenPinStatus, TokenRef};

/// The environment variable that names the key-store directory.
pub const STORE_ENV: &str = "VSS_STORE";

/// File name of the configuration inside a store directory.
pub(crate) const CONFIG_FILE: &str = "hsm.json";

/// Where a store's keys live: the store directory itself, or a token of a PKCS#11 module.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "backend", rename_all = "lowercase")]
#[non_exhaustive]
pub enum KeyLocation {
    /// Keys encrypted at rest in the store directory itself.
    Soft,
    /// Keys on a PKCS#11 token.
    Pkcs11 {
        /// Path of the PKCS#11 module (shared library).
        module: PathBuf,
        /// Label of the token.
        token_label: String,
    },
}

/// The content of `hsm.json`. Reading it refuses any key it does not know (a misspelt
/// `token_label` is an error, not a default).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "StoreConfigFields")]
pub struct StoreConfig {
    /// Format version, 1.
    pub version: u32,
    /// Where the keys live.
    #[serde(flatten)]
    pub location: KeyLocation,
}

/// Every key `hsm.json` may hold, for the check that it holds no other (serde cannot deny
/// unknown fields through the flattened, tagged backend).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StoreConfigFields {
    version: u32,
    backend: String,
    module: Option<PathBuf>,
    token_label: Option<String>,
}

impl TryFrom<StoreConfigFields> for StoreConfig {
    type Error = String;

    fn try_from(fields: StoreConfigFields) -> std::result::Result<Self, String> {
        let location = match (fields.backend.parse(), fields.module, fields.token_label) {
            (Ok(Backend::Soft), None, None) => KeyLocation::Soft,
            (Ok(Backend::Soft), _, _) => {
                return Err("the soft backend takes no module or token_label".into());
            }
            (Ok(Backend::Pkcs11), Some(module), Some(token_label)) => KeyLocation::Pkcs11 {
                module,
                token_label,
            },
            (Ok(Backend::Pkcs11), _, _) => {
                return Err("the pkcs11 backend needs a module and a token_label".into());
            }
            (Err(unknown), _, _) => return Err(unknown.to_string()),
        };
        Ok(StoreConfig {
            version: fields.version,
            location,
        })
    }
}

impl KeyLocation {
    /// The kind of store this is.
    pub fn backend(&self) -> Backend {
        match self {
            KeyLocation::Soft => Backend::Soft,
            KeyLocation::Pkcs11 { .. } => Backend::Pkcs11,
        }
    }
}

impl StoreConfig {
    /// Reads `hsm.json` from a store directory (at most [`crate::atomic`]'s bound of a
    /// store file).
    pub fn read(dir: &Path) -> Result<Self> {
        let path = dir.join(CONFIG_FILE);
        let bytes = match atomic::read_store_file(&path) {
            Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                return Err(Error::NotAStore(dir.to_path_buf()))
            }
            other => other?,
        };
        let config: StoreConfig =
            serde_json::from_slice(&bytes).map_err(|e| Error::CorruptFile {
                path: path.clone(),
                reason: e.to_string(),
            })?;
        if config.version != 1 {
            return Err(Error::Unsupported(format!(
                "{}: configuration version {} is newer than this vss",
                path.display(),
                config.version
            )));
        }
        Ok(config)
    }

    /// Writes `hsm.json` atomically.
    pub(crate) fn write(&self, dir: &Path) -> Result<()> {
        let bytes =
            serde_json::to_vec_pretty(self).map_err(|e| Error::Unsupported(e.to_string()))?;
        atomic::write_atomic(&dir.join(CONFIG_FILE), &bytes)
    }

    /// Writes the configuration of a store whose keys live on a PKCS#11 token, in an empty
    /// (or missing) directory.
    pub fn create_pkcs11(dir: &Path, token: &TokenRef) -> Result<()> {
        std::fs::create_dir_all(dir).map_err(Error::io(dir))?;
        if std::fs::read_dir(dir)
            .map_err(Error::io(dir))?
            .next()
            .is_some()
        {
            return Err(Error::NotEmpty(dir.to_path_buf()));
        }
        StoreConfig {
            version: 1,
            location: KeyLocation::Pkcs11 {
                module: token.module.clone(),
                token_label: token.token_label.clone(),
            },
        }
        .write(dir)
    }
}

/// Opens the key store in `dir` with the user PIN, whatever its backend.
/// The store keeps a clear copy of each key's public half ([`crate::PublicCopies`]): written
/// when a key is generated or imported, removed with it, and the missing ones written now.
pub fn open(dir: &Path, pin: &str) -> Result<Box<dyn Hsm>> {
    let inner: Box<dyn Hsm> = match StoreConfig::read(dir)?.location {
        KeyLocation::Soft => Box::new(SoftHsm::open(dir, pin)?),
        KeyLocation::Pkcs11 {
            module,
            token_label,
        } => Box::new(Pkcs11Hsm::open(
            &TokenRef {
                module,
                token_label,
            },
            pin,
        )?),
    };
    Ok(Box::new(WithPublicCopies::new(inner, dir)))
}

/// The key-store directory when none is named explicitly: `$VSS_STORE`, else
/// `vss/store` in the user's data directory. The directory need not exist yet.
pub fn default_store_dir() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os(STORE_ENV) {
        if dir.is_empty() {
            return Err(Error::EmptyStoreEnv);
        }
        return Ok(PathBuf::from(dir));
    }
    dirs::data_dir()
        .map(|data| data.join("vss").join("store"))
        .ok_or(Error::NoStoreDir)
}

/// The user-PIN state of the store in `dir`, whatever its backend, read without using a
/// try: the soft store's counters as flags, or the token's own flags.
pub fn pin_status(dir: &Path) -> Result<TokenPinStatus> {
    match StoreConfig::read(dir)?.location {
        KeyLocation::Soft => Ok(SoftHsm::status(dir)?.pin_flags()),
        KeyLocation::Pkcs11 {
            module,
            token_label,
        } => Pkcs11Hsm::pin_status(&TokenRef {
            module,
            token_label,
        }),
    }
}
