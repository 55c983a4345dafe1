//! The one error type of `vss-tls`.

/// Why TLS termination could not start or a connection could not be served.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The key store failed (a missing key, a wrong type, a token error).
    #[error(transparent)]
    Hsm(#[from] vss_hsm::Error),
    /// A cryptographic operation failed.
    #[error(transparent)]
    Crypto(#[from] vss_crypto::Error),
    /// A setting is out of its range.
    #[error("invalid setting: {0}")]
    Config(&'static str),
    /// A bound of the terminator ([`vss_net::ServeLimits`], the backend's connect timeout)
    /// is out of its range.
    #[error("invalid setting: {0}")]
    Limits(#[from] vss_net::LimitsError),
    /// A certificate file could not be used.
    #[error("certificate {path}: {reason}")]
    Certificate {
        /// The file.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The certificate's public key is not the key's.
    #[error("certificate {path} is not for key '{label}': their public keys differ")]
    KeyMismatch {
        /// The certificate file.
        path: String,
        /// The key's label.
        label: String,
    },
    /// The key cannot sign TLS handshakes (a binary or brainpool curve).
    #[error(
        "key '{label}' ({algorithm}) cannot sign TLS handshakes: use rsa2048–rsa4096, p256 or p384"
    )]
    KeyNotForTls {
        /// The key's label.
        label: String,
        /// Its algorithm.
        algorithm: vss_crypto::KeyAlgorithm,
    },
    /// The signing queue is full: the handshake is refused rather than left waiting.
    #[error("the signing queue is full")]
    Busy,
    /// The signing thread has stopped.
    #[error("the signing thread has stopped")]
    SignerGone,
    /// A TLS failure.
    #[error("TLS: {0}")]
    Tls(#[from] rustls::Error),
    /// A socket or file failure.
    #[error("{0}")]
    Io(String),
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e.to_string())
    }
}

/// The result type of `vss-tls`.
pub type Result<T> = std::result::Result<T, Error>;
