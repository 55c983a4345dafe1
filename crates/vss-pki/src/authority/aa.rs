//! The authorization authority (TS 102 941 6.2.3.3): decrypt the request, check the proof of
//! possession and the `keyTag`, ask the EA named by `eaId` to validate the EC signature, issue
//! the authorization ticket with the permissions the EA confirmed, record it, and answer
//! encrypted with the request's key. Transport-free: the EA is reached through an [`EaLink`].

use std::sync::Arc;

use vss_hsm::Hsm;
use vss_its::asn::{Duration, Ieee1609Dot2Content, SignerIdentifier};
use vss_its::{
    issue_certificate, Cert, CertRequestPermission, CertificateRequest, DataEncryptionKey,
    HashedId8, HsmKey, ItsTime, Permission, Profile, Psid, Recipient, SignedMessage,
};

use super::conclude::{conclude, respond};
use super::ea::{Answer, Ea};
use super::intake::open_request;
use super::labels;
use crate::messages::{
    AuthorizationResponseCode as Code, AuthorizationValidationRequest,
    AuthorizationValidationResponseCode as VCode, CertificateSubjectAttributes, EtsiTs102941Data,
    EtsiTs102941DataContent, InnerAtRequest, InnerAtResponse,
};
use crate::protocol::{self, request_hash};
use crate::store::{PkiStore, Role};
use crate::Result;

/// How the AA reaches an EA: sends an `AuthorizationValidationRequestMessage`, returns the
/// response message.
pub trait EaLink: Send + Sync {
    /// Sends `request` to the EA; the response bytes, or why the EA could not be reached.
    fn validate(&self, request: &[u8]) -> std::result::Result<Vec<u8>, String>;
}

/// The PKI's EA in the AA's own process, asked without a transport. Its record of a
/// validation need not be durable on its own ([`Ea::validate_in_process`]): the AA records
/// every request it validated, synchronously, before its answer leaves; only a replay
/// refusal, for a request already recorded, leaves without that commit.
pub struct LocalEa(pub Arc<Ea>);

impl EaLink for LocalEa {
    fn validate(&self, request: &[u8]) -> std::result::Result<Vec<u8>, String> {
        match self.0.validate_in_process(request, ItsTime::now()) {
            Ok(Answer::Response { body, .. }) => Ok(body),
            Ok(Answer::Refused(code)) => {
                Err(format!("refused: {}", crate::messages::code_name(&code)))
            }
            Err(e) => Err(e.to_string()),
        }
    }
}

/// An EA whose enrolment credentials the AA accepts, and the way to reach it.
pub struct KnownEa {
    /// Its certificate.
    pub cert: Cert,
    /// How to reach it.
    pub link: Arc<dyn EaLink>,
}

/// The authorization authority of one PKI.
pub struct Aa {
    cert: Cert,
    hsm: Arc<dyn Hsm>,
    store: Arc<dyn PkiStore>,
    eas: Vec<KnownEa>,
    /// Lifetime of the tickets it issues.
    pub ticket_duration: Duration,
}

struct Refusal(Code, String);

fn refuse<T>(code: Code, why: impl Into<String>) -> std::result::Result<T, Refusal> {
    Err(Refusal(code, why.into()))
}

impl Aa {
    /// The AA with certificate `cert`, keys in `hsm` (labels `aa`, `aa-enc`), records in
    /// `store`, accepting the ECs of `eas`; tickets last one week.
    pub fn new(cert: Cert, hsm: Arc<dyn Hsm>, store: Arc<dyn PkiStore>, eas: Vec<KnownEa>) -> Self {
        Aa {
            cert,
            hsm,
            store,
            eas,
            ticket_duration: Duration::Hours(168),
        }
    }

    /// The AA's certificate.
    pub fn cert(&self) -> &Cert {
        &self.cert
    }

    /// Answers an authorization request received at `now`.
    pub fn authorize(&self, request: &[u8], now: ItsTime) -> Result<Answer<Code>> {
        let hash = request_hash(request);
        let opened = match open_request(
            self.hsm.as_ref(),
            labels::AA_ENCRYPTION,
            &self.cert,
            request,
        ) {
            Ok(o) => o,
            Err(failure) => return Ok(Answer::Refused(failure.into())),
        };
        // Replays are told by the decrypted request, whatever wraps it: the same request
        // re-sent with another recipient list is still a replay.
        let request_id = request_hash(&opened.bytes);
        let checked = self
            .check(opened.data, &request_id, now)
            .map(|ticket| (ticket, None))
            .map_err(|Refusal(code, why)| (code, why));
        let (code, ticket) = conclude(
            self.store.as_ref(),
            Role::Aa,
            &request_id,
            checked,
            Code::Ok,
            Code::ItsAaOutOfSyncRequest,
        )?;
        let response = InnerAtResponse::new(hash, code, ticket.map(|t| t.asn().clone()));
        respond(
            self.hsm.as_ref(),
            labels::AA,
            &self.cert,
            EtsiTs102941DataContent::AuthorizationResponse(Box::new(response)),
            code,
            &opened.key,
            now,
        )
    }

    fn check(
        &self,
        data: vss_its::asn::Ieee1609Dot2Data,
        request_id: &[u8; 16],
        now: ItsTime,
    ) -> std::result::Result<Cert, Refusal> {
        let undecoded = |e: crate::Error| {
            let code = protocol::undecoded(&e, Code::ItsAaBadContentType, Code::ItsAaCantParse);
            refuse(code, e.to_string())
        };
        // With proof of possession the request is signed by the ticket's key; without, it is
        // EtsiTs102941Data carried as unsecured data.
        let (envelope, pop) = match &data.content {
            Ieee1609Dot2Content::SignedData(_) => {
                let message = SignedMessage::from_asn(data)
                    .or_else(|e| refuse(Code::ItsAaCantParse, e.to_string()))?;
                let envelope = protocol::envelope(&message).or_else(undecoded)?;
                (envelope, Some(message))
            }
            Ieee1609Dot2Content::UnsecuredData(bytes) => (
                crate::messages::decode_data(&bytes.0).or_else(undecoded)?,
                None,
            ),
            _ => return refuse(Code::ItsAaBadContentType, "neither signed nor unsecured"),
        };
        let inner = match envelope.content {
            EtsiTs102941DataContent::AuthorizationRequest(inner) => inner,
            other => {
                return refuse(
                    Code::ItsAaBadContentType,
                    other.unexpected("authorizationRequest"),
                )
            }
        };
        let ticket_key =
            vss_its::verification_key(&inner.public_keys.verification_key).or_else(|_| {
                refuse(
                    Code::ItsAaIncompleteRequest,
                    "a verification key that is no point",
                )
            })?;
        if let Some(pop) = pop {
            if !protocol::is_fresh(&pop, now) {
                return refuse(
                    Code::ItsAaOutOfSyncRequest,
                    "the request's generation time is outside the acceptable limits",
                );
            }
            if !matches!(pop.signed().signer, SignerIdentifier::SelfSigned(()))
                || !pop.verify_with_key(&ticket_key).unwrap_or(false)
            {
                return refuse(
                    Code::InvalidSignature,
                    "the proof of possession does not verify",
                );
            }
        }
        let tag = protocol::key_tag(&inner.hmac_key, &inner.public_keys)
            .or_else(|e| refuse(Code::ItsAaCantParse, e.to_string()))?;
        if tag != *inner.shared_at_request.key_tag {
            return refuse(
                Code::ItsAaKeysDontMatch,
                "the keyTag does not match the keys",
            );
        }
        if self.store.seen(Role::Aa, request_id).unwrap_or(false) {
            return refuse(Code::ItsAaOutOfSyncRequest, "a replay");
        }
        let ea_id = HashedId8::from_asn(&inner.shared_at_request.ea_id);
        let Some(ea) = self.eas.iter().find(|e| e.cert.hashed_id8() == ea_id) else {
            return refuse(Code::ItsAaUnknownEa, format!("EA {ea_id} is not trusted"));
        };
        let answers = CertRequestPermission::AuthorizationValidationResponse;
        if let Some(why) = protocol::lacks(&ea.cert, answers) {
            return refuse(Code::ItsAaInvalidEa, why);
        }
        let confirmed = self.validation(&inner, ea, now)?;
        let permissions = confirmed
            .app_permissions
            .map(|a| {
                a.0.iter()
                    .filter_map(|p| Psid::from_asn(&p.psid))
                    .map(Permission::psid)
                    .collect()
            })
            .unwrap_or_default();
        let mut request =
            CertificateRequest::new(Profile::At, ticket_key, self.ticket_duration.clone());
        request.start = now;
        request.app_permissions = permissions;
        // The ticket carries the encryption key the station asked for (and keyTag covered).
        request.encryption_key = inner
            .public_keys
            .encryption_key
            .as_ref()
            .map(vss_its::encryption_key)
            .transpose()
            .or_else(|_| {
                refuse(
                    Code::ItsAaInvalidEncryptionKey,
                    "an encryption key that is no point",
                )
            })?;
        let signer = HsmKey::new(self.hsm.as_ref(), labels::AA)
            .or_else(|e| refuse(Code::DeniedPermissions, e.to_string()))?;
        issue_certificate(&request, Some(&self.cert), &signer)
            .or_else(|e| refuse(Code::ItsAaDeniedPermissions, e.to_string()))
    }

    /// Asks `ea` to validate the request; the attributes it confirms.
    fn validation(
        &self,
        inner: &InnerAtRequest,
        ea: &KnownEa,
        now: ItsTime,
    ) -> std::result::Result<CertificateSubjectAttributes, Refusal> {
        let request = AuthorizationValidationRequest::new(
            inner.shared_at_request.clone(),
            inner.ec_signature.clone(),
        );
        let envelope = EtsiTs102941Data::new(
            EtsiTs102941DataContent::AuthorizationValidationRequest(Box::new(request)),
        );
        let signer = HsmKey::new(self.hsm.as_ref(), labels::AA)
            .or_else(|e| refuse(Code::AaEaCantReachEa, e.to_string()))?;
        let key = DataEncryptionKey::generate()
            .or_else(|e| refuse(Code::AaEaCantReachEa, e.to_string()))?;
        let bytes = self
            .sealed_for_ea(&envelope, &signer, &ea.cert, &key, now)
            .or_else(|e| refuse(Code::AaEaCantReachEa, e.to_string()))?;
        let answer = ea
            .link
            .validate(&bytes)
            .or_else(|why| refuse(Code::AaEaCantReachEa, why))?;
        let EtsiTs102941DataContent::AuthorizationValidationResponse(response) =
            protocol::open_response(&answer, &key, &ea.cert)
                .or_else(|e| refuse(Code::EaAaCantParse, e.to_string()))?
        else {
            return refuse(
                Code::EaAaBadContentType,
                "not an authorization validation response",
            );
        };
        if *response.request_hash != request_hash(&bytes) {
            return refuse(Code::EaAaCantParse, "the EA answered another request");
        }
        match (
            response.response_code,
            response.confirmed_subject_attributes,
        ) {
            (VCode::Ok, Some(confirmed)) => Ok(confirmed),
            (VCode::Ok, None) => refuse(Code::EaAaCantParse, "ok without attributes"),
            (code, _) => refuse(validation_code(code), format!("the EA answered {code:?}")),
        }
    }

    /// The validation request signed by the AA (certificate in full, so an EA of another
    /// PKI can chain it) and encrypted to the EA.
    fn sealed_for_ea(
        &self,
        envelope: &EtsiTs102941Data,
        signer: &HsmKey<'_>,
        ea: &Cert,
        key: &DataEncryptionKey,
        now: ItsTime,
    ) -> Result<Vec<u8>> {
        let payload = crate::messages::encode("EtsiTs102941Data", envelope)?;
        let mut request = vss_its::SignedDataRequest::new(Psid::CERT_REQUEST, &payload);
        request.generation_time = Some(now);
        request.signer = vss_its::SignerKind::Certificate;
        let signed = vss_its::sign_data(&request, Some(&self.cert), signer)?;
        let encrypted = vss_its::encrypt_data(&signed, &[Recipient::Certificate(ea)], key)?;
        Ok(vss_its::encode_data(&encrypted)?)
    }
}

/// The authorization response code for an EA's validation refusal.
fn validation_code(code: VCode) -> Code {
    match code {
        VCode::CantParse => Code::EaAaCantParse,
        VCode::BadContentType => Code::EaAaBadContentType,
        VCode::ImNotTheRecipient => Code::EaAaImNotTheRecipient,
        VCode::UnknownEncryptionAlgorithm => Code::EaAaUnknownEncryptionAlgorithm,
        VCode::DecryptionFailed => Code::EaAaDecryptionFailed,
        VCode::InvalidAa => Code::InvalidAa,
        VCode::InvalidAaSignature => Code::InvalidAaSignature,
        VCode::WrongEa => Code::WrongEa,
        VCode::UnknownIts => Code::UnknownIts,
        VCode::InvalidSignature => Code::InvalidSignature,
        VCode::InvalidEncryptionKey => Code::InvalidEncryptionKey,
        VCode::DeniedPermissions => Code::DeniedPermissions,
        VCode::DeniedTooManyCerts => Code::DeniedTooManyCerts,
        VCode::Ok | VCode::DeniedRequest => Code::DeniedPermissions,
    }
}
