//! The one error type of `vss-crypto`.

/// Why a cryptographic operation could not be carried out.
///
/// A signature that does not verify is not an error: verification answers `false`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The curve name is not one VSS knows.
    #[error(
        "unknown curve '{0}' (expected one of p224, p256, p384, bp256, bp384, k283, b283, p192)"
    )]
    UnknownCurve(String),
    /// The curve is for key encapsulation only, not for ECDSA.
    #[error(
        "curve {0} is for key encapsulation only: ECDSA uses p224, p256, p384, bp256 or bp384"
    )]
    NotForSignatures(crate::Curve),
    /// The curve has no prepared verification keys (p256, p384, bp256 and bp384 have).
    #[error("curve {0} has no prepared verification keys: p256, p384, bp256 and bp384 have")]
    NoPreparedKey(crate::Curve),
    /// The key algorithm name is not one VSS knows.
    #[error("unknown key algorithm '{0}' (expected a curve, or rsa2048, rsa3072 or rsa4096)")]
    UnknownKeyAlgorithm(String),
    /// An RSA modulus size VSS does not use; 1024 bits and below are no longer safe.
    #[error("RSA-{0} is not supported: use 2048, 3072 or 4096 bits (RSA-1024 is no longer safe)")]
    UnsupportedRsaSize(u64),
    /// The hash name is not one of `sha224 sha256 sha384 sha512`.
    #[error("unknown hash '{0}' (expected one of sha224, sha256, sha384, sha512)")]
    UnknownHash(String),
    /// The bytes are not a valid SEC1 point of the curve.
    #[error("invalid public key: {0}")]
    InvalidPublicKey(&'static str),
    /// The private scalar is out of range or of the wrong length.
    #[error("invalid private key: {0}")]
    InvalidPrivateKey(&'static str),
    /// The signature bytes are not a well-formed DER or P1363 encoding for the curve.
    #[error("malformed signature: {0}")]
    MalformedSignature(&'static str),
    /// An input has a length the algorithm does not accept.
    #[error("invalid {what} length: {got} bytes (expected {expected})")]
    InvalidLength {
        /// Which input.
        what: &'static str,
        /// What the algorithm accepts.
        expected: &'static str,
        /// What was given.
        got: usize,
    },
    /// A scheme's parameters do not go together.
    #[error("invalid parameters: {0}")]
    InvalidParameters(&'static str),
    /// A key-encapsulation ciphertext was rejected (tampered, or not for this key).
    #[error("ciphertext rejected: {0}")]
    KemRejected(&'static str),
    /// Authenticated decryption failed: wrong key, nonce, associated data, or tampered data.
    #[error("authentication failed")]
    AuthenticationFailed,
    /// The underlying library reported a failure it should not have.
    #[error("crypto library failure in {0}")]
    Library(&'static str),
}

/// The result type of `vss-crypto`.
pub type Result<T> = std::result::Result<T, Error>;
