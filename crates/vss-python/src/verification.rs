//! What `Entity.verify` returns: the verdict (`vss.Verdict`, numbered as the `ReportCode`
//! of `crates/vss-proto/proto/vss/v1/vss.proto`) and, when valid, the payload, PSID and
//! signer.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use vss_core::verify::Outcome;
use vss_its::Verdict;

/// The `ReportCode` (and `vss.Verdict`) number of a skipped message.
const SKIPPED: u8 = 14;

/// The `ReportCode` (and `vss.Verdict`) number of `verdict`.
fn report_code(verdict: Verdict) -> u8 {
    match verdict {
        Verdict::Valid => 1,
        Verdict::FalseSignature => 2,
        Verdict::SignerNotFound => 3,
        Verdict::UntrustedRoot => 4,
        Verdict::InvalidChain => 5,
        Verdict::Expired => 6,
        Verdict::NotYetValid => 7,
        Verdict::InsufficientPermissions => 8,
        Verdict::OutsideRegion => 9,
        Verdict::Malformed => 10,
        Verdict::UnsupportedAlgorithm => 11,
        Verdict::InvalidTimestamp => 12,
        Verdict::DuplicateMessage => 13,
        Verdict::Revoked => 15,
        Verdict::UnlistedCa => 16,
    }
}

/// The outcome of verifying one message.
#[pyclass(frozen, module = "vss")]
pub struct Verification {
    code: u8,
    /// Why it was refused, in words (empty when valid or skipped).
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
        let none = |code| Verification {
            code,
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
                psid: Some(psid),
                signer: Some(PyBytes::new(py, &signer.0).unbind()),
                ..none(report_code(Verdict::Valid))
            },
            Outcome::Invalid { verdict, reason } => Verification {
                reason,
                ..none(report_code(verdict))
            },
            Outcome::Skipped { id } => Verification {
                on_demand_id: Some(id),
                ..none(SKIPPED)
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
        self.code == report_code(Verdict::Valid)
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
