//! The user service (P2ABCE's user service calls, their names kept): it drives the card
//! that holds the user's secret, keeps the credentials in the card's slots (compact JSON),
//! and asks the user to choose between the ways to answer an offer or a policy.
//!
//! | Method and path | Body | Answer |
//! |---|---|---|
//! | `POST /createSmartcard` | [`SetupRequest`] `{pin, puk}` | [`Traffic`] of the setup of a new software card |
//! | `POST /initIoTsmartcard` | [`InitRequest`] `{address, pin, puk}` | [`Traffic`] of the card's setup |
//! | `POST /issuanceProtocolStep` | an [`IssuanceOffer`] | [`Choices`] `{session, choices}` |
//! | `POST /issuanceProtocolStepUi` | [`UiChoice`] `{session, choice}` | the [`IssuanceRequest`] (the card's share computed) |
//! | `POST /issuanceProtocolStep` | `{"session", "response": IssuanceResponse}` | [`Stored`] `{slot}`: the credential on the card |
//! | `POST /createPresentationToken` | a [`PresentationPolicy`] | [`Choices`] `{session, choices}` |
//! | `POST /createPresentationTokenUi` | [`UiChoice`] `{session, choice}` | the [`PresentationToken`] |
//!
//! The two kinds of `/issuanceProtocolStep` body are told apart by their shape: an offer
//! has `specification_id`, `nonce` and `attributes`; the issuer's response comes wrapped
//! with the session it answers.
//!
//! Every answer of a call that used the card, refusals included, reports that call's card
//! traffic in the headers [`APDUS_HEADER`] and [`BYTES_HEADER`]. Before each card operation
//! the service verifies the card's PIN: the one given to `/initIoTsmartcard` (or
//! `/createSmartcard`), else the configured one (`VSS_PIN`), kept in memory zeroized on drop.
//! The issuer parameters the user accepts are configured at start. Sessions are at most
//! [`MAX_SESSIONS`], each [`SESSION_TTL`] long; a session ends with its last step, refused
//! or not. One client ([`ClientKey`]: its IPv4 address or IPv6 /64) holds at most
//! [`MAX_SESSIONS_PER_CLIENT`] (8) open, one more is answered 429, before any card work;
//! the clients off loopback together at most [`MAX_SESSIONS`] − [`LOOPBACK_SESSIONS`] (48),
//! one more is answered 503, so that a service listening beyond loopback keeps 16 for the
//! user's own loopback clients (a local process can take sessions from several loopback
//! addresses: the user service trusts its own host).

use super::sessions::Sessions;
pub use super::sessions::{
    LOOPBACK_SESSIONS, MAX_SESSIONS, MAX_SESSIONS_PER_CLIENT, SESSION_ID_LEN, SESSION_TTL,
};
use super::{answer, artefact_body, blocking, json_body, read_body, ClientKey, ServiceError};
use crate::codec::{self, CodecError};
use crate::holder::{Card, HolderError, Traffic};
use crate::issuance::{
    self, Credential, IssuanceOffer, IssuanceRequest, IssuanceResponse, IssuerParameters,
    PendingIssuance,
};
use crate::predicates::PredicateError;
use crate::presentation::{self, PresentationPolicy, PresentationToken};
use crate::spec::SystemParameters;
use crate::Error;
use axum::body::Body;
use axum::extract::State;
use axum::http::HeaderValue;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex, MutexGuard};
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

/// The card slots the user service keeps credentials in (the IoT card has 16).
pub const CARD_SLOTS: u8 = 16;
/// The header with the command APDUs of the call.
pub const APDUS_HEADER: &str = "x-card-apdus";
/// The header with the bytes of the call's commands and responses.
pub const BYTES_HEADER: &str = "x-card-bytes";
/// The card address of `/createSmartcard`.
pub const SOFTWARE_CARD: &str = "software";

/// Why a [`CardOpener`] could not open a card: the card crate's error.
pub type CardOpenError = Box<dyn std::error::Error + Send + Sync>;

/// Opens the card at an address (`software`, `tcp:HOST:PORT`, `pcsc` or `pcsc:READER`);
/// the card crate provides it, as this crate cannot depend on it.
pub type CardOpener =
    Arc<dyn Fn(&str) -> Result<Box<dyn Card + Send>, CardOpenError> + Send + Sync>;

/// How the user service starts.
pub struct UserConfig {
    /// Opens cards.
    pub opener: CardOpener,
    /// The address of a card already set up, opened at its first use; `None` until
    /// `/createSmartcard` or `/initIoTsmartcard`.
    pub card: Option<String>,
    /// The card's PIN (from `VSS_PIN`) for a card already set up.
    pub pin: Option<Zeroizing<String>>,
    /// The parameters of the issuers whose credentials the user accepts.
    pub issuers: Vec<IssuerParameters>,
    /// The base URL of the revocation service, to update witnesses.
    pub revocation: Option<String>,
}

/// `/createSmartcard`'s body.
#[derive(Deserialize, Zeroize, ZeroizeOnDrop)]
pub struct SetupRequest {
    /// The PIN to set.
    pub pin: String,
    /// The PUK to set.
    pub puk: String,
}

/// `/initIoTsmartcard`'s body.
#[derive(Deserialize, Zeroize, ZeroizeOnDrop)]
pub struct InitRequest {
    /// Where the card is.
    pub address: String,
    /// The PIN to set.
    pub pin: String,
    /// The PUK to set.
    pub puk: String,
}

/// A card's traffic, as answered by the setup calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardTraffic {
    /// Command APDUs sent.
    pub apdus: u64,
    /// Bytes of the commands and responses.
    pub bytes: u64,
}

/// One way to answer an offer or a policy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Choice {
    /// The number to send back in [`UiChoice`].
    pub choice: usize,
    /// The card slot of the credential used, for a presentation.
    pub slot: Option<u8>,
    /// The credential's specification.
    pub specification_id: String,
    /// The attributes offered (issuance) or disclosed (presentation).
    pub attributes: Vec<(String, String)>,
}

/// The choices of a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Choices {
    /// The session, to name in the next step.
    pub session: String,
    /// The ways to go on.
    pub choices: Vec<Choice>,
}

/// The user's choice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UiChoice {
    /// The session.
    pub session: String,
    /// One of its choices.
    pub choice: usize,
}

/// Where an issued credential was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stored {
    /// The card slot.
    pub slot: u8,
}

/// The two bodies of `/issuanceProtocolStep`.
#[derive(Deserialize)]
#[serde(untagged)]
enum IssuanceStep {
    Response {
        session: String,
        response: IssuanceResponse,
    },
    Offer(IssuanceOffer),
}

enum Session {
    Offered {
        offer: IssuanceOffer,
        issuer: IssuerParameters,
    },
    Issuing {
        pending: Box<PendingIssuance>,
        issuer: IssuerParameters,
    },
    Presenting {
        policy: Box<PresentationPolicy>,
        candidates: Vec<(u8, Credential)>,
    },
}

#[derive(Default)]
struct CardState {
    card: Option<Box<dyn Card + Send>>,
    /// Where the card is, to open it again when its connection drops (a card process closes
    /// an idle client).
    address: Option<String>,
    pin: Option<Zeroizing<String>>,
}

/// The user service.
pub struct UserService {
    opener: CardOpener,
    issuers: Vec<IssuerParameters>,
    revocation: Option<String>,
    card: Mutex<CardState>,
    sessions: Sessions<Session>,
}

impl UserService {
    /// The service as `config` says.
    pub fn new(config: UserConfig) -> Self {
        UserService {
            opener: config.opener,
            issuers: config.issuers,
            revocation: config.revocation,
            card: Mutex::new(CardState {
                card: None,
                address: config.card,
                pin: config.pin,
            }),
            sessions: Sessions::default(),
        }
    }

    fn card_state(&self) -> MutexGuard<'_, CardState> {
        self.card.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Opens the card at `address` and sets it up; the setup's traffic.
    fn init(&self, address: &str, pin: &str, puk: &str) -> (Result<(), ServiceError>, Traffic) {
        let mut card = match (self.opener)(address) {
            Ok(card) => card,
            Err(e) => return (Err(ServiceError::CardOpen(e)), Traffic::default()),
        };
        let before = card.traffic();
        let result = card.setup(pin, puk, &SystemParameters::generate());
        let traffic = card.traffic() - before;
        if let Err(e) = result {
            return (Err(e.into()), traffic);
        }
        let mut state = self.card_state();
        state.card = Some(card);
        state.address = Some(address.to_string());
        state.pin = Some(Zeroizing::new(pin.to_string()));
        (Ok(()), traffic)
    }

    /// Runs `work` on the card, its PIN verified first; the call's traffic with its result.
    /// A card whose connection has dropped (the PIN check cannot reach it) is opened again
    /// from its address, once.
    fn with_card<T>(
        &self,
        work: impl FnOnce(&mut (dyn Card + Send)) -> Result<T, ServiceError>,
    ) -> (Result<T, ServiceError>, Traffic) {
        let mut state = self.card_state();
        let CardState { card, address, pin } = &mut *state;
        let Some(pin) = pin.as_ref() else {
            return (Err(ServiceError::NoPin), Traffic::default());
        };
        let mut traffic = Traffic::default();
        for attempt in 0..2 {
            if card.is_none() {
                let Some(address) = address.as_deref() else {
                    return (Err(ServiceError::NoCard), traffic);
                };
                match (self.opener)(address) {
                    Ok(opened) => *card = Some(opened),
                    Err(e) => return (Err(ServiceError::CardOpen(e)), traffic),
                }
            }
            let Some(open) = card.as_mut() else {
                return (Err(ServiceError::NoCard), traffic);
            };
            let before = open.traffic();
            match open.verify_pin(pin) {
                Err(HolderError::Transport(_)) if attempt == 0 && address.is_some() => {
                    traffic = traffic + (open.traffic() - before);
                    *card = None;
                }
                verified => {
                    let result = verified
                        .map_err(ServiceError::from)
                        .and_then(|()| work(open.as_mut()));
                    return (result, traffic + (open.traffic() - before));
                }
            }
        }
        (Err(ServiceError::NoCard), traffic)
    }

    fn issuer_of_offer(&self, offer: &IssuanceOffer) -> Result<&IssuerParameters, ServiceError> {
        self.issuers
            .iter()
            .find(|i| i.specification.id == offer.specification_id)
            .ok_or(ServiceError::UnknownIssuer)
    }

    fn offered(&self, offer: IssuanceOffer, client: ClientKey) -> Result<Choices, ServiceError> {
        let issuer = self.issuer_of_offer(&offer)?.clone();
        let held = self.sessions.reserve(client)?;
        let choice = Choice {
            choice: 0,
            slot: None,
            specification_id: offer.specification_id.clone(),
            attributes: offer.attributes.clone(),
        };
        let session = self
            .sessions
            .open(held, Session::Offered { offer, issuer })?;
        Ok(Choices {
            session,
            choices: vec![choice],
        })
    }

    fn issuance_ui(&self, ui: &UiChoice) -> (Result<IssuanceRequest, ServiceError>, Traffic) {
        let (offer, issuer, held) = match self.sessions.take(&ui.session) {
            Ok((Session::Offered { offer, issuer }, held)) => (offer, issuer, held),
            Ok(_) => return (Err(ServiceError::WrongStep), Traffic::default()),
            Err(e) => return (Err(e), Traffic::default()),
        };
        if ui.choice != 0 {
            return (
                Err(ServiceError::UnknownChoice(ui.choice)),
                Traffic::default(),
            );
        }
        let (made, traffic) = self.with_card(|card| {
            let point = card.public_point()?;
            Ok(issuance::request(card, &point, &issuer, &offer)?)
        });
        let result = made.and_then(|(request, pending)| {
            let pending = Box::new(pending);
            let issuing = Session::Issuing { pending, issuer };
            self.sessions.put_back(&ui.session, held, issuing)?;
            Ok(request)
        });
        (result, traffic)
    }

    fn issued(
        &self,
        session: &str,
        response: &IssuanceResponse,
    ) -> (Result<Stored, ServiceError>, Traffic) {
        let credential = match self.sessions.take(session) {
            Ok((Session::Issuing { pending, issuer }, _)) => pending
                .complete(&issuer, response)
                .map_err(ServiceError::from),
            Ok(_) => Err(ServiceError::WrongStep),
            Err(e) => Err(e),
        };
        let credential = match credential {
            Ok(c) => c,
            Err(e) => return (Err(e), Traffic::default()),
        };
        self.with_card(|card| {
            for slot in 0..CARD_SLOTS {
                if card.load_credential(slot)?.is_none() {
                    card.store_credential(slot, &credential.compact())?;
                    return Ok(Stored { slot });
                }
            }
            Err(ServiceError::CardFull)
        })
    }

    fn presentation(
        &self,
        policy: PresentationPolicy,
        client: ClientKey,
    ) -> (Result<Choices, ServiceError>, Traffic) {
        let held = match self.sessions.reserve(client) {
            Ok(held) => held,
            Err(e) => return (Err(e), Traffic::default()),
        };
        let (found, traffic) = self.with_card(|card| {
            let mut found = Vec::new();
            for slot in 0..CARD_SLOTS {
                let Some(bytes) = card.load_credential(slot)?.map(Zeroizing::new) else {
                    continue;
                };
                // A slot another application wrote is not a credential of ours: skipped.
                if let Ok(credential) = codec::from_json::<Credential>(&bytes) {
                    if answers(&credential, &policy) {
                        found.push((slot, credential));
                    }
                }
            }
            Ok(found)
        });
        let result = found.and_then(|candidates| {
            if candidates.is_empty() {
                return Err(ServiceError::NoCredential);
            }
            let choices = candidates
                .iter()
                .enumerate()
                .map(|(choice, (slot, c))| Choice {
                    choice,
                    slot: Some(*slot),
                    specification_id: c.issuer.specification.id.clone(),
                    attributes: disclosed(c, &policy),
                })
                .collect();
            let policy = Box::new(policy);
            let presenting = Session::Presenting { policy, candidates };
            let session = self.sessions.open(held, presenting)?;
            Ok(Choices { session, choices })
        });
        (result, traffic)
    }

    fn presentation_ui(&self, ui: &UiChoice) -> (Result<PresentationToken, ServiceError>, Traffic) {
        let (policy, mut candidates) = match self.sessions.take(&ui.session) {
            Ok((Session::Presenting { policy, candidates }, _)) => (policy, candidates),
            Ok(_) => return (Err(ServiceError::WrongStep), Traffic::default()),
            Err(e) => return (Err(e), Traffic::default()),
        };
        if ui.choice >= candidates.len() {
            return (
                Err(ServiceError::UnknownChoice(ui.choice)),
                Traffic::default(),
            );
        }
        let (slot, mut credential) = candidates.swap_remove(ui.choice);
        let updated = match self.update_witness(&mut credential, &policy) {
            Ok(updated) => updated,
            Err(e) => return (Err(e), Traffic::default()),
        };
        self.with_card(|card| {
            if updated {
                card.store_credential(slot, &credential.compact())?;
            }
            Ok(presentation::present(card, &credential, &policy)?)
        })
    }

    /// Brings the credential's witness up to the policy's accumulator epoch from the
    /// revocation service's removal log; whether it changed.
    fn update_witness(
        &self,
        credential: &mut Credential,
        policy: &PresentationPolicy,
    ) -> Result<bool, ServiceError> {
        let (Some(info), Some(witness)) = (&policy.revocation, &credential.witness) else {
            return Ok(false);
        };
        let epoch = witness.epoch();
        if epoch >= info.epoch {
            return Ok(false);
        }
        let url = self
            .revocation
            .as_deref()
            .ok_or(ServiceError::NoRevocationService)?;
        let removals = super::revocation::fetch_removals(url, epoch)?;
        credential.update_witness(&removals).map_err(|e| match e {
            Error::Predicate(PredicateError::Revoked) => ServiceError::Revoked,
            e => ServiceError::Credential(e),
        })?;
        Ok(true)
    }
}

/// Whether the credential is of the policy's issuer and specification and meets its
/// equalities.
fn answers(credential: &Credential, policy: &PresentationPolicy) -> bool {
    credential.issuer.public_key == policy.issuer_public_key
        && credential.issuer.specification.id == policy.specification_id
        && policy.equal.iter().all(|eq| {
            credential
                .attributes
                .iter()
                .any(|(name, value)| *name == eq.attribute && *value == eq.value)
        })
}

/// The attributes the policy discloses, with the credential's values.
fn disclosed(credential: &Credential, policy: &PresentationPolicy) -> Vec<(String, String)> {
    credential
        .attributes
        .iter()
        .filter(|(name, _)| {
            policy.reveal.contains(name) || policy.equal.iter().any(|e| e.attribute == *name)
        })
        .cloned()
        .collect()
}

/// The user service's routes.
pub fn router(service: Arc<UserService>) -> Router {
    Router::new()
        .route("/createSmartcard", post(create_smartcard))
        .route("/initIoTsmartcard", post(init_iot_smartcard))
        .route("/issuanceProtocolStep", post(issuance_step))
        .route("/issuanceProtocolStepUi", post(issuance_step_ui))
        .route("/createPresentationToken", post(create_presentation_token))
        .route(
            "/createPresentationTokenUi",
            post(create_presentation_token_ui),
        )
        .with_state(service)
}

/// The answer with the call's card traffic in its headers.
fn with_traffic<T: Serialize>(result: Result<T, ServiceError>, traffic: Traffic) -> Response {
    let mut response = answer(result);
    let headers = response.headers_mut();
    headers.insert(APDUS_HEADER, HeaderValue::from(traffic.apdus));
    headers.insert(BYTES_HEADER, HeaderValue::from(traffic.bytes));
    response
}

/// A setup call's answer: its traffic, in the body too.
fn setup_answer(result: Result<(), ServiceError>, traffic: Traffic) -> Response {
    let body = result.map(|()| CardTraffic {
        apdus: traffic.apdus,
        bytes: traffic.bytes,
    });
    with_traffic(body, traffic)
}

/// The body of a call that carries the PIN and the PUK: read, parsed, and its copy erased.
async fn secret_body<T: serde::de::DeserializeOwned>(body: Body) -> Result<T, ServiceError> {
    let bytes = Zeroizing::new(read_body(body).await?.to_vec());
    serde_json::from_slice(&bytes).map_err(|e| ServiceError::Malformed(CodecError::Json(e)))
}

async fn create_smartcard(State(s): State<Arc<UserService>>, body: Body) -> Response {
    let request: SetupRequest = match secret_body(body).await {
        Ok(r) => r,
        Err(e) => return e.into_response(),
    };
    match blocking(move || Ok(s.init(SOFTWARE_CARD, &request.pin, &request.puk))).await {
        Ok((result, traffic)) => setup_answer(result, traffic),
        Err(e) => e.into_response(),
    }
}

async fn init_iot_smartcard(State(s): State<Arc<UserService>>, body: Body) -> Response {
    let request: InitRequest = match secret_body(body).await {
        Ok(r) => r,
        Err(e) => return e.into_response(),
    };
    match blocking(move || Ok(s.init(&request.address, &request.pin, &request.puk))).await {
        Ok((result, traffic)) => setup_answer(result, traffic),
        Err(e) => e.into_response(),
    }
}

async fn issuance_step(
    State(s): State<Arc<UserService>>,
    client: ClientKey,
    body: Body,
) -> Response {
    let step: IssuanceStep = match json_body(body).await {
        Ok(step) => step,
        Err(e) => return e.into_response(),
    };
    match step {
        IssuanceStep::Offer(offer) => {
            if offer.version != codec::VERSION {
                return ServiceError::Malformed(CodecError::Version(offer.version)).into_response();
            }
            with_traffic(s.offered(offer, client), Traffic::default())
        }
        IssuanceStep::Response { session, response } => {
            if response.version != codec::VERSION {
                return ServiceError::Malformed(CodecError::Version(response.version))
                    .into_response();
            }
            match blocking(move || Ok(s.issued(&session, &response))).await {
                Ok((result, traffic)) => with_traffic(result, traffic),
                Err(e) => e.into_response(),
            }
        }
    }
}

async fn issuance_step_ui(State(s): State<Arc<UserService>>, body: Body) -> Response {
    let ui: UiChoice = match json_body(body).await {
        Ok(ui) => ui,
        Err(e) => return e.into_response(),
    };
    match blocking(move || Ok(s.issuance_ui(&ui))).await {
        Ok((result, traffic)) => with_traffic(result, traffic),
        Err(e) => e.into_response(),
    }
}

async fn create_presentation_token(
    State(s): State<Arc<UserService>>,
    client: ClientKey,
    body: Body,
) -> Response {
    let policy: PresentationPolicy = match artefact_body(body).await {
        Ok(policy) => policy,
        Err(e) => return e.into_response(),
    };
    match blocking(move || Ok(s.presentation(policy, client))).await {
        Ok((result, traffic)) => with_traffic(result, traffic),
        Err(e) => e.into_response(),
    }
}

async fn create_presentation_token_ui(State(s): State<Arc<UserService>>, body: Body) -> Response {
    let ui: UiChoice = match json_body(body).await {
        Ok(ui) => ui,
        Err(e) => return e.into_response(),
    };
    match blocking(move || Ok(s.presentation_ui(&ui))).await {
        Ok((result, traffic)) => with_traffic(result, traffic),
        Err(e) => e.into_response(),
    }
}
