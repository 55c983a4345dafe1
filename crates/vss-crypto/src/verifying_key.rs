//! ECDSA verification with a public key parsed once.

use aws_lc_rs::digest::Digest;
use aws_lc_rs::signature::ParsedPublicKey;
use openssl::bn::BigNum;
use openssl::ec::EcKey;
use openssl::ecdsa::EcdsaSig;
use openssl::pkey::Public;

use crate::backend::{fit_digest, Backend};
use crate::{Error, HashAlg, PublicKey, Result, Signature};

/// A public key prepared for repeated ECDSA verification.
pub struct VerifyingKey {
    public: PublicKey,
    inner: Inner,
}

enum Inner {
    AwsLc {
        key: ParsedPublicKey,
        digest_alg: &'static aws_lc_rs::digest::Algorithm,
    },
    OpenSsl(EcKey<Public>),
}

impl PublicKey {
    /// Prepares this key for verification.
    pub fn verifying_key(&self) -> Result<VerifyingKey> {
        if !self.curve().supports_ecdsa() {
            return Err(Error::NotForSignatures(self.curve()));
        }
        let inner = match Backend::for_curve(self.curve()) {
            Backend::AwsLc {
                verification,
                digest_alg,
                ..
            } => Inner::AwsLc {
                key: ParsedPublicKey::new(verification, self.to_sec1_uncompressed())
                    .map_err(|_| Error::InvalidPublicKey("refused by AWS-LC"))?,
                digest_alg,
            },
            Backend::OpenSsl => Inner::OpenSsl(self.to_openssl()?),
        };
        Ok(VerifyingKey {
            public: self.clone(),
            inner,
        })
    }
}

impl VerifyingKey {
    /// The public key being used.
    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// Whether `signature` is a valid ECDSA signature of `digest` (see
    /// [`PrivateKey::sign_digest`](crate::PrivateKey::sign_digest) for digest lengths).
    /// A signature for another curve, or with r or s outside `1..n-1`, is not valid.
    pub fn verify_digest(&self, digest: &[u8], signature: &Signature) -> bool {
        if signature.curve() != self.public.curve() {
            return false;
        }
        match &self.inner {
            Inner::AwsLc { key, digest_alg } => {
                let fitted = fit_digest(self.public.curve(), digest);
                Digest::import_less_safe(&fitted, digest_alg)
                    .and_then(|d| key.verify_digest_sig(&d, signature.to_p1363()))
                    .is_ok()
            }
            Inner::OpenSsl(key) => {
                let sig = BigNum::from_slice(signature.r())
                    .and_then(|r| Ok((r, BigNum::from_slice(signature.s())?)))
                    .and_then(|(r, s)| EcdsaSig::from_private_components(r, s));
                // OpenSSL answers an error (not `false`) for some out-of-range values.
                sig.and_then(|sig| sig.verify(digest, key)).unwrap_or(false)
            }
        }
    }

    /// Whether `signature` is a valid ECDSA signature of `message` hashed with `hash`.
    pub fn verify(&self, hash: HashAlg, message: &[u8], signature: &Signature) -> bool {
        self.verify_digest(&hash.digest(message), signature)
    }
}

impl std::fmt::Debug for VerifyingKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("VerifyingKey").field(&self.public).finish()
    }
}
