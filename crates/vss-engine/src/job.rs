//! One verification of a batch.

use vss_crypto::{Curve, PublicKey, Signature};

/// A signature to check: borrowed bytes, so a batch is built without copying messages.
#[derive(Debug, Clone, Copy)]
pub struct VerifyJob<'a> {
    /// The curve.
    pub curve: Curve,
    /// The public key, SEC 1 (compressed or uncompressed).
    pub public_key: &'a [u8],
    /// The message digest (truncated or padded to the curve as ECDSA says).
    pub digest: &'a [u8],
    /// The signature, r ‖ s (IEEE P1363), each as long as the curve's order.
    pub signature: &'a [u8],
}

impl VerifyJob<'_> {
    /// The verdict with the library verifier, one job at a time (the reference).
    pub fn verify_one(&self) -> bool {
        let Ok(key) = PublicKey::from_sec1(self.curve, self.public_key) else {
            return false;
        };
        let Ok(signature) = Signature::from_p1363(self.curve, self.signature) else {
            return false;
        };
        key.verifying_key()
            .is_ok_and(|k| k.verify_digest(self.digest, &signature))
    }
}
