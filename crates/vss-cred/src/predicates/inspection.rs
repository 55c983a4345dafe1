//! Inspection: the holder encrypts a hidden integer attribute (the member number) for the
//! inspector and proves that the ciphertext holds the signed value.
//!
//! ElGamal in the exponent in G1 with the standard generator `g`: the inspector's key is `x`,
//! `pk = g·x`; the ciphertext of `m` is `(C1 = g·k, C2 = g·m + pk·k)`. The Schnorr proof of
//! `(k, m)` commits `T1 = g·k~`, `T2 = g·m~ + pk·k~` with the BBS proof's blinding `m~`, and
//! answers `k^ = k~ + c·k`, `m^ = m~ + c·m`; the verifier checks `g·k^ = T1 + c·C1` and
//! `g·m^ + pk·k^ = T2 + c·C2`. The statement includes the inspector's key and the inspection
//! grounds, so a ciphertext is bound to why it may be opened. The inspector recovers `g·m =
//! C2 − x·C1` and then `m` by baby-step giant-step over `[0, 2^max_bits)`.

use super::{affine, hex_serde, put_g1, put_scalar, scalar_to_u64, PredicateError, Reader};
use crate::group::{random_scalar, Scalar, G1};
use ark_bls12_381::G1Affine;
use ark_ec::{CurveGroup, Group};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// The default size of the plaintext space searched by [`InspectorKey::decrypt`]: member
/// numbers below 2^40 (the scenario's 23784638726 is about 2^34.5).
pub const DEFAULT_DECRYPT_BITS: u32 = 40;
/// The largest plaintext space a decryption searches, 2^44 (a table of 2^22 points, about
/// 100 MiB); [`InspectionProtocol::init`] refuses larger values.
pub const MAX_DECRYPT_BITS: u32 = 44;
/// The longest inspection-grounds label, in octets.
pub const MAX_GROUNDS_LEN: usize = 256;
/// Prefix of the inspection statement in the transcript.
const TRANSCRIPT_TAG: &[u8] = b"VSS-CRED-V1 inspection";
/// Octets of an encoded [`InspectionProof`].
const PROOF_LEN: usize = 4 * 48 + 2 * 32;
/// Points normalised together (one field inversion each batch) in the baby-step giant-step.
const BSGS_BATCH: usize = 4096;

/// The fixed generator `g` of the encryption (the standard G1 generator).
fn generator() -> G1 {
    G1::generator()
}

/// The inspector's secret key `x`.
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct InspectorKey {
    x: Scalar,
}

impl InspectorKey {
    /// A fresh random key.
    pub fn new() -> Self {
        Self { x: random_scalar() }
    }

    /// `pk = g·x`.
    pub fn public(&self) -> InspectorPublicKey {
        InspectorPublicKey(affine(&(generator() * self.x)))
    }

    /// The secret as 32 big-endian octets (for the inspector's own key file).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(32);
        put_scalar(&mut out, &self.x);
        out
    }

    /// Decodes [`Self::to_bytes`], refusing zero.
    pub fn from_bytes(bytes: &[u8]) -> crate::Result<Self> {
        let mut r = Reader::new(bytes);
        let x = r.scalar()?;
        r.finish()?;
        if x == Scalar::from(0u8) {
            return Err(PredicateError::Malformed("zero inspector key").into());
        }
        Ok(Self { x })
    }

    /// Decrypts an integer in `[0, 2^max_bits)`, `max_bits` at most [`MAX_DECRYPT_BITS`]
    /// (use [`DEFAULT_DECRYPT_BITS`]). Builds the baby-step table each call; an inspector that
    /// opens many ciphertexts keeps a [`DlogTable`] and calls [`Self::decrypt_with`].
    pub fn decrypt(&self, ct: &Ciphertext, max_bits: u32) -> crate::Result<u64> {
        self.decrypt_with(&DlogTable::new(max_bits)?, ct)
    }

    /// Decrypts with a prepared table. [`PredicateError::NotFound`] when the plaintext is
    /// not below `2^table.bits()`.
    pub fn decrypt_with(&self, table: &DlogTable, ct: &Ciphertext) -> crate::Result<u64> {
        let gm = G1::from(ct.c2) - G1::from(ct.c1) * self.x;
        Ok(table.solve(&gm)?)
    }
}

impl Default for InspectorKey {
    fn default() -> Self {
        Self::new()
    }
}
hex_serde!(InspectorKey);

/// The inspector's public key `pk = g·x`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InspectorPublicKey(G1Affine);

impl InspectorPublicKey {
    /// The compressed point (48 octets).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(48);
        put_g1(&mut out, &self.0);
        out
    }

    /// Decodes [`Self::to_bytes`], refusing the identity.
    pub fn from_bytes(bytes: &[u8]) -> crate::Result<Self> {
        let mut r = Reader::new(bytes);
        let p = r.g1_nonzero()?;
        r.finish()?;
        Ok(Self(p))
    }
}
hex_serde!(InspectorPublicKey);

/// An ElGamal ciphertext `(C1, C2)` of an integer for the inspector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ciphertext {
    c1: G1Affine,
    c2: G1Affine,
}

impl Ciphertext {
    /// `C1`, `C2` compressed (96 octets).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(96);
        put_g1(&mut out, &self.c1);
        put_g1(&mut out, &self.c2);
        out
    }

    /// Decodes [`Self::to_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> crate::Result<Self> {
        let mut r = Reader::new(bytes);
        let ct = Self::read(&mut r)?;
        r.finish()?;
        Ok(ct)
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, PredicateError> {
        Ok(Self {
            c1: r.g1()?,
            c2: r.g1()?,
        })
    }
}
hex_serde!(Ciphertext);

/// Hashes a key that is already uniformly distributed (an x coordinate's low limb) to itself.
#[derive(Default)]
struct IdentityHasher(u64);

impl Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8) | u64::from(*b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// The low limb of an affine point's x coordinate (Montgomery form), the table's key.
fn key(p: &G1Affine) -> u64 {
    p.x.0 .0[0]
}

/// The baby steps `j·g`, `0 ≤ j < 2^⌈bits/2⌉`, keyed by their x coordinates, for solving
/// discrete logarithms below `2^bits`.
pub struct DlogTable {
    bits: u32,
    baby_bits: u32,
    map: HashMap<u64, u32, BuildHasherDefault<IdentityHasher>>,
}

impl DlogTable {
    /// Builds the table for `[0, 2^bits)`; `bits` from 1 to [`MAX_DECRYPT_BITS`].
    pub fn new(bits: u32) -> crate::Result<Self> {
        if bits == 0 || bits > MAX_DECRYPT_BITS {
            return Err(PredicateError::TooLarge {
                what: "decryption bits",
                max: MAX_DECRYPT_BITS as usize,
            }
            .into());
        }
        let baby_bits = bits.div_ceil(2);
        let n = 1usize << baby_bits;
        let mut map = HashMap::with_capacity_and_hasher(n, BuildHasherDefault::default());
        let g = generator();
        let mut cur = G1::default();
        let mut batch = Vec::with_capacity(BSGS_BATCH);
        let mut j = 0u32;
        while (j as usize) < n {
            batch.clear();
            for _ in 0..BSGS_BATCH.min(n - j as usize) {
                batch.push(cur);
                cur += g;
            }
            for p in G1::normalize_batch(&batch) {
                map.entry(key(&p)).or_insert(j);
                j += 1;
            }
        }
        Ok(Self {
            bits,
            baby_bits,
            map,
        })
    }

    /// The plaintext space is `[0, 2^bits)`.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// `m` with `g·m = target`, `m < 2^bits`: giant steps `target − i·2^baby_bits·g`, batch
    /// normalised, looked up in the table, each hit checked.
    fn solve(&self, target: &G1) -> Result<u64, PredicateError> {
        let g = generator();
        let stride = 1u64 << self.baby_bits;
        let giant = g * Scalar::from(stride);
        let giants = 1u64 << (self.bits - self.baby_bits);
        let mut cur = *target;
        let mut batch = Vec::with_capacity(BSGS_BATCH);
        let mut i = 0u64;
        while i < giants {
            batch.clear();
            for _ in 0..(BSGS_BATCH as u64).min(giants - i) {
                batch.push(cur);
                cur -= giant;
            }
            for (k, p) in G1::normalize_batch(&batch).iter().enumerate() {
                if let Some(j) = self.map.get(&key(p)) {
                    let m = (i + k as u64) * stride + u64::from(*j);
                    if g * Scalar::from(m) == *target {
                        return Ok(m);
                    }
                }
            }
            i += batch.len() as u64;
        }
        Err(PredicateError::NotFound(self.bits))
    }
}

/// The prover's secrets, zeroized on drop.
#[derive(Zeroize, ZeroizeOnDrop)]
struct Secrets {
    k: Scalar,
    k_blinding: Scalar,
    m: Scalar,
    m_blinding: Scalar,
}

/// Appends the inspection statement and commitments.
fn transcript(
    out: &mut Vec<u8>,
    pk: &InspectorPublicKey,
    grounds: &[u8],
    ct: &Ciphertext,
    t1: &G1Affine,
    t2: &G1Affine,
) {
    out.extend_from_slice(TRANSCRIPT_TAG);
    put_g1(out, &pk.0);
    out.extend_from_slice(&(grounds.len() as u16).to_be_bytes());
    out.extend_from_slice(grounds);
    out.extend_from_slice(&ct.to_bytes());
    put_g1(out, t1);
    put_g1(out, t2);
}

fn check_grounds(grounds: &[u8]) -> Result<(), PredicateError> {
    if grounds.len() > MAX_GROUNDS_LEN {
        return Err(PredicateError::TooLarge {
            what: "inspection grounds",
            max: MAX_GROUNDS_LEN,
        });
    }
    Ok(())
}

/// The prover's side: encrypts the hidden value and proves it.
pub struct InspectionProtocol {
    secrets: Secrets,
    pk: InspectorPublicKey,
    grounds: Vec<u8>,
    ct: Ciphertext,
    t1: G1Affine,
    t2: G1Affine,
}

impl InspectionProtocol {
    /// Encrypts `value` (an integer below `2^MAX_DECRYPT_BITS`, else
    /// [`PredicateError::ValueOutOfRange`]) under `pk` for `grounds` (at most
    /// [`MAX_GROUNDS_LEN`] octets), with the BBS proof's blinding `value_blinding`.
    pub fn init(
        pk: &InspectorPublicKey,
        grounds: &[u8],
        value: Scalar,
        value_blinding: Scalar,
    ) -> crate::Result<Self> {
        check_grounds(grounds)?;
        if scalar_to_u64(&value)? >> MAX_DECRYPT_BITS != 0 {
            return Err(PredicateError::ValueOutOfRange.into());
        }
        let secrets = Secrets {
            k: random_scalar(),
            k_blinding: random_scalar(),
            m: value,
            m_blinding: value_blinding,
        };
        let g = generator();
        let h = G1::from(pk.0);
        let pts = G1::normalize_batch(&[
            g * secrets.k,
            g * secrets.m + h * secrets.k,
            g * secrets.k_blinding,
            g * secrets.m_blinding + h * secrets.k_blinding,
        ]);
        Ok(Self {
            pk: *pk,
            grounds: grounds.to_vec(),
            ct: Ciphertext {
                c1: pts[0],
                c2: pts[1],
            },
            t1: pts[2],
            t2: pts[3],
            secrets,
        })
    }

    /// Appends the statement (tag, `pk`, grounds with a 2-octet length) and `C1`, `C2`,
    /// `T1`, `T2`.
    pub fn challenge_bytes(&self, out: &mut Vec<u8>) {
        transcript(out, &self.pk, &self.grounds, &self.ct, &self.t1, &self.t2);
    }

    /// The responses to `challenge`.
    pub fn gen_proof(self, challenge: &Scalar) -> InspectionProof {
        let s = &self.secrets;
        InspectionProof {
            ct: self.ct,
            t1: self.t1,
            t2: self.t2,
            resp_k: s.k_blinding + *challenge * s.k,
            resp_m: s.m_blinding + *challenge * s.m,
        }
    }
}

/// The ciphertext with the proof that it encrypts the hidden value under the inspector's key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InspectionProof {
    ct: Ciphertext,
    t1: G1Affine,
    t2: G1Affine,
    resp_k: Scalar,
    resp_m: Scalar,
}

impl InspectionProof {
    /// The ciphertext, for the inspector (kept with the grounds it was made for).
    pub fn ciphertext(&self) -> &Ciphertext {
        &self.ct
    }

    /// Appends what [`InspectionProtocol::challenge_bytes`] appended.
    pub fn challenge_bytes(
        &self,
        pk: &InspectorPublicKey,
        grounds: &[u8],
        out: &mut Vec<u8>,
    ) -> crate::Result<()> {
        check_grounds(grounds)?;
        transcript(out, pk, grounds, &self.ct, &self.t1, &self.t2);
        Ok(())
    }

    /// Checks `g·k^ = T1 + c·C1` and `g·m^ + pk·k^ = T2 + c·C2`. The grounds enter only
    /// through the challenge.
    pub fn verify(&self, challenge: &Scalar, pk: &InspectorPublicKey) -> crate::Result<()> {
        let g = generator();
        let c = *challenge;
        let ok1 = g * self.resp_k == G1::from(self.t1) + G1::from(self.ct.c1) * c;
        let ok2 = g * self.resp_m + G1::from(pk.0) * self.resp_k
            == G1::from(self.t2) + G1::from(self.ct.c2) * c;
        if ok1 && ok2 {
            Ok(())
        } else {
            Err(PredicateError::InvalidProof("inspection").into())
        }
    }

    /// The value's response `m^ = m~ + c·m`, to compare with the BBS proof's.
    pub fn value_response(&self) -> Scalar {
        self.resp_m
    }

    /// `C1`, `C2`, `T1`, `T2` (48 octets each), `k^`, `m^` (32 each).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(PROOF_LEN);
        out.extend_from_slice(&self.ct.to_bytes());
        put_g1(&mut out, &self.t1);
        put_g1(&mut out, &self.t2);
        put_scalar(&mut out, &self.resp_k);
        put_scalar(&mut out, &self.resp_m);
        out
    }

    /// Decodes [`Self::to_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> crate::Result<Self> {
        let mut r = Reader::new(bytes);
        let p = Self {
            ct: Ciphertext::read(&mut r)?,
            t1: r.g1()?,
            t2: r.g1()?,
            resp_k: r.scalar()?,
            resp_m: r.scalar()?,
        };
        r.finish()?;
        Ok(p)
    }
}
hex_serde!(InspectionProof);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group::hash_to_scalar;
    use crate::predicates::own;

    const MEMBER: u64 = 23_784_638_726;
    const GROUNDS: &[u8] = b"court order: stadium incident";

    fn challenge(bytes: &[u8]) -> Scalar {
        hash_to_scalar(bytes, b"VSS-CRED-TEST-CHALLENGE")
    }

    fn prove(pk: &InspectorPublicKey, m: u64, blinding: Scalar) -> (InspectionProof, Scalar) {
        let proto = InspectionProtocol::init(pk, GROUNDS, Scalar::from(m), blinding).expect("init");
        let mut t = Vec::new();
        proto.challenge_bytes(&mut t);
        let c = challenge(&t);
        (proto.gen_proof(&c), c)
    }

    fn check(
        pk: &InspectorPublicKey,
        grounds: &[u8],
        p: &InspectionProof,
    ) -> Result<(), PredicateError> {
        let mut t = Vec::new();
        own(p.challenge_bytes(pk, grounds, &mut t))?;
        own(p.verify(&challenge(&t), pk))
    }

    #[test]
    fn completeness_linked_response_and_decryption() {
        let key = InspectorKey::new();
        let pk = key.public();
        let blinding = Scalar::from(99u8);
        let (proof, c) = prove(&pk, MEMBER, blinding);
        assert_eq!(check(&pk, GROUNDS, &proof), Ok(()));
        assert_eq!(proof.value_response(), blinding + c * Scalar::from(MEMBER));
        let start = std::time::Instant::now();
        let m = key
            .decrypt(proof.ciphertext(), DEFAULT_DECRYPT_BITS)
            .expect("decrypt");
        eprintln!("decrypt {MEMBER} in 2^40: {:?}", start.elapsed());
        assert_eq!(m, MEMBER);
        let back = InspectionProof::from_bytes(&proof.to_bytes()).expect("decode");
        assert_eq!(back, proof);
    }

    #[test]
    fn small_values_and_not_found() {
        let key = InspectorKey::new();
        let pk = key.public();
        let table = DlogTable::new(12).expect("table");
        for m in [0u64, 1, 63, 64, 65, 4095] {
            let (proof, _) = prove(&pk, m, random_scalar());
            assert_eq!(own(key.decrypt_with(&table, proof.ciphertext())), Ok(m));
        }
        let (proof, _) = prove(&pk, 4096, random_scalar());
        assert_eq!(
            own(key.decrypt_with(&table, proof.ciphertext())),
            Err(PredicateError::NotFound(12))
        );
        assert!(DlogTable::new(MAX_DECRYPT_BITS + 1).is_err());
        assert!(DlogTable::new(0).is_err());
        assert_eq!(
            own(InspectionProtocol::init(
                &pk,
                GROUNDS,
                -Scalar::from(1u8),
                random_scalar()
            ))
            .err(),
            Some(PredicateError::ValueOutOfRange)
        );
        assert!(InspectionProtocol::init(
            &pk,
            &[0u8; MAX_GROUNDS_LEN + 1],
            Scalar::from(1u8),
            random_scalar()
        )
        .is_err());
    }

    #[test]
    fn wrong_key_grounds_ciphertext_or_bytes_fail() {
        let key = InspectorKey::new();
        let pk = key.public();
        let (proof, _) = prove(&pk, MEMBER, random_scalar());
        let other = InspectorKey::new().public();
        assert!(check(&other, GROUNDS, &proof).is_err());
        assert!(check(&pk, b"curiosity", &proof).is_err());
        // A ciphertext swapped in from another encryption fails.
        let (proof2, _) = prove(&pk, MEMBER, random_scalar());
        let mut swapped = proof.clone();
        swapped.ct = proof2.ct;
        assert!(check(&pk, GROUNDS, &swapped).is_err());
        let bytes = proof.to_bytes();
        for i in [0, 50, 100, 150, 200, PROOF_LEN - 1] {
            let mut bad = bytes.clone();
            bad[i] ^= 0x01;
            if let Ok(p) = InspectionProof::from_bytes(&bad) {
                assert!(check(&pk, GROUNDS, &p).is_err(), "flip at {i}");
            }
        }
        for n in 0..bytes.len() {
            assert!(InspectionProof::from_bytes(&bytes[..n]).is_err());
        }
        assert!(InspectionProof::from_bytes(&[0xff; PROOF_LEN]).is_err());
        assert!(InspectorKey::from_bytes(&[0u8; 32]).is_err());
        assert!(InspectorPublicKey::from_bytes(&[0u8; 48]).is_err());
        let json = serde_json::to_string(&key).expect("json");
        let back: InspectorKey = serde_json::from_str(&json).expect("from json");
        assert_eq!(back.public(), pk);
        assert!(serde_json::from_str::<InspectorPublicKey>("\"zz\"").is_err());
    }
}
