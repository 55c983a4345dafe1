//! The enrolment authority: enrolment (TS 102 941 6.2.3.2: decrypt, check the outer signature
//! — the canonical key, or the current EC when re-enrolling — and the proof of possession,
//! issue the enrolment credential, record it, answer encrypted with the request's key) and
//! authorization validation for AAs (6.2.3.4). Transport-free: the HTTP layer passes bytes in
//! and out.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use vss_crypto::PublicKey;
use vss_hsm::Hsm;
use vss_its::asn::{Duration, SignerIdentifier};
use vss_its::{
    issue_certificate, Cert, CertRequestPermission, CertificateRequest, Decryptor, HashedId8,
    HsmKey, ItsTime, Profile, Psid, SignedMessage, TrustAnchors, Validator, Verdict,
};

use super::conclude::{conclude, respond};
use super::intake::{open_request, Unopened};
use super::labels;
use crate::messages::{
    self, AuthorizationValidationResponse, AuthorizationValidationResponseCode as VCode,
    CertificateSubjectAttributes, EcSignature, EnrolmentResponseCode as Code,
    EtsiTs102941DataContent, InnerEcRequest, InnerEcResponse,
};
use crate::protocol::{self, request_hash};
use crate::store::{Outcome, PkiStore, Role, StoreError};
use crate::Result;

/// An authority's answer to a request, with the response code type of its protocol.
#[derive(Debug, Clone)]
pub enum Answer<C = Code> {
    /// An encrypted, signed response (HTTP 200, `application/x-its-response`), with the code
    /// it carries.
    Response {
        /// The response code inside.
        code: C,
        /// The response message.
        body: Vec<u8>,
    },
    /// The request could not be opened, so no encrypted answer is possible (HTTP 400).
    Refused(C),
}

impl<C: Copy> Answer<C> {
    /// The response code, whichever way it is carried.
    pub fn code(&self) -> C {
        match self {
            Answer::Response { code, .. } | Answer::Refused(code) => *code,
        }
    }
}

/// The enrolment authority of one PKI.
pub struct Ea {
    cert: Cert,
    hsm: Arc<dyn Hsm>,
    store: Arc<dyn PkiStore>,
    authorities: Mutex<Validator>,
    /// Enrolment credentials read for authorization validation, decoded, by HashedId8.
    ecs: Mutex<HashMap<HashedId8, Arc<KnownEc>>>,
    /// Lifetime of the enrolment credentials it issues (cut to the EA's own).
    pub ec_duration: Duration,
}

/// The most enrolment credentials the EA keeps decoded for authorization validation; when
/// full, the cache starts again empty.
pub const EC_CACHE_CAPACITY: usize = 4096;

/// An enrolment credential this EA issued, decoded (its key decompressed once), and the PSIDs
/// its station may ask for (`None`: the station is not registered). Neither changes once
/// written, so a cached one stays true.
struct KnownEc {
    cert: Cert,
    psids: Option<Vec<Psid>>,
}

/// A refusal on the way through a request: the code and why (for the audit log).
struct Refusal<C = Code>(C, String);

fn refuse<T, C>(code: C, why: impl Into<String>) -> std::result::Result<T, Refusal<C>> {
    Err(Refusal(code, why.into()))
}

/// The refusal of an envelope that did not decode: `bad_content` for a V2.x alternative VSS
/// does not implement, else `cant_parse`.
fn undecoded<T, C>(
    e: crate::Error,
    bad_content: C,
    cant_parse: C,
) -> std::result::Result<T, Refusal<C>> {
    refuse(
        protocol::undecoded(&e, bad_content, cant_parse),
        e.to_string(),
    )
}

impl Ea {
    /// The EA with certificate `cert`, its keys in `hsm` (labels `ea`, `ea-enc`), records in
    /// `store`, accepting validation requests from AAs that chain to `trust`; enrolment
    /// credentials last three years.
    pub fn new(
        cert: Cert,
        hsm: Arc<dyn Hsm>,
        store: Arc<dyn PkiStore>,
        trust: TrustAnchors,
    ) -> Self {
        Ea {
            cert,
            hsm,
            store,
            authorities: Mutex::new(Validator::new(trust, vss_its::DEFAULT_CAPACITY)),
            ecs: Mutex::new(HashMap::new()),
            ec_duration: Duration::Years(3),
        }
    }

    /// The EA's certificate.
    pub fn cert(&self) -> &Cert {
        &self.cert
    }

    /// Answers an enrolment request (`EnrolmentRequestMessage`) received at `now`.
    pub fn enrol(&self, request: &[u8], now: ItsTime) -> Result<Answer> {
        let hash = request_hash(request);
        let opened = match self.open(request) {
            Ok(o) => o,
            Err(failure) => return Ok(Answer::Refused(failure.into())),
        };
        // Replays are told by the decrypted request, whatever wraps it: the same request
        // re-sent with another recipient list is still a replay.
        let request_id = request_hash(&opened.bytes);
        let checked = self
            .check(opened.data, &request_id, now)
            .map(|(cert, station)| (cert, Some(station)))
            .map_err(|Refusal(code, why)| (code, why));
        let (code, certificate) = conclude(
            self.store.as_ref(),
            Role::Ea,
            &request_id,
            checked,
            Code::Ok,
            Code::DeniedRequest,
        )?;
        let response = InnerEcResponse::new(hash, code, certificate.map(|c| c.asn().clone()));
        respond(
            self.hsm.as_ref(),
            labels::EA,
            &self.cert,
            EtsiTs102941DataContent::EnrolmentResponse(Box::new(response)),
            code,
            &opened.key,
            now,
        )
    }

    /// Decrypts a request encrypted to the EA.
    fn open(&self, request: &[u8]) -> std::result::Result<vss_its::Decrypted, Unopened> {
        open_request(
            self.hsm.as_ref(),
            labels::EA_ENCRYPTION,
            &self.cert,
            request,
        )
    }

    /// Answers an AA's authorization validation request (6.2.3.4) received at `now`: the EC
    /// signature over the `SharedAtRequest` must be by a valid EC this EA issued, name this
    /// EA, and ask only for PSIDs the station may have.
    pub fn validate(&self, request: &[u8], now: ItsTime) -> Result<Answer<VCode>> {
        self.validate_recorded(request, now, false)
    }

    /// Answers as [`Ea::validate`] does, for an AA in this process: the record's commit
    /// rides on the AA's synchronous one that follows ([`PkiStore::record_deferred`]).
    pub fn validate_in_process(&self, request: &[u8], now: ItsTime) -> Result<Answer<VCode>> {
        self.validate_recorded(request, now, true)
    }

    fn validate_recorded(
        &self,
        request: &[u8],
        now: ItsTime,
        deferred: bool,
    ) -> Result<Answer<VCode>> {
        let hash = request_hash(request);
        let opened = match self.open(request) {
            Ok(o) => o,
            Err(failure) => return Ok(Answer::Refused(failure.into())),
        };
        // Replays are told by the decrypted request, whatever wraps it: the same request
        // re-sent with another recipient list is still a replay.
        let request_id = request_hash(&opened.bytes);
        // An AA in this process makes each request anew: no replay comes that way, so the
        // early look-up (which spares a replay the checks) is left out; the record still
        // refuses one.
        let early_replay_check = !deferred;
        let checked = self.check_validation(opened.data, &request_id, early_replay_check, now);
        let (code, confirmed, why) = match checked {
            Ok(confirmed) => (VCode::Ok, Some(confirmed), String::new()),
            Err(Refusal(code, why)) => (code, None, why),
        };
        let outcome = match code {
            VCode::Ok => Outcome::Answered(code.into()),
            _ => Outcome::Refused {
                code: code.into(),
                reason: why,
            },
        };
        let recorded = if deferred {
            self.store.record_deferred(Role::Ea, &request_id, &outcome)
        } else {
            self.store.record(Role::Ea, &request_id, &outcome)
        };
        let (code, confirmed) = match recorded {
            Ok(()) => (code, confirmed),
            Err(StoreError::Replay(_)) => (VCode::DeniedRequest, None),
            Err(e) => return Err(e.into()),
        };
        let response = AuthorizationValidationResponse::new(hash, code, confirmed);
        respond(
            self.hsm.as_ref(),
            labels::EA,
            &self.cert,
            EtsiTs102941DataContent::AuthorizationValidationResponse(Box::new(response)),
            code,
            &opened.key,
            now,
        )
    }

    fn check_validation(
        &self,
        outer: vss_its::asn::Ieee1609Dot2Data,
        request_id: &[u8; 16],
        early_replay_check: bool,
        now: ItsTime,
    ) -> std::result::Result<CertificateSubjectAttributes, Refusal<VCode>> {
        let outer = protocol::signed_message(outer)
            .or_else(|_| refuse(VCode::BadContentType, "the decrypted data is not signed"))?;
        // Checked before validation, so the validator never caches an AA certificate that
        // fails it: a signer named by digest is then one that passed.
        let asks = CertRequestPermission::AuthorizationValidationRequest;
        if let Some(why) = protocol::full_signer(&outer).and_then(|aa| protocol::lacks(&aa, asks)) {
            return refuse(VCode::InvalidAa, why);
        }
        let report = self
            .authorities
            .lock()
            .map_err(|_| Refusal(VCode::DeniedRequest, "a poisoned lock".into()))?
            .verify_message(&outer, &[], now);
        match report.verdict {
            Verdict::Valid => {}
            Verdict::FalseSignature => return refuse(VCode::InvalidAaSignature, report.reason),
            _ => return refuse(VCode::InvalidAa, report.reason),
        }
        let envelope = protocol::envelope(&outer)
            .or_else(|e| undecoded(e, VCode::BadContentType, VCode::CantParse))?;
        let request = match envelope.content {
            EtsiTs102941DataContent::AuthorizationValidationRequest(request) => request,
            other => {
                return refuse(
                    VCode::BadContentType,
                    other.unexpected("authorizationValidationRequest"),
                )
            }
        };
        if early_replay_check && self.store.seen(Role::Ea, request_id).unwrap_or(false) {
            return refuse(VCode::DeniedRequest, "a replay");
        }
        let shared = &request.shared_at_request;
        if vss_its::HashedId8::from_asn(&shared.ea_id) != self.cert.hashed_id8() {
            return refuse(VCode::WrongEa, "the request names another EA");
        }
        let signature = match &request.ec_signature {
            EcSignature::EcSignature(data) => data.clone(),
            EcSignature::EncryptedEcSignature(data) => {
                let key = HsmKey::new(self.hsm.as_ref(), labels::EA_ENCRYPTION)
                    .or_else(|e| refuse(VCode::DeniedRequest, e.to_string()))?;
                vss_its::decrypt_data(data, Decryptor::Certificate(&self.cert, &key))
                    .or_else(|e| refuse(VCode::DecryptionFailed, e.to_string()))?
                    .data
            }
        };
        let signature = SignedMessage::from_asn(signature).or_else(|_| {
            refuse(
                VCode::InvalidSignature,
                "the EC signature is not signed data",
            )
        })?;
        if !protocol::is_fresh(&signature, now) {
            return refuse(
                VCode::DeniedRequest,
                "the EC signature's generation time is outside the acceptable limits",
            );
        }
        let Some(ec_id) = signature.signer_digest() else {
            return refuse(
                VCode::UnknownIts,
                "the EC signature does not name its EC by digest",
            );
        };
        let known = self.known_ec(ec_id)?;
        let ec = &known.cert;
        if !ec.validity().contains(now) {
            return refuse(
                VCode::InvalidSignature,
                format!("EC {ec_id} is not valid now"),
            );
        }
        if let Some(why) = protocol::lacks(ec, CertRequestPermission::AuthorizationRequest) {
            return refuse(VCode::DeniedPermissions, why);
        }
        let payload = messages::encode("SharedAtRequest", shared)
            .or_else(|e| refuse(VCode::CantParse, e.to_string()))?;
        if !signature.covers_external(&payload)
            || !protocol::signed_by(&signature, ec).unwrap_or(false)
        {
            return refuse(VCode::InvalidSignature, "the EC signature does not verify");
        }
        let Some(allowed) = &known.psids else {
            return refuse(VCode::UnknownIts, "the EC's station is not registered");
        };
        let asked = &shared.requested_subject_attributes;
        let psids: Vec<Option<Psid>> = asked
            .app_permissions
            .as_ref()
            .map(|a| a.0.iter().map(|p| Psid::from_asn(&p.psid)).collect())
            .unwrap_or_default();
        if psids.is_empty()
            || psids
                .iter()
                .any(|p| !p.is_some_and(|p| allowed.contains(&p)))
        {
            return refuse(
                VCode::DeniedPermissions,
                format!("PSIDs {psids:?}, allowed {allowed:?}"),
            );
        }
        Ok(asked.clone())
    }

    /// The EC `id` this EA issued, with its station's PSIDs: from the cache, else read from
    /// the store (and cached when its station is registered).
    fn known_ec(&self, id: HashedId8) -> std::result::Result<Arc<KnownEc>, Refusal<VCode>> {
        if let Some(known) = self.ecs.lock().ok().and_then(|ecs| ecs.get(&id).cloned()) {
            return Ok(known);
        }
        let (cert, station) = match self.store.issued(&id) {
            Ok(Some(issued)) if issued.role == Role::Ea => {
                let cert = Cert::from_bytes(&issued.certificate)
                    .or_else(|e| refuse(VCode::DeniedRequest, e.to_string()))?;
                (cert, issued.station)
            }
            _ => return refuse(VCode::UnknownIts, format!("no EC {id}")),
        };
        let psids = match station.as_deref().map(|s| self.store.station(s)) {
            Some(Ok(Some(s))) => Some(s.psids),
            _ => None,
        };
        let known = Arc::new(KnownEc { cert, psids });
        if known.psids.is_some() {
            if let Ok(mut ecs) = self.ecs.lock() {
                if ecs.len() >= EC_CACHE_CAPACITY {
                    ecs.clear();
                }
                ecs.insert(id, known.clone());
            }
        }
        Ok(known)
    }

    /// The checks of 6.2.3.2, then issuance: the new EC and the station's canonical id.
    fn check(
        &self,
        outer: vss_its::asn::Ieee1609Dot2Data,
        request_id: &[u8; 16],
        now: ItsTime,
    ) -> std::result::Result<(Cert, String), Refusal> {
        let outer = match protocol::signed_message(outer) {
            Ok(m) => m,
            Err(_) => return refuse(Code::BadContentType, "the decrypted data is not signed"),
        };
        let envelope = protocol::envelope(&outer)
            .or_else(|e| undecoded(e, Code::BadContentType, Code::CantParse))?;
        let pop = match envelope.content {
            EtsiTs102941DataContent::EnrolmentRequest(pop) => pop,
            other => return refuse(Code::BadContentType, other.unexpected("enrolmentRequest")),
        };
        let pop = SignedMessage::from_asn(*pop)
            .or_else(|_| refuse(Code::BadContentType, "the request is not signed for PoP"))?;
        if pop.psid() != Some(Psid::CERT_REQUEST) {
            return refuse(Code::BadContentType, "the PoP is not under PSID 623");
        }
        let inner: InnerEcRequest = pop
            .payload()
            .ok_or(())
            .and_then(|p| messages::decode("InnerEcRequest", p).map_err(|_| ()))
            .or_else(|()| refuse(Code::CantParse, "no InnerEcRequest"))?;
        let requested = vss_its::verification_key(&inner.public_keys.verification_key)
            .or_else(|_| refuse(Code::InvalidKeys, "the verification key is not a point"))?;
        if !matches!(pop.signed().signer, SignerIdentifier::SelfSigned(()))
            || !pop.verify_with_key(&requested).unwrap_or(false)
        {
            return refuse(
                Code::InvalidSignature,
                "the proof of possession does not verify",
            );
        }
        let its_id = String::from_utf8(inner.its_id.to_vec())
            .or_else(|_| refuse(Code::UnknownIts, "the itsId is not a canonical id"))?;
        if !protocol::is_fresh(&outer, now) {
            return refuse(
                Code::DeniedRequest,
                "the request's generation time is outside the acceptable limits",
            );
        }
        self.check_outer(&outer, &its_id, now)?;
        if self.store.seen(Role::Ea, request_id).unwrap_or(false) {
            return refuse(Code::DeniedRequest, "a replay");
        }
        if let Some(apps) = &inner.requested_subject_attributes.app_permissions {
            if apps
                .0
                .iter()
                .any(|p| Psid::from_asn(&p.psid) != Some(Psid::CERT_REQUEST))
            {
                return refuse(Code::DeniedPermissions, "an EC carries PSID 623 only");
            }
        }
        let cert = self
            .issue(
                &its_id,
                requested,
                inner.public_keys.encryption_key.as_ref(),
                now,
            )
            .or_else(|e| refuse(Code::DeniedRequest, e.to_string()))?;
        Ok((cert, its_id))
    }

    /// The outer signature: by the registered canonical key for a first enrolment, by a
    /// valid EC this EA issued to the same station for a re-enrolment.
    fn check_outer(
        &self,
        outer: &SignedMessage,
        its_id: &str,
        now: ItsTime,
    ) -> std::result::Result<(), Refusal> {
        let station = match self.store.station(its_id) {
            Ok(Some(s)) => s,
            Ok(None) => return refuse(Code::UnknownIts, format!("no station '{its_id}'")),
            Err(e) => return refuse(Code::DeniedRequest, e.to_string()),
        };
        let ok = match outer.signer_digest() {
            None => {
                let key = PublicKey::from_sec1(station.curve, &station.public_key)
                    .or_else(|_| refuse(Code::BadItsStatus, "a stored key that is not a point"))?;
                matches!(outer.signed().signer, SignerIdentifier::SelfSigned(()))
                    && outer.verify_with_key(&key).unwrap_or(false)
            }
            Some(id) => {
                let issued = match self.store.issued(&id) {
                    Ok(Some(c)) if c.station.as_deref() == Some(its_id) => c,
                    _ => return refuse(Code::UnknownIts, format!("no EC {id} of '{its_id}'")),
                };
                let ec = Cert::from_bytes(&issued.certificate)
                    .or_else(|e| refuse(Code::DeniedRequest, e.to_string()))?;
                if !ec.validity().contains(now) {
                    return refuse(Code::BadItsStatus, format!("EC {id} is not valid now"));
                }
                if let Some(why) = protocol::lacks(&ec, CertRequestPermission::EnrolmentRequest) {
                    return refuse(Code::DeniedPermissions, why);
                }
                protocol::signed_by(outer, &ec).unwrap_or(false)
            }
        };
        if ok {
            Ok(())
        } else {
            refuse(
                Code::InvalidSignature,
                "the outer signature does not verify",
            )
        }
    }

    fn issue(
        &self,
        its_id: &str,
        key: PublicKey,
        encryption: Option<&vss_its::asn::PublicEncryptionKey>,
        now: ItsTime,
    ) -> Result<Cert> {
        let mut request = CertificateRequest::new(Profile::Ec, key, self.ec_duration.clone());
        request.name = Some(its_id.to_string());
        request.start = now;
        request.encryption_key = encryption.map(vss_its::encryption_key).transpose()?;
        let end = now.plus_micros(vss_its::duration_micros(&self.ec_duration));
        if end > self.cert.validity().end {
            // Cut to the EA's own validity, in whole hours.
            let left = self
                .cert
                .validity()
                .end
                .micros()
                .saturating_sub(now.micros());
            let hours = (left / 3_600_000_000).min(65535);
            request.duration = Duration::Hours(hours as u16);
        }
        let signer = HsmKey::new(self.hsm.as_ref(), labels::EA)?;
        Ok(issue_certificate(&request, Some(&self.cert), &signer)?)
    }
}
