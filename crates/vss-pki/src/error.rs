//! The error type of `vss-pki`.

use std::path::PathBuf;

/// Why butterfly alternatives are refused.
fn butterfly_note(content: &str) -> &'static str {
    if content.contains("butterfly") {
        ": butterfly key expansion (IEEE 1609.2.1) is not part of the EU C-ITS profile"
    } else {
        ""
    }
}

/// Why a PKI operation failed. A request that a service refuses is not an error: it gets
/// the standard's response code.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Bytes that are not the expected COER structure.
    #[error("malformed {what}: {detail}")]
    Malformed {
        /// The structure expected.
        what: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// A TS 102 941 V2.x alternative of `EtsiTs102941DataContent` that VSS does not
    /// implement ([`crate::messages::extension_alternative`]).
    #[error(
        "{content} (TS 102 941 V2.x) is not implemented{}",
        butterfly_note(content)
    )]
    UnsupportedContent {
        /// The alternative's name in the standard.
        content: &'static str,
    },
    /// A value that cannot be encoded.
    #[error("cannot encode {what}: {detail}")]
    Encode {
        /// The structure.
        what: &'static str,
        /// The encoder's reason.
        detail: String,
    },
    /// A request that cannot be carried out as asked.
    #[error("invalid request: {0}")]
    InvalidRequest(String),
    /// ITS data (certificates, signed or encrypted data) failed.
    #[error(transparent)]
    Its(#[from] vss_its::Error),
    /// A cryptographic operation failed.
    #[error(transparent)]
    Crypto(#[from] vss_crypto::Error),
    /// The key store failed.
    #[error(transparent)]
    Hsm(#[from] vss_hsm::Error),
    /// The PKI's store failed.
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    /// The station's certificate repository failed.
    #[error(transparent)]
    Repository(#[from] crate::station::RepositoryError),
    /// An authority refused a request with this response code.
    #[error("the {authority} refused: {code}")]
    Refused {
        /// `EA` or `AA`.
        authority: &'static str,
        /// The standard's name of the response code.
        code: String,
    },
    /// An authority's certificate whose PSID 623 SSP (TS 102 941 §B.4) does not let it sign
    /// the message the protocol needs from it.
    #[error("the {authority} certificate {certificate} does not permit {permission}")]
    NotPermitted {
        /// `EA` or `AA`.
        authority: &'static str,
        /// The certificate's HashedId8.
        certificate: vss_its::HashedId8,
        /// The permission it lacks.
        permission: vss_its::CertRequestPermission,
    },
    /// A trust list or CRL whose signature, signer or validity does not check out.
    #[error("the {list} is not trusted ({verdict}): {reason}")]
    UntrustedList {
        /// Which list (`ECTL`, `CTL of root CA …`, `CRL of root CA …`).
        list: String,
        /// The validator's verdict on it.
        verdict: vss_its::Verdict,
        /// Why, in words.
        reason: String,
    },
    /// A trust list or CRL past its next update, where a current one is needed.
    #[error("the {list} is out of date: its next update was due at {next_update}")]
    StaleList {
        /// Which list.
        list: String,
        /// When its successor was due.
        next_update: vss_its::ItsTime,
    },
    /// An authority could not be reached, or answered other than with a response.
    #[error(transparent)]
    Http(#[from] crate::http::HttpError),
    /// A loopback server could not be started.
    #[error("cannot serve on loopback: {0}")]
    Serve(String),
    /// The directory is not a PKI made by `vss pki init` (no such directory, or its
    /// certificates or key store are missing).
    #[error("{} is not a PKI directory: {missing} is missing (make one with `vss pki init`)", .dir.display())]
    NotAPkiDir {
        /// The directory.
        dir: PathBuf,
        /// What it lacks.
        missing: String,
    },
    /// A file could not be read or written.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
