//! Keys and signatures: 1609.2's curve points, `PublicVerificationKey`,
//! `PublicEncryptionKey` and `Signature`, against the types of `vss-crypto`.

use rasn::types::FixedOctetString;
use vss_crypto::{Curve, HashAlg, PublicKey, Signature};

use crate::asn::{
    BasePublicEncryptionKey, EccP256CurvePoint, EccP384CurvePoint, EcdsaP256Signature,
    EcdsaP384Signature, PublicEncryptionKey, PublicVerificationKey, Signature as AsnSignature,
    SymmAlgorithm,
};
use crate::{Error, Result};

/// The hash 1609.2 pairs with a signing curve: SHA-256 for the 256-bit curves, SHA-384 for
/// the 384-bit ones.
pub fn hash_for_curve(curve: Curve) -> Result<HashAlg> {
    match curve {
        Curve::P256 | Curve::Bp256 | Curve::P384 | Curve::Bp384 => Ok(curve.default_hash()),
        other => Err(unsupported(other)),
    }
}

/// Conversions of one size of curve point (`EccP256CurvePoint`, `EccP384CurvePoint`).
macro_rules! curve_point {
    ($point:ident, $to_sec1:ident, $compressed:ident, $x_of:ident, $x_only:ident, $canonical:ident, $len:literal) => {
        /// The SEC1 encoding of a point given compressed or uncompressed.
        pub(crate) fn $to_sec1(point: &$point) -> Result<Vec<u8>> {
            let (prefix, x, y): (u8, &[u8], &[u8]) = match point {
                $point::CompressedY0(x) => (2, x.as_ref(), &[]),
                $point::CompressedY1(x) => (3, x.as_ref(), &[]),
                $point::Uncompressed(p) => (4, p.x.as_ref(), p.y.as_ref()),
                $point::XOnly(_) | $point::Fill(_) => {
                    return Err(Error::Unsupported(
                        "a public key given as x-only or fill: it names no point".into(),
                    ))
                }
            };
            Ok([&[prefix][..], x, y].concat())
        }

        /// The compressed form of a public key, as 1609.2 asks of keys in certificates.
        pub(crate) fn $compressed(key: &PublicKey) -> $point {
            let sec1 = key.to_sec1_compressed();
            let x = FixedOctetString::<$len>::new(
                <[u8; $len]>::try_from(&sec1[1..]).expect("a compressed point of the curve"),
            );
            if sec1[0] == 2 {
                $point::CompressedY0(x)
            } else {
                $point::CompressedY1(x)
            }
        }

        /// The x coordinate carried by a signature's R (any form but fill).
        fn $x_of(point: &$point) -> Result<&[u8]> {
            match point {
                $point::XOnly(x) | $point::CompressedY0(x) | $point::CompressedY1(x) => {
                    Ok(x.as_ref())
                }
                $point::Uncompressed(p) => Ok(p.x.as_ref()),
                $point::Fill(_) => Err(Error::Unsupported("a signature whose r is fill".into())),
            }
        }

        /// A key's point in compressed form (an uncompressed one is compressed by y's parity).
        fn $canonical(point: &$point) -> $point {
            match point {
                $point::Uncompressed(p) if p.y[$len - 1] & 1 == 0 => {
                    $point::CompressedY0(p.x.clone())
                }
                $point::Uncompressed(p) => $point::CompressedY1(p.x.clone()),
                other => other.clone(),
            }
        }

        /// A signature's R in x-only form (fill stays fill).
        fn $x_only(point: &$point) -> $point {
            match point {
                $point::CompressedY0(x) | $point::CompressedY1(x) => $point::XOnly(x.clone()),
                $point::Uncompressed(p) => $point::XOnly(p.x.clone()),
                other => other.clone(),
            }
        }
    };
}

curve_point!(
    EccP256CurvePoint,
    sec1_256,
    compressed_256,
    x_256,
    x_only_256,
    canonical_256,
    32
);
curve_point!(
    EccP384CurvePoint,
    sec1_384,
    compressed_384,
    x_384,
    x_only_384,
    canonical_384,
    48
);

/// The curve of a verification key.
pub fn verification_key_curve(key: &PublicVerificationKey) -> Result<Curve> {
    match key {
        PublicVerificationKey::EcdsaNistP256(_) => Ok(Curve::P256),
        PublicVerificationKey::EcdsaBrainpoolP256r1(_) => Ok(Curve::Bp256),
        PublicVerificationKey::EcdsaNistP384(_) => Ok(Curve::P384),
        PublicVerificationKey::EcdsaBrainpoolP384r1(_) => Ok(Curve::Bp384),
        _ => Err(Error::Unsupported(
            "a verification key other than ECDSA".into(),
        )),
    }
}

/// The public key of a `PublicVerificationKey`; the point is checked to be on its curve.
pub fn verification_key(key: &PublicVerificationKey) -> Result<PublicKey> {
    let curve = verification_key_curve(key)?;
    let sec1 = match key {
        PublicVerificationKey::EcdsaNistP256(p)
        | PublicVerificationKey::EcdsaBrainpoolP256r1(p) => sec1_256(p)?,
        PublicVerificationKey::EcdsaNistP384(p)
        | PublicVerificationKey::EcdsaBrainpoolP384r1(p) => sec1_384(p)?,
        _ => unreachable!("verification_key_curve accepted only ECDSA keys"),
    };
    Ok(PublicKey::from_sec1(curve, &sec1)?)
}

/// A `PublicVerificationKey` for a public key, compressed.
pub fn public_verification_key(key: &PublicKey) -> Result<PublicVerificationKey> {
    Ok(match key.curve() {
        Curve::P256 => PublicVerificationKey::EcdsaNistP256(compressed_256(key)),
        Curve::Bp256 => PublicVerificationKey::EcdsaBrainpoolP256r1(compressed_256(key)),
        Curve::P384 => PublicVerificationKey::EcdsaNistP384(compressed_384(key)),
        Curve::Bp384 => PublicVerificationKey::EcdsaBrainpoolP384r1(compressed_384(key)),
        other => return Err(unsupported(other)),
    })
}

fn unsupported(curve: Curve) -> Error {
    Error::Unsupported(format!(
        "curve {curve} has no place in 1609.2 signatures (p256, bp256, p384 or bp384)"
    ))
}

/// The public key of a `PublicEncryptionKey` (ECIES on p256 or bp256 with AES-128-CCM).
pub fn encryption_key(key: &PublicEncryptionKey) -> Result<PublicKey> {
    let (curve, point) = match &key.public_key {
        BasePublicEncryptionKey::EciesNistP256(p) => (Curve::P256, p),
        BasePublicEncryptionKey::EciesBrainpoolP256r1(p) => (Curve::Bp256, p),
        _ => {
            return Err(Error::Unsupported(
                "an encryption key other than ECIES".into(),
            ))
        }
    };
    Ok(PublicKey::from_sec1(curve, &sec1_256(point)?)?)
}

/// A `PublicEncryptionKey` for a p256 or bp256 public key, compressed, with AES-128-CCM.
pub fn public_encryption_key(key: &PublicKey) -> Result<PublicEncryptionKey> {
    let public_key = match key.curve() {
        Curve::P256 => BasePublicEncryptionKey::EciesNistP256(compressed_256(key)),
        Curve::Bp256 => BasePublicEncryptionKey::EciesBrainpoolP256r1(compressed_256(key)),
        other => {
            return Err(Error::Unsupported(format!(
                "an encryption key on {other}: 1609.2 ECIES uses p256 or bp256"
            )))
        }
    };
    Ok(PublicEncryptionKey {
        supported_symm_alg: SymmAlgorithm::Aes128Ccm,
        public_key,
    })
}

/// The curve a 1609.2 signature was made on.
pub fn signature_curve(signature: &AsnSignature) -> Result<Curve> {
    match signature {
        AsnSignature::EcdsaNistP256(_) => Ok(Curve::P256),
        AsnSignature::EcdsaBrainpoolP256r1(_) => Ok(Curve::Bp256),
        AsnSignature::EcdsaNistP384(_) => Ok(Curve::P384),
        AsnSignature::EcdsaBrainpoolP384r1(_) => Ok(Curve::Bp384),
        _ => Err(Error::Unsupported("a signature other than ECDSA".into())),
    }
}

/// The ECDSA signature (r, s) of a 1609.2 `Signature`; r is R's x coordinate in any form.
pub fn signature_from_asn(signature: &AsnSignature) -> Result<Signature> {
    let curve = signature_curve(signature)?;
    let (r, s): (&[u8], &[u8]) = match signature {
        AsnSignature::EcdsaNistP256(sig) | AsnSignature::EcdsaBrainpoolP256r1(sig) => {
            (x_256(&sig.r_sig)?, sig.s_sig.as_ref())
        }
        AsnSignature::EcdsaNistP384(sig) | AsnSignature::EcdsaBrainpoolP384r1(sig) => {
            (x_384(&sig.r_sig)?, sig.s_sig.as_ref())
        }
        _ => unreachable!("signature_curve accepted only ECDSA signatures"),
    };
    Ok(Signature::from_p1363(curve, &[r, s].concat())?)
}

/// A 1609.2 `Signature` of an ECDSA signature, r in x-only form.
pub fn signature_to_asn(signature: &Signature) -> Result<AsnSignature> {
    fn fixed<const N: usize>(bytes: &[u8]) -> FixedOctetString<N> {
        FixedOctetString::new(<[u8; N]>::try_from(bytes).expect("a scalar of the curve"))
    }
    let (r, s) = (signature.r(), signature.s());
    let p256 = || EcdsaP256Signature {
        r_sig: EccP256CurvePoint::XOnly(fixed(r)),
        s_sig: fixed(s),
    };
    let p384 = || EcdsaP384Signature {
        r_sig: EccP384CurvePoint::XOnly(fixed(r)),
        s_sig: fixed(s),
    };
    Ok(match signature.curve() {
        Curve::P256 => AsnSignature::EcdsaNistP256(p256()),
        Curve::Bp256 => AsnSignature::EcdsaBrainpoolP256r1(p256()),
        Curve::P384 => AsnSignature::EcdsaNistP384(p384()),
        Curve::Bp384 => AsnSignature::EcdsaBrainpoolP384r1(p384()),
        other => return Err(unsupported(other)),
    })
}

/// The signature with r in x-only form: the canonical form 1609.2 hashes certificates in.
pub fn canonical_signature(signature: &AsnSignature) -> AsnSignature {
    let mut out = signature.clone();
    match &mut out {
        AsnSignature::EcdsaNistP256(sig) | AsnSignature::EcdsaBrainpoolP256r1(sig) => {
            sig.r_sig = x_only_256(&sig.r_sig)
        }
        AsnSignature::EcdsaNistP384(sig) | AsnSignature::EcdsaBrainpoolP384r1(sig) => {
            sig.r_sig = x_only_384(&sig.r_sig)
        }
        _ => {}
    }
    out
}

/// A verification key with its point compressed (1609.2 6.4.3's canonical form).
pub(crate) fn canonical_verification_key(key: &PublicVerificationKey) -> PublicVerificationKey {
    let mut out = key.clone();
    match &mut out {
        PublicVerificationKey::EcdsaNistP256(p)
        | PublicVerificationKey::EcdsaBrainpoolP256r1(p)
        | PublicVerificationKey::EcsigSm2(p) => *p = canonical_256(p),
        PublicVerificationKey::EcdsaNistP384(p)
        | PublicVerificationKey::EcdsaBrainpoolP384r1(p) => *p = canonical_384(p),
        _ => {}
    }
    out
}

/// An encryption key with its point compressed (1609.2 6.4.3's canonical form).
pub(crate) fn canonical_encryption_key(key: &PublicEncryptionKey) -> PublicEncryptionKey {
    let mut out = key.clone();
    match &mut out.public_key {
        BasePublicEncryptionKey::EciesNistP256(p)
        | BasePublicEncryptionKey::EciesBrainpoolP256r1(p)
        | BasePublicEncryptionKey::EcencSm2(p) => *p = canonical_256(p),
        _ => {}
    }
    out
}
