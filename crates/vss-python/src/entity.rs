//! `vss.Entity`: the security entity of a `vss.toml`, opened without a prompt (the PIN
//! from `[hsm] pin_file`, the systemd credential or `VSS_PIN`). Every call that does
//! cryptography or I/O releases the GIL, so Python threads sign and verify in parallel.

use std::path::PathBuf;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use vss_core::{Config, Vss};

use crate::errors::{self, ClosedError};
use crate::verification::Verification;

/// The longest pseudonym lock, in seconds (SN-ID-LOCK's 0-255 s).
const MAX_LOCK_SECONDS: u64 = 255;

/// An open security entity; a context manager that closes it on exit.
#[pyclass(frozen, module = "vss")]
pub struct Entity {
    vss: RwLock<Option<Arc<Vss>>>,
}

impl Entity {
    /// The open entity; calls in progress keep it alive past `close`.
    fn get(&self) -> PyResult<Arc<Vss>> {
        self.vss
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .ok_or_else(|| ClosedError::new_err("the entity is closed"))
    }
}

/// The entity's state: pool level, current pseudonym and counters.
#[pyclass(frozen, get_all, module = "vss")]
pub struct Status {
    /// Unused tickets valid now.
    pool_level: usize,
    /// The current pseudonym's HashedId8 (8 bytes), None before the first signature.
    current_pseudonym: Option<Py<PyBytes>>,
    /// Messages verified and valid.
    verified_valid: u64,
    /// Messages verified and refused.
    verified_invalid: u64,
    /// Messages the verification policy skipped.
    skipped: u64,
    /// Pseudonym changes made.
    id_changes: u64,
    /// Pseudonym changes due but not made (locked, postponed, pool empty).
    id_changes_deferred: u64,
    /// Certificate cache hits.
    cache_hits: u64,
    /// Certificate cache misses.
    cache_misses: u64,
}

#[pymethods]
impl Entity {
    /// Opens the entity that the configuration file at `path` describes.
    #[staticmethod]
    fn open(py: Python<'_>, path: PathBuf) -> PyResult<Entity> {
        let vss = py
            .detach(|| Config::load(&path).and_then(|config| Vss::open_unattended(&config)))
            .map_err(errors::entity)?;
        Ok(Entity {
            vss: RwLock::new(Some(Arc::new(vss))),
        })
    }

    /// Closes the entity; later calls raise `vss.ClosedError`. Closing twice is harmless.
    fn close(&self) {
        self.vss
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (_kind, _value, _traceback))]
    fn __exit__(
        &self,
        _kind: Option<Bound<'_, PyAny>>,
        _value: Option<Bound<'_, PyAny>>,
        _traceback: Option<Bound<'_, PyAny>>,
    ) {
        self.close();
    }

    /// `payload` signed for `psid` with the current pseudonym: Ieee1609Dot2Data, COER.
    #[pyo3(signature = (payload, psid = 36))]
    fn sign<'py>(
        &self,
        py: Python<'py>,
        payload: &[u8],
        psid: u64,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let vss = self.get()?;
        let signed = py
            .detach(|| vss.create_signature(psid.into(), payload))
            .map_err(errors::entity)?;
        Ok(PyBytes::new(py, &signed.bytes))
    }

    /// The verification of a received message under the configured policy.
    fn verify(&self, py: Python<'_>, data: &[u8]) -> PyResult<Verification> {
        let vss = self.get()?;
        let outcome = py
            .detach(|| vss.verify_signature(data))
            .map_err(errors::entity)?;
        Ok(Verification::new(py, outcome))
    }

    /// The verifications of `messages`, in order, their signatures checked in one batch.
    fn verify_batch(&self, py: Python<'_>, messages: Vec<Vec<u8>>) -> PyResult<Vec<Verification>> {
        let vss = self.get()?;
        let outcomes = py
            .detach(|| {
                let slices: Vec<&[u8]> = messages.iter().map(Vec::as_slice).collect();
                vss.verify_batch(&slices)
            })
            .map_err(errors::entity)?;
        Ok(outcomes
            .into_iter()
            .map(|outcome| Verification::new(py, outcome))
            .collect())
    }

    /// Changes the pseudonym now; returns the new one's HashedId8 (8 bytes).
    fn trigger_id_change<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let vss = self.get()?;
        let id = py
            .detach(|| vss.change_pseudonym())
            .map_err(errors::entity)?;
        Ok(PyBytes::new(py, &id.0))
    }

    /// Keeps the current pseudonym for `seconds` (0-255, SN-ID-LOCK).
    fn lock_id_change(&self, seconds: u64) -> PyResult<()> {
        if seconds > MAX_LOCK_SECONDS {
            return Err(PyValueError::new_err(format!(
                "a lock lasts 0-{MAX_LOCK_SECONDS} seconds, not {seconds}"
            )));
        }
        self.get()?
            .block_pseudonym_change(Duration::from_secs(seconds));
        Ok(())
    }

    /// Lifts a lock (SN-ID-UNLOCK).
    fn unlock_id_change(&self) -> PyResult<()> {
        self.get()?.free_pseudonym_change();
        Ok(())
    }

    /// The key in `ciphertext`, decapsulated with `scheme` (`psec-kem`, `ecies-kem`,
    /// `ecies-1609`, default parameters) and the store's key labelled `key_label`.
    fn decap<'py>(
        &self,
        py: Python<'py>,
        scheme: &str,
        key_label: &str,
        ciphertext: &[u8],
    ) -> PyResult<Bound<'py, PyBytes>> {
        let vss = self.get()?;
        crate::kem::decap(py, vss.hsm().as_ref(), scheme, key_label, ciphertext)
    }

    /// The pool level, the current pseudonym and the counters.
    fn status(&self, py: Python<'_>) -> PyResult<Status> {
        let status = self.get()?.status();
        Ok(Status {
            pool_level: status.pool_level,
            current_pseudonym: status
                .current_pseudonym
                .map(|id| PyBytes::new(py, &id.0).unbind()),
            verified_valid: status.verified_valid,
            verified_invalid: status.verified_invalid,
            skipped: status.skipped,
            id_changes: status.id_changes,
            id_changes_deferred: status.id_changes_deferred,
            cache_hits: status.cache_hits,
            cache_misses: status.cache_misses,
        })
    }
}
