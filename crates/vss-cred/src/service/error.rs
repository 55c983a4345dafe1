//! The services' errors and their HTTP status codes: 400 a malformed request (a PIN or PUK
//! the card refuses too), 404 an unknown nonce, offer or session, 409 one already used (or a
//! card not set up yet, or set up already), 413 a body over [`MAX_BODY_LEN`], 415 a POST
//! body that is not JSON, 422 a proof or credential that does not verify, 429 a client's own
//! cap or rate reached, 502 a card or another service that failed, 503 a bound reached, 500
//! the service's own storage.
//! Every error is answered as `{"error": "..."}`.

use super::MAX_BODY_LEN;
use crate::codec::CodecError;
use crate::holder::HolderError;
use crate::predicates::PredicateError;
use crate::Error;
use axum::http::header::RETRY_AFTER;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

/// Why a service refused or failed a request.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The body is not the JSON of what the endpoint takes.
    #[error("malformed request: {0}")]
    Malformed(#[from] CodecError),
    /// A query parameter or field is missing or out of range.
    #[error("malformed request: {0}")]
    BadField(&'static str),
    /// The body is longer than [`MAX_BODY_LEN`].
    #[error("a request body is at most {MAX_BODY_LEN} bytes")]
    TooLarge,
    /// A POST body whose Content-Type is not `application/json`.
    #[error("a request body is application/json")]
    UnsupportedMediaType,
    /// The client (its address, [`super::ClientKey`]) holds this many offers or policies
    /// open already, its cap; each closes when answered or after [`crate::roles::OPEN_TTL`].
    #[error("this client holds {0} open offers or policies already (each closes when answered or after {ttl} s)", ttl = crate::roles::OPEN_TTL.as_secs())]
    ClientOpenCap(usize),
    /// The client (its address, [`super::ClientKey`]) holds this many sessions of the user
    /// service open already, its cap; each ends with its last step or after
    /// [`super::user::SESSION_TTL`].
    #[error("this client holds {0} open sessions already (each ends with its last step or after {ttl} s)", ttl = super::user::SESSION_TTL.as_secs())]
    ClientSessionCap(usize),
    /// The client asked for more than its rate allows (the revocation authority's handles);
    /// it may ask again after this many seconds.
    #[error("this client is over its rate: ask again in {0} s")]
    ClientRate(u64),
    /// The service counts the rate of as many clients as it keeps; a new one waits.
    #[error("too many clients are asking at once")]
    TooManyClients,
    /// The body could not be read from the connection.
    #[error("the request body could not be read")]
    Body,
    /// The nonce names no offer or policy this service has open.
    #[error("the nonce names no open offer or policy")]
    UnknownNonce,
    /// The nonce's offer or policy was answered already.
    #[error("the offer or policy of this nonce was answered already")]
    Replayed,
    /// No session has this identifier (never opened, finished, or expired).
    #[error("no such session (unknown, finished or expired)")]
    UnknownSession,
    /// The session is at another step than the one asked for.
    #[error("the session is not at this step")]
    WrongStep,
    /// The choice is not one of the session's choices.
    #[error("choice {0} is not offered")]
    UnknownChoice(usize),
    /// Too many sessions are open (or the share of the clients off loopback); the oldest
    /// expire after the session lifetime.
    #[error("too many sessions are open")]
    TooManySessions,
    /// The user service has no card yet (`/createSmartcard` or `/initIoTsmartcard` first).
    #[error("no card: call /createSmartcard or /initIoTsmartcard first")]
    NoCard,
    /// The user service has no PIN for its card (`VSS_PIN` or `/initIoTsmartcard`).
    #[error("no PIN for the card")]
    NoPin,
    /// The card could not be opened at its address.
    #[error("the card could not be opened: {0}")]
    CardOpen(#[source] super::user::CardOpenError),
    /// Every card slot holds a credential.
    #[error("every card slot holds a credential")]
    CardFull,
    /// No credential on the card answers the policy.
    #[error("no credential on the card answers the policy")]
    NoCredential,
    /// The issuer or the specification is not one this service knows.
    #[error("unknown issuer or credential specification")]
    UnknownIssuer,
    /// The credential was revoked: its witness cannot be brought up to date.
    #[error("the credential is revoked")]
    Revoked,
    /// The policy asks for revocation and this service knows no revocation authority.
    #[error("no revocation service is configured")]
    NoRevocationService,
    /// Another service (the revocation authority) answered an error or could not be reached.
    #[error("{url}: {detail}")]
    Upstream {
        /// What was asked.
        url: String,
        /// What went wrong.
        detail: String,
    },
    /// A role, the card, issuance or presentation refused or failed.
    #[error(transparent)]
    Credential(#[from] Error),
    /// The request was not answered within the request timeout.
    #[error("the request was not answered in time")]
    Timeout,
    /// The handler stopped without an answer.
    #[error("the handler failed")]
    Handler,
}

impl From<HolderError> for ServiceError {
    fn from(e: HolderError) -> Self {
        ServiceError::Credential(Error::Card(e))
    }
}

/// The HTTP status of a credential error: 400 a malformed request or a PIN or PUK the card
/// refuses as malformed, 403 a wrong or blocked PIN, 404 an unknown nonce, 409 a handle that
/// is not live or a card set up already, 422 what does not verify or answer, 502 the card,
/// 503 a bound, 500 the service's own state.
fn credential_status(e: &Error) -> StatusCode {
    match e {
        Error::Value(_)
        | Error::Codec(_)
        | Error::Encoding(_)
        | Error::SystemParameters
        | Error::Specification(_)
        | Error::UnknownAttribute(_)
        | Error::Attribute { .. }
        | Error::AttributesMismatch
        | Error::Policy(_) => StatusCode::BAD_REQUEST,
        Error::Card(HolderError::WrongPin(_) | HolderError::Blocked) => StatusCode::FORBIDDEN,
        Error::Card(HolderError::InvalidCode) => StatusCode::BAD_REQUEST,
        Error::Card(HolderError::AlreadySetUp) => StatusCode::CONFLICT,
        Error::Card(_) => StatusCode::BAD_GATEWAY,
        Error::UnknownNonce | Error::NotOpen => StatusCode::NOT_FOUND,
        Error::Predicate(PredicateError::UnknownHandle) => StatusCode::CONFLICT,
        Error::Predicate(_)
        | Error::Bbs(_)
        | Error::InvalidCommitmentProof
        | Error::InvalidSignature
        | Error::Handle
        | Error::WrongCredential
        | Error::Unsatisfied(_)
        | Error::PolicyMismatch
        | Error::Disclosure
        | Error::Pseudonym
        | Error::InvalidProof
        | Error::NotRevocable
        | Error::Witness(_) => StatusCode::UNPROCESSABLE_ENTITY,
        Error::Statement { source, .. } => credential_status(source),
        Error::TooManyOpen(_) => StatusCode::SERVICE_UNAVAILABLE,
        // The issuer's own key and parameters disagree: only opening it can find that.
        Error::KeyMismatch
        | Error::Io { .. }
        | Error::File { .. }
        | Error::Store(_)
        | Error::Exists(_)
        | Error::Stored(_)
        | Error::NotInspected
        | Error::Limits(_)
        | Error::Accept(_) => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

impl ServiceError {
    /// The HTTP status this error is answered with.
    pub fn status(&self) -> StatusCode {
        match self {
            ServiceError::Malformed(_)
            | ServiceError::BadField(_)
            | ServiceError::Body
            | ServiceError::UnknownChoice(_) => StatusCode::BAD_REQUEST,
            ServiceError::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ServiceError::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ServiceError::ClientOpenCap(_)
            | ServiceError::ClientSessionCap(_)
            | ServiceError::ClientRate(_) => StatusCode::TOO_MANY_REQUESTS,
            ServiceError::UnknownNonce | ServiceError::UnknownSession => StatusCode::NOT_FOUND,
            ServiceError::Replayed
            | ServiceError::WrongStep
            | ServiceError::NoCard
            | ServiceError::NoPin
            | ServiceError::CardFull => StatusCode::CONFLICT,
            ServiceError::CardOpen(_) | ServiceError::Upstream { .. } => StatusCode::BAD_GATEWAY,
            ServiceError::NoCredential
            | ServiceError::UnknownIssuer
            | ServiceError::Revoked
            | ServiceError::NoRevocationService => StatusCode::UNPROCESSABLE_ENTITY,
            ServiceError::TooManySessions
            | ServiceError::TooManyClients
            | ServiceError::Timeout => StatusCode::SERVICE_UNAVAILABLE,
            ServiceError::Credential(e) => credential_status(e),
            ServiceError::Handler => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl IntoResponse for ServiceError {
    fn into_response(self) -> Response {
        let status = self.status();
        // Storage errors name files of the service; the client learns only that it failed.
        let text = if status == StatusCode::INTERNAL_SERVER_ERROR {
            "the service failed".to_string()
        } else {
            self.to_string()
        };
        let mut response = (status, Json(serde_json::json!({ "error": text }))).into_response();
        if let ServiceError::ClientRate(seconds) = self {
            let headers = response.headers_mut();
            headers.insert(RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}
