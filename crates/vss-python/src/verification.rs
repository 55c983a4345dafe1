//! What `Entity.verify` returns: the verdict (`vss.Verdict`, numbered as the `ReportCode`
//! of `crates/vss-proto/proto/vss/v1/vss.proto`: the outcome's code, [`Outcome::code`]) and,
//! when valid, the payload, PSID and signer.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use vss_core::verify::Outcome;
use vss_its::Verdict;

/// The outcome of verifying one message.
#[pyclass(frozen, module = "vss")]
pub struct Verification {
    code: u8,
    /// Why it was refused: the verdict's name (empty when valid or skipped).
    #[pyo3(get)]
    reason: String,
    /// The payload, when valid.
    #[pyo3(get)]
    payload: Option<Py<PyBytes>>,
    /// The PSID, when valid.
    #[pyo3(get)]
    psid: Option<u64>,
    /// The signer's HashedId8 (8 bytes), when valid.
    #[pyo3(get)]
    signer: Option<Py<PyBytes>>,
    /// The id to verify a skipped message by later, when skipped.
    #[pyo3(get)]
    on_demand_id: Option<u64>,
}

impl Verification {
    /// The Python object for `outcome`.
    pub(crate) fn new(py: Python<'_>, outcome: Outcome) -> Verification {
        let empty = Verification {
            code: outcome.code(),
            reason: String::new(),
            payload: None,
            psid: None,
            signer: None,
            on_demand_id: None,
        };
        match outcome {
            Outcome::Valid {
                payload,
                psid,
                signer,
            } => Verification {
                payload: Some(PyBytes::new(py, &payload).unbind()),
                psid: Some(psid.value()),
                signer: Some(PyBytes::new(py, &signer.0).unbind()),
                ..empty
            },
            Outcome::Invalid { verdict } => Verification {
                reason: verdict.to_string(),
                ..empty
            },
            Outcome::Skipped { id } => Verification {
                on_demand_id: Some(id),
                ..empty
            },
        }
    }
}

#[pymethods]
impl Verification {
    /// The verdict, a `vss.Verdict`.
    #[getter]
    fn verdict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("vss")?.getattr("Verdict")?.call1((self.code,))
    }

    /// Whether the message verified (its payload may be used).
    #[getter]
    fn valid(&self) -> bool {
        self.code == Verdict::Valid.code()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let verdict = self.verdict(py)?;
        Ok(format!(
            "Verification(verdict={}, psid={:?}, reason={:?})",
            verdict.repr()?,
            self.psid,
            self.reason
        ))
    }
}
