//! What signs and decrypts: a key in an HSM (or, for tests and tools, a private key in
//! memory).

use vss_crypto::{Curve, PrivateKey, PublicKey, Signature};
use vss_hsm::{Hsm, KeyHandle};
use zeroize::Zeroizing;

use crate::Result;

/// Signs digests for certificates and messages.
pub trait Signer {
    /// The curve of the signing key.
    fn curve(&self) -> Curve;

    /// The public half of the signing key.
    fn public_key(&self) -> Result<PublicKey>;

    /// An ECDSA signature of a digest.
    fn sign_digest(&self, digest: &[u8]) -> Result<Signature>;
}

/// Agrees keys for ECIES decryption: the private half stays where it is.
pub trait KeyAgreement {
    /// ECDH with `peer`: the x coordinate of the shared point.
    fn ecdh(&self, peer: &PublicKey) -> Result<Zeroizing<Vec<u8>>>;
}

/// A key inside an HSM, for signing or decryption.
pub struct HsmKey<'a> {
    hsm: &'a dyn Hsm,
    key: KeyHandle,
    curve: Curve,
}

impl<'a> HsmKey<'a> {
    /// The key with `label` in `hsm`.
    pub fn new(hsm: &'a dyn Hsm, label: &str) -> Result<Self> {
        let info = hsm.key(label)?;
        let curve = info.ec_curve()?;
        Ok(HsmKey {
            hsm,
            key: info.handle,
            curve,
        })
    }
}

impl Signer for HsmKey<'_> {
    fn curve(&self) -> Curve {
        self.curve
    }

    fn public_key(&self) -> Result<PublicKey> {
        Ok(self.hsm.public_key(&self.key)?)
    }

    fn sign_digest(&self, digest: &[u8]) -> Result<Signature> {
        Ok(self.hsm.sign_digest(&self.key, digest)?)
    }
}

impl KeyAgreement for HsmKey<'_> {
    fn ecdh(&self, peer: &PublicKey) -> Result<Zeroizing<Vec<u8>>> {
        Ok(self.hsm.ecdh(&self.key, peer)?)
    }
}

impl KeyAgreement for PrivateKey {
    fn ecdh(&self, peer: &PublicKey) -> Result<Zeroizing<Vec<u8>>> {
        Ok(self.diffie_hellman(peer)?)
    }
}

impl Signer for PrivateKey {
    fn curve(&self) -> Curve {
        PrivateKey::curve(self)
    }

    fn public_key(&self) -> Result<PublicKey> {
        Ok(PrivateKey::public_key(self).clone())
    }

    fn sign_digest(&self, digest: &[u8]) -> Result<Signature> {
        Ok(PrivateKey::sign_digest(self, digest)?)
    }
}
