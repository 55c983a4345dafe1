//! The authorities of a PKI: its directory and the creation of the root CA, EA and AA.

mod layout;

pub use layout::{init, labels, Authorities, InitRequest, PkiDir};
