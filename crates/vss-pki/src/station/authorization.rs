//! The station's half of authorization (TS 102 941 6.2.3.3): a request for one ticket — the
//! ticket's keys with their `keyTag`, the `SharedAtRequest` signed by the enrolment
//! credential (detached) and encrypted to the EA, the whole signed with the ticket's key
//! (proof of possession) and encrypted to the AA — and the reading of the answer.

use vss_crypto::PublicKey;
use vss_its::{Cert, DataEncryptionKey, ItsTime, Psid, Recipient, Signer};

use crate::messages::{
    self, AuthorizationResponseCode, CertificateSubjectAttributes, EcSignature, EtsiTs102941Data,
    EtsiTs102941DataContent, InnerAtRequest, PublicKeys, SharedAtRequest,
};
use crate::protocol::{self, request_hash};
use crate::{Error, Result};

/// An authorization request ready to send, with what reading its answer needs.
pub struct AuthorizationRequest {
    /// The request message (`application/x-its-request`).
    pub bytes: Vec<u8>,
    /// Its `requestHash`.
    pub hash: [u8; 16],
    key: DataEncryptionKey,
    /// The encryption key the ticket is to carry.
    encryption_key: Option<PublicKey>,
}

/// The keys of a ticket to ask for: the verification key's signer (which also signs the
/// request, proof of possession) and, when the ticket is to be an ECIES recipient too, its
/// encryption key (`PublicKeys.encryptionKey`, covered by the `keyTag`).
#[derive(Clone, Copy)]
pub struct TicketKeys<'a> {
    /// Signs with the ticket's verification key.
    pub signer: &'a dyn Signer,
    /// The ticket's encryption key (p256 or bp256).
    pub encryption: Option<&'a PublicKey>,
}

impl<'a> TicketKeys<'a> {
    /// A ticket with a verification key only.
    pub fn signing(signer: &'a dyn Signer) -> Self {
        TicketKeys {
            signer,
            encryption: None,
        }
    }

    /// A ticket with a verification key and an encryption key.
    pub fn with_encryption(signer: &'a dyn Signer, encryption: &'a PublicKey) -> Self {
        TicketKeys {
            signer,
            encryption: Some(encryption),
        }
    }
}

/// What the AA answered.
#[derive(Debug, Clone)]
pub struct AuthorizationResponse {
    /// The response code.
    pub code: AuthorizationResponseCode,
    /// The authorization ticket, when the code is `ok`.
    pub certificate: Option<Cert>,
}

/// The application permissions of a request for `psids`.
pub fn app_permissions(psids: &[Psid]) -> CertificateSubjectAttributes {
    CertificateSubjectAttributes::with_app_permissions(vss_its::asn::SequenceOfPsidSsp(
        psids
            .iter()
            .map(|&p| vss_its::asn::PsidSsp {
                psid: p.to_asn(),
                ssp: None,
            })
            .collect(),
    ))
}

/// Builds a request for a ticket with the keys `ticket`, with `psids`, by the holder of
/// enrolment credential `ec` (key `ec_signer`) issued by `ea`, to the AA `aa`.
pub fn authorization_request(
    ticket: TicketKeys<'_>,
    ec: &Cert,
    ec_signer: &dyn Signer,
    ea: &Cert,
    aa: &Cert,
    psids: &[Psid],
    now: ItsTime,
) -> Result<AuthorizationRequest> {
    let public_keys = PublicKeys {
        verification_key: vss_its::public_verification_key(&ticket.signer.public_key()?)?,
        encryption_key: ticket
            .encryption
            .map(vss_its::public_encryption_key)
            .transpose()?,
    };
    let mut hmac_key = [0u8; 32];
    vss_crypto::random_bytes(&mut hmac_key)?;
    let shared = SharedAtRequest::new(
        ea.hashed_id8().to_asn(),
        protocol::key_tag(&hmac_key, &public_keys)?,
        app_permissions(psids),
    );
    let shared_bytes = messages::encode("SharedAtRequest", &shared)?;
    let mut detached = vss_its::SignedDataRequest::new(Psid::CERT_REQUEST, &shared_bytes);
    detached.external_payload = true;
    detached.generation_time = Some(now);
    let ec_signature = vss_its::sign_data(&detached, Some(ec), ec_signer)?;
    let ec_signature = vss_its::encrypt_data(
        &ec_signature,
        &[Recipient::Certificate(ea)],
        &DataEncryptionKey::generate()?,
    )?;
    let inner = InnerAtRequest::new(
        public_keys,
        hmac_key,
        shared,
        EcSignature::EncryptedEcSignature(ec_signature),
    );
    let envelope = EtsiTs102941Data::new(EtsiTs102941DataContent::AuthorizationRequest(Box::new(
        inner,
    )));
    let signed = protocol::sign_envelope(&envelope, None, ticket.signer, now)?;
    let key = DataEncryptionKey::generate()?;
    let encrypted = vss_its::encrypt_data(&signed, &[Recipient::Certificate(aa)], &key)?;
    let bytes = vss_its::encode_data(&encrypted)?;
    Ok(AuthorizationRequest {
        hash: request_hash(&bytes),
        bytes,
        key,
        encryption_key: ticket.encryption.cloned(),
    })
}

impl AuthorizationRequest {
    /// Reads the AA's answer: decrypted with the request's key, signed by `aa`, for this
    /// request, a ticket exactly when `ok`.
    pub fn read_response(&self, bytes: &[u8], aa: &Cert) -> Result<AuthorizationResponse> {
        let bad = |detail: &str| Error::Malformed {
            what: "authorization response",
            detail: detail.to_string(),
        };
        let EtsiTs102941DataContent::AuthorizationResponse(response) =
            protocol::open_response(bytes, &self.key, aa)?
        else {
            return Err(bad("not an authorization response"));
        };
        let certificate = protocol::answered_certificate(
            &response,
            &self.hash,
            AuthorizationResponseCode::Ok,
            "authorization response",
        )?;
        if let Some(ticket) = &certificate {
            if ticket.encryption_key()? != self.encryption_key {
                return Err(bad(
                    "the ticket does not carry the encryption key asked for",
                ));
            }
        }
        Ok(AuthorizationResponse {
            code: response.response_code,
            certificate,
        })
    }
}
