//! The host's share of the engines with arithmetic of their own (the IFMA lanes, the GPU
//! kernel): P-256 and brainpoolP256r1 jobs parsed and range-checked into plain 256-bit
//! numbers; every other job decided here, false when malformed and by the library when on
//! another curve.

use std::collections::HashMap;

use vss_crypto::{Curve, PublicKey};

use crate::VerifyJob;

/// A 256-bit number, big-endian.
pub(crate) type Be256 = [u8; 32];

/// A lower-case hex digit's value.
const fn nibble(digit: u8) -> u8 {
    match digit {
        b'0'..=b'9' => digit - b'0',
        _ => digit - b'a' + 10,
    }
}

/// Parses 64 lower-case hex digits at compile time.
const fn be256(hex: &str) -> Be256 {
    let digits = hex.as_bytes();
    let mut out = [0u8; 32];
    let mut i = 0;
    while i < 64 {
        out[i / 2] |= nibble(digits[i]) << (4 * (1 - i % 2));
        i += 1;
    }
    out
}

/// The curves staged here and their group orders.
const ORDERS: [(Curve, Be256); 2] = [
    (
        Curve::P256,
        be256("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551"),
    ),
    (
        Curve::Bp256,
        be256("a9fb57dba1eea9bc3e660a909d838d718c397aa3b561a6f7901e0e82974856a7"),
    ),
];

/// The group order of a curve staged here.
pub(crate) fn order(curve: Curve) -> Option<&'static Be256> {
    ORDERS.iter().find(|(c, _)| *c == curve).map(|(_, n)| n)
}

/// A key's affine coordinates.
type Coordinates = (Be256, Be256);

/// A distinct key of a staged part: its curve, coordinates, and how many of the part's
/// jobs it signed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StagedKey {
    pub(crate) curve: Curve,
    pub(crate) qx: Be256,
    pub(crate) qy: Be256,
    pub(crate) jobs: usize,
}

/// The staged jobs of a part of a batch and the distinct keys that signed them.
#[derive(Debug, Clone, Default)]
pub(crate) struct StagedPart {
    /// The jobs left for curve arithmetic, in order.
    pub(crate) jobs: Vec<StagedJob>,
    /// The keys on the curve that signed them ([`StagedJob::key`] indexes this).
    pub(crate) keys: Vec<StagedKey>,
}

/// A job that passed every check that needs no curve arithmetic.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StagedJob {
    /// Its index in the batch.
    pub(crate) index: usize,
    /// P-256 or brainpoolP256r1.
    pub(crate) curve: Curve,
    /// The key's affine coordinates (on the curve, below p).
    pub(crate) qx: Be256,
    pub(crate) qy: Be256,
    /// The digest's leftmost 256 bits (all of it, left-padded, when shorter).
    pub(crate) e: Be256,
    /// r and s, both in 1..n−1.
    pub(crate) r: Be256,
    pub(crate) s: Be256,
    /// Its key's index in [`StagedPart::keys`].
    pub(crate) key: usize,
}

/// Who checks that a key is a point of its curve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyCheck {
    /// Staging, with the library (which also decompresses): the IFMA lanes trust their input.
    Library,
    /// The GPU kernel, which refuses coordinates not below p and points off the curve:
    /// staging only splits an uncompressed key (the library's check costs more than the
    /// kernel's whole verification share on a busy host) and decompresses the others.
    Kernel,
}

/// The key's affine coordinates; `None` when it is not a point of the curve (by the
/// library), or, under [`KeyCheck::Kernel`], not an uncompressed key that could be one.
fn parse_key(curve: Curve, bytes: &[u8], check: KeyCheck) -> Option<Coordinates> {
    if check == KeyCheck::Kernel {
        if let [0x04, rest @ ..] = bytes {
            if rest.len() == 64 {
                let (x, y) = rest.split_at(32);
                return Some((x.try_into().ok()?, y.try_into().ok()?));
            }
        }
    }
    let key = PublicKey::from_sec1(curve, bytes).ok()?;
    Some((key.x().try_into().ok()?, key.y().try_into().ok()?))
}

/// The jobs of `jobs` left for curve arithmetic, in order, and their keys; the verdict of
/// every other job goes to `verdicts` (same length as `jobs`). Each distinct key is parsed
/// once, and checked as `check` says.
pub(crate) fn stage(jobs: &[VerifyJob<'_>], verdicts: &mut [bool], check: KeyCheck) -> StagedPart {
    let mut parsed: HashMap<(Curve, &[u8]), Option<usize>> = HashMap::new();
    let mut part = StagedPart {
        jobs: Vec::with_capacity(jobs.len()),
        keys: Vec::new(),
    };
    for (index, job) in jobs.iter().enumerate() {
        let Some(n) = order(job.curve) else {
            verdicts[index] = job.verify_one();
            continue;
        };
        verdicts[index] = false;
        let key = *parsed
            .entry((job.curve, job.public_key))
            .or_insert_with(|| {
                let (qx, qy) = parse_key(job.curve, job.public_key, check)?;
                part.keys.push(StagedKey {
                    curve: job.curve,
                    qx,
                    qy,
                    jobs: 0,
                });
                Some(part.keys.len() - 1)
            });
        let Some(key) = key else { continue };
        let Ok(rs) = <&[u8; 64]>::try_from(job.signature) else {
            continue;
        };
        let (mut r, mut s) = ([0u8; 32], [0u8; 32]);
        r.copy_from_slice(&rs[..32]);
        s.copy_from_slice(&rs[32..]);
        let in_range = |v: &Be256| *v != [0; 32] && v < n;
        if !in_range(&r) || !in_range(&s) {
            continue;
        }
        let mut e = [0u8; 32];
        let used = job.digest.len().min(32);
        e[32 - used..].copy_from_slice(&job.digest[..used]);
        let signer = &mut part.keys[key];
        signer.jobs += 1;
        part.jobs.push(StagedJob {
            index,
            curve: job.curve,
            qx: signer.qx,
            qy: signer.qy,
            e,
            r,
            s,
            key,
        });
    }
    part
}
