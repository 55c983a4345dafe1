//! The issuer's service.
//!
//! | Method and path | Body | Answer |
//! |---|---|---|
//! | `GET /parameters` | | [`IssuerParameters`] |
//! | `POST /issuance/offer` | [`OfferRequest`] `{"attributes": [[name, value], …]}` | [`IssuanceOffer`] |
//! | `POST /issuance/issue` | [`IssuanceRequest`] | [`IssuanceResponse`] |
//!
//! An offer is answered once: a request for a nonce this process did not offer is 404, a
//! second request for one it did is 409. One client holds at most
//! [`super::MAX_OPEN_PER_CLIENT`] offers open (429 past it), all remote clients at most
//! [`crate::roles::MAX_OPEN_REMOTE`] (503 past it). When the specification is revocable the issuer
//! asks the revocation service (`POST /handle`) for the credential's handle and witness,
//! after the nonce is checked.

use super::{answer, artefact_body, blocking, json_body, ClientKey, Nonces, ServiceError};
use crate::issuance::{IssuanceOffer, IssuanceRequest, IssuanceResponse, IssuerParameters};
use crate::roles::{Issuer, MAX_OPEN_REMOTE};
use axum::body::Body;
use axum::extract::State;
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Arc;

/// The attributes to offer, in the specification's order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OfferRequest {
    /// `[name, value]` pairs.
    pub attributes: Vec<(String, String)>,
}

/// The issuer as a service.
pub struct IssuerService {
    role: Issuer,
    revocation: Option<String>,
    nonces: Nonces,
}

impl IssuerService {
    /// The issuer in `dir`, its key store opened with `pin`; `revocation` is the base URL
    /// of the revocation service, needed when the specification is revocable.
    pub fn open(dir: &Path, pin: &str, revocation: Option<String>) -> crate::Result<Self> {
        Ok(IssuerService {
            role: Issuer::open(dir, pin)?,
            revocation,
            nonces: Nonces::default(),
        })
    }

    /// Issues on an open offer. The revocation handle is fetched before the offer's nonce is
    /// spent, so a refused fetch (the authority's rate, a network error) leaves the offer
    /// open for a retry.
    fn issue(&self, request: &IssuanceRequest) -> Result<IssuanceResponse, ServiceError> {
        self.nonces.check_open(&request.nonce)?;
        let revocation = if self.role.parameters().specification.revocable {
            let url = self
                .revocation
                .as_deref()
                .ok_or(ServiceError::NoRevocationService)?;
            let grant = super::revocation::fetch_handle(url)?;
            Some((grant.handle, grant.witness))
        } else {
            None
        };
        self.nonces.take_open(&request.nonce)?;
        Ok(self.role.issue(request, revocation)?)
    }
}

/// The issuer's routes.
pub fn router(service: Arc<IssuerService>) -> Router {
    Router::new()
        .route("/parameters", get(parameters))
        .route("/issuance/offer", post(offer))
        .route("/issuance/issue", post(issue))
        .with_state(service)
}

async fn parameters(State(s): State<Arc<IssuerService>>) -> Response {
    answer::<&IssuerParameters>(Ok(s.role.parameters()))
}

async fn offer(State(s): State<Arc<IssuerService>>, client: ClientKey, body: Body) -> Response {
    let result = async {
        let request: OfferRequest = json_body(body).await?;
        let slot = s.nonces.reserve(client)?;
        blocking(move || {
            let offer = s.role.offer_within(&request.attributes, MAX_OPEN_REMOTE)?;
            s.nonces.open(&offer.nonce, slot);
            Ok(offer)
        })
        .await
    };
    answer::<IssuanceOffer>(result.await)
}

async fn issue(State(s): State<Arc<IssuerService>>, body: Body) -> Response {
    let result = async {
        let request: IssuanceRequest = artefact_body(body).await?;
        blocking(move || s.issue(&request)).await
    };
    answer(result.await)
}
