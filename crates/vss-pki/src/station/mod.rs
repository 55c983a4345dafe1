//! The station side of the PKI: the certificate repository and enrolment (authorization is
//! to come).

mod enrolment;
mod repository;

pub use enrolment::{enrolment_request, EnrolmentRequest, EnrolmentResponse, Outer};
pub use repository::{CertKind, Entry, Meta, Repository, RepositoryError};
