//! Range: `min ≤ m ≤ max` for a hidden integer attribute (a date as days since 1970-01-01,
//! a number below 2^64).
//!
//! The prover commits `C = g·m + h·r` (Pedersen, `g`, `h` hashed from a label) and proves two
//! things about `C`: smc_range_proof's CLS range proof (Canard et al.'s sumset decomposition
//! of `m − min` into digits, each proved to be in `[0, base)` by a proof of knowledge of the
//! verifier's weak-BB signature on it, in the pairing-free-prover variant of Camenisch et al.)
//! and a Schnorr proof of the opening `(m, r)` whose blinding for `m` is the BBS proof's `m~`.
//! The verifier checks all digits' Schnorr equations as one multi-scalar multiplication and
//! all their pairing equations `e(A'_i, pk) = e(A¯_i, g2)` as one product of two pairings,
//! each under random weights.
//!
//! [`RangeParams`] hold the weak-BB signatures on `0, …, base−1`. Whoever generates them
//! knows the signing key and could prove false ranges, so **the verifier generates them**
//! (or a party it trusts) and discards the key at once ([`RangeParams::new`] never returns
//! it); holders load them with [`RangeParams::from_bytes`], which checks every signature, so
//! a verifier cannot mark digits with bad signatures to learn them.

use super::{hex_serde, put_g1, put_g2, put_scalar, scalar_to_u64, PredicateError, Reader};
use crate::group::{multi_pairing, random_scalar, Scalar, G1};
use ark_bls12_381::{Bls12_381, G1Affine};
use ark_ec::{AffineRepr, VariableBaseMSM};
use ark_ff::Zero;
use schnorr_pok::discrete_log::PokPedersenCommitment;
use short_group_sig::common::SignatureParams;
use short_group_sig::weak_bb_sig::{PublicKeyG2, SignatureG1};
use short_group_sig::weak_bb_sig_pok_cdh::PoKOfSignatureG1;
use smc_range_proof::prelude::{
    CLSRangeProof, CLSRangeProofProtocol, MemberCommitmentKey, SetMembershipCheckParams,
    SetMembershipCheckParamsWithPairing,
};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// The digit base [`RangeParams::new`] is usually given: 17 digits for a range of 2^64, 5 for
/// a century of days.
pub const DEFAULT_RANGE_BASE: u16 = 16;
/// The largest digit base (the parameters then hold 256 signatures, 12 KiB).
pub const MAX_RANGE_BASE: u16 = 256;
/// The most digits a proof may have (base 2 over a range of 2^64).
pub const MAX_RANGE_DIGITS: usize = 65;
/// The largest `max` a statement may have (the protocol's bound is exclusive).
pub const MAX_RANGE_UPPER: u64 = u64::MAX - 1;
/// Label from which the signature generators and the commitment key are hashed.
const PARAMS_LABEL: &[u8] = b"VSS-CRED-V1 range";
/// Prefix of the range statement in the transcript.
const TRANSCRIPT_TAG: &[u8] = b"VSS-CRED-V1 range";
/// Octets of one digit's part of a [`RangeProof`].
const DIGIT_LEN: usize = 3 * 48 + 2 * 32;

/// The verifier's range parameters: weak-BB signatures on the digits `0, …, base−1`.
#[derive(Clone, Debug)]
pub struct RangeParams {
    params: SetMembershipCheckParams<Bls12_381>,
    prepared: SetMembershipCheckParamsWithPairing<Bls12_381>,
    comm_key: MemberCommitmentKey<G1Affine>,
}

impl RangeParams {
    /// Fresh parameters for digits in `[0, base)`, `base` from 2 to [`MAX_RANGE_BASE`]; the
    /// signing key is dropped (and zeroized) before this returns.
    pub fn new(base: u16) -> crate::Result<Self> {
        check_base(base)?;
        let (params, _key) = SetMembershipCheckParams::<Bls12_381>::new_for_range_proof::<
            _,
            sha2::Sha256,
        >(&mut rand::rngs::OsRng, PARAMS_LABEL, base);
        Ok(Self::with(params))
    }

    fn with(params: SetMembershipCheckParams<Bls12_381>) -> Self {
        Self {
            prepared: params.clone().into(),
            params,
            comm_key: MemberCommitmentKey::new::<sha2::Sha256>(PARAMS_LABEL),
        }
    }

    /// The digit base.
    pub fn base(&self) -> u16 {
        self.params.sigs.len() as u16
    }

    /// Base (2 octets), `g1` (48), `g2` (96), public key (96), then the signature on each
    /// digit in order (48 each).
    pub fn to_bytes(&self) -> Vec<u8> {
        let p = &self.params;
        let mut out = Vec::with_capacity(2 + 48 + 96 + 96 + 48 * p.sigs.len());
        out.extend_from_slice(&self.base().to_be_bytes());
        put_g1(&mut out, &p.bb_sig_params.g1);
        put_g2(&mut out, &p.bb_sig_params.g2);
        put_g2(&mut out, &p.bb_pk.0);
        for s in &p.sigs {
            put_g1(&mut out, &s.0);
        }
        out
    }

    /// Decodes [`Self::to_bytes`] and checks every signature (one pairing per digit, done
    /// once when the parameters are loaded).
    pub fn from_bytes(bytes: &[u8]) -> crate::Result<Self> {
        let mut r = Reader::new(bytes);
        let base = r.u16()?;
        check_base(base)?;
        let bb_sig_params = SignatureParams {
            g1: r.g1_nonzero()?,
            g2: r.g2()?,
        };
        let bb_pk = PublicKeyG2(r.g2()?);
        let mut sigs = Vec::with_capacity(base as usize);
        for _ in 0..base {
            sigs.push(SignatureG1(r.g1_nonzero()?));
        }
        r.finish()?;
        let params = SetMembershipCheckParams {
            bb_sig_params,
            bb_pk,
            set: (0..base).map(Scalar::from).collect(),
            sigs,
        };
        let this = Self::with(params);
        this.prepared
            .verify()
            .map_err(|_| PredicateError::Malformed("range parameters' signatures"))?;
        Ok(this)
    }
}
/// Parameters are equal when their encodings are.
impl PartialEq for RangeParams {
    fn eq(&self, other: &Self) -> bool {
        self.to_bytes() == other.to_bytes()
    }
}

impl Eq for RangeParams {}

hex_serde!(RangeParams);

fn check_base(base: u16) -> Result<(), PredicateError> {
    if !(2..=MAX_RANGE_BASE).contains(&base) {
        return Err(PredicateError::TooLarge {
            what: "range base",
            max: MAX_RANGE_BASE as usize,
        });
    }
    Ok(())
}

fn check_bounds(min: u64, max: u64) -> Result<(), PredicateError> {
    if min >= max || max > MAX_RANGE_UPPER {
        return Err(PredicateError::BadBounds);
    }
    Ok(())
}

/// The number of digits the library's sumset decomposition uses for `[min, max]` in `base`
/// (smc_range_proof's `get_range_and_randomness_multiple` and `find_number_of_digits`).
fn digit_count(base: u16, min: u64, max: u64) -> usize {
    let b = u128::from(base);
    let mut range = u128::from(max - min);
    if range % (b - 1) != 0 {
        range *= b - 1;
    }
    let mut l = (range + 1).ilog(b);
    if b.pow(l) < range + 1 {
        l += 1;
    }
    l as usize
}

/// One digit's proof of knowledge of a weak-BB signature.
#[derive(Clone, Debug, PartialEq, Eq)]
struct DigitProof {
    a_prime: G1Affine,
    a_bar: G1Affine,
    t: G1Affine,
    resp_randomizer: Scalar,
    resp_digit: Scalar,
}

/// Appends the range statement and the commitments.
#[allow(clippy::too_many_arguments)]
fn transcript(
    out: &mut Vec<u8>,
    params: &RangeParams,
    min: u64,
    max: u64,
    commitment: &G1Affine,
    digits: &mut dyn Iterator<Item = (&G1Affine, &G1Affine, &G1Affine)>,
    d: &G1Affine,
    t: &G1Affine,
) {
    out.extend_from_slice(TRANSCRIPT_TAG);
    out.extend_from_slice(&min.to_be_bytes());
    out.extend_from_slice(&max.to_be_bytes());
    out.extend_from_slice(&params.base().to_be_bytes());
    put_g1(out, &params.params.bb_sig_params.g1);
    put_g2(out, &params.params.bb_pk.0);
    put_g1(out, &params.comm_key.g);
    put_g1(out, &params.comm_key.h);
    put_g1(out, commitment);
    for (a_prime, a_bar, t_i) in digits {
        put_g1(out, a_prime);
        put_g1(out, a_bar);
        put_g1(out, t_i);
    }
    put_g1(out, d);
    put_g1(out, t);
}

/// The prover's secrets for the link to the BBS proof, zeroized on drop.
#[derive(Zeroize, ZeroizeOnDrop)]
struct Secrets {
    m: Scalar,
    m_blinding: Scalar,
    r: Scalar,
    r_blinding: Scalar,
}

/// The prover's side of `min ≤ m ≤ max`.
pub struct RangeProtocol {
    params: RangeParams,
    min: u64,
    max: u64,
    commitment: G1Affine,
    t: G1Affine,
    cls: CLSRangeProofProtocol<Bls12_381>,
    secrets: Secrets,
}

impl RangeProtocol {
    /// Starts the proof that `value` lies in `[min, max]` (`min < max ≤ MAX_RANGE_UPPER`),
    /// with the BBS proof's blinding `value_blinding`. A value outside the range (or not below
    /// 2^64) is [`PredicateError::ValueOutOfRange`]: no proof is made.
    pub fn init(
        params: &RangeParams,
        min: u64,
        max: u64,
        value: Scalar,
        value_blinding: Scalar,
    ) -> crate::Result<Self> {
        check_bounds(min, max)?;
        let v = scalar_to_u64(&value)?;
        if v < min || v > max {
            return Err(PredicateError::ValueOutOfRange.into());
        }
        let secrets = Secrets {
            m: value,
            m_blinding: value_blinding,
            r: random_scalar(),
            r_blinding: random_scalar(),
        };
        let ck = &params.comm_key;
        let commitment = ck.commit(&secrets.m, &secrets.r);
        let t = ck.commit(&secrets.m_blinding, &secrets.r_blinding);
        let cls = CLSRangeProofProtocol::init(
            &mut rand::rngs::OsRng,
            v,
            secrets.r,
            min,
            max + 1,
            ck,
            &params.params,
        )
        .map_err(|_| PredicateError::ValueOutOfRange)?;
        Ok(Self {
            params: params.clone(),
            min,
            max,
            commitment,
            t,
            cls,
            secrets,
        })
    }

    /// Appends the statement (tag, `min`, `max`, base, the parameters' `g1`, public key and
    /// commitment key) and the commitments: `C`, each digit's `A'`, `A¯`, `T`, then `D` and
    /// the link's `T`.
    pub fn challenge_bytes(&self, out: &mut Vec<u8>) {
        transcript(
            out,
            &self.params,
            self.min,
            self.max,
            &self.commitment,
            &mut self
                .cls
                .pok_sigs
                .iter()
                .map(|p| (&p.A_prime, &p.A_bar, &p.sc.t)),
            &self.cls.D,
            &self.t,
        );
    }

    /// The responses to `challenge`.
    pub fn gen_proof(self, challenge: &Scalar) -> RangeProof {
        let s = &self.secrets;
        let c = *challenge;
        let cls = self.cls.gen_proof(challenge);
        let digits = cls
            .pok_sigs
            .iter()
            .map(|p| {
                let (t, r1, r2) = match &p.sc {
                    Some(sc) => (sc.t, sc.response1, sc.response2),
                    None => (G1Affine::zero(), Scalar::zero(), Scalar::zero()),
                };
                DigitProof {
                    a_prime: p.A_prime,
                    a_bar: p.A_bar,
                    t,
                    resp_randomizer: r1,
                    resp_digit: r2,
                }
            })
            .collect();
        RangeProof {
            commitment: self.commitment,
            t: self.t,
            resp_m: s.m_blinding + c * s.m,
            resp_r: s.r_blinding + c * s.r,
            base: cls.base,
            d: cls.D,
            resp_r_cls: cls.resp_r,
            digits,
        }
    }
}

/// A proof that a hidden integer lies in `[min, max]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RangeProof {
    commitment: G1Affine,
    t: G1Affine,
    resp_m: Scalar,
    resp_r: Scalar,
    base: u16,
    d: G1Affine,
    resp_r_cls: Scalar,
    digits: Vec<DigitProof>,
}

impl RangeProof {
    /// Appends what [`RangeProtocol::challenge_bytes`] appended.
    pub fn challenge_bytes(
        &self,
        params: &RangeParams,
        min: u64,
        max: u64,
        out: &mut Vec<u8>,
    ) -> crate::Result<()> {
        check_bounds(min, max)?;
        transcript(
            out,
            params,
            min,
            max,
            &self.commitment,
            &mut self.digits.iter().map(|p| (&p.a_prime, &p.a_bar, &p.t)),
            &self.d,
            &self.t,
        );
        Ok(())
    }

    /// Checks the proof for `[min, max]` under `params`: the link `g·m^ + h·r^ = T + c·C`, the
    /// decomposition, each digit's Schnorr equations and, batched, their pairing equations.
    pub fn verify(
        &self,
        challenge: &Scalar,
        params: &RangeParams,
        min: u64,
        max: u64,
    ) -> crate::Result<()> {
        check_bounds(min, max)?;
        if self.base != params.base() || self.digits.len() != digit_count(self.base, min, max) {
            return Err(PredicateError::InvalidProof("range: digit count or base").into());
        }
        let ck = &params.comm_key;
        if G1::from(ck.commit(&self.resp_m, &self.resp_r))
            != G1::from(self.t) + G1::from(self.commitment) * challenge
        {
            return Err(PredicateError::InvalidProof("range: link to the value").into());
        }
        // The library's decomposition check reads only the digits' responses.
        let cls = CLSRangeProof::<Bls12_381> {
            base: self.base,
            pok_sigs: self
                .digits
                .iter()
                .map(|p| PoKOfSignatureG1 {
                    A_prime: p.a_prime,
                    A_bar: p.a_bar,
                    sc: Some(PokPedersenCommitment {
                        t: p.t,
                        response1: p.resp_randomizer,
                        response2: p.resp_digit,
                    }),
                    sc_partial: None,
                })
                .collect(),
            D: self.d,
            resp_r: self.resp_r_cls,
        };
        cls.verify_except_pairings(
            &self.commitment,
            challenge,
            min,
            max + 1,
            ck,
            &params.prepared,
        )
        .map_err(|_| PredicateError::InvalidProof("range: decomposition"))?;
        // Each digit's Schnorr equation g1·s_i − A'_i·d^_i − A¯_i·c = T_i, and its pairing
        // equation e(A'_i, pk) = e(A¯_i, g2), checked for all digits at once under random
        // weights σ_i and ρ_i.
        let c = *challenge;
        let n = self.digits.len();
        let mut bases = Vec::with_capacity(3 * n + 1);
        let mut scalars = Vec::with_capacity(3 * n + 1);
        let mut g1_weight = Scalar::zero();
        let (mut a_prime, mut a_bar, mut rho) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        for p in &self.digits {
            if p.a_prime.is_zero() {
                return Err(PredicateError::InvalidProof("range: digit").into());
            }
            let sigma = random_scalar();
            g1_weight += sigma * p.resp_randomizer;
            bases.extend_from_slice(&[p.a_prime, p.a_bar, p.t]);
            scalars.extend_from_slice(&[-(sigma * p.resp_digit), -(sigma * c), -sigma]);
            a_prime.push(p.a_prime);
            a_bar.push(p.a_bar);
            rho.push(random_scalar());
        }
        bases.push(params.params.bb_sig_params.g1);
        scalars.push(g1_weight);
        if !G1::msm_unchecked(&bases, &scalars).is_zero() {
            return Err(PredicateError::InvalidProof("range: digit").into());
        }
        let lhs = G1::msm_unchecked(&a_prime, &rho);
        let rhs = G1::msm_unchecked(&a_bar, &rho);
        if !multi_pairing(
            &[lhs, -rhs],
            &[params.params.bb_pk.0, params.params.bb_sig_params.g2],
        )
        .is_zero()
        {
            return Err(PredicateError::InvalidProof("range: digit signatures").into());
        }
        Ok(())
    }

    /// The value's response `m^ = m~ + c·m`, to compare with the BBS proof's.
    pub fn value_response(&self) -> Scalar {
        self.resp_m
    }

    /// `C`, `T` (48 octets each), `m^`, `r^` (32 each), base (2), `D` (48), the decomposition's
    /// `r` response (32), digit count (4), then per digit `A'`, `A¯`, `T` (48 each) and the
    /// randomizer's and digit's responses (32 each).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out =
            Vec::with_capacity(2 * 48 + 2 * 32 + 2 + 48 + 32 + 4 + DIGIT_LEN * self.digits.len());
        put_g1(&mut out, &self.commitment);
        put_g1(&mut out, &self.t);
        put_scalar(&mut out, &self.resp_m);
        put_scalar(&mut out, &self.resp_r);
        out.extend_from_slice(&self.base.to_be_bytes());
        put_g1(&mut out, &self.d);
        put_scalar(&mut out, &self.resp_r_cls);
        out.extend_from_slice(&(self.digits.len() as u32).to_be_bytes());
        for p in &self.digits {
            put_g1(&mut out, &p.a_prime);
            put_g1(&mut out, &p.a_bar);
            put_g1(&mut out, &p.t);
            put_scalar(&mut out, &p.resp_randomizer);
            put_scalar(&mut out, &p.resp_digit);
        }
        out
    }

    /// Decodes [`Self::to_bytes`]: at most [`MAX_RANGE_DIGITS`] digits, a base from 2 to
    /// [`MAX_RANGE_BASE`], no digit's `A'` the identity.
    pub fn from_bytes(bytes: &[u8]) -> crate::Result<Self> {
        let mut r = Reader::new(bytes);
        let commitment = r.g1()?;
        let t = r.g1()?;
        let resp_m = r.scalar()?;
        let resp_r = r.scalar()?;
        let base = r.u16()?;
        check_base(base)?;
        let d = r.g1()?;
        let resp_r_cls = r.scalar()?;
        let n = r.count("range digits", MAX_RANGE_DIGITS)?;
        let mut digits = Vec::with_capacity(n);
        for _ in 0..n {
            digits.push(DigitProof {
                a_prime: r.g1_nonzero()?,
                a_bar: r.g1()?,
                t: r.g1()?,
                resp_randomizer: r.scalar()?,
                resp_digit: r.scalar()?,
            });
        }
        r.finish()?;
        Ok(Self {
            commitment,
            t,
            resp_m,
            resp_r,
            base,
            d,
            resp_r_cls,
            digits,
        })
    }
}
hex_serde!(RangeProof);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group::hash_to_scalar;
    use crate::predicates::own;

    fn challenge(bytes: &[u8]) -> Scalar {
        hash_to_scalar(bytes, b"VSS-CRED-TEST-CHALLENGE")
    }

    fn prove(
        params: &RangeParams,
        min: u64,
        max: u64,
        v: u64,
        blinding: Scalar,
    ) -> Result<(RangeProof, Scalar), PredicateError> {
        let proto = own(RangeProtocol::init(
            params,
            min,
            max,
            Scalar::from(v),
            blinding,
        ))?;
        let mut t = Vec::new();
        proto.challenge_bytes(&mut t);
        let c = challenge(&t);
        Ok((proto.gen_proof(&c), c))
    }

    fn check(
        params: &RangeParams,
        min: u64,
        max: u64,
        p: &RangeProof,
    ) -> Result<(), PredicateError> {
        let mut t = Vec::new();
        own(p.challenge_bytes(params, min, max, &mut t))?;
        own(p.verify(&challenge(&t), params, min, max))
    }

    #[test]
    fn completeness_over_dates_and_large_numbers() {
        let params = RangeParams::new(DEFAULT_RANGE_BASE).expect("params");
        let blinding = Scalar::from(4242u64);
        // Born 1990-05-17 (7441 days), adult on 2025-01-01 (20089): birth ≤ 20089 − 18 years.
        for (min, max, v) in [
            (0u64, 13_515, 7_441),
            (7_441, 13_515, 7_441),
            (0, 13_515, 13_515),
            (1, MAX_RANGE_UPPER, 23_784_638_726),
            (0, MAX_RANGE_UPPER, MAX_RANGE_UPPER),
            (10, 11, 10),
        ] {
            let (proof, c) = prove(&params, min, max, v, blinding).expect("prove");
            assert_eq!(check(&params, min, max, &proof), Ok(()), "{min} {max} {v}");
            assert_eq!(proof.value_response(), blinding + c * Scalar::from(v));
            let back = RangeProof::from_bytes(&proof.to_bytes()).expect("decode");
            assert_eq!(back, proof);
        }
        let small = RangeParams::new(2).expect("params");
        let (proof, _) = prove(&small, 0, MAX_RANGE_UPPER, 12345, blinding).expect("prove");
        assert_eq!(check(&small, 0, MAX_RANGE_UPPER, &proof), Ok(()));
    }

    #[test]
    fn out_of_range_or_wrong_statement_fails() {
        let params = RangeParams::new(DEFAULT_RANGE_BASE).expect("params");
        for (min, max, v) in [(10u64, 20, 9), (10, 20, 21), (0, 100, u64::MAX)] {
            assert_eq!(
                prove(&params, min, max, v, random_scalar()).err(),
                Some(PredicateError::ValueOutOfRange)
            );
        }
        assert_eq!(
            own(RangeProtocol::init(
                &params,
                0,
                10,
                -Scalar::from(1u8),
                random_scalar()
            ))
            .err(),
            Some(PredicateError::ValueOutOfRange)
        );
        assert_eq!(
            prove(&params, 5, 5, 5, random_scalar()).err(),
            Some(PredicateError::BadBounds)
        );
        // A proof for [0, 100] does not pass for a narrower range, nor under other parameters.
        let (proof, _) = prove(&params, 0, 100, 50, random_scalar()).expect("prove");
        assert!(check(&params, 0, 40, &proof).is_err());
        assert!(check(&params, 60, 100, &proof).is_err());
        let other = RangeParams::new(DEFAULT_RANGE_BASE).expect("params");
        assert!(check(&other, 0, 100, &proof).is_err());
        let bytes = proof.to_bytes();
        for i in [0, 50, 100, 130, 170, 190, 250, 300, bytes.len() - 1] {
            let mut bad = bytes.clone();
            bad[i] ^= 0x01;
            if let Ok(p) = RangeProof::from_bytes(&bad) {
                assert!(check(&params, 0, 100, &p).is_err(), "flip at {i}");
            }
        }
        for n in 0..bytes.len() {
            assert!(RangeProof::from_bytes(&bytes[..n]).is_err());
        }
        assert!(RangeProof::from_bytes(&[0xff; 700]).is_err());
    }

    #[test]
    fn params_round_trip_and_bad_params_are_refused() {
        let params = RangeParams::new(8).expect("params");
        let json = serde_json::to_string(&params).expect("json");
        let back: RangeParams = serde_json::from_str(&json).expect("from json");
        assert_eq!(back.to_bytes(), params.to_bytes());
        let mut bytes = params.to_bytes();
        // Swap two digit signatures: each is a valid point but no longer signs its digit.
        let n = bytes.len();
        let (a, b) = (n - 96, n - 48);
        let last: Vec<u8> = bytes[b..].to_vec();
        let prev: Vec<u8> = bytes[a..b].to_vec();
        bytes[a..b].copy_from_slice(&last);
        bytes[b..].copy_from_slice(&prev);
        assert!(RangeParams::from_bytes(&bytes).is_err());
        assert!(RangeParams::new(1).is_err());
        assert!(RangeParams::new(MAX_RANGE_BASE + 1).is_err());
        assert!(RangeParams::from_bytes(&[0xff, 0xff]).is_err());
        assert!(RangeParams::from_bytes(&params.to_bytes()[..100]).is_err());
    }
}
