//! The PKI of ETSI TS 102 941 for VSS: the message types of the enrolment and authorization
//! protocols on top of IEEE 1609.2 / TS 103 097 (`vss-its`), the PKI directory and its
//! authorities' certificates, the store of what the authorities issued, and the station's
//! certificate repository. (The EA and AA services and the station client are to come.)

pub mod authority;
mod error;
pub mod http;
pub mod lists;
pub mod messages;
pub mod protocol;
pub mod station;
pub mod store;
pub mod url;

pub use error::{Error, Result};
