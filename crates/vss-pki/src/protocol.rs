//! What both ends of TS 102 941 do the same way: the request hash, and
//! `EtsiTs102941Data` signed as the payload of 1609.2 signed data under PSID 623
//! (SecuredCertificateRequestService).

use vss_crypto::HashAlg;
use vss_its::asn::Ieee1609Dot2Data;
use vss_its::{Cert, ItsTime, Psid, SignedDataRequest, SignedMessage, Signer, SignerKind};

use crate::messages::{self, EtsiTs102941Data};
use crate::{Error, Result};

/// `requestHash`: the leftmost 16 octets of SHA-256 over the whole request message.
pub fn request_hash(request: &[u8]) -> [u8; 16] {
    let digest = HashAlg::Sha256.digest(request);
    let mut hash = [0; 16];
    hash.copy_from_slice(&digest[..16]);
    hash
}

/// `payload` signed under PSID 623 at `now`: self-signed when `cert` is `None`, else named
/// by digest.
pub(crate) fn sign(
    payload: &[u8],
    cert: Option<&Cert>,
    signer: &dyn Signer,
    now: ItsTime,
) -> Result<Ieee1609Dot2Data> {
    let mut request = SignedDataRequest::new(Psid::CERT_REQUEST, payload);
    request.generation_time = Some(now);
    request.signer = if cert.is_some() {
        SignerKind::Digest
    } else {
        SignerKind::SelfSigned
    };
    Ok(vss_its::sign_data(&request, cert, signer)?)
}

/// `EtsiTs102941Data` signed as [`sign`] does.
pub(crate) fn sign_envelope(
    data: &EtsiTs102941Data,
    cert: Option<&Cert>,
    signer: &dyn Signer,
    now: ItsTime,
) -> Result<Ieee1609Dot2Data> {
    sign(
        &messages::encode("EtsiTs102941Data", data)?,
        cert,
        signer,
        now,
    )
}

/// The `EtsiTs102941Data` a signed message carries under PSID 623.
pub(crate) fn envelope(message: &SignedMessage) -> Result<EtsiTs102941Data> {
    if message.psid() != Some(Psid::CERT_REQUEST) {
        return Err(Error::Malformed {
            what: "TS 102 941 message",
            detail: format!("PSID {:?}, not {}", message.psid(), Psid::CERT_REQUEST),
        });
    }
    let payload = message.payload().ok_or_else(|| Error::Malformed {
        what: "TS 102 941 message",
        detail: "the signed data carries no payload".into(),
    })?;
    messages::decode_data(payload)
}

/// The code for an envelope that did not decode: `bad_content` for a V2.x alternative VSS
/// does not implement (it parsed, as far as its tag), else `cant_parse`.
pub(crate) fn undecoded<C>(e: &Error, bad_content: C, cant_parse: C) -> C {
    match e {
        Error::UnsupportedContent { .. } => bad_content,
        _ => cant_parse,
    }
}

/// Whether `message` is signed by the key of `cert` and names it (by digest or in full).
pub(crate) fn signed_by(message: &SignedMessage, cert: &Cert) -> Result<bool> {
    let named = match message.signer_digest() {
        Some(id) => id == cert.hashed_id8(),
        None => match &message.signed().signer {
            vss_its::asn::SignerIdentifier::Certificate(certs) => {
                certs.0.first() == Some(cert.asn())
            }
            _ => false,
        },
    };
    if !named {
        return Ok(false);
    }
    let signature = message.signature()?;
    let key = cert.verification_key()?;
    Ok(signature.curve() == key.curve()
        && key
            .verifying_key()?
            .verify_digest(&message.signed_digest(Some(cert))?, &signature))
}

/// Checks that the `authority`'s certificate `cert` lets it sign what `permission` names.
pub(crate) fn require(
    cert: &Cert,
    authority: &'static str,
    permission: vss_its::CertRequestPermission,
) -> Result<()> {
    if vss_its::permits_cert_request(cert.tbs(), permission) {
        Ok(())
    } else {
        Err(Error::NotPermitted {
            authority,
            certificate: cert.hashed_id8(),
            permission,
        })
    }
}

/// Why the holder of `cert` may not sign what `permission` names (TS 102 941 §B.4); `None`
/// when it may.
pub(crate) fn lacks(cert: &Cert, permission: vss_its::CertRequestPermission) -> Option<String> {
    (!vss_its::permits_cert_request(cert.tbs(), permission)).then(|| {
        format!(
            "certificate {} does not permit {permission}",
            cert.hashed_id8()
        )
    })
}

/// The certificate that signed `message`, when the message carries it in full.
pub(crate) fn full_signer(message: &SignedMessage) -> Option<Cert> {
    match &message.signed().signer {
        vss_its::asn::SignerIdentifier::Certificate(certs) => {
            certs.0.first().and_then(|c| Cert::from_asn(c.clone()).ok())
        }
        _ => None,
    }
}

/// The signed message inside decoded bytes, or why not.
pub(crate) fn signed_message(data: Ieee1609Dot2Data) -> Result<SignedMessage> {
    Ok(SignedMessage::from_asn(data)?)
}

/// `keyTag` (TS 102 941 6.2.3.3.1): HMAC-SHA256 under `hmacKey` over the COER of the
/// request's verification key followed by its encryption key (if any), leftmost 16 bytes.
pub fn key_tag(hmac_key: &[u8; 32], keys: &messages::PublicKeys) -> Result<[u8; 16]> {
    let mut input = messages::encode("PublicVerificationKey", &keys.verification_key)?;
    if let Some(encryption) = &keys.encryption_key {
        input.extend(messages::encode("PublicEncryptionKey", encryption)?);
    }
    let mac = vss_crypto::hmac_sha256(hmac_key, &input);
    let mut tag = [0; 16];
    tag.copy_from_slice(&mac[..16]);
    Ok(tag)
}

/// A response: `content` signed by `cert` with `signer`, encrypted with the request's key.
pub(crate) fn seal_response(
    content: messages::EtsiTs102941DataContent,
    cert: &Cert,
    signer: &dyn Signer,
    key: &vss_its::DataEncryptionKey,
    now: ItsTime,
) -> Result<Vec<u8>> {
    let signed = sign_envelope(&EtsiTs102941Data::new(content), Some(cert), signer, now)?;
    let encrypted = vss_its::encrypt_data(&signed, &[vss_its::Recipient::PreSharedKey], key)?;
    Ok(vss_its::encode_data(&encrypted)?)
}

/// Opens a response: decrypted with the request's key, signed by `responder`; its content.
pub(crate) fn open_response(
    bytes: &[u8],
    key: &vss_its::DataEncryptionKey,
    responder: &Cert,
) -> Result<messages::EtsiTs102941DataContent> {
    let data = vss_its::decode_data(bytes)?;
    let opened = vss_its::decrypt_data(&data, vss_its::Decryptor::PreSharedKey(key))?;
    let message = SignedMessage::from_asn(opened.data)?;
    if !signed_by(&message, responder)? {
        return Err(Error::Malformed {
            what: "response",
            detail: format!("not signed by {}", responder.hashed_id8()),
        });
    }
    Ok(envelope(&message)?.content)
}

/// The certificate of an EC or AT response to the request `hash`: checked to answer that
/// request, and present exactly when the code is `ok`.
pub(crate) fn answered_certificate<C>(
    response: &messages::CertificateResponse<C>,
    hash: &[u8; 16],
    ok: C,
    what: &'static str,
) -> Result<Option<Cert>>
where
    C: rasn::AsnType + rasn::Encode + rasn::Decode + PartialEq,
{
    let bad = |detail: &str| Error::Malformed {
        what,
        detail: detail.to_string(),
    };
    if *response.request_hash != *hash {
        return Err(bad("the response answers another request"));
    }
    let certificate = response
        .certificate
        .clone()
        .map(Cert::from_asn)
        .transpose()?;
    if (response.response_code == ok) != certificate.is_some() {
        return Err(bad("a certificate must come exactly with ok"));
    }
    Ok(certificate)
}

/// How far a request's generation time may lie behind the receiver's clock.
pub const MAX_REQUEST_AGE_MICROS: u64 = 5 * 60 * 1_000_000;
/// How far it may lie ahead (clock skew between station and authority).
pub const MAX_REQUEST_LEAD_MICROS: u64 = 60 * 1_000_000;

/// Whether signed `message` was generated within the acceptable limits around `now`
/// (TS 102 941's `its-aa-outofsyncrequest`: "signingTime is outside acceptable limits"); a
/// message without a generation time is not fresh.
pub fn is_fresh(message: &SignedMessage, now: ItsTime) -> bool {
    let Some(generated) = message.header().generation_time.as_ref() else {
        return false;
    };
    let generated = ItsTime::from_time64(generated).micros();
    let now = now.micros();
    generated <= now.saturating_add(MAX_REQUEST_LEAD_MICROS)
        && now.saturating_sub(generated) <= MAX_REQUEST_AGE_MICROS
}
