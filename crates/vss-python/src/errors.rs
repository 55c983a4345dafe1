//! The `vss.Error` exception hierarchy: one class per kind of [`vss_core::Error`], so
//! Python code catches by class, never by message.

use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::PyErr;

pyo3::create_exception!(vss, Error, PyException, "Any failure of VSS.");
pyo3::create_exception!(
    vss,
    ConfigError,
    Error,
    "The configuration (or a file it names) is missing, unreadable or wrong."
);
pyo3::create_exception!(
    vss,
    PinError,
    Error,
    "No PIN for the key store, or a wrong, empty or blocked one."
);
pyo3::create_exception!(vss, HsmError, Error, "The key store failed.");
pyo3::create_exception!(
    vss,
    NoPseudonymError,
    Error,
    "No pseudonym to sign with, or none to change to."
);
pyo3::create_exception!(
    vss,
    PsidNotPermittedError,
    Error,
    "The current pseudonym may not sign for this PSID (or with this SSP)."
);
pyo3::create_exception!(
    vss,
    IdChangeError,
    Error,
    "The pseudonym did not change: locked, postponed, or no listener."
);
pyo3::create_exception!(
    vss,
    UnknownMessageError,
    Error,
    "No skipped message has this on-demand id."
);
pyo3::create_exception!(
    vss,
    FrameError,
    Error,
    "No frame key is configured, or a frame holds something else."
);
pyo3::create_exception!(
    vss,
    StatsError,
    Error,
    "The statistics could not be written."
);
pyo3::create_exception!(
    vss,
    EngineError,
    Error,
    "The configured verification engine is not available."
);
pyo3::create_exception!(vss, ItsError, Error, "ITS data is malformed or failed.");
pyo3::create_exception!(
    vss,
    PkiError,
    Error,
    "The PKI client or the certificate repository failed."
);
pyo3::create_exception!(vss, CryptoError, Error, "A cryptographic operation failed.");
pyo3::create_exception!(vss, ClosedError, Error, "The entity was closed.");

/// Adds the exception classes to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("PinError", py.get_type::<PinError>())?;
    m.add("HsmError", py.get_type::<HsmError>())?;
    m.add("NoPseudonymError", py.get_type::<NoPseudonymError>())?;
    m.add(
        "PsidNotPermittedError",
        py.get_type::<PsidNotPermittedError>(),
    )?;
    m.add("IdChangeError", py.get_type::<IdChangeError>())?;
    m.add("UnknownMessageError", py.get_type::<UnknownMessageError>())?;
    m.add("FrameError", py.get_type::<FrameError>())?;
    m.add("StatsError", py.get_type::<StatsError>())?;
    m.add("EngineError", py.get_type::<EngineError>())?;
    m.add("ItsError", py.get_type::<ItsError>())?;
    m.add("PkiError", py.get_type::<PkiError>())?;
    m.add("CryptoError", py.get_type::<CryptoError>())?;
    m.add("ClosedError", py.get_type::<ClosedError>())?;
    Ok(())
}

/// The exception for an error of the entity.
pub(crate) fn entity(error: vss_core::Error) -> PyErr {
    use vss_core::Error as E;
    let message = error.to_string();
    match error {
        E::Config { .. } => ConfigError::new_err(message),
        E::NoPin(_) => PinError::new_err(message),
        E::Hsm(e) => hsm(&e, message),
        E::NoPseudonym(_) | E::PoolEmpty => NoPseudonymError::new_err(message),
        E::PsidNotPermitted(_) | E::SspNotGranted(_) => PsidNotPermittedError::new_err(message),
        E::ChangeBlocked(_) | E::NoChangeListener | E::ChangePostponed => {
            IdChangeError::new_err(message)
        }
        E::UnknownMessage(_) => UnknownMessageError::new_err(message),
        E::NoFrameKey | E::NotAFrame(_) => FrameError::new_err(message),
        E::Stats(_) => StatsError::new_err(message),
        E::NoEngine(_) => EngineError::new_err(message),
        E::Its(_) => ItsError::new_err(message),
        E::Pki(_) | E::Repository(_) => PkiError::new_err(message),
        // `vss_core::Error` is non-exhaustive: a kind added later is still a `vss.Error`.
        _ => Error::new_err(message),
    }
}

/// The exception for an error of the key store: PIN trouble is a `PinError`, a failed
/// computation with a key a `CryptoError`.
pub(crate) fn hsm(error: &vss_hsm::Error, message: String) -> PyErr {
    use vss_hsm::Error as E;
    match error {
        E::WrongPin { .. } | E::PinBlocked | E::EmptySecret(_) | E::Locked => {
            PinError::new_err(message)
        }
        E::Crypto(_) => CryptoError::new_err(message),
        _ => HsmError::new_err(message),
    }
}

/// The exception for an error of ITS data.
pub(crate) fn its(error: vss_its::Error) -> PyErr {
    ItsError::new_err(error.to_string())
}

/// The exception for a cryptographic error; an unknown curve name is a `ValueError`.
pub(crate) fn crypto(error: vss_crypto::Error) -> PyErr {
    match error {
        vss_crypto::Error::UnknownCurve(_) => PyValueError::new_err(error.to_string()),
        _ => CryptoError::new_err(error.to_string()),
    }
}
