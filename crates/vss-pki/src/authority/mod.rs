//! The authorities of a PKI: its directory, the creation of the root CA, EA and AA, and the
//! EA's handling of enrolment requests.

mod ea;
mod layout;

pub use ea::{code_name, Answer, Ea};
pub use layout::{init, labels, Authorities, InitRequest, PkiDir};
