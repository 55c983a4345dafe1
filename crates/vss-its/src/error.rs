//! The one error type of `vss-its`.

/// Why ITS data could not be decoded, built or signed.
///
/// A message or certificate that fails validation is not an error: validation answers a
/// [`Verdict`](crate::Verdict).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The bytes are not a valid COER encoding of the expected structure.
    #[error("malformed {what}: {detail}")]
    Malformed {
        /// The structure that was expected.
        what: &'static str,
        /// What the decoder found wrong.
        detail: String,
    },
    /// The encoding is longer than VSS accepts.
    #[error("{what} too large: {len} bytes (at most {max})")]
    TooLarge {
        /// The structure that was expected.
        what: &'static str,
        /// Its length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// The structure uses an algorithm or a form VSS does not implement.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A certificate or message request is inconsistent (e.g. a profile without its key).
    #[error("invalid request: {0}")]
    InvalidRequest(String),
    /// A value could not be encoded (out of the range of its ASN.1 type).
    #[error("cannot encode {what}: {detail}")]
    Encode {
        /// The structure being encoded.
        what: &'static str,
        /// What the encoder reported.
        detail: String,
    },
    /// Encrypted data could not be decrypted: not addressed to the key, or a tag that does
    /// not match.
    #[error("cannot decrypt: {0}")]
    Decryption(DecryptionError),
    /// A time or a validity period out of the range of its 1609.2 type.
    #[error(transparent)]
    Time(#[from] crate::TimeError),
    /// A cryptographic operation failed.
    #[error(transparent)]
    Crypto(#[from] vss_crypto::Error),
    /// The key store failed.
    #[error(transparent)]
    Hsm(#[from] vss_hsm::Error),
    /// A trust-anchor or certificate file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The operating system's reason.
        source: std::io::Error,
    },
}

/// Why encrypted data could not be decrypted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DecryptionError {
    /// No recipient info names the key (the HashedId8 it was looked for by).
    #[error("no recipient info names key {0}")]
    NotARecipient(crate::HashedId8),
    /// The data-encryption key was encrypted on another curve than the recipient's key.
    #[error("the key is encrypted on {key}, the recipient's key is on {recipient}")]
    CurveMismatch {
        /// The curve of the encrypted key.
        key: vss_crypto::Curve,
        /// The curve of the recipient's key.
        recipient: vss_crypto::Curve,
    },
    /// The ECIES ephemeral key V is not a point of the curve.
    #[error("V is not a point of the curve")]
    InvalidEphemeralKey,
    /// The ECIES tag of the encrypted key does not match (the wrong private key, or a
    /// changed byte).
    #[error("the ECIES tag does not match")]
    KeyTag,
    /// The AES-CCM tag of the ciphertext does not match (the wrong key, or a changed byte).
    #[error("the AES-CCM tag does not match")]
    CiphertextTag,
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
