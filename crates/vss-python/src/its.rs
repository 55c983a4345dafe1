//! `vss.its`: the structure of ITS data (IEEE 1609.2 / ETSI TS 103 097).

use pyo3::prelude::*;

use crate::errors;

/// The structure of `Ieee1609Dot2Data` (COER, at most 1 MiB) as X.697 JER text: the
/// standard's field names, octet strings in hex (`vss.its.decode` parses it).
#[pyfunction]
pub(crate) fn its_decode_json(py: Python<'_>, data: &[u8]) -> PyResult<String> {
    py.detach(|| vss_its::decode_data(data).and_then(|d| vss_its::data_to_json(&d)))
        .map(|json| json.to_string())
        .map_err(errors::its)
}
