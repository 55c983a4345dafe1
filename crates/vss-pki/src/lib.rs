//! The PKI of ETSI TS 102 941 for VSS, on IEEE 1609.2 / TS 103 097 (`vss-its`):
//!
//! - [`messages`], [`protocol`]: the enrolment and authorization messages and their
//!   envelopes;
//! - [`authority`]: the PKI directory, the root, EA, AA and TLM (transport-free), the
//!   PKI's peers, the lists it issues;
//! - [`lists`]: CTL, delta CTL, CRL and ECTL;
//! - [`http`]: the authorities and the distribution centre over HTTP (bounded by
//!   `vss_net::ServeLimits`), and the client side;
//! - [`store`]: what the authorities issued and refused, on SQLite or PostgreSQL;
//! - [`station`]: the station client, its certificate repository and its trust store;
//! - [`url`]: what an authority's base URL may be.

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
