//! The errors of the security entity.

/// Why a call of the security entity failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The configuration file is missing, unreadable or wrong.
    #[error("configuration {path}: {detail}")]
    Config {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong, with the key where there is one.
        detail: String,
    },
    /// No pseudonym is available to sign with.
    #[error("no pseudonym to sign with: {0}")]
    NoPseudonym(String),
    /// A pseudonym change was asked for while changes are blocked.
    #[error("pseudonym changes are blocked for another {0:?}")]
    ChangeBlocked(std::time::Duration),
    /// A pseudonym change was asked for but no other pseudonym is in the pool.
    #[error("no other pseudonym in the pool to change to")]
    PoolEmpty,
    /// The current pseudonym may not sign for this PSID.
    #[error("the current pseudonym does not permit PSID {0}")]
    PsidNotPermitted(vss_its::Psid),
    /// The current pseudonym does not grant the SSP asked for with this PSID.
    #[error("the current pseudonym does not grant the requested SSP for PSID {0}")]
    SspNotGranted(vss_its::Psid),
    /// No skipped message has this id (never received, verified already, or dropped).
    #[error("no pending message {0}")]
    UnknownMessage(u64),
    /// A frame arrived but no `[frames]` certificate and key are configured.
    #[error("no [frames] certificate and key are configured to decrypt frames with")]
    NoFrameKey,
    /// A decrypted frame holds something other than a payload or signed data.
    #[error("not a frame: {0}")]
    NotAFrame(&'static str),
    /// The statistics files could not be written or read.
    #[error("statistics: {0}")]
    Stats(String),
    /// A change was due but no listener is registered to change the network id with it
    /// (`pseudonyms.change_needs_listener`).
    #[error("no network-id listener is registered, so the pseudonym does not change")]
    NoChangeListener,
    /// A listener postponed the change.
    #[error("a listener postponed the pseudonym change")]
    ChangePostponed,
    /// The verification engine asked for is not available (not built, or no device).
    #[error(transparent)]
    NoEngine(#[from] vss_engine::EngineError),
    /// No PIN was found for an unattended start ([`crate::pin`]).
    #[error("no PIN for the key store: {0}")]
    NoPin(String),
    /// The key store failed.
    #[error(transparent)]
    Hsm(#[from] vss_hsm::Error),
    /// ITS data failed.
    #[error(transparent)]
    Its(#[from] vss_its::Error),
    /// The PKI client or the repository failed.
    #[error(transparent)]
    Pki(#[from] vss_pki::Error),
    /// The certificate repository failed.
    #[error(transparent)]
    Repository(#[from] vss_pki::station::RepositoryError),
}

/// The result of a call of the security entity.
pub type Result<T, E = Error> = std::result::Result<T, E>;
