//! Prepared verification keys: a signer's public key with a fixed-base table of its
//! multiples, so that ECDSA verification costs two fixed-base multiplications (the
//! generator's table is shared) instead of one fixed-base and one variable-base.
//!
//! Portable 64-bit arithmetic (`u128` products, Montgomery multiplication) on P-256, P-384,
//! brainpoolP256r1 and brainpoolP384r1. Verification handles public data only, so the
//! arithmetic is variable-time; its verdicts are those of [`VerifyingKey`](crate::VerifyingKey).

mod curves;
mod field;
mod inverse;
mod limbs;
mod point;
mod table;
mod verify;

use curves::{Bp256, Bp384, CurveSpec, P256, P384};
use point::Affine;
use table::{GeneratorTable, Table};

use crate::{Curve, Error, HashAlg, PublicKey, Result, Signature};

/// A public key prepared for many ECDSA verifications: its table of multiples takes
/// [`memory_bytes`](Self::memory_bytes) (with the default 6-bit window: 43 × 32 points,
/// 86 KiB, on the 256-bit curves; 64 × 32 points, 192 KiB, on the 384-bit ones) and is
/// built in about the time of ten verifications by the library. The generator's table of
/// each curve, in 8-bit windows, is built once per process on first use (256 KiB on the
/// 256-bit curves, 576 KiB on the 384-bit ones; see [`warm_up`](Self::warm_up)).
///
/// ```
/// use vss_crypto::{Curve, PreparedKey, PrivateKey};
///
/// let key = PrivateKey::generate(Curve::Bp256)?;
/// let digest = [7u8; 32];
/// let signature = key.sign_digest(&digest)?;
/// let prepared = PreparedKey::new(key.public_key())?;
/// assert!(prepared.verify_digest(&digest, &signature));
/// # Ok::<(), vss_crypto::Error>(())
/// ```
pub struct PreparedKey {
    public: PublicKey,
    table: Tables,
}

/// The table, by curve.
enum Tables {
    P256(Table<P256, 4>),
    P384(Table<P384, 6>),
    Bp256(Table<Bp256, 4>),
    Bp384(Table<Bp384, 6>),
}

/// The same expression on whichever table a key has.
macro_rules! on_table {
    ($tables:expr, $t:ident => $body:expr) => {
        match $tables {
            Tables::P256($t) => $body,
            Tables::P384($t) => $body,
            Tables::Bp256($t) => $body,
            Tables::Bp384($t) => $body,
        }
    };
}

impl PreparedKey {
    /// The window of [`new`](Self::new), in bits, chosen by measurement (`examples/
    /// prepared_speed.rs`, one core of an AMD EPYC, Zen 4, whose AVX-512 the portable path
    /// does not use): P-256 verifies 3.4× as fast as the library with 6 bits (86 KiB), 3.1×
    /// with 5 (52 KiB), 3.7× with 7 (148 KiB).
    pub const DEFAULT_WINDOW: u32 = 6;
    /// The smallest window [`with_window`](Self::with_window) takes.
    pub const MIN_WINDOW: u32 = 2;
    /// The largest window [`with_window`](Self::with_window) takes (P-256: 832 KiB per key).
    pub const MAX_WINDOW: u32 = 10;

    /// Whether keys of `curve` can be prepared: p256, p384, bp256 and bp384.
    pub fn supports(curve: Curve) -> bool {
        matches!(
            curve,
            Curve::P256 | Curve::P384 | Curve::Bp256 | Curve::Bp384
        )
    }

    /// Prepares `key` with the default window.
    pub fn new(key: &PublicKey) -> Result<Self> {
        Self::with_window(key, Self::DEFAULT_WINDOW)
    }

    /// Prepares the SEC1 point `bytes` of `curve` (compressed or uncompressed).
    pub fn from_sec1(curve: Curve, bytes: &[u8]) -> Result<Self> {
        Self::new(&PublicKey::from_sec1(curve, bytes)?)
    }

    /// Prepares `key` with signed windows of `window` bits: ⌈bits/window⌉ sub-tables of
    /// 2^(window−1) points each. The point is checked again here: on the curve, not the
    /// identity, coordinates below p.
    pub fn with_window(key: &PublicKey, window: u32) -> Result<Self> {
        if !(Self::MIN_WINDOW..=Self::MAX_WINDOW).contains(&window) {
            return Err(Error::InvalidParameters(
                "prepared-key window outside 2..=10 bits",
            ));
        }
        let table = match key.curve() {
            Curve::P256 => Tables::P256(prepare(key, window)?),
            Curve::P384 => Tables::P384(prepare(key, window)?),
            Curve::Bp256 => Tables::Bp256(prepare(key, window)?),
            Curve::Bp384 => Tables::Bp384(prepare(key, window)?),
            other => return Err(Error::NoPreparedKey(other)),
        };
        Ok(PreparedKey {
            public: key.clone(),
            table,
        })
    }

    /// The public key prepared.
    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// The window of the table, in bits.
    pub fn window(&self) -> u32 {
        on_table!(&self.table, t => t.window())
    }

    /// The bytes the key's table takes (the generator's table, shared by every key of the
    /// curve, is not counted).
    pub fn memory_bytes(&self) -> usize {
        on_table!(&self.table, t => t.memory_bytes())
    }

    /// Whether (r, s), each big-endian of the curve's scalar length, is a valid ECDSA
    /// signature of `digest` (longer digests are truncated to n's bit length, shorter ones
    /// taken as they are). r or s outside [1, n − 1], or of another length, is not valid.
    pub fn verify_prehashed(&self, digest: &[u8], r: &[u8], s: &[u8]) -> bool {
        on_table!(&self.table, t => verify::verify(t, digest, r, s))
    }

    /// Whether `signature` is a valid ECDSA signature of `digest`, with the verdict of
    /// [`VerifyingKey::verify_digest`](crate::VerifyingKey::verify_digest); a signature for
    /// another curve is not valid.
    pub fn verify_digest(&self, digest: &[u8], signature: &Signature) -> bool {
        signature.curve() == self.public.curve()
            && self.verify_prehashed(digest, signature.r(), signature.s())
    }

    /// Whether `signature` is a valid ECDSA signature of `message` hashed with `hash`.
    pub fn verify(&self, hash: HashAlg, message: &[u8], signature: &Signature) -> bool {
        self.verify_digest(&hash.digest(message), signature)
    }

    /// Builds the generator's table of `curve` now rather than at the first verification
    /// (a no-op for a curve without prepared keys, or one already built).
    pub fn warm_up(curve: Curve) {
        match curve {
            Curve::P256 => {
                P256::generator_table();
            }
            Curve::P384 => {
                P384::generator_table();
            }
            Curve::Bp256 => {
                Bp256::generator_table();
            }
            Curve::Bp384 => {
                Bp384::generator_table();
            }
            _ => {}
        }
    }
}

/// The table of `key`'s point on curve `C`.
fn prepare<C: CurveSpec<N>, const N: usize>(key: &PublicKey, window: u32) -> Result<Table<C, N>> {
    let point = Affine::<C, N>::from_coordinates(key.x(), key.y())
        .ok_or(Error::InvalidPublicKey("not a point on the curve"))?;
    Table::new(&point, window).ok_or(Error::InvalidPublicKey("a multiple is the identity"))
}

impl std::fmt::Debug for PreparedKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedKey")
            .field("public", &self.public)
            .field("window", &self.window())
            .finish()
    }
}
