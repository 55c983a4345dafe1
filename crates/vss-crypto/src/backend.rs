//! Which library does the curve arithmetic for which curve, chosen by measurement
//! (docs/PERFORMANCE.md): AWS-LC for P-256 and P-384 (ECDSA and ECDH), OpenSSL for the rest.

use aws_lc_rs::agreement::{self, ECDH_P256, ECDH_P384};
use aws_lc_rs::digest;
use aws_lc_rs::signature::{self as lc, EcdsaSigningAlgorithm, EcdsaVerificationAlgorithm};

use crate::Curve;

/// The library behind a curve's ECDSA and ECDH.
pub(crate) enum Backend {
    /// AWS-LC through aws-lc-rs; digests are presented with the curve's native hash label.
    AwsLc {
        agreement: &'static agreement::Algorithm,
        signing: &'static EcdsaSigningAlgorithm,
        verification: &'static EcdsaVerificationAlgorithm,
        digest_alg: &'static digest::Algorithm,
    },
    /// The system OpenSSL through the `openssl` crate.
    OpenSsl,
}

impl Backend {
    pub(crate) fn for_curve(curve: Curve) -> Backend {
        match curve {
            Curve::P256 => Backend::AwsLc {
                agreement: &ECDH_P256,
                signing: &lc::ECDSA_P256_SHA256_FIXED_SIGNING,
                verification: &lc::ECDSA_P256_SHA256_FIXED,
                digest_alg: &digest::SHA256,
            },
            Curve::P384 => Backend::AwsLc {
                agreement: &ECDH_P384,
                signing: &lc::ECDSA_P384_SHA384_FIXED_SIGNING,
                verification: &lc::ECDSA_P384_SHA384_FIXED,
                digest_alg: &digest::SHA384,
            },
            Curve::P224 | Curve::Bp256 | Curve::Bp384 | Curve::K283 | Curve::B283 | Curve::P192 => {
                Backend::OpenSsl
            }
        }
    }
}

/// Brings a digest to exactly `scalar_len` bytes without changing the integer ECDSA takes
/// from it: the leftmost bytes of a longer digest (every supported order is byte-aligned),
/// a shorter digest left-padded with zeros.
pub(crate) fn fit_digest(curve: Curve, digest: &[u8]) -> Vec<u8> {
    let n = curve.scalar_len();
    if digest.len() >= n {
        digest[..n].to_vec()
    } else {
        let mut out = vec![0u8; n - digest.len()];
        out.extend_from_slice(digest);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_digest_truncates_and_pads() {
        assert_eq!(fit_digest(Curve::P256, &[1u8; 48]), vec![1u8; 32]);
        let padded = fit_digest(Curve::P384, &[2u8; 32]);
        assert_eq!(&padded[..16], &[0u8; 16]);
        assert_eq!(&padded[16..], &[2u8; 32]);
    }
}
