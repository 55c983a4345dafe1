//! A decoded explicit certificate with its encoding, its HashedId8 and accessors for what
//! validation reads.

use std::sync::OnceLock;

use vss_crypto::{HashAlg, PublicKey, Signature};

use crate::asn::{self, CertificateType, IssuerIdentifier, VerificationKeyIndicator};
use crate::hashing::{hash_alg, signing_digest, HashedId3, HashedId8};
use crate::keys::{
    canonical_encryption_key, canonical_signature, canonical_verification_key, encryption_key,
    hash_for_curve, signature_from_asn, verification_key, verification_key_curve,
};
use crate::time::Validity;
use crate::{codec, Error, Result};

/// Who signed a certificate, as its `issuer` field says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Issuer {
    /// Self-signed, with this hash.
    SelfSigned(HashAlg),
    /// Signed by the certificate with this HashedId8, with this hash.
    Digest(HashAlg, HashedId8),
}

impl Issuer {
    /// The hash of the certificate's signature and of its HashedId8.
    pub fn hash(&self) -> HashAlg {
        match *self {
            Issuer::SelfSigned(h) | Issuer::Digest(h, _) => h,
        }
    }
}

/// An explicit 1609.2 certificate, decoded, with the bytes it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cert {
    asn: asn::Certificate,
    bytes: Vec<u8>,
    canonical: Vec<u8>,
    canonical_tbs: Vec<u8>,
    issuer: Issuer,
    digest: Vec<u8>,
    hashed_id8: HashedId8,
    keys: KeyCache,
}

/// A certificate's public keys, decoded on first use: decompressing a point is a modular
/// square root, and an authority's own certificates are read on every request.
#[derive(Debug, Clone, Default)]
struct KeyCache {
    verification: OnceLock<PublicKey>,
    encryption: OnceLock<PublicKey>,
}

/// The cache is derived from the certificate, so it never makes two certificates differ.
impl PartialEq for KeyCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for KeyCache {}

/// The value in `cell`, made by `make` the first time.
fn cached(
    cell: &OnceLock<PublicKey>,
    make: impl FnOnce() -> Result<PublicKey>,
) -> Result<PublicKey> {
    if let Some(key) = cell.get() {
        return Ok(key.clone());
    }
    let key = make()?;
    Ok(cell.get_or_init(|| key).clone())
}

impl Cert {
    /// Decodes a COER certificate; it must be explicit and canonically encoded.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let asn: asn::Certificate = codec::decode("certificate", bytes)?;
        Self::with_bytes(asn, bytes.to_vec())
    }

    /// Wraps a certificate structure (encoding it).
    pub fn from_asn(asn: asn::Certificate) -> Result<Self> {
        let bytes = codec::encode("certificate", &asn)?;
        Self::with_bytes(asn, bytes)
    }

    fn with_bytes(asn: asn::Certificate, bytes: Vec<u8>) -> Result<Self> {
        if asn.r#type != CertificateType::Explicit
            || !matches!(
                asn.to_be_signed.verify_key_indicator,
                VerificationKeyIndicator::VerificationKey(_)
            )
        {
            return Err(Error::Unsupported(
                "implicit certificates (VSS validates explicit ones)".into(),
            ));
        }
        if asn.signature.is_none() {
            return Err(Error::Malformed {
                what: "certificate",
                detail: "an explicit certificate without a signature".into(),
            });
        }
        let issuer = match &asn.issuer {
            IssuerIdentifier::VSelf(alg) => Issuer::SelfSigned(hash_alg(*alg)?),
            IssuerIdentifier::Sha256AndDigest(id) => {
                Issuer::Digest(HashAlg::Sha256, HashedId8::from_asn(id))
            }
            IssuerIdentifier::Sha384AndDigest(id) => {
                Issuer::Digest(HashAlg::Sha384, HashedId8::from_asn(id))
            }
            _ => return Err(Error::Unsupported("an issuer identified by SM3".into())),
        };
        let canonical_form = canonical(&asn)?;
        let canonical_tbs = codec::encode("toBeSigned", &canonical_form.to_be_signed)?;
        let canonical = if canonical_form == asn {
            bytes.clone()
        } else {
            codec::encode("certificate", &canonical_form)?
        };
        // The whole-certificate hash follows the certificate's own key (1609.2 6.4.3):
        // SHA-384 for a 384-bit key, else SHA-256.
        let own_hash = match &asn.to_be_signed.verify_key_indicator {
            VerificationKeyIndicator::VerificationKey(key) => verification_key_curve(key)
                .and_then(hash_for_curve)
                .unwrap_or(HashAlg::Sha256),
            _ => HashAlg::Sha256,
        };
        let digest = own_hash.digest(&canonical);
        let hashed_id8 = HashedId8::of_digest(&digest);
        Ok(Cert {
            asn,
            bytes,
            canonical,
            canonical_tbs,
            issuer,
            digest,
            hashed_id8,
            keys: KeyCache::default(),
        })
    }

    /// The ASN.1 structure.
    pub fn asn(&self) -> &asn::Certificate {
        &self.asn
    }

    /// The encoding it was decoded from (or encoded to).
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The canonical encoding (6.4.3: the signature's r in x-only form), which is hashed.
    pub fn canonical_bytes(&self) -> &[u8] {
        &self.canonical
    }

    /// The certificate's HashedId8 by its whole-certificate hash (SHA-384 for a 384-bit
    /// verification key, else SHA-256): how messages and the certificates it signs name it.
    pub fn hashed_id8(&self) -> HashedId8 {
        self.hashed_id8
    }

    /// The whole-certificate hash (6.4.3) of the canonical encoding: ECIES's P1 when data is
    /// encrypted to this certificate.
    pub fn digest(&self) -> &[u8] {
        &self.digest
    }

    /// The certificate's HashedId3.
    pub fn hashed_id3(&self) -> HashedId3 {
        self.hashed_id8.hashed_id3()
    }

    /// Who signed it.
    pub fn issuer(&self) -> Issuer {
        self.issuer
    }

    /// The `toBeSigned` part.
    pub fn tbs(&self) -> &asn::ToBeSignedCertificate {
        &self.asn.to_be_signed
    }

    /// Its name, when its `id` is a `name` (a hostname such as `EU-ROOT-CA_L2`).
    pub fn name(&self) -> Option<&str> {
        match &self.tbs().id {
            asn::CertificateId::Name(name) => Some(name.0.as_str()),
            _ => None,
        }
    }

    /// The validity period.
    pub fn validity(&self) -> Validity {
        Validity::of(&self.tbs().validity_period)
    }

    /// The verification key.
    pub fn verification_key(&self) -> Result<PublicKey> {
        cached(&self.keys.verification, || {
            match &self.tbs().verify_key_indicator {
                VerificationKeyIndicator::VerificationKey(key) => verification_key(key),
                _ => unreachable!("only explicit certificates are constructed"),
            }
        })
    }

    /// The ECIES key of the `encryptionKey` field, if there is one.
    pub fn encryption_key(&self) -> Result<Option<PublicKey>> {
        match &self.tbs().encryption_key {
            Some(key) => cached(&self.keys.encryption, || encryption_key(key)).map(Some),
            None => Ok(None),
        }
    }

    /// The issuer's signature.
    pub fn signature(&self) -> Result<Signature> {
        signature_from_asn(
            self.asn
                .signature
                .as_ref()
                .expect("checked on construction"),
        )
    }

    /// The digest the issuer signed: over the canonical `toBeSigned` and the issuer's
    /// certificate (`None` when self-signed).
    pub fn signed_digest(&self, issuer: Option<&Cert>) -> Vec<u8> {
        signing_digest(
            self.issuer.hash(),
            &self.canonical_tbs,
            issuer.map(Cert::canonical_bytes),
        )
    }
}

/// The canonical form of 1609.2 6.4.3, which is hashed: keys compressed, the signature's r
/// in x-only form.
fn canonical(cert: &asn::Certificate) -> Result<asn::Certificate> {
    let mut base: asn::CertificateBase = (**cert).clone();
    base.signature = base.signature.as_ref().map(canonical_signature);
    let tbs = &mut base.to_be_signed;
    tbs.encryption_key = tbs.encryption_key.as_ref().map(canonical_encryption_key);
    if let VerificationKeyIndicator::VerificationKey(key) = &tbs.verify_key_indicator {
        tbs.verify_key_indicator =
            VerificationKeyIndicator::VerificationKey(canonical_verification_key(key));
    }
    explicit(base)
}

/// A `Certificate` of a base that must be explicit.
pub(crate) fn explicit(base: asn::CertificateBase) -> Result<asn::Certificate> {
    asn::ExplicitCertificate::new(base)
        .map(asn::Certificate::from)
        .map_err(|e| Error::InvalidRequest(e.to_string()))
}
