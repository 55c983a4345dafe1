//! Signed data (`Ieee1609Dot2Data` with `signedData`, 1609.2 6.3.4–6.3.9): building with a
//! [`Signer`], and reading what validation needs.

use rasn::types::{FixedOctetString, OctetString};
use vss_crypto::{HashAlg, PublicKey};

use crate::asn::{
    EncryptionKey, HashedData, HashedId32, HeaderInfo, Ieee1609Dot2Content, Ieee1609Dot2Data,
    SequenceOfCertificate, SequenceOfHashedId3, SignedData, SignedDataPayload, SignerIdentifier,
    ThreeDLocation, ToBeSignedData,
};
use crate::hashing::{hash_algorithm, signing_digest, HashedId3, HashedId8};
use crate::keys::{canonical_encryption_key, hash_for_curve, signature_from_asn, signature_to_asn};
use crate::{codec, Cert, Error, ItsTime, Psid, Result, Signer};

/// How the signer is named in a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignerKind {
    /// The HashedId8 of the signing certificate (receivers must know it already).
    Digest,
    /// The whole signing certificate.
    Certificate,
    /// Self-signed: no certificate (the receiver must trust the key some other way).
    SelfSigned,
}

/// What to sign: the payload and the header fields of 1609.2's `HeaderInfo`.
#[derive(Debug, Clone)]
pub struct SignedDataRequest<'a> {
    /// The application's PSID (ITS-AID): 36 for CAM, 37 for DENM.
    pub psid: Psid,
    /// The application data, carried as `unsecuredData` (or, with `external_payload`, only
    /// its SHA-256).
    pub payload: &'a [u8],
    /// Leave the payload out and sign its SHA-256 as `extDataHash` (TS 102 941's detached
    /// EC signature); the receiver supplies the payload to verify.
    pub external_payload: bool,
    /// The generation time (1609.2 requires it of most profiles).
    pub generation_time: Option<ItsTime>,
    /// When the data stops being relevant.
    pub expiry_time: Option<ItsTime>,
    /// Where the data was generated.
    pub generation_location: Option<ThreeDLocation>,
    /// How the signer is named.
    pub signer: SignerKind,
    /// Certificates this station asks its peers for (inline P2PCD).
    pub inline_p2pcd_request: Vec<HashedId3>,
    /// A certificate a peer asked for (inline P2PCD answer).
    pub requested_certificate: Option<Cert>,
    /// A certificate the station asks a peer for (the learning-request form of P2PCD).
    pub p2pcd_learning_request: Option<HashedId3>,
}

impl<'a> SignedDataRequest<'a> {
    /// A request for `payload` under `psid`, generated now, signer as digest.
    pub fn new(psid: Psid, payload: &'a [u8]) -> Self {
        SignedDataRequest {
            psid,
            payload,
            external_payload: false,
            generation_time: Some(ItsTime::now()),
            expiry_time: None,
            generation_location: None,
            signer: SignerKind::Digest,
            inline_p2pcd_request: Vec::new(),
            requested_certificate: None,
            p2pcd_learning_request: None,
        }
    }
}

/// Signs `request` with `signer`, whose certificate is `cert` (`None` only when self-signed).
pub fn sign_data(
    request: &SignedDataRequest<'_>,
    cert: Option<&Cert>,
    signer: &dyn Signer,
) -> Result<Ieee1609Dot2Data> {
    let hash = hash_for_curve(signer.curve())?;
    let signer_id = match (request.signer, cert) {
        (SignerKind::SelfSigned, _) => SignerIdentifier::SelfSigned(()),
        (SignerKind::Digest, Some(c)) => SignerIdentifier::Digest(c.hashed_id8().to_asn()),
        (SignerKind::Certificate, Some(c)) => {
            SignerIdentifier::Certificate(SequenceOfCertificate(vec![c.asn().clone()]))
        }
        (_, None) => {
            return Err(Error::InvalidRequest(
                "a signer named by digest or certificate needs its certificate".into(),
            ))
        }
    };
    if let Some(c) = cert {
        if c.verification_key()? != signer.public_key()? {
            return Err(Error::InvalidRequest(
                "the signing key is not the certificate's verification key".into(),
            ));
        }
    }
    let header = HeaderInfo::builder()
        .psid(request.psid.to_asn())
        .maybe_generation_time(request.generation_time.map(ItsTime::to_time64))
        .maybe_expiry_time(request.expiry_time.map(ItsTime::to_time64))
        .maybe_generation_location(request.generation_location.clone())
        .maybe_p2pcd_learning_request(request.p2pcd_learning_request.map(HashedId3::to_asn))
        .maybe_inline_p2pcd_request((!request.inline_p2pcd_request.is_empty()).then(|| {
            SequenceOfHashedId3(
                request
                    .inline_p2pcd_request
                    .iter()
                    .map(|h| h.to_asn())
                    .collect(),
            )
        }))
        .maybe_requested_certificate(
            request
                .requested_certificate
                .as_ref()
                .map(|c| c.asn().clone()),
        )
        .build();
    let payload = if request.external_payload {
        SignedDataPayload::builder()
            .ext_data_hash(HashedData::Sha256HashedData(HashedId32(
                FixedOctetString::new(sha256(request.payload)),
            )))
            .build()
    } else {
        SignedDataPayload::builder()
            .data(unsecured(request.payload))
            .build()
    }
    .map_err(|e| Error::InvalidRequest(e.to_string()))?;
    let tbs_data = ToBeSignedData {
        payload,
        header_info: header,
    };
    let tbs = codec::encode("tbsData", &tbs_data)?;
    let digest = signing_digest(
        hash,
        &tbs,
        match request.signer {
            SignerKind::SelfSigned => None,
            _ => cert.map(Cert::canonical_bytes),
        },
    );
    let signature = signature_to_asn(&signer.sign_digest(&digest)?)?;
    Ok(Ieee1609Dot2Data {
        protocol_version: Ieee1609Dot2Data::VERSION,
        content: Ieee1609Dot2Content::SignedData(Box::new(SignedData {
            hash_id: hash_algorithm(hash)?,
            tbs_data,
            signer: signer_id,
            signature,
        })),
    })
}

fn sha256(data: &[u8]) -> [u8; 32] {
    HashAlg::Sha256
        .digest(data)
        .try_into()
        .expect("SHA-256 is 32 bytes")
}

/// `Ieee1609Dot2Data` carrying bytes as `unsecuredData`.
pub fn unsecured(payload: &[u8]) -> Ieee1609Dot2Data {
    Ieee1609Dot2Data {
        protocol_version: Ieee1609Dot2Data::VERSION,
        content: Ieee1609Dot2Content::UnsecuredData(OctetString::from_slice(payload).into()),
    }
}

/// The canonical form of `tbsData` that is signed (6.3.9): a public encryption key in the
/// header with its point compressed.
fn canonical_tbs(tbs: &ToBeSignedData) -> std::borrow::Cow<'_, ToBeSignedData> {
    match &tbs.header_info.encryption_key {
        Some(EncryptionKey::Public(key)) => {
            let mut canonical = tbs.clone();
            canonical.header_info.encryption_key =
                Some(EncryptionKey::Public(canonical_encryption_key(key)));
            std::borrow::Cow::Owned(canonical)
        }
        _ => std::borrow::Cow::Borrowed(tbs),
    }
}

/// A decoded signed message and the encoding of its canonical `tbsData`.
#[derive(Debug, Clone)]
pub struct SignedMessage {
    asn: Ieee1609Dot2Data,
    tbs: Vec<u8>,
}

impl SignedMessage {
    /// Decodes COER `Ieee1609Dot2Data`; its content must be `signedData`.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Self::from_asn(codec::decode("Ieee1609Dot2Data", bytes)?)
    }

    /// Wraps a decoded `Ieee1609Dot2Data`; its content must be `signedData`.
    pub fn from_asn(asn: Ieee1609Dot2Data) -> Result<Self> {
        let Ieee1609Dot2Content::SignedData(signed) = &asn.content else {
            return Err(Error::Malformed {
                what: "signed data",
                detail: "the content is not signedData".into(),
            });
        };
        let tbs = codec::encode("tbsData", &canonical_tbs(&signed.tbs_data))?;
        Ok(SignedMessage { asn, tbs })
    }

    /// The whole structure.
    pub fn asn(&self) -> &Ieee1609Dot2Data {
        &self.asn
    }

    /// The `signedData`.
    pub fn signed(&self) -> &SignedData {
        match &self.asn.content {
            Ieee1609Dot2Content::SignedData(s) => s,
            _ => unreachable!("checked on construction"),
        }
    }

    /// The header.
    pub fn header(&self) -> &HeaderInfo {
        &self.signed().tbs_data.header_info
    }

    /// The PSID, when it fits in 64 bits.
    pub fn psid(&self) -> Option<Psid> {
        Psid::from_asn(&self.header().psid)
    }

    /// The payload when it is carried as `unsecuredData` (directly or one level down).
    pub fn payload(&self) -> Option<&[u8]> {
        let data = self.signed().tbs_data.payload.data.as_ref()?;
        match &data.content {
            Ieee1609Dot2Content::UnsecuredData(bytes) => Some(bytes.0.as_ref()),
            _ => None,
        }
    }

    /// The SHA-256 of a payload that is not carried (`extDataHash`), for detached signatures.
    pub fn external_hash(&self) -> Option<[u8; 32]> {
        match self.signed().tbs_data.payload.ext_data_hash.as_ref()? {
            HashedData::Sha256HashedData(h) => Some(*h.0),
            _ => None,
        }
    }

    /// Whether `payload` is the one whose hash the message signs as `extDataHash`.
    pub fn covers_external(&self, payload: &[u8]) -> bool {
        self.external_hash() == Some(sha256(payload))
    }

    /// Checks the signature with a key known by other means (for self-signed data, such as
    /// TS 102 941's proof of possession): whether it verifies. The hash must be the key's.
    pub fn verify_with_key(&self, key: &PublicKey) -> Result<bool> {
        let hash = crate::hashing::hash_alg(self.signed().hash_id)?;
        if hash_for_curve(key.curve())? != hash {
            return Ok(false);
        }
        let signature = self.signature()?;
        Ok(signature.curve() == key.curve()
            && key
                .verifying_key()?
                .verify_digest(&self.signed_digest(None)?, &signature))
    }

    /// The HashedId8 that names the signer, when it is given by digest.
    pub fn signer_digest(&self) -> Option<HashedId8> {
        match &self.signed().signer {
            SignerIdentifier::Digest(id) => Some(HashedId8::from_asn(id)),
            _ => None,
        }
    }

    /// The HashedId8 of the signer: its digest, or that of the first certificate carried;
    /// `None` for self-signed data (or a certificate that does not decode).
    pub fn signer_id(&self) -> Option<HashedId8> {
        match &self.signed().signer {
            SignerIdentifier::Certificate(certs) => certs
                .0
                .first()
                .and_then(|c| Cert::from_asn(c.clone()).ok())
                .map(|c| c.hashed_id8()),
            _ => self.signer_digest(),
        }
    }

    /// The digest that was signed (over the canonical `tbsData`), given the signer's
    /// certificate (`None` when self-signed).
    pub fn signed_digest(&self, signer: Option<&Cert>) -> Result<Vec<u8>> {
        let hash = crate::hashing::hash_alg(self.signed().hash_id)?;
        let payload = &self.signed().tbs_data.payload;
        if payload.data.is_none() && self.external_hash().is_none() {
            return Err(Error::Unsupported(
                "signed data whose payload is omitted or hashed other than with SHA-256".into(),
            ));
        }
        Ok(signing_digest(
            hash,
            &self.tbs,
            signer.map(Cert::canonical_bytes),
        ))
    }

    /// The signature.
    pub fn signature(&self) -> Result<vss_crypto::Signature> {
        signature_from_asn(&self.signed().signature)
    }
}
