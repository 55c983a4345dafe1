//! The inspector's service.
//!
//! | Method and path | Body | Answer |
//! |---|---|---|
//! | `GET /public` | | [`InspectorPublicKey`] |
//! | `POST /inspect` | [`InspectRequest`] `{token, issuer}` | the [`InspectionResult`]s |
//!
//! The token is verified against its own policy and the issuer's parameters given with it
//! (422 if it does not verify); only the attributes encrypted for this inspector are opened.

use super::{answer, blocking, json_body, ServiceError};
use crate::codec::{self, CodecError};
use crate::issuance::IssuerParameters;
use crate::predicates::inspection::InspectorPublicKey;
use crate::presentation::PresentationToken;
use crate::roles::{InspectionResult, Inspector};
use axum::body::Body;
use axum::extract::State;
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Arc;

/// A token to inspect, with the parameters of its credential's issuer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InspectRequest {
    /// The token.
    pub token: PresentationToken,
    /// The issuer's parameters.
    pub issuer: IssuerParameters,
}

/// The inspector as a service.
pub struct InspectorService {
    role: Inspector,
}

impl InspectorService {
    /// The inspector in `dir`, its key store opened with `pin`.
    pub fn open(dir: &Path, pin: &str) -> crate::Result<Self> {
        Ok(InspectorService {
            role: Inspector::open(dir, pin)?,
        })
    }
}

/// The inspector's routes.
pub fn router(service: Arc<InspectorService>) -> Router {
    Router::new()
        .route("/public", get(public))
        .route("/inspect", post(inspect))
        .with_state(service)
}

async fn public(State(s): State<Arc<InspectorService>>) -> Response {
    answer::<InspectorPublicKey>(Ok(s.role.public()))
}

async fn inspect(State(s): State<Arc<InspectorService>>, body: Body) -> Response {
    let result = async {
        let request: InspectRequest = json_body(body).await?;
        for version in [request.token.version, request.issuer.version] {
            if version != codec::VERSION {
                return Err(ServiceError::Malformed(CodecError::Version(version)));
            }
        }
        blocking(move || Ok(s.role.inspect(&request.token, &request.issuer)?)).await
    };
    answer::<Vec<InspectionResult>>(result.await)
}
