//! The station side of the PKI: the certificate repository, enrolment and authorization,
//! and the trust store from the C-ITS trust lists.

mod authorization;
mod client;
mod enrolment;
mod repository;
mod trust_store;

pub use authorization::{
    app_permissions, authorization_request, AuthorizationRequest, AuthorizationResponse, TicketKeys,
};
pub use client::{
    enroll, pseudonyms, TicketBatch, DEFAULT_TICKET_CONCURRENCY, MAX_TICKETS,
    MAX_TICKET_CONCURRENCY,
};
pub use enrolment::{enrolment_request, EnrolmentRequest, EnrolmentResponse, Outer};
pub use repository::{CertKind, Entry, Meta, Repository, RepositoryError};
pub use trust_store::{EctlSource, RootTrust, Signed, StationTrust, MAX_ROOTS};
