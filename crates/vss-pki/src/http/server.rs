//! The authorities over HTTP (TS 102 941 6.1): `POST /ea/enrolment`,
//! `POST /ea/authorization-validation`, `POST /aa/authorization` with
//! `application/x-its-request` in and `application/x-its-response` out, and `GET /health`.
//!
//! A request the authority could not open is answered 400 with the standard's response code
//! in the `X-Its-Response-Code` header (there is no key to encrypt an answer with); a wrong
//! content type is 415 (type and subtype compared without case, parameters ignored), an
//! oversized body 413 (at once when its declared `Content-Length` is too large, else once
//! more than the bound has arrived), a body that does not arrive within the body timeout 408;
//! only the server's own failures are 500.

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use http_body_util::BodyExt;
use vss_its::ItsTime;

use super::is_media_type;
use crate::authority::{Aa, Answer, Ea};
use crate::messages::{code_name, MAX_MESSAGE_LEN};

/// The content type of requests.
pub const REQUEST_TYPE: &str = "application/x-its-request";
/// The content type of responses.
pub const RESPONSE_TYPE: &str = "application/x-its-response";
/// The header that names the response code of a request that got no encrypted answer.
pub const CODE_HEADER: &str = "x-its-response-code";

/// The routes' paths.
pub(super) const HEALTH: &str = "/health";
pub(super) const ENROLMENT: &str = "/ea/enrolment";
pub(super) const VALIDATION: &str = "/ea/authorization-validation";
pub(super) const AUTHORIZATION: &str = "/aa/authorization";

/// The authorities one process serves.
#[derive(Clone, Default)]
pub struct Services {
    /// The distribution centre of trust and revocation lists, if this process is one.
    pub dc: Option<Arc<super::dc::DistributionCentre>>,
    /// The enrolment authority, if this process serves it.
    pub ea: Option<Arc<Ea>>,
    /// The authorization authority, if this process serves it.
    pub aa: Option<Arc<Aa>>,
}

/// What the handlers share: the authorities, and how long a request body may take.
#[derive(Clone)]
struct Routes {
    services: Services,
    body_timeout: Duration,
}

/// The routes of `services`, each request body read within `body_timeout`.
pub(super) fn router(services: Services, body_timeout: Duration) -> Router {
    Router::new()
        .route(HEALTH, get(health))
        .route(ENROLMENT, post(enrolment))
        .route(VALIDATION, post(validation))
        .route(AUTHORIZATION, post(authorization))
        .route(&format!("{}/{{id}}", super::dc::GET_CTL), get(ctl))
        .route(
            &format!("{}/{{id}}", super::dc::GET_DELTA_CTL),
            get(delta_ctl),
        )
        .route(&format!("{}/{{id}}", super::dc::GET_CRL), get(crl))
        .route(&format!("{}/{{id}}", super::dc::GET_ECTL), get(ectl))
        .with_state(Routes {
            services,
            body_timeout,
        })
}

async fn health(State(Routes { services, .. }): State<Routes>) -> Json<serde_json::Value> {
    Json(serde_json::json!({
        "status": "ok",
        "ea": services.ea.as_ref().map(|ea| ea.cert().hashed_id8().to_string()),
        "aa": services.aa.as_ref().map(|aa| aa.cert().hashed_id8().to_string()),
    }))
}

/// The media type of a list a distribution centre answers with.
pub const LIST_TYPE: &str = "application/octet-stream";

async fn ctl(State(r): State<Routes>, Path(id): Path<String>) -> Response {
    list(r, crate::lists::ListKind::Ctl, id).await
}

async fn delta_ctl(State(r): State<Routes>, Path(id): Path<String>) -> Response {
    list(r, crate::lists::ListKind::DeltaCtl, id).await
}

async fn crl(State(r): State<Routes>, Path(id): Path<String>) -> Response {
    list(r, crate::lists::ListKind::Crl, id).await
}

async fn ectl(State(r): State<Routes>, Path(id): Path<String>) -> Response {
    list(r, crate::lists::ListKind::Ectl, id).await
}

/// The list of `kind` for `id`, read from its store off the async threads.
async fn list(r: Routes, kind: crate::lists::ListKind, id: String) -> Response {
    off_the_async_threads(move || list_now(r, kind, &id))
        .await
        .unwrap_or_else(|_| {
            (StatusCode::INTERNAL_SERVER_ERROR, "the handler failed\n").into_response()
        })
}

fn list_now(r: Routes, kind: crate::lists::ListKind, id: &str) -> Response {
    use super::dc::NotServed;
    let Some(dc) = r.services.dc else {
        return (
            StatusCode::NOT_FOUND,
            "this process is no distribution centre\n",
        )
            .into_response();
    };
    match dc.list(kind, id) {
        Ok(bytes) => ([(header::CONTENT_TYPE, LIST_TYPE)], bytes).into_response(),
        Err(NotServed::Unknown) => (StatusCode::NOT_FOUND, "no such list here\n").into_response(),
        Err(NotServed::NotIssued) => {
            (StatusCode::NOT_FOUND, "that list has not been issued yet\n").into_response()
        }
        Err(NotServed::Unavailable) => (
            StatusCode::SERVICE_UNAVAILABLE,
            "the list's store cannot be read now\n",
        )
            .into_response(),
    }
}

async fn enrolment(State(r): State<Routes>, headers: HeaderMap, body: Body) -> Response {
    let Some(ea) = r.services.ea else {
        return (StatusCode::NOT_FOUND, "this process serves no EA").into_response();
    };
    answer(&headers, body, r.body_timeout, move |request| {
        ea.enrol(request, ItsTime::now())
    })
    .await
}

async fn validation(State(r): State<Routes>, headers: HeaderMap, body: Body) -> Response {
    let Some(ea) = r.services.ea else {
        return (StatusCode::NOT_FOUND, "this process serves no EA").into_response();
    };
    answer(&headers, body, r.body_timeout, move |request| {
        ea.validate(request, ItsTime::now())
    })
    .await
}

async fn authorization(State(r): State<Routes>, headers: HeaderMap, body: Body) -> Response {
    let Some(aa) = r.services.aa else {
        return (StatusCode::NOT_FOUND, "this process serves no AA").into_response();
    };
    answer(&headers, body, r.body_timeout, move |request| {
        aa.authorize(request, ItsTime::now())
    })
    .await
}

/// Runs an authority's handler off the async threads (it signs in the HSM and writes to the
/// store) on the body, read within `body_timeout`, and turns its answer into a response.
async fn answer<C, F>(
    headers: &HeaderMap,
    body: Body,
    body_timeout: Duration,
    handle: F,
) -> Response
where
    C: rasn::Encode + Copy + Send + 'static,
    F: FnOnce(&[u8]) -> crate::Result<Answer<C>> + Send + 'static,
{
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !is_media_type(content_type, REQUEST_TYPE) {
        return (
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!("the content type must be {REQUEST_TYPE}"),
        )
            .into_response();
    }
    let body = match read_body(body, body_timeout).await {
        Ok(body) => body,
        Err(refused) => return refused,
    };
    match off_the_async_threads(move || handle(&body)).await {
        Ok(Ok(Answer::Response { body, .. })) => {
            ([(header::CONTENT_TYPE, RESPONSE_TYPE)], body).into_response()
        }
        Ok(Ok(Answer::Refused(code))) => {
            let name = code_name(&code);
            (
                StatusCode::BAD_REQUEST,
                [(CODE_HEADER, name.clone())],
                format!("{name}: the request could not be opened\n"),
            )
                .into_response()
        }
        Ok(Err(e)) => (StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")).into_response(),
        Err(_) => (StatusCode::INTERNAL_SERVER_ERROR, "the handler failed\n").into_response(),
    }
}

/// Runs `work`, which blocks, where it keeps the async threads free: in place on a
/// multi-threaded runtime (its other tasks move to another worker, and the request does not
/// hop threads), else on the blocking pool.
async fn off_the_async_threads<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, tokio::task::JoinError> {
    use tokio::runtime::{Handle, RuntimeFlavor};
    if Handle::current().runtime_flavor() == RuntimeFlavor::MultiThread {
        Ok(tokio::task::block_in_place(work))
    } else {
        tokio::task::spawn_blocking(work).await
    }
}

/// The request body, at most [`MAX_MESSAGE_LEN`] bytes, read within `timeout`; else the
/// answer: 413 when it is larger (at once when its declared length says so), 408 when it is
/// late, 400 when the client broke it off.
async fn read_body(body: Body, timeout: Duration) -> Result<Bytes, Response> {
    let too_large = || {
        (
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("a request is at most {MAX_MESSAGE_LEN} bytes\n"),
        )
            .into_response()
    };
    if body.size_hint().lower() > MAX_MESSAGE_LEN as u64 {
        return Err(too_large());
    }
    let limited = http_body_util::Limited::new(body, MAX_MESSAGE_LEN);
    match tokio::time::timeout(timeout, limited.collect()).await {
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => Err(too_large()),
        Ok(Err(e)) => Err((
            StatusCode::BAD_REQUEST,
            format!("the request body could not be read: {e}\n"),
        )
            .into_response()),
        Err(_) => Err((
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "the request body did not arrive within {} s\n",
                timeout.as_secs_f64()
            ),
        )
            .into_response()),
    }
}

/// Which of a PKI's authorities one process serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Serving {
    /// The EA and the AA.
    #[default]
    Both,
    /// The EA only.
    Ea,
    /// The AA only.
    Aa,
}

impl std::str::FromStr for Serving {
    type Err = String;

    /// `both`, `ea` or `aa`.
    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "both" => Ok(Serving::Both),
            "ea" => Ok(Serving::Ea),
            "aa" => Ok(Serving::Aa),
            _ => Err(format!("'{text}': both, ea or aa")),
        }
    }
}

/// How one process serves a PKI: which authorities, and where its AA reaches the PKI's EA
/// (several processes serving the EA, asked in order: [`super::HttpEaLink::with_failover`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServedPki {
    /// The authorities served.
    pub serving: Serving,
    /// The base URLs of the PKI's EA, for an AA served alone ([`Serving::Aa`]).
    pub ea_urls: Vec<String>,
}

impl ServedPki {
    /// The EA and AA in one process, the AA asking that EA in-process.
    pub fn both() -> ServedPki {
        ServedPki {
            serving: Serving::Both,
            ea_urls: Vec::new(),
        }
    }
}

/// The EA and AA of the PKI in `dir`, as `served` says one process serves them: the EA
/// accepts AAs chained to this PKI's root or a trusted PKI's; the AA accepts the ECs of this
/// PKI's EA and of trusted EAs. It asks a trusted PKI's EA over HTTP, and its own PKI's EA
/// in this process when serving both, else at `served.ea_urls`.
pub fn services(
    dir: &crate::authority::PkiDir,
    hsm: Arc<dyn vss_hsm::Hsm>,
    store: Arc<dyn crate::store::PkiStore>,
    served: &ServedPki,
) -> crate::Result<Services> {
    use crate::authority::{EaLink, KnownEa, LocalEa};
    use crate::store::Role;

    let (root, ea, aa) = (
        dir.cert(Role::Root)?,
        dir.cert(Role::Ea)?,
        dir.cert(Role::Aa)?,
    );
    if served.serving == Serving::Aa && served.ea_urls.is_empty() {
        return Err(crate::Error::InvalidRequest(
            "an AA needs the URL of its PKI's EA".into(),
        ));
    }
    let mut anchors = vss_its::TrustAnchors::new();
    anchors.add(root)?;
    let mut trusted_eas = Vec::new();
    for other in dir.peers()? {
        anchors.add(other.root)?;
        trusted_eas.push(KnownEa {
            cert: other.ea,
            link: Arc::new(super::HttpEaLink::new(&other.ea_url)),
        });
    }
    let own_ea = (served.serving != Serving::Aa)
        .then(|| Arc::new(Ea::new(ea.clone(), hsm.clone(), store.clone(), anchors)));
    let aa = match served.serving {
        Serving::Ea => None,
        serving => {
            let link: Arc<dyn EaLink> = match &own_ea {
                Some(local) if serving == Serving::Both => Arc::new(LocalEa(local.clone())),
                _ => Arc::new(super::HttpEaLink::with_failover(&served.ea_urls)),
            };
            let mut eas = vec![KnownEa { cert: ea, link }];
            eas.extend(trusted_eas);
            Some(Arc::new(Aa::new(aa, hsm, store, eas)))
        }
    };
    Ok(Services {
        dc: None,
        ea: own_ea,
        aa,
    })
}
