//! The native module `vss._vss` of the Python package `vss`: [`vss_core::Vss`] as
//! `vss.Entity`, its verdicts and errors, key encapsulation and ITS decoding. It only
//! converts: the logic is in the library crates. The pure-Python part of the package
//! (`python/vss`) adds the `Verdict` enum and the `vss.kem` and `vss.its` modules.

mod entity;
mod errors;
mod its;
mod kem;
mod verification;

use pyo3::prelude::*;

/// The module's contents.
#[pymodule]
fn _vss(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<entity::Entity>()?;
    m.add_class::<entity::Status>()?;
    m.add_class::<verification::Verification>()?;
    m.add_function(wrap_pyfunction!(its::its_decode_json, m)?)?;
    m.add_function(wrap_pyfunction!(kem::kem_encap, m)?)?;
    errors::register(m)
}
