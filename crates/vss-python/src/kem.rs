//! Key encapsulation through [`vss_crypto::kem::Kem`] (the dispatch `vss kem` and `vssd`
//! use): encapsulation in software here, decapsulation with a key of the entity's store
//! (`Entity.decap`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use vss_crypto::kem::{Kem, KemParams, Scheme};
use vss_crypto::{Curve, PublicKey};
use vss_hsm::Hsm;

use crate::errors;

/// The scheme called `name` (`psec-kem`, `ecies-kem`, `ecies-1609`).
fn parse_scheme(name: &str) -> PyResult<Scheme> {
    name.parse().map_err(PyValueError::new_err)
}

/// `(ciphertext, key)` encapsulated to `public_key` (SEC1) on `curve` with `scheme`
/// (`psec-kem`, `ecies-kem`, `ecies-1609`);
/// `key_len` octets (1-1024, default 32) for psec-kem and ecies-kem, 16 for ecies-1609.
#[pyfunction]
#[pyo3(signature = (scheme, curve, public_key, key_len = None))]
pub(crate) fn kem_encap<'py>(
    py: Python<'py>,
    scheme: &str,
    curve: &str,
    public_key: &[u8],
    key_len: Option<usize>,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let scheme = parse_scheme(scheme)?;
    let curve: Curve = curve.parse().map_err(errors::crypto)?;
    let params = KemParams {
        key_len,
        ..KemParams::default()
    };
    let sent = py
        .detach(|| {
            let recipient = PublicKey::from_sec1(curve, public_key)?;
            Kem::new(scheme, curve, &params)?.encapsulate(&recipient, None)
        })
        .map_err(errors::crypto)?;
    Ok((
        PyBytes::new(py, &sent.ciphertext),
        PyBytes::new(py, &sent.key),
    ))
}

/// The key in `ciphertext`, decapsulated with `scheme` (default parameters) and the
/// key labelled `label` in `hsm`; the GIL is released meanwhile.
pub(crate) fn decap<'py>(
    py: Python<'py>,
    hsm: &dyn Hsm,
    scheme: &str,
    label: &str,
    ciphertext: &[u8],
) -> PyResult<Bound<'py, PyBytes>> {
    let scheme = parse_scheme(scheme)?;
    let key = py
        .detach(|| {
            let info = hsm.key(label)?;
            let kem = Kem::new(scheme, info.ec_curve()?, &KemParams::default())?;
            kem.decapsulate::<vss_hsm::Error>(ciphertext, |point| hsm.ecdh(&info.handle, point))
        })
        .map_err(|e| errors::hsm(&e, e.to_string()))?;
    Ok(PyBytes::new(py, &key))
}
