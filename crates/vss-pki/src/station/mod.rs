//! The station side of the PKI: the certificate repository (and, to come, the enrolment and
//! authorization client).

mod repository;

pub use repository::{CertKind, Entry, Meta, Repository, RepositoryError};
