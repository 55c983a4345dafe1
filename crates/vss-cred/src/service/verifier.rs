//! The verifier's service. It knows the issuers whose credentials it accepts from its
//! configuration (their parameters files, read at start), never from the request.
//!
//! | Method and path | Body | Answer |
//! |---|---|---|
//! | `POST /policy` | a [`PresentationPolicy`] template, its `nonce` absent or any | the policy with a fresh nonce, now open |
//! | `POST /verify` | [`PresentationToken`] | [`Verified`] `{disclosed, pseudonym}` |
//!
//! When a revocation service is configured and the issuer's specification is revocable,
//! `/policy` puts the accumulator's current state in the policy (replacing the template's).
//! A token for a nonce this process did not hand out is 404, a second token for one it did
//! is 409, a token whose proofs do not verify 422. One client holds at most
//! [`super::MAX_OPEN_PER_CLIENT`] policies open (429 past it), all remote clients at most
//! [`crate::roles::MAX_OPEN_REMOTE`] (503 past it).

use super::{answer, artefact_body, blocking, read_body, ClientKey, Nonces, ServiceError};
use crate::codec::{self, CodecError};
use crate::group::G1;
use crate::issuance::IssuerParameters;
use crate::presentation::{PresentationPolicy, PresentationToken};
use crate::roles::{Verifier, MAX_OPEN_REMOTE};
use axum::body::Body;
use axum::extract::State;
use axum::response::Response;
use axum::routing::post;
use axum::Router;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Arc;
use vss_net::ClientSlot;

/// What a verified token showed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verified {
    /// The disclosed attributes, `[name, value]` pairs.
    pub disclosed: Vec<(String, String)>,
    /// The scope-exclusive pseudonym, hex, when the policy names a scope.
    #[serde(with = "codec::g1_option")]
    pub pseudonym: Option<G1>,
}

/// The verifier as a service.
pub struct VerifierService {
    role: Verifier,
    issuers: Vec<IssuerParameters>,
    revocation: Option<String>,
    nonces: Nonces,
}

impl VerifierService {
    /// The verifier whose state is in `dir`, accepting credentials of `issuers`;
    /// `revocation` is the base URL of the revocation service, if any.
    pub fn open(dir: &Path, issuers: Vec<IssuerParameters>, revocation: Option<String>) -> Self {
        VerifierService {
            role: Verifier::open(dir),
            issuers,
            revocation,
            nonces: Nonces::default(),
        }
    }

    fn issuer(&self, policy: &PresentationPolicy) -> Result<&IssuerParameters, ServiceError> {
        self.issuers
            .iter()
            .find(|i| {
                i.public_key == policy.issuer_public_key
                    && i.specification.id == policy.specification_id
            })
            .ok_or(ServiceError::UnknownIssuer)
    }

    /// Opens the policy, held against the client's cap by `slot`.
    fn open_policy(
        &self,
        mut policy: PresentationPolicy,
        slot: ClientSlot<ClientKey>,
    ) -> Result<PresentationPolicy, ServiceError> {
        let issuer = self.issuer(&policy)?;
        policy.nonce = PresentationPolicy::new(issuer).nonce;
        if let (Some(url), true) = (&self.revocation, issuer.specification.revocable) {
            policy.revocation = Some(super::revocation::fetch_info(url)?);
        }
        policy.check(&issuer.specification)?;
        self.role.open_policy_within(&policy, MAX_OPEN_REMOTE)?;
        self.nonces.open(&policy.nonce, slot);
        Ok(policy)
    }

    fn verify(&self, token: &PresentationToken) -> Result<Verified, ServiceError> {
        let issuer = self.issuer(&token.policy)?;
        self.nonces.take_open(&token.policy.nonce)?;
        let seen = self.role.verify(token, issuer)?;
        Ok(Verified {
            disclosed: seen.disclosed,
            pseudonym: seen.pseudonym,
        })
    }
}

/// The verifier's routes.
pub fn router(service: Arc<VerifierService>) -> Router {
    Router::new()
        .route("/policy", post(policy))
        .route("/verify", post(verify))
        .with_state(service)
}

/// A policy template: the policy's JSON, its nonce absent or any.
fn template(bytes: &[u8]) -> Result<PresentationPolicy, ServiceError> {
    let mut value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| ServiceError::Malformed(CodecError::Json(e)))?;
    let object = value
        .as_object_mut()
        .ok_or(ServiceError::BadField("a policy template is a JSON object"))?;
    object.insert("nonce".into(), serde_json::Value::String(String::new()));
    let policy: PresentationPolicy =
        serde_json::from_value(value).map_err(|e| ServiceError::Malformed(CodecError::Json(e)))?;
    if policy.version != codec::VERSION {
        return Err(ServiceError::Malformed(CodecError::Version(policy.version)));
    }
    Ok(policy)
}

async fn policy(State(s): State<Arc<VerifierService>>, client: ClientKey, body: Body) -> Response {
    let result = async {
        let policy = template(&read_body(body).await?)?;
        let slot = s.nonces.reserve(client)?;
        blocking(move || s.open_policy(policy, slot)).await
    };
    answer(result.await)
}

async fn verify(State(s): State<Arc<VerifierService>>, body: Body) -> Response {
    let result = async {
        let token: PresentationToken = artefact_body(body).await?;
        blocking(move || s.verify(&token)).await
    };
    answer(result.await)
}
