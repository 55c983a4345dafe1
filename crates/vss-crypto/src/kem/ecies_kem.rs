//! ECIES-KEM of ISO/IEC 18033-2 (§10.2), with the standard's options: KDF1 or KDF2 over
//! SHA-1 or SHA-256, EG compressed or uncompressed, CofactorMode, OldCofactorMode, CheckMode,
//! SingleHashMode, and any KeyLen up to [`MAX_KEY_LEN`].
//!
//! Encrypt: r ← [1, μ); g̃ = r × G; h̃ = r × h (OldCofactorMode: ((ν·r) mod μ) × h);
//! EG = EC2OSP(g̃); PEH = FE2OSP(x(h̃)); K = KDF(EG ‖ PEH, KeyLen) (SingleHashMode:
//! KDF(PEH, KeyLen)); C0 = EG. Decryption asks the caller's ECDH (the HSM's) for x(x × P),
//! with P = g̃, or ν × g̃ (OldCofactorMode), or ν⁻¹ × (ν × g̃) (CofactorMode: ISO's
//! x′ = ν⁻¹·x mod μ moved onto the public point, so the private key is used as it is).
//!
//! ECIES-KEM has no integrity check of its own: a changed C0 gives a rejection or another
//! key, which the data encapsulation must then refuse. In SingleHashMode, g̃ and −g̃ (EG with
//! the other compressed tag) give the same key.

use aws_lc_rs::digest;
use openssl::bn::{BigNum, BigNumContext, BigNumRef};
use openssl::ec::PointConversionForm;
use zeroize::Zeroizing;

use super::{encode, multiply, named, times, x_coordinate, Encapsulation, KnownAnswerSeed};
use crate::{Curve, Error, PrivateKey, PublicKey, Result};

/// The largest key length accepted, in octets.
pub const MAX_KEY_LEN: usize = 1024;

/// Attempts at drawing r in [1, μ) before giving up (each succeeds with probability > 1/2).
const MAX_DRAWS: usize = 128;

/// A key derivation function of ISO/IEC 18033-2, used without an extra parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kdf {
    /// KDF1: `Hash(Z ‖ I2OSP(0, 4)) ‖ Hash(Z ‖ I2OSP(1, 4)) ‖ …` (counter from 0).
    Kdf1,
    /// KDF2: `Hash(Z ‖ I2OSP(1, 4)) ‖ Hash(Z ‖ I2OSP(2, 4)) ‖ …` (counter from 1).
    Kdf2,
}

impl Kdf {
    /// Both KDFs, in a stable order.
    pub const ALL: [Kdf; 2] = [Kdf::Kdf1, Kdf::Kdf2];

    /// The lower-case name used in the CLI and JSON: `kdf1`, `kdf2`.
    pub fn name(self) -> &'static str {
        match self {
            Kdf::Kdf1 => "kdf1",
            Kdf::Kdf2 => "kdf2",
        }
    }

    /// The counter of the first hash block.
    fn first_counter(self) -> u32 {
        match self {
            Kdf::Kdf1 => 0,
            Kdf::Kdf2 => 1,
        }
    }
}

named!(Kdf, "KDF");

/// The hash inside the KDF. SHA-1 is here for the ISO/IEC 18033-2 vectors only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KdfHash {
    /// SHA-1 (legacy: for the standard's known answers).
    Sha1,
    /// SHA-256.
    Sha256,
}

impl KdfHash {
    /// Both hashes, in a stable order.
    pub const ALL: [KdfHash; 2] = [KdfHash::Sha1, KdfHash::Sha256];

    /// The lower-case name used in the CLI and JSON: `sha1`, `sha256`.
    pub fn name(self) -> &'static str {
        match self {
            KdfHash::Sha1 => "sha1",
            KdfHash::Sha256 => "sha256",
        }
    }

    fn algorithm(self) -> &'static digest::Algorithm {
        match self {
            KdfHash::Sha1 => &digest::SHA1_FOR_LEGACY_USE_ONLY,
            KdfHash::Sha256 => &digest::SHA256,
        }
    }
}

named!(KdfHash, "KDF hash");

/// The encoding of EG (EC2OSP): SEC1 compressed or uncompressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PointFormat {
    /// `02`/`03` ‖ x.
    Compressed,
    /// `04` ‖ x ‖ y.
    Uncompressed,
}

impl PointFormat {
    /// Both formats, in a stable order.
    pub const ALL: [PointFormat; 2] = [PointFormat::Compressed, PointFormat::Uncompressed];

    /// The lower-case name used in the CLI and JSON: `compressed`, `uncompressed`.
    pub fn name(self) -> &'static str {
        match self {
            PointFormat::Compressed => "compressed",
            PointFormat::Uncompressed => "uncompressed",
        }
    }

    fn form(self) -> PointConversionForm {
        match self {
            PointFormat::Compressed => PointConversionForm::COMPRESSED,
            PointFormat::Uncompressed => PointConversionForm::UNCOMPRESSED,
        }
    }
}

named!(PointFormat, "point format");

/// The options of ECIES-KEM (ISO/IEC 18033-2 §10.2.1). At most one of `cofactor_mode`,
/// `old_cofactor_mode` and `check_mode` may be set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EciesKemParams {
    /// The key derivation function.
    pub kdf: Kdf,
    /// The hash inside the KDF.
    pub hash: KdfHash,
    /// The encoding of EG, which is the whole ciphertext C0.
    pub format: PointFormat,
    /// CofactorMode: decryption computes x′ × (ν × g̃) with x′ = ν⁻¹·x mod μ, which drops any
    /// small-order component of g̃.
    pub cofactor_mode: bool,
    /// OldCofactorMode: h̃ = ((ν·r) mod μ) × h when encrypting, x × (ν × g̃) when decrypting.
    pub old_cofactor_mode: bool,
    /// CheckMode: decryption refuses g̃ unless μ × g̃ is the point at infinity.
    pub check_mode: bool,
    /// SingleHashMode: K = KDF(PEH) instead of KDF(EG ‖ PEH).
    pub single_hash_mode: bool,
    /// KeyLen, the octets of K: 1 to [`MAX_KEY_LEN`].
    pub key_len: usize,
}

impl Default for EciesKemParams {
    /// KDF2 over SHA-256, EG compressed, every mode off, 32-octet keys.
    fn default() -> Self {
        EciesKemParams {
            kdf: Kdf::Kdf2,
            hash: KdfHash::Sha256,
            format: PointFormat::Compressed,
            cofactor_mode: false,
            old_cofactor_mode: false,
            check_mode: false,
            single_hash_mode: false,
            key_len: 32,
        }
    }
}

/// ECIES-KEM on one curve with one set of options.
#[derive(Debug, Clone, Copy)]
pub struct EciesKem {
    curve: Curve,
    params: EciesKemParams,
    /// ν, the cofactor of the curve (1 on the prime curves, 4 on k283, 2 on b283).
    cofactor: u32,
}

impl EciesKem {
    /// ECIES-KEM on `curve` with `params`.
    ///
    /// Refuses more than one of CofactorMode, OldCofactorMode and CheckMode (ISO/IEC 18033-2
    /// allows at most one; `Error::InvalidParameters`), and a key length outside 1 to [`MAX_KEY_LEN`] (`Error::InvalidLength`).
    pub fn new(curve: Curve, params: EciesKemParams) -> Result<Self> {
        let modes = [
            params.cofactor_mode,
            params.old_cofactor_mode,
            params.check_mode,
        ]
        .into_iter()
        .filter(|&mode| mode)
        .count();
        if modes > 1 {
            return Err(Error::InvalidParameters(
                "at most one of CofactorMode, OldCofactorMode and CheckMode may be set",
            ));
        }
        if !(1..=MAX_KEY_LEN).contains(&params.key_len) {
            return Err(Error::InvalidLength {
                what: "ECIES-KEM key",
                expected: "1 to 1024",
                got: params.key_len,
            });
        }
        Ok(EciesKem {
            curve,
            params,
            cofactor: cofactor(curve)?,
        })
    }

    /// The curve.
    pub fn curve(&self) -> Curve {
        self.curve
    }

    /// The options.
    pub fn params(&self) -> &EciesKemParams {
        &self.params
    }

    /// Octets of a ciphertext (EG): 1 + L compressed, 1 + 2L uncompressed, L the field length.
    pub fn ciphertext_len(&self) -> usize {
        match self.params.format {
            PointFormat::Compressed => 1 + self.curve.scalar_len(),
            PointFormat::Uncompressed => 1 + 2 * self.curve.scalar_len(),
        }
    }

    /// Encapsulates a fresh key to `recipient`, with r drawn uniformly from [1, μ).
    pub fn encapsulate(&self, recipient: &PublicKey) -> Result<Encapsulation> {
        let r = self.random_r()?;
        self.encapsulate_r(recipient, &r)
    }

    /// Encapsulates with the r of a known-answer test (big-endian, in [1, μ), else
    /// `Error::InvalidPrivateKey`; [`KnownAnswerSeed`]: **tests only**, a repeated or
    /// guessable r gives the key away).
    pub fn encapsulate_known_answer(
        &self,
        recipient: &PublicKey,
        r: &KnownAnswerSeed,
    ) -> Result<Encapsulation> {
        let order = self.curve.order()?;
        let mut value = BigNum::new_secure().map_err(|_| Error::Library("BigNum"))?;
        value
            .copy_from_slice(r.bytes())
            .map_err(|_| Error::Library("BigNum::copy_from_slice"))?;
        if value.num_bits() == 0 || value >= order {
            return Err(Error::InvalidPrivateKey("r is not in the range 1..μ-1"));
        }
        self.encapsulate_r(recipient, &value)
    }

    /// Decapsulates `ciphertext`; `ecdh` returns the x coordinate of `x × point` for the
    /// recipient's private key x (the HSM's ECDH).
    ///
    /// Refuses a ciphertext of the wrong length (`Error::InvalidLength`), and EG in another
    /// format, not on the curve, or failing the mode's check (`Error::KemRejected`). Any other
    /// change of EG gives another key, except −g̃ in SingleHashMode (see the module docs).
    pub fn decapsulate<E: From<Error>>(
        &self,
        ciphertext: &[u8],
        ecdh: impl FnOnce(&PublicKey) -> std::result::Result<Zeroizing<Vec<u8>>, E>,
    ) -> std::result::Result<Zeroizing<Vec<u8>>, E> {
        let point = self.ecdh_point(ciphertext)?;
        let peh = ecdh(&point)?;
        if peh.len() != self.curve.scalar_len() {
            return Err(Error::InvalidLength {
                what: "ECDH shared secret",
                expected: "the field length",
                got: peh.len(),
            }
            .into());
        }
        Ok(self.derive(ciphertext, &peh)?)
    }

    /// Decapsulates with a private key held in memory.
    pub fn decapsulate_with_key(
        &self,
        ciphertext: &[u8],
        key: &PrivateKey,
    ) -> Result<Zeroizing<Vec<u8>>> {
        self.decapsulate(ciphertext, |point| key.diffie_hellman(point))
    }

    /// r uniform in [1, μ), by rejection sampling.
    fn random_r(&self) -> Result<BigNum> {
        let order = self.curve.order()?;
        let excess = (8 * self.curve.scalar_len() as u64).saturating_sub(order.num_bits() as u64);
        let mask = u32::try_from(excess)
            .ok()
            .and_then(|shift| 0xffu8.checked_shr(shift))
            .unwrap_or(0);
        let mut bytes = Zeroizing::new(vec![0u8; self.curve.scalar_len()]);
        let mut r = BigNum::new_secure().map_err(|_| Error::Library("BigNum"))?;
        for _ in 0..MAX_DRAWS {
            crate::random_bytes(&mut bytes)?;
            if let Some(top) = bytes.first_mut() {
                *top &= mask;
            }
            r.copy_from_slice(&bytes)
                .map_err(|_| Error::Library("BigNum::copy_from_slice"))?;
            if r.num_bits() != 0 && r < order {
                return Ok(r);
            }
        }
        Err(Error::Library("drawing r in [1, μ)"))
    }

    /// g̃ = r × G, h̃ = r × h (or ((ν·r) mod μ) × h), EG, K.
    fn encapsulate_r(&self, recipient: &PublicKey, r: &BigNumRef) -> Result<Encapsulation> {
        if recipient.curve() != self.curve {
            return Err(Error::InvalidPublicKey("recipient key is on another curve"));
        }
        let h = recipient.to_point()?;
        let g_tilde = multiply(self.curve, None, r)?;
        let h_tilde = if self.params.old_cofactor_mode {
            let mut ctx =
                BigNumContext::new_secure().map_err(|_| Error::Library("BigNumContext"))?;
            let nu = BigNum::from_u32(self.cofactor).map_err(|_| Error::Library("BigNum"))?;
            let order = self.curve.order()?;
            let mut nu_r = BigNum::new_secure().map_err(|_| Error::Library("BigNum"))?;
            nu_r.mod_mul(r, &nu, &order, &mut ctx)
                .map_err(|_| Error::Library("BigNum::mod_mul"))?;
            times(self.curve, Some(&h), &nu_r)?
        } else {
            times(self.curve, Some(&h), r)?
        };
        let h_tilde = h_tilde.ok_or(Error::InvalidPublicKey(
            "r × h is the point at infinity (h has a small-order component)",
        ))?;
        let eg = encode(self.curve, &g_tilde, self.params.format.form())?;
        let peh = x_coordinate(self.curve, &h_tilde)?;
        let key = self.derive(&eg, &peh)?;
        Ok(Encapsulation {
            ciphertext: eg,
            key,
        })
    }

    /// Checks C0 = EG and returns the point P whose product with x is h̃.
    fn ecdh_point(&self, ciphertext: &[u8]) -> Result<PublicKey> {
        if ciphertext.len() != self.ciphertext_len() {
            return Err(Error::InvalidLength {
                what: "ECIES-KEM ciphertext",
                expected: match self.params.format {
                    PointFormat::Compressed => "1 + field length (EG compressed)",
                    PointFormat::Uncompressed => "1 + 2 × field length (EG uncompressed)",
                },
                got: ciphertext.len(),
            });
        }
        let agreed = match self.params.format {
            PointFormat::Compressed => matches!(ciphertext.first(), Some(0x02 | 0x03)),
            PointFormat::Uncompressed => matches!(ciphertext.first(), Some(0x04)),
        };
        if !agreed {
            return Err(Error::KemRejected("EG is not in the agreed point format"));
        }
        let g_tilde = PublicKey::from_sec1(self.curve, ciphertext)
            .map_err(|_| Error::KemRejected("EG is not a point of the curve"))?;
        let params = &self.params;
        if !(params.check_mode || params.cofactor_mode || params.old_cofactor_mode) {
            return Ok(g_tilde);
        }
        let g_point = g_tilde.to_point()?;
        if params.check_mode {
            let order = self.curve.order()?;
            if times(self.curve, Some(&g_point), &order)?.is_some() {
                return Err(Error::KemRejected("μ × g̃ is not the point at infinity"));
            }
            return Ok(g_tilde);
        }
        let nu = BigNum::from_u32(self.cofactor).map_err(|_| Error::Library("BigNum"))?;
        let nu_g = times(self.curve, Some(&g_point), &nu)?
            .ok_or(Error::KemRejected("ν × g̃ is the point at infinity"))?;
        if params.old_cofactor_mode {
            return PublicKey::from_point(self.curve, &nu_g);
        }
        let mut ctx = BigNumContext::new().map_err(|_| Error::Library("BigNumContext"))?;
        let order = self.curve.order()?;
        let mut nu_inverse = BigNum::new().map_err(|_| Error::Library("BigNum"))?;
        nu_inverse
            .mod_inverse(&nu, &order, &mut ctx)
            .map_err(|_| Error::Library("BigNum::mod_inverse"))?;
        let point = times(self.curve, Some(&nu_g), &nu_inverse)?
            .ok_or(Error::KemRejected("ν⁻¹ × (ν × g̃) is the point at infinity"))?;
        PublicKey::from_point(self.curve, &point)
    }

    /// K = KDF(EG ‖ PEH, KeyLen), or KDF(PEH, KeyLen) in SingleHashMode.
    fn derive(&self, eg: &[u8], peh: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
        let prefix: &[u8] = if self.params.single_hash_mode {
            &[]
        } else {
            eg
        };
        kdf(
            self.params.kdf,
            self.params.hash,
            &[prefix, peh],
            self.params.key_len,
        )
    }
}

/// `KDF(parts[0] ‖ parts[1] ‖ …, length)`: the hash blocks of the input and a 4-octet
/// big-endian counter, cut to `length` octets.
fn kdf(kdf: Kdf, hash: KdfHash, parts: &[&[u8]], length: usize) -> Result<Zeroizing<Vec<u8>>> {
    let block = hash.algorithm().output_len();
    let blocks = length.div_ceil(block);
    let mut out = Zeroizing::new(Vec::with_capacity(blocks * block));
    for i in 0..blocks {
        let counter = u32::try_from(i)
            .ok()
            .and_then(|i| i.checked_add(kdf.first_counter()))
            .ok_or(Error::InvalidLength {
                what: "KDF output",
                expected: "at most 2^32 - 1 hash blocks",
                got: length,
            })?;
        let mut context = digest::Context::new(hash.algorithm());
        for part in parts {
            context.update(part);
        }
        context.update(&counter.to_be_bytes());
        out.extend_from_slice(context.finish().as_ref());
    }
    out.truncate(length);
    Ok(out)
}

/// ν, the cofactor of the curve's group, from OpenSSL.
fn cofactor(curve: Curve) -> Result<u32> {
    let mut ctx = BigNumContext::new().map_err(|_| Error::Library("BigNumContext"))?;
    let mut nu = BigNum::new().map_err(|_| Error::Library("BigNum"))?;
    curve
        .group()?
        .cofactor(&mut nu, &mut ctx)
        .map_err(|_| Error::Library("EcGroup::cofactor"))?;
    let bytes = nu.to_vec();
    if nu.num_bits() == 0 || bytes.len() > 4 {
        return Err(Error::Library("EcGroup::cofactor"));
    }
    Ok(bytes
        .iter()
        .fold(0u32, |value, &byte| (value << 8) | u32::from(byte)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{kdf2, HashAlg};
    use openssl::ec::EcPoint;

    /// The options with exactly one of the three modes (or none), SingleHashMode as given.
    fn mode_variants(base: EciesKemParams) -> [EciesKemParams; 4] {
        [
            base,
            EciesKemParams {
                cofactor_mode: true,
                ..base
            },
            EciesKemParams {
                old_cofactor_mode: true,
                ..base
            },
            EciesKemParams {
                check_mode: true,
                ..base
            },
        ]
    }

    /// Every combination of KDF, hash, format, mode and SingleHashMode.
    fn every_option() -> Vec<EciesKemParams> {
        let mut all = Vec::new();
        for kdf in Kdf::ALL {
            for hash in KdfHash::ALL {
                for format in PointFormat::ALL {
                    for single_hash_mode in [false, true] {
                        all.extend(mode_variants(EciesKemParams {
                            kdf,
                            hash,
                            format,
                            single_hash_mode,
                            ..EciesKemParams::default()
                        }));
                    }
                }
            }
        }
        all
    }

    /// The point of order 2 on a binary curve, (0, √b), in `format`.
    fn order_two_eg(curve: Curve, format: PointFormat) -> Vec<u8> {
        let mut compressed = vec![0x02];
        compressed.extend(std::iter::repeat_n(0u8, curve.scalar_len()));
        let point = PublicKey::from_sec1(curve, &compressed).expect("(0, √b) is on the curve");
        match format {
            PointFormat::Compressed => point.to_sec1_compressed().to_vec(),
            PointFormat::Uncompressed => point.to_sec1_uncompressed().to_vec(),
        }
    }

    #[test]
    fn round_trip_on_every_curve_with_every_option() {
        let options = every_option();
        assert_eq!(options.len(), 2 * 2 * 2 * 2 * 4);
        for curve in Curve::ALL {
            let recipient = PrivateKey::generate(curve).expect("key");
            for params in &options {
                let kem = EciesKem::new(curve, *params).expect("kem");
                let sent = kem.encapsulate(recipient.public_key()).expect("encap");
                assert_eq!(
                    sent.ciphertext.len(),
                    kem.ciphertext_len(),
                    "{curve} {params:?}"
                );
                assert_eq!(sent.key.len(), params.key_len);
                let got = kem
                    .decapsulate_with_key(&sent.ciphertext, &recipient)
                    .expect("decap");
                assert_eq!(got, sent.key, "{curve} {params:?}");
            }
        }
    }

    #[test]
    fn default_is_kdf2_sha256_compressed_no_modes_32_octets() {
        let params = EciesKemParams::default();
        assert_eq!(
            (params.kdf, params.hash, params.format, params.key_len),
            (Kdf::Kdf2, KdfHash::Sha256, PointFormat::Compressed, 32)
        );
        assert!(
            !(params.cofactor_mode
                || params.old_cofactor_mode
                || params.check_mode
                || params.single_hash_mode)
        );
        let kem = EciesKem::new(Curve::P256, params).expect("kem");
        assert_eq!(kem.curve(), Curve::P256);
        assert_eq!(kem.params(), &params);
        assert_eq!(kem.ciphertext_len(), 33);
        let uncompressed = EciesKemParams {
            format: PointFormat::Uncompressed,
            ..params
        };
        let kem = EciesKem::new(Curve::K283, uncompressed).expect("kem");
        assert_eq!(kem.ciphertext_len(), 73);
    }

    #[test]
    fn key_len_is_honoured_and_checked() {
        let recipient = PrivateKey::generate(Curve::B283).expect("key");
        for key_len in [1, 20, 33, 1024] {
            let params = EciesKemParams {
                key_len,
                ..EciesKemParams::default()
            };
            let kem = EciesKem::new(Curve::B283, params).expect("kem");
            let sent = kem.encapsulate(recipient.public_key()).expect("encap");
            assert_eq!(sent.key.len(), key_len);
            let got = kem
                .decapsulate_with_key(&sent.ciphertext, &recipient)
                .expect("decap");
            assert_eq!(got, sent.key);
        }
        for key_len in [0, MAX_KEY_LEN + 1] {
            let params = EciesKemParams {
                key_len,
                ..EciesKemParams::default()
            };
            assert!(matches!(
                EciesKem::new(Curve::P256, params),
                Err(Error::InvalidLength { .. })
            ));
        }
    }

    #[test]
    fn new_refuses_two_modes_at_once() {
        let base = EciesKemParams::default();
        let pairs = [
            (true, true, false),
            (true, false, true),
            (false, true, true),
        ];
        for (cofactor_mode, old_cofactor_mode, check_mode) in
            pairs.into_iter().chain([(true, true, true)])
        {
            let params = EciesKemParams {
                cofactor_mode,
                old_cofactor_mode,
                check_mode,
                ..base
            };
            assert!(
                matches!(
                    EciesKem::new(Curve::K283, params),
                    Err(Error::InvalidParameters(_))
                ),
                "{params:?}"
            );
        }
        for params in mode_variants(base) {
            assert!(EciesKem::new(Curve::K283, params).is_ok());
        }
    }

    #[test]
    fn every_bit_flip_of_eg_is_rejected_or_gives_another_key() {
        for curve in Curve::ALL {
            let recipient = PrivateKey::generate(curve).expect("key");
            for format in PointFormat::ALL {
                let params = EciesKemParams {
                    format,
                    ..EciesKemParams::default()
                };
                let kem = EciesKem::new(curve, params).expect("kem");
                let sent = kem.encapsulate(recipient.public_key()).expect("encap");
                for bit in 0..8 * sent.ciphertext.len() {
                    let mut flipped = sent.ciphertext.clone();
                    flipped[bit / 8] ^= 0x80 >> (bit % 8);
                    match kem.decapsulate_with_key(&flipped, &recipient) {
                        Ok(key) => assert_ne!(key, sent.key, "{curve} {format}: bit {bit}"),
                        Err(Error::KemRejected(_)) => {}
                        // A changed g̃ may have a small-order component whose product is O.
                        Err(Error::InvalidPublicKey(_))
                            if curve == Curve::K283 || curve == Curve::B283 => {}
                        Err(other) => panic!("{curve} {format}: bit {bit}: unexpected {other}"),
                    }
                }
            }
        }
    }

    #[test]
    fn single_hash_mode_gives_minus_g_the_same_key_and_the_double_hash_does_not() {
        for curve in Curve::ALL {
            let recipient = PrivateKey::generate(curve).expect("key");
            for single_hash_mode in [false, true] {
                let params = EciesKemParams {
                    single_hash_mode,
                    ..EciesKemParams::default()
                };
                let kem = EciesKem::new(curve, params).expect("kem");
                let sent = kem.encapsulate(recipient.public_key()).expect("encap");
                let mut negated = sent.ciphertext.clone();
                negated[0] ^= 0x01;
                let got = kem
                    .decapsulate_with_key(&negated, &recipient)
                    .expect("−g̃ is on the curve");
                assert_eq!(got == sent.key, single_hash_mode, "{curve}");
            }
        }
    }

    #[test]
    fn wrong_lengths_and_point_forms_are_refused() {
        for curve in Curve::ALL {
            let recipient = PrivateKey::generate(curve).expect("key");
            for format in PointFormat::ALL {
                let params = EciesKemParams {
                    format,
                    ..EciesKemParams::default()
                };
                let kem = EciesKem::new(curve, params).expect("kem");
                let sent = kem.encapsulate(recipient.public_key()).expect("encap");
                let c0 = &sent.ciphertext;
                let longer = [c0.as_slice(), &[0]].concat();
                for bad in [&c0[..0], &c0[..1], &c0[..c0.len() - 1], &longer[..]] {
                    assert!(
                        matches!(
                            kem.decapsulate_with_key(bad, &recipient),
                            Err(Error::InvalidLength { .. })
                        ),
                        "{curve} {format}: {} octets",
                        bad.len()
                    );
                }
                let tags: &[u8] = match format {
                    PointFormat::Compressed => &[0x00, 0x04, 0x06, 0x07],
                    PointFormat::Uncompressed => &[0x00, 0x02, 0x03, 0x06, 0x07],
                };
                for &tag in tags {
                    let mut other = c0.clone();
                    other[0] = tag;
                    assert!(
                        matches!(
                            kem.decapsulate_with_key(&other, &recipient),
                            Err(Error::KemRejected("EG is not in the agreed point format"))
                        ),
                        "{curve} {format}: tag {tag:02x}"
                    );
                }
            }
        }
    }

    #[test]
    fn r_must_be_in_range_and_r_one_gives_the_generator() {
        let seed = KnownAnswerSeed::known_answer_test_only;
        for curve in Curve::ALL {
            let recipient = PrivateKey::generate(curve).expect("key");
            let kem = EciesKem::new(curve, EciesKemParams::default()).expect("kem");
            let order = curve.order().expect("order").to_vec();
            let mut order_minus_one = curve.order().expect("order");
            order_minus_one.sub_word(1).expect("μ - 1");
            let mut order_plus_one = curve.order().expect("order");
            order_plus_one.add_word(1).expect("μ + 1");
            for bad in [vec![], vec![0], vec![0; 80], order, order_plus_one.to_vec()] {
                assert!(
                    matches!(
                        kem.encapsulate_known_answer(recipient.public_key(), &seed(&bad)),
                        Err(Error::InvalidPrivateKey(_))
                    ),
                    "{curve}"
                );
            }
            assert!(kem
                .encapsulate_known_answer(recipient.public_key(), &seed(&order_minus_one.to_vec()))
                .is_ok());
            let one = kem
                .encapsulate_known_answer(recipient.public_key(), &seed(&[0, 0, 1]))
                .expect("r = 1");
            let generator = PrivateKey::from_scalar(curve, &[1]).expect("G");
            assert_eq!(one.ciphertext, generator.public_key().to_sec1_compressed());
            let again = kem
                .encapsulate_known_answer(recipient.public_key(), &seed(&[1]))
                .expect("r = 1");
            assert_eq!(again.key, one.key);
            let other = PrivateKey::generate(if curve == Curve::P256 {
                Curve::P384
            } else {
                Curve::P256
            })
            .expect("other");
            assert!(matches!(
                kem.encapsulate_known_answer(other.public_key(), &seed(&[1])),
                Err(Error::InvalidPublicKey(_))
            ));
        }
    }

    #[test]
    fn names_round_trip_and_unknown_names_list_the_choices() {
        for kdf in Kdf::ALL {
            assert_eq!(kdf.name().parse::<Kdf>(), Ok(kdf));
            assert_eq!(kdf.to_string(), kdf.name());
        }
        for hash in KdfHash::ALL {
            assert_eq!(hash.name().parse::<KdfHash>(), Ok(hash));
        }
        for format in PointFormat::ALL {
            assert_eq!(format.name().parse::<PointFormat>(), Ok(format));
        }
        assert_eq!(
            "kdf3".parse::<Kdf>(),
            Err("unknown KDF 'kdf3' (expected one of kdf1, kdf2)".to_owned())
        );
        assert_eq!(
            "SHA256".parse::<KdfHash>(),
            Err("unknown KDF hash 'SHA256' (expected one of sha1, sha256)".to_owned())
        );
        assert_eq!(
            "hybrid".parse::<PointFormat>(),
            Err(
                "unknown point format 'hybrid' (expected one of compressed, uncompressed)"
                    .to_owned()
            )
        );
    }

    #[test]
    fn kdf1_and_kdf2_follow_their_definitions() {
        let z = [0x5au8; 40];
        for hash in KdfHash::ALL {
            let len = 3 * hash.algorithm().output_len() - 5;
            let one = kdf(Kdf::Kdf1, hash, &[&z[..7], &z[7..]], len).expect("kdf1");
            let two = kdf(Kdf::Kdf2, hash, &[&z], len).expect("kdf2");
            assert_eq!(one.len(), len);
            let block = |counter: u32| {
                let mut input = z.to_vec();
                input.extend_from_slice(&counter.to_be_bytes());
                digest::digest(hash.algorithm(), &input).as_ref().to_vec()
            };
            let expected: Vec<u8> = (0..3).flat_map(block).collect();
            assert_eq!(&one[..], &expected[..len], "{hash} KDF1");
            // KDF2 is KDF1 shifted by one block.
            let expected: Vec<u8> = (1..4).flat_map(block).collect();
            assert_eq!(&two[..], &expected[..len], "{hash} KDF2");
            assert!(kdf(Kdf::Kdf1, hash, &[&z], 0).expect("empty").is_empty());
        }
        let ours = kdf(Kdf::Kdf2, KdfHash::Sha256, &[&z], 77).expect("ours");
        let theirs = kdf2(HashAlg::Sha256, &z, &[], 77).expect("kdf2");
        assert_eq!(ours, theirs);
    }

    #[test]
    fn cofactors_come_from_openssl() {
        for curve in Curve::ALL {
            let expected = match curve {
                Curve::K283 => 4,
                Curve::B283 => 2,
                _ => 1,
            };
            let kem = EciesKem::new(curve, EciesKemParams::default()).expect("kem");
            assert_eq!(kem.cofactor, expected, "{curve}");
        }
    }

    #[test]
    fn order_two_eg_is_rejected_by_every_cofactor_and_check_mode_on_binary_curves() {
        for curve in [Curve::K283, Curve::B283] {
            let recipient = PrivateKey::generate(curve).expect("key");
            for format in PointFormat::ALL {
                let eg = order_two_eg(curve, format);
                let base = EciesKemParams {
                    format,
                    ..EciesKemParams::default()
                };
                for params in &mode_variants(base)[1..] {
                    let kem = EciesKem::new(curve, *params).expect("kem");
                    let mut asked = false;
                    let got = kem.decapsulate(&eg, |p| {
                        asked = true;
                        recipient.diffie_hellman(p)
                    });
                    assert!(
                        matches!(got, Err(Error::KemRejected(_))),
                        "{curve} {format} {params:?}: {got:?}"
                    );
                    assert!(!asked, "the ECDH must not be asked");
                }
            }
        }
    }

    #[test]
    fn small_order_component_is_refused_by_check_mode_and_dropped_by_cofactor_modes() {
        for curve in [Curve::K283, Curve::B283] {
            let recipient = PrivateKey::generate(curve).expect("key");
            let group = curve.group().expect("group");
            let mut ctx = BigNumContext::new().expect("ctx");
            let order_two =
                PublicKey::from_sec1(curve, &order_two_eg(curve, PointFormat::Compressed))
                    .expect("T");
            for base in mode_variants(EciesKemParams {
                single_hash_mode: true,
                ..EciesKemParams::default()
            }) {
                let kem = EciesKem::new(curve, base).expect("kem");
                let sent = kem.encapsulate(recipient.public_key()).expect("encap");
                let g_tilde = PublicKey::from_sec1(curve, &sent.ciphertext).expect("g̃");
                let mut mixed = EcPoint::new(group).expect("point");
                mixed
                    .add(
                        group,
                        &g_tilde.to_point().expect("g̃"),
                        &order_two.to_point().expect("T"),
                        &mut ctx,
                    )
                    .expect("g̃ + T");
                let eg = encode(curve, &mixed, PointConversionForm::COMPRESSED).expect("EG");
                let got = kem.decapsulate_with_key(&eg, &recipient);
                if base.check_mode {
                    assert!(
                        matches!(got, Err(Error::KemRejected(_))),
                        "{curve}: {got:?}"
                    );
                } else if base.cofactor_mode || base.old_cofactor_mode {
                    // Single hash: the key depends on x × P alone, and P drops T.
                    assert_eq!(got.expect("key"), sent.key, "{curve} {base:?}");
                }
            }
        }
    }
}
