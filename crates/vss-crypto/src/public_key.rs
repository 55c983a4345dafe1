//! Public keys: SEC1 points, validated on the way in.

use openssl::bn::BigNumContext;
use openssl::ec::{EcKey, EcPoint, PointConversionForm};
use openssl::pkey::Public;

use crate::{Curve, Error, Result};

/// A point of a named curve that is known to lie on the curve and not to be the identity.
#[derive(Clone, PartialEq, Eq)]
pub struct PublicKey {
    curve: Curve,
    uncompressed: Vec<u8>,
    compressed: Vec<u8>,
}

impl PublicKey {
    /// Parses a SEC1 point, compressed (`02`/`03` ‖ x) or uncompressed (`04` ‖ x ‖ y).
    ///
    /// Decompresses compressed points; refuses the identity, hybrid forms, wrong lengths,
    /// coordinates not below the field prime, and points not on the curve.
    pub fn from_sec1(curve: Curve, bytes: &[u8]) -> Result<Self> {
        let n = curve.scalar_len();
        match bytes.first() {
            None => return Err(Error::InvalidPublicKey("empty")),
            Some(0x02 | 0x03) if bytes.len() == 1 + n => {}
            Some(0x04) if bytes.len() == 1 + 2 * n => {}
            Some(0x02..=0x04) => return Err(Error::InvalidPublicKey("wrong length for the curve")),
            Some(_) => return Err(Error::InvalidPublicKey("unknown SEC1 point form")),
        }
        let group = curve.group()?;
        let mut ctx = BigNumContext::new().map_err(|_| Error::Library("BigNumContext"))?;
        let point = EcPoint::from_bytes(group, bytes, &mut ctx)
            .map_err(|_| Error::InvalidPublicKey("not a point on the curve"))?;
        if point.is_infinity(group) {
            return Err(Error::InvalidPublicKey("the point at infinity"));
        }
        let on_curve = point
            .is_on_curve(group, &mut ctx)
            .map_err(|_| Error::InvalidPublicKey("not a point on the curve"))?;
        if !on_curve {
            return Err(Error::InvalidPublicKey("not a point on the curve"));
        }
        Self::from_point(curve, &point)
    }

    /// Builds the public key from an OpenSSL point already known to be valid.
    pub(crate) fn from_point(curve: Curve, point: &openssl::ec::EcPointRef) -> Result<Self> {
        let group = curve.group()?;
        let mut ctx = BigNumContext::new().map_err(|_| Error::Library("BigNumContext"))?;
        let mut encode = |form| {
            point
                .to_bytes(group, form, &mut ctx)
                .map_err(|_| Error::Library("EcPoint::to_bytes"))
        };
        let uncompressed = encode(PointConversionForm::UNCOMPRESSED)?;
        if curve.is_binary() {
            let compressed = encode(PointConversionForm::COMPRESSED)?;
            return Ok(PublicKey {
                curve,
                uncompressed,
                compressed,
            });
        }
        Self::from_uncompressed(curve, &uncompressed)
    }

    /// Builds the public key of a prime curve from the uncompressed SEC1 encoding of a point
    /// already known to be valid (one a library computed).
    pub(crate) fn from_uncompressed(curve: Curve, uncompressed: &[u8]) -> Result<Self> {
        let n = curve.scalar_len();
        if curve.is_binary() || uncompressed.len() != 1 + 2 * n || uncompressed[0] != 0x04 {
            return Err(Error::Library("not an uncompressed point of a prime curve"));
        }
        // SEC1 2.3.3 over a prime field: x, after 02 or 03 by the parity of y.
        let y_is_odd = uncompressed.last().is_some_and(|y| y & 1 == 1);
        let compressed = [&[2 + u8::from(y_is_odd)][..], &uncompressed[1..=n]].concat();
        Ok(PublicKey {
            curve,
            uncompressed: uncompressed.to_vec(),
            compressed,
        })
    }

    /// The X.509 SubjectPublicKeyInfo DER encoding (id-ecPublicKey, the named curve, the
    /// uncompressed point).
    pub fn to_spki_der(&self) -> Result<Vec<u8>> {
        let group = self.curve.group()?;
        let mut ctx = BigNumContext::new().map_err(|_| Error::Library("BigNumContext"))?;
        let point = EcPoint::from_bytes(group, &self.uncompressed, &mut ctx)
            .map_err(|_| Error::Library("EcPoint::from_bytes"))?;
        let key: EcKey<Public> =
            EcKey::from_public_key(group, &point).map_err(|_| Error::Library("EcKey"))?;
        key.public_key_to_der()
            .map_err(|_| Error::Library("EcKey::public_key_to_der"))
    }

    /// The SubjectPublicKeyInfo as PEM (`-----BEGIN PUBLIC KEY-----`), as OpenSSL reads it.
    pub fn to_spki_pem(&self) -> Result<String> {
        spki_pem(&self.to_spki_der()?)
    }

    /// The curve of this key.
    pub fn curve(&self) -> Curve {
        self.curve
    }

    /// SEC1 uncompressed form: `04 ‖ x ‖ y`.
    pub fn to_sec1_uncompressed(&self) -> &[u8] {
        &self.uncompressed
    }

    /// SEC1 compressed form: `02`/`03` ‖ x (the tag bit is y's parity on prime curves,
    /// the low bit of y/x on binary curves).
    pub fn to_sec1_compressed(&self) -> &[u8] {
        &self.compressed
    }

    /// The affine x coordinate, big-endian, `scalar_len` bytes.
    pub fn x(&self) -> &[u8] {
        &self.uncompressed[1..=self.curve.scalar_len()]
    }

    /// The affine y coordinate, big-endian, `scalar_len` bytes.
    pub fn y(&self) -> &[u8] {
        &self.uncompressed[1 + self.curve.scalar_len()..]
    }

    /// OpenSSL's form of the point.
    pub(crate) fn to_point(&self) -> Result<EcPoint> {
        let mut ctx = BigNumContext::new().map_err(|_| Error::Library("BigNumContext"))?;
        EcPoint::from_bytes(self.curve.group()?, &self.uncompressed, &mut ctx)
            .map_err(|_| Error::Library("EcPoint::from_bytes"))
    }

    pub(crate) fn to_openssl(&self) -> Result<EcKey<Public>> {
        let point = self.to_point()?;
        EcKey::from_public_key(self.curve.group()?, &point)
            .map_err(|_| Error::Library("EcKey::from_public_key"))
    }
}

impl std::fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PublicKey({}, ", self.curve)?;
        for b in &self.uncompressed {
            write!(f, "{b:02x}")?;
        }
        f.write_str(")")
    }
}

/// A DER SubjectPublicKeyInfo as PEM.
pub(crate) fn spki_pem(der: &[u8]) -> Result<String> {
    let key = openssl::pkey::PKey::public_key_from_der(der)
        .map_err(|_| Error::Library("PKey::public_key_from_der"))?;
    let pem = key
        .public_key_to_pem()
        .map_err(|_| Error::Library("PKey::public_key_to_pem"))?;
    String::from_utf8(pem).map_err(|_| Error::Library("PEM is not UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PrivateKey;

    #[test]
    fn the_spki_encoding_is_what_openssl_reads_back() {
        for curve in [Curve::P256, Curve::P384, Curve::Bp256] {
            let key = PrivateKey::generate(curve).expect("generate");
            let der = key.public_key().to_spki_der().expect("spki");
            let parsed = openssl::pkey::PKey::public_key_from_der(&der).expect("parse");
            let ec = parsed.ec_key().expect("ec");
            let mut ctx = BigNumContext::new().expect("ctx");
            let point = ec
                .public_key()
                .to_bytes(ec.group(), PointConversionForm::UNCOMPRESSED, &mut ctx)
                .expect("point");
            assert_eq!(point, key.public_key().to_sec1_uncompressed());
            let pem = key.public_key().to_spki_pem().expect("pem");
            let again = openssl::pkey::PKey::public_key_from_pem(pem.as_bytes()).expect("pem");
            assert!(again.public_eq(&parsed));
        }
    }

    #[test]
    fn compressed_and_uncompressed_forms_agree_on_every_curve_prime_and_binary() {
        for curve in Curve::ALL {
            for _ in 0..4 {
                let key = PrivateKey::generate(curve).expect("generate");
                let public = key.public_key();
                let compressed = public.to_sec1_compressed();
                assert_eq!(compressed.len(), 1 + curve.scalar_len());
                let decompressed = PublicKey::from_sec1(curve, compressed).expect("decompress");
                assert_eq!(&decompressed, public);
            }
        }
    }

    #[test]
    fn off_curve_identity_and_malformed_points_are_refused() {
        let key = PrivateKey::generate(Curve::P256).expect("generate");
        let mut bad = key.public_key().to_sec1_uncompressed().to_vec();
        bad[64] ^= 1;
        assert!(
            PublicKey::from_sec1(Curve::P256, &bad).is_err(),
            "off curve"
        );
        assert!(
            PublicKey::from_sec1(Curve::P256, &[0x00]).is_err(),
            "identity"
        );
        assert!(PublicKey::from_sec1(Curve::P256, &[]).is_err(), "empty");
        let good = key.public_key().to_sec1_uncompressed();
        assert!(
            PublicKey::from_sec1(Curve::P256, &good[..64]).is_err(),
            "truncated"
        );
        assert!(
            PublicKey::from_sec1(Curve::P384, good).is_err(),
            "wrong curve length"
        );
        let mut hybrid = good.to_vec();
        hybrid[0] = 0x06;
        assert!(
            PublicKey::from_sec1(Curve::P256, &hybrid).is_err(),
            "hybrid form"
        );
        // x = p (not reduced) must not decompress.
        let mut x_is_p = vec![0x02];
        x_is_p.extend(hex_bytes(
            "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff",
        ));
        assert!(PublicKey::from_sec1(Curve::P256, &x_is_p).is_err(), "x = p");
    }

    fn hex_bytes(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
            .collect()
    }
}
