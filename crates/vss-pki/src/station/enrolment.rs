//! The station's half of enrolment (TS 102 941 6.2.3.2): the request — the `InnerEcRequest`
//! signed with the new key (proof of possession), signed again with the canonical key (or
//! the current enrolment credential), encrypted to the EA — and the reading of the answer.

use vss_crypto::PublicKey;
use vss_its::{Cert, DataEncryptionKey, ItsTime, Recipient, Signer, SSP_EC_CERT_REQUEST};

use crate::messages::{
    self, CertificateSubjectAttributes, EnrolmentResponseCode, EtsiTs102941Data,
    EtsiTs102941DataContent, InnerEcRequest, PublicKeys,
};
use crate::protocol::{self, request_hash};
use crate::{Error, Result};

/// Who signs the outside of an enrolment request.
pub enum Outer<'a> {
    /// First enrolment: the station's canonical key.
    Canonical(&'a dyn Signer),
    /// Re-enrolment: the current enrolment credential and its key.
    Enrolment(&'a Cert, &'a dyn Signer),
}

/// An enrolment request ready to send, with what reading its answer needs.
pub struct EnrolmentRequest {
    /// The request message (`application/x-its-request`).
    pub bytes: Vec<u8>,
    /// Its `requestHash`.
    pub hash: [u8; 16],
    key: DataEncryptionKey,
}

/// Builds the request of station `its_id` for a credential for `new_key` (whose private
/// half `new_signer` proves possession), to the EA `ea`, at `now`.
pub fn enrolment_request(
    its_id: &str,
    new_signer: &dyn Signer,
    outer: Outer<'_>,
    ea: &Cert,
    now: ItsTime,
) -> Result<EnrolmentRequest> {
    let new_key: PublicKey = new_signer.public_key()?;
    let inner = InnerEcRequest::new(
        its_id.as_bytes(),
        PublicKeys {
            verification_key: vss_its::public_verification_key(&new_key)?,
            encryption_key: None,
        },
        CertificateSubjectAttributes::with_app_permissions(vss_its::asn::SequenceOfPsidSsp(vec![
            vss_its::asn::PsidSsp {
                psid: vss_its::Psid::CERT_REQUEST.to_asn(),
                ssp: Some(vss_its::asn::ServiceSpecificPermissions::BitmapSsp(
                    vss_its::asn::BitmapSsp(SSP_EC_CERT_REQUEST.to_vec().into()),
                )),
            },
        ])),
    );
    let pop = protocol::sign(
        &messages::encode("InnerEcRequest", &inner)?,
        None,
        new_signer,
        now,
    )?;
    let envelope = EtsiTs102941Data::new(EtsiTs102941DataContent::EnrolmentRequest(Box::new(pop)));
    let signed = match outer {
        Outer::Canonical(signer) => protocol::sign_envelope(&envelope, None, signer, now)?,
        Outer::Enrolment(cert, signer) => {
            protocol::sign_envelope(&envelope, Some(cert), signer, now)?
        }
    };
    let key = DataEncryptionKey::generate()?;
    let encrypted = vss_its::encrypt_data(&signed, &[Recipient::Certificate(ea)], &key)?;
    let bytes = vss_its::encode_data(&encrypted)?;
    Ok(EnrolmentRequest {
        hash: request_hash(&bytes),
        bytes,
        key,
    })
}

/// What the EA answered.
#[derive(Debug, Clone)]
pub struct EnrolmentResponse {
    /// The response code.
    pub code: EnrolmentResponseCode,
    /// The enrolment credential, when the code is `ok`.
    pub certificate: Option<Cert>,
}

impl EnrolmentRequest {
    /// Reads the EA's answer: decrypted with the request's key, signed by `ea`, for this
    /// request, a certificate exactly when `ok`.
    pub fn read_response(&self, bytes: &[u8], ea: &Cert) -> Result<EnrolmentResponse> {
        let bad = |detail: &str| Error::Malformed {
            what: "enrolment response",
            detail: detail.to_string(),
        };
        let EtsiTs102941DataContent::EnrolmentResponse(response) =
            protocol::open_response(bytes, &self.key, ea)?
        else {
            return Err(bad("not an enrolment response"));
        };
        let certificate = protocol::answered_certificate(
            &response,
            &self.hash,
            EnrolmentResponseCode::Ok,
            "enrolment response",
        )?;
        Ok(EnrolmentResponse {
            code: response.response_code,
            certificate,
        })
    }
}
