//! ITS data for VSS: the certificates and secured data of IEEE 1609.2-2022 and ETSI TS 103
//! 097 v2.1.1, in canonical OER (through `rasn-its`), and the validation logic around them.
//!
//! - [`Cert`]: an explicit certificate with its HashedId8; [`issue_certificate`] builds the
//!   TS 103 097 profiles (root, EA, AA, EC, AT).
//! - [`sign_data`] and [`SignedMessage`]: signed data with its header, signer as digest,
//!   certificate or self.
//! - [`encrypt_data`] and [`decrypt_data`]: encrypted data for certificates, keys or a
//!   pre-shared key (ECIES + AES-128-CCM).
//! - [`Validator`]: signer lookup, chain validation to a [`TrustAnchors`], signature, time,
//!   PSID and region checks, one [`Verdict`]; validated certificates go to a [`CertCache`].
//!
//! ```
//! use vss_crypto::{Curve, PrivateKey};
//! use vss_its::{asn::Duration, issue_certificate, sign_data, CertificateRequest, ItsTime,
//!               Profile, SignedDataRequest, TrustAnchors, Validator, Verdict};
//!
//! let root_key = PrivateKey::generate(Curve::P256)?;
//! let mut request = CertificateRequest::new(Profile::Root, root_key.public_key().clone(),
//!                                           Duration::Years(5));
//! request.name = Some("root".into());
//! let root = issue_certificate(&request, None, &root_key)?;
//!
//! let aa_key = PrivateKey::generate(Curve::P256)?;
//! let mut request = CertificateRequest::new(Profile::Aa, aa_key.public_key().clone(),
//!                                           Duration::Years(2));
//! request.encryption_key = Some(PrivateKey::generate(Curve::P256)?.public_key().clone());
//! let aa = issue_certificate(&request, Some(&root), &root_key)?;
//!
//! let at_key = PrivateKey::generate(Curve::P256)?;
//! let mut request = CertificateRequest::new(Profile::At, at_key.public_key().clone(),
//!                                           Duration::Hours(168));
//! request.app_permissions = vec![vss_its::Permission::psid(vss_its::Psid::CAM)];
//! let at = issue_certificate(&request, Some(&aa), &aa_key)?;
//!
//! let mut message = SignedDataRequest::new(vss_its::Psid::CAM, b"CAM");
//! message.signer = vss_its::SignerKind::Certificate;
//! let bytes = vss_its::encode_data(&sign_data(&message, Some(&at), &at_key)?)?;
//!
//! let mut trust = TrustAnchors::new();
//! trust.add(root)?;
//! let mut validator = Validator::new(trust, 81);
//! let report = validator.verify_data(&bytes, &[aa], ItsTime::now());
//! assert_eq!(report.verdict, Verdict::Valid);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod anchors;
mod builder;
mod cache;
mod cert;
mod cert_file;
mod codec;
mod encrypted_data;
mod error;
mod hashing;
mod keys;
mod permissions;
mod psid;
pub mod region;
mod request_ssp;
mod signed_data;
mod signer;
pub mod text;
mod time;
mod validate;
mod verdict;

/// The ASN.1 types of IEEE 1609.2 (from `rasn-its`), base types included.
pub mod asn {
    pub use rasn_its::ieee1609dot2::base_types::*;
    pub use rasn_its::ieee1609dot2::*;
}

pub use anchors::{AnchorLists, StaleCrlPolicy, TrustAnchors};
pub use builder::{
    issue_certificate, CertificateRequest, Permission, Profile, SspForm, SSP_ROOT_CRL,
    SSP_ROOT_CTL, SSP_TLM_CTL,
};
pub use cache::{
    CacheStats, CertCache, PreparedKeyPolicy, ValidatedCert, DEFAULT_CAPACITY, IDLE_BEFORE_DROP,
};
pub use cert::{Cert, Issuer};
pub use cert_file::CertFileError;
pub use codec::MAX_ENCODED_LEN;
pub use encrypted_data::{
    decrypt_data, encrypt_data, DataEncryptionKey, Decrypted, Decryptor, Recipient, MAX_RECIPIENTS,
};
pub use error::{DecryptionError, Error, Result};
pub use hashing::{signing_digest, HashedId3, HashedId8};
pub use keys::{
    encryption_key, hash_for_curve, public_encryption_key, public_verification_key,
    signature_from_asn, signature_to_asn, verification_key,
};
pub use permissions::allows_psid;
pub use psid::Psid;
pub use request_ssp::{
    permits_cert_request, CertRequestPermission, SSP_AA_CERT_REQUEST, SSP_EA_CERT_REQUEST,
    SSP_EC_CERT_REQUEST,
};
pub use signed_data::{sign_data, unsecured, SignedDataRequest, SignedMessage, SignerKind};
pub use signer::{HsmKey, KeyAgreement, Signer};
pub use time::{duration_from_seconds, duration_micros, ItsTime, TimeError, Validity};
pub use validate::{PendingSignature, Policy, Prepared, Report, Validator};
pub use verdict::Verdict;

/// Decodes COER `Ieee1609Dot2Data` of any content (strict: canonical, no trailing bytes).
pub fn decode_data(bytes: &[u8]) -> Result<asn::Ieee1609Dot2Data> {
    codec::decode("Ieee1609Dot2Data", bytes)
}

/// The structure of `Ieee1609Dot2Data` as JSON (X.697 JER: the standard's field names,
/// octet strings in hex).
pub fn data_to_json(data: &asn::Ieee1609Dot2Data) -> Result<serde_json::Value> {
    codec::to_json("Ieee1609Dot2Data", data)
}

/// The structure of a certificate as JSON (X.697 JER).
pub fn certificate_to_json(cert: &Cert) -> Result<serde_json::Value> {
    codec::to_json("certificate", cert.asn())
}

/// The COER encoding of `Ieee1609Dot2Data`.
pub fn encode_data(data: &asn::Ieee1609Dot2Data) -> Result<Vec<u8>> {
    codec::encode("Ieee1609Dot2Data", data)
}
