//! `vss.v1.SecurityEntity` on the entity: each RPC checks its request's bounds, calls the
//! entity on the blocking pool and answers with the result, a report code, or a status.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, watch};
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Code, Request, Response, Status, Streaming};
use vss_core::config::DaemonConfig;
use vss_core::sign::SignOptions;
use vss_core::Vss;
use vss_crypto::kem::{Kem, KemParams, Scheme};
use vss_crypto::{Curve, PublicKey};
use vss_its::{Cert, HashedId3};
use vss_proto::proto::security_entity_server::SecurityEntity;
use vss_proto::proto::*;

use crate::batcher::Batcher;
use crate::events::IdChanges;
use crate::metrics::Metrics;
use crate::reply::{bounded, response, status};
use crate::streams;

/// The longest SSP a request may ask for (IEEE 1609.2 bounds a bitmap SSP at 31 octets).
pub const MAX_SSP: usize = 32;
/// The longest key label of Decap.
pub const MAX_LABEL: usize = 64;
/// The longest SN-ID-LOCK, in seconds.
pub const MAX_LOCK_SECONDS: u32 = 255;
pub use crate::streams::STREAM_WINDOW;
use crate::streams::SUBSCRIBER_QUEUE;

/// The entity behind the API (cheap to clone).
#[derive(Clone)]
pub struct Entity {
    inner: Arc<Inner>,
}

struct Inner {
    vss: Arc<Vss>,
    max_message_bytes: usize,
    batcher: Batcher,
    events: IdChanges,
    metrics: Metrics,
    signed: AtomicU64,
    started: Instant,
    shutdown: watch::Receiver<bool>,
    request_timeout: Duration,
    stream_timeout: Duration,
}

/// Runs `call` on the blocking pool.
async fn blocking<T: Send + 'static>(
    call: impl FnOnce() -> Result<T, Status> + Send + 'static,
) -> Result<T, Status> {
    tokio::task::spawn_blocking(call)
        .await
        .map_err(|_| Status::internal("the call failed unexpectedly"))?
}

fn invalid(message: impl Into<String>) -> Status {
    Status::invalid_argument(message)
}

impl Entity {
    /// The API on `vss` within the bounds of `config`; streams end when `shutdown` turns
    /// true. Registers the identifier-change listener and starts the batcher (on the current
    /// Tokio runtime).
    pub fn new(
        vss: Arc<Vss>,
        config: &DaemonConfig,
        metrics: Metrics,
        shutdown: watch::Receiver<bool>,
    ) -> Entity {
        let events = IdChanges::register(&vss);
        let batcher = Batcher::start(
            vss.clone(),
            config.batch_max,
            config.batch_deadline,
            metrics.clone(),
        );
        metrics.pool(vss.pseudonyms().pool_len());
        Entity {
            inner: Arc::new(Inner {
                vss,
                max_message_bytes: config.max_message_bytes,
                batcher,
                events,
                metrics,
                signed: AtomicU64::new(0),
                started: Instant::now(),
                shutdown,
                request_timeout: config.request_timeout,
                stream_timeout: config.stream_timeout,
            }),
        }
    }

    /// Runs `call` as `method` within `request_timeout` (then `DEADLINE_EXCEEDED`; a
    /// stream's call is its start), counting it by its status code. The reading of the
    /// request before it and the client's deadline are bounded by [`crate::deadline`].
    async fn observe<T>(
        &self,
        method: &'static str,
        call: impl Future<Output = Result<T, Status>>,
    ) -> Result<Response<T>, Status> {
        let timeout = self.inner.request_timeout;
        let result = tokio::time::timeout(timeout, call)
            .await
            .unwrap_or_else(|_| {
                Err(Status::deadline_exceeded(format!(
                    "no answer within request_timeout ({timeout:?})"
                )))
            });
        let code = result.as_ref().map_or_else(Status::code, |_| Code::Ok);
        self.inner.metrics.request(method, code);
        if let Err(e) = &result {
            tracing::debug!(method, code = ?e.code(), message = e.message(), "refused");
        }
        result.map(Response::new)
    }

    fn bounded(&self, field: &str, bytes: &[u8]) -> Result<(), Status> {
        bounded(field, bytes, self.inner.max_message_bytes)
    }

    fn sign_options(request: &SignRequest) -> Result<(SignOptions, Option<HashedId3>), Status> {
        if request.ssp.len() > MAX_SSP {
            return Err(invalid(format!("ssp: more than {MAX_SSP} bytes")));
        }
        let with_certificate = match SignerChoice::try_from(request.signer) {
            Ok(SignerChoice::Auto) => false,
            Ok(SignerChoice::Certificate) => true,
            Err(_) => {
                return Err(invalid(format!(
                    "signer: unknown choice {}",
                    request.signer
                )))
            }
        };
        let asked = match request.requested_certificate.as_slice() {
            [] => None,
            [a, b, c] => Some(HashedId3([*a, *b, *c])),
            other => {
                return Err(invalid(format!(
                    "requested_certificate: a HashedId3 has 3 bytes, not {}",
                    other.len()
                )))
            }
        };
        let options = SignOptions {
            psid: request.psid.into(),
            ssp: request.ssp.clone(),
            with_certificate,
            generation_location: None,
        };
        Ok((options, asked))
    }

    fn kem(scheme: i32, curve: Curve, key_len: u32) -> Result<Kem, Status> {
        let scheme = match KemScheme::try_from(scheme) {
            Ok(KemScheme::PsecKem) => Scheme::PsecKem,
            Ok(KemScheme::EciesKem) => Scheme::EciesKem,
            Ok(KemScheme::Ecies1609) => Scheme::Ecies1609,
            Ok(KemScheme::Unspecified) | Err(_) => {
                return Err(invalid("scheme: psec-kem, ecies-kem or ecies-1609"))
            }
        };
        let params = KemParams {
            key_len: (key_len != 0).then_some(key_len as usize),
            ..KemParams::default()
        };
        Kem::new(scheme, curve, &params).map_err(|e| invalid(e.to_string()))
    }
}

#[tonic::async_trait]
impl SecurityEntity for Entity {
    async fn sign(&self, request: Request<SignRequest>) -> Result<Response<SignResponse>, Status> {
        self.observe("Sign", async {
            let request = request.into_inner();
            self.bounded("payload", &request.payload)?;
            let (options, asked) = Self::sign_options(&request)?;
            let inner = self.inner.clone();
            blocking(move || {
                let started = Instant::now();
                if let Some(id) = asked {
                    inner.vss.sign_service().certificate_requested(id);
                }
                let signed = inner
                    .vss
                    .create_signature_with(&options, &request.payload)
                    .map_err(|e| status(&e))?;
                inner.metrics.signed(started.elapsed());
                inner.metrics.pool(inner.vss.pseudonyms().pool_len());
                inner.signed.fetch_add(1, Ordering::Relaxed);
                Ok(SignResponse {
                    data: signed.bytes,
                    signer: signed.signer.0.to_vec(),
                    with_certificate: signed.with_certificate,
                })
            })
            .await
        })
        .await
    }

    async fn verify(
        &self,
        request: Request<VerifyRequest>,
    ) -> Result<Response<VerifyResponse>, Status> {
        self.observe("Verify", async {
            let request = request.into_inner();
            self.bounded("data", &request.data)?;
            let inner = self.inner.clone();
            blocking(move || {
                let started = Instant::now();
                let outcome = inner
                    .vss
                    .verify_signature(&request.data)
                    .map_err(|e| status(&e))?;
                let answer = response(outcome, request.tag);
                inner.metrics.verified(answer.report(), started.elapsed());
                Ok(answer)
            })
            .await
        })
        .await
    }

    type VerifyStreamStream = ReceiverStream<Result<VerifyResponse, Status>>;

    async fn verify_stream(
        &self,
        request: Request<Streaming<VerifyRequest>>,
    ) -> Result<Response<Self::VerifyStreamStream>, Status> {
        self.observe("VerifyStream", async {
            let (pending, answers) = mpsc::channel(STREAM_WINDOW);
            tokio::spawn(streams::read_requests(
                (self.inner.batcher.clone(), self.inner.max_message_bytes),
                request.into_inner(),
                pending,
                self.inner.shutdown.clone(),
                self.inner.stream_timeout,
            ));
            Ok(streams::answer_in_order(answers))
        })
        .await
    }

    async fn encrypt(
        &self,
        request: Request<EncryptRequest>,
    ) -> Result<Response<EncryptResponse>, Status> {
        self.observe("Encrypt", async {
            let request = request.into_inner();
            self.bounded("payload", &request.payload)?;
            self.bounded("recipient_certificate", &request.recipient_certificate)?;
            let recipient = Cert::from_bytes(&request.recipient_certificate)
                .map_err(|e| invalid(format!("recipient_certificate: {e}")))?;
            let vss = self.inner.vss.clone();
            blocking(move || {
                let data = vss
                    .encrypt_sending_frame(&request.payload, &recipient)
                    .map_err(|e| status(&e))?;
                Ok(EncryptResponse { data })
            })
            .await
        })
        .await
    }

    async fn decrypt(
        &self,
        request: Request<DecryptRequest>,
    ) -> Result<Response<DecryptResponse>, Status> {
        self.observe("Decrypt", async {
            let request = request.into_inner();
            self.bounded("data", &request.data)?;
            let inner = self.inner.clone();
            blocking(move || {
                let content = inner
                    .vss
                    .decrypt_received_frame(&request.data)
                    .map_err(|e| status(&e))?;
                inner.metrics.hsm_operation("ecdh");
                let payload = match content {
                    vss_core::frame::FrameContent::Payload(bytes)
                    | vss_core::frame::FrameContent::Signed(bytes) => bytes,
                };
                Ok(DecryptResponse { payload })
            })
            .await
        })
        .await
    }

    async fn encap(
        &self,
        request: Request<EncapRequest>,
    ) -> Result<Response<EncapResponse>, Status> {
        self.observe("Encap", async {
            let request = request.into_inner();
            self.bounded("public_key", &request.public_key)?;
            let curve: Curve = request
                .curve
                .parse()
                .map_err(|e: vss_crypto::Error| invalid(format!("curve: {e}")))?;
            let kem = Self::kem(request.scheme, curve, request.key_len)?;
            let recipient = PublicKey::from_sec1(curve, &request.public_key)
                .map_err(|e| invalid(format!("public_key: {e}")))?;
            blocking(move || {
                let sent = kem
                    .encapsulate(&recipient, None)
                    .map_err(|e| invalid(e.to_string()))?;
                Ok(EncapResponse {
                    ciphertext: sent.ciphertext,
                    key: sent.key.to_vec(),
                })
            })
            .await
        })
        .await
    }

    async fn decap(
        &self,
        request: Request<DecapRequest>,
    ) -> Result<Response<DecapResponse>, Status> {
        self.observe("Decap", async {
            let request = request.into_inner();
            self.bounded("ciphertext", &request.ciphertext)?;
            if request.key_label.is_empty() || request.key_label.len() > MAX_LABEL {
                return Err(invalid(format!("key_label: 1-{MAX_LABEL} bytes")));
            }
            let inner = self.inner.clone();
            blocking(move || {
                let hsm = inner.vss.hsm();
                let info = hsm
                    .key(&request.key_label)
                    .map_err(|e| Status::not_found(format!("key_label: {e}")))?;
                let curve = info
                    .ec_curve()
                    .map_err(|e| invalid(format!("key_label: {e}")))?;
                let kem = Self::kem(request.scheme, curve, request.key_len)?;
                let key = kem
                    .decapsulate(&request.ciphertext, |point: &PublicKey| {
                        hsm.ecdh(&info.handle, point)
                    })
                    .map_err(|e| invalid(format!("ciphertext: {e}")))?;
                inner.metrics.hsm_operation("ecdh");
                Ok(DecapResponse { key: key.to_vec() })
            })
            .await
        })
        .await
    }

    type SubscribeIdChangeStream = ReceiverStream<Result<IdChangeEvent, Status>>;

    async fn subscribe_id_change(
        &self,
        _: Request<SubscribeIdChangeRequest>,
    ) -> Result<Response<Self::SubscribeIdChangeStream>, Status> {
        self.observe("SubscribeIdChange", async {
            let events = self.inner.events.subscribe();
            let (sender, receiver) = mpsc::channel(SUBSCRIBER_QUEUE);
            tokio::spawn(streams::forward_events(
                events,
                sender,
                self.inner.shutdown.clone(),
            ));
            Ok(ReceiverStream::new(receiver))
        })
        .await
    }

    async fn trigger_id_change(
        &self,
        _: Request<TriggerIdChangeRequest>,
    ) -> Result<Response<TriggerIdChangeResponse>, Status> {
        self.observe("TriggerIdChange", async {
            let inner = self.inner.clone();
            blocking(move || {
                let id = inner.vss.change_pseudonym().map_err(|e| status(&e))?;
                inner.metrics.pool(inner.vss.pseudonyms().pool_len());
                Ok(TriggerIdChangeResponse {
                    pseudonym: id.0.to_vec(),
                })
            })
            .await
        })
        .await
    }

    async fn lock_id_change(
        &self,
        request: Request<LockIdChangeRequest>,
    ) -> Result<Response<LockIdChangeResponse>, Status> {
        self.observe("LockIdChange", async {
            let seconds = request.into_inner().seconds;
            match seconds {
                0 => self.inner.vss.free_pseudonym_change(),
                1..=MAX_LOCK_SECONDS => self
                    .inner
                    .vss
                    .block_pseudonym_change(Duration::from_secs(seconds.into())),
                _ => {
                    return Err(invalid(format!(
                        "seconds: 0-{MAX_LOCK_SECONDS} (SN-ID-LOCK), not {seconds}"
                    )))
                }
            }
            Ok(LockIdChangeResponse {})
        })
        .await
    }

    async fn unlock_id_change(
        &self,
        _: Request<UnlockIdChangeRequest>,
    ) -> Result<Response<UnlockIdChangeResponse>, Status> {
        self.observe("UnlockIdChange", async {
            self.inner.vss.free_pseudonym_change();
            Ok(UnlockIdChangeResponse {})
        })
        .await
    }

    async fn status(&self, _: Request<StatusRequest>) -> Result<Response<StatusResponse>, Status> {
        self.observe("Status", async {
            let inner = self.inner.clone();
            blocking(move || {
                let status = inner.vss.status();
                inner.metrics.pool(status.pool_level);
                Ok(StatusResponse {
                    pool_level: status.pool_level as u64,
                    current_pseudonym: status
                        .current_pseudonym
                        .map(|id| id.0.to_vec())
                        .unwrap_or_default(),
                    signed: inner.signed.load(Ordering::Relaxed),
                    verified_valid: status.verified_valid,
                    verified_invalid: status.verified_invalid,
                    skipped: status.skipped,
                    id_changes: status.id_changes,
                    id_changes_deferred: status.id_changes_deferred,
                    cache_hits: status.cache_hits,
                    cache_misses: status.cache_misses,
                    uptime_seconds: inner.started.elapsed().as_secs(),
                })
            })
            .await
        })
        .await
    }
}
