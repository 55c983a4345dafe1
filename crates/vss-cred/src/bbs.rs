//! BBS signatures and their proofs of knowledge, as the IETF CFRG draft
//! (draft-irtf-cfrg-bbs-signatures-13) defines them for the ciphersuite
//! `BBS_BLS12381G1_XMD:SHA-256_SSWU_RO_`.
//!
//! The proof is built in the draft's three steps (init, challenge, finalize) so that a
//! message can be held by someone else: an [`ProverMessage::External`] message contributes
//! its point to `B` and its commitment to `T2`, and its response is given to
//! [`ProofInit::finalize`]. The result is an ordinary proof of the draft.

use crate::group::{
    expand_message_xmd, g1_nonzero_from_bytes, g1_to_bytes, g2_from_bytes, g2_to_bytes,
    hash_to_curve_g1, hash_to_scalar, i2osp, multi_pairing, random_scalar, scalar_from_bytes,
    scalar_to_bytes, EncodingError, Scalar, G1, G1_LEN, G2, SCALAR_LEN,
};
use ark_bls12_381::G2Affine;
use ark_ec::{AffineRepr, CurveGroup, VariableBaseMSM};
use ark_ff::{Field, Zero};
use std::sync::{Mutex, OnceLock};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// The ciphersuite's identifier.
pub const CIPHERSUITE_ID: &[u8] = b"BBS_BLS12381G1_XMD:SHA-256_SSWU_RO_";
/// The interface's identifier (`ciphersuite_id || "H2G_HM2S_"`), which prefixes every DST.
pub const API_ID: &[u8] = b"BBS_BLS12381G1_XMD:SHA-256_SSWU_RO_H2G_HM2S_";
/// The most messages one signature covers.
pub const MAX_MESSAGES: usize = 64;
/// The longest header or presentation header accepted, in bytes.
pub const MAX_HEADER_LEN: usize = 64 * 1024;
/// The ciphersuite's fixed base point P1 (compressed).
const P1_HEX: &str = "a8ce256102840821a3e94ea9025e4662b205762f9776b3a766c872b948f1fd225e7c59698588e70d11406d161b4e28c9";
/// Octets in a signature: A (48) and e (32).
pub const SIGNATURE_LEN: usize = G1_LEN + SCALAR_LEN;

fn dst(suffix: &[u8]) -> Vec<u8> {
    [API_ID, suffix].concat()
}

/// Why a BBS operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BbsError {
    /// Bytes did not decode.
    #[error("malformed encoding: {0}")]
    Encoding(#[from] EncodingError),
    /// More messages than [`MAX_MESSAGES`], or a header over [`MAX_HEADER_LEN`].
    #[error("too many messages or too long a header")]
    TooLarge,
    /// A disclosed index is out of range or repeated, or the message count does not fit.
    #[error("invalid message index or count")]
    InvalidIndex,
    /// A response for an external message is missing or given twice.
    #[error("external message responses do not match the external messages")]
    ExternalResponses,
    /// A zero where the draft refuses it (a signature's `e`, a key, `SK + e`).
    #[error("degenerate value")]
    Degenerate,
    /// The signature does not verify.
    #[error("signature is invalid")]
    InvalidSignature,
    /// The proof does not verify.
    #[error("proof is invalid")]
    InvalidProof,
}

/// The ciphersuite's base point P1.
pub fn p1() -> G1 {
    static P1: OnceLock<G1> = OnceLock::new();
    *P1.get_or_init(|| {
        let bytes = hex::decode(P1_HEX).expect("P1 is hex");
        g1_nonzero_from_bytes(&bytes).expect("P1 is a point of G1")
    })
}

/// The first `count` generators of the interface (`Q_1, H_1, …`), created as the draft's
/// `create_generators` does and kept for the process.
pub fn generators(count: usize) -> crate::Result<Vec<G1>> {
    if count > MAX_MESSAGES + 1 {
        return Err(BbsError::TooLarge.into());
    }
    static CACHE: OnceLock<Mutex<(Vec<u8>, Vec<G1>)>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| {
        let seed_dst = dst(b"SIG_GENERATOR_SEED_");
        let v = expand_message_xmd(&dst(b"MESSAGE_GENERATOR_SEED"), &seed_dst, 48);
        Mutex::new((v, Vec::new()))
    });
    let mut guard = cache
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let (v, made) = &mut *guard;
    let seed_dst = dst(b"SIG_GENERATOR_SEED_");
    let generator_dst = dst(b"SIG_GENERATOR_DST_");
    while made.len() < count {
        let i = made.len() as u64 + 1;
        *v = expand_message_xmd(&[v.as_slice(), &i2osp(i, 8)].concat(), &seed_dst, 48);
        made.push(hash_to_curve_g1(v, &generator_dst));
    }
    Ok(made[..count].to_vec())
}

/// MapMessageToScalarAsHash: an octet-string message as a scalar.
pub fn message_to_scalar(message: &[u8]) -> Scalar {
    hash_to_scalar(message, &dst(b"MAP_MSG_TO_SCALAR_AS_HASH_"))
}

/// A signer's secret key.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct SecretKey(Scalar);

/// A signer's public key `W = BP2·SK` in G2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PublicKey(pub G2);

impl SecretKey {
    /// KeyGen: the key from at least 32 bytes of key material and optional key info.
    pub fn generate(key_material: &[u8], key_info: &[u8]) -> crate::Result<Self> {
        if key_material.len() < 32 || key_info.len() > 65_535 {
            return Err(BbsError::Degenerate.into());
        }
        let input = [key_material, &i2osp(key_info.len() as u64, 2), key_info].concat();
        let sk = hash_to_scalar(&input, &dst(b"KEYGEN_DST_"));
        if sk.is_zero() {
            return Err(BbsError::Degenerate.into());
        }
        Ok(SecretKey(sk))
    }

    /// A key from 32 bytes of the operating system's randomness.
    pub fn random() -> Self {
        SecretKey(random_scalar())
    }

    /// The key's 32 octets; the caller keeps them secret.
    pub fn to_bytes(&self) -> zeroize::Zeroizing<[u8; SCALAR_LEN]> {
        zeroize::Zeroizing::new(scalar_to_bytes(&self.0))
    }

    /// A key from its 32 octets, refusing zero.
    pub fn from_bytes(bytes: &[u8]) -> crate::Result<Self> {
        let sk = scalar_from_bytes(bytes).map_err(BbsError::Encoding)?;
        if sk.is_zero() {
            return Err(BbsError::Degenerate.into());
        }
        Ok(SecretKey(sk))
    }

    /// SkToPk.
    pub fn public_key(&self) -> PublicKey {
        PublicKey((G2Affine::generator() * self.0).into_affine())
    }
}

impl PublicKey {
    /// The key's 96 octets.
    pub fn to_bytes(&self) -> [u8; 96] {
        g2_to_bytes(&self.0)
    }

    /// A key from its 96 octets, checked to be in the subgroup and not the identity.
    pub fn from_bytes(bytes: &[u8]) -> crate::Result<Self> {
        Ok(PublicKey(g2_from_bytes(bytes).map_err(BbsError::Encoding)?))
    }
}

/// A BBS signature `(A, e)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signature {
    /// `A = B·1/(SK + e)`.
    pub a: G1,
    /// The scalar `e`.
    pub e: Scalar,
}

impl Signature {
    /// The signature's 80 octets.
    pub fn to_bytes(&self) -> [u8; SIGNATURE_LEN] {
        let mut out = [0u8; SIGNATURE_LEN];
        out[..G1_LEN].copy_from_slice(&g1_to_bytes(&self.a));
        out[G1_LEN..].copy_from_slice(&scalar_to_bytes(&self.e));
        out
    }

    /// octets_to_signature: refuses the identity for `A` and zero for `e`.
    pub fn from_bytes(bytes: &[u8]) -> crate::Result<Self> {
        if bytes.len() != SIGNATURE_LEN {
            return Err(BbsError::Encoding(EncodingError::Length {
                expected: SIGNATURE_LEN,
                got: bytes.len(),
            })
            .into());
        }
        let a = g1_nonzero_from_bytes(&bytes[..G1_LEN]).map_err(BbsError::Encoding)?;
        let e = scalar_from_bytes(&bytes[G1_LEN..]).map_err(BbsError::Encoding)?;
        if e.is_zero() {
            return Err(BbsError::Degenerate.into());
        }
        Ok(Signature { a, e })
    }
}

fn msm(points: &[G1], scalars: &[Scalar]) -> G1 {
    let affine = G1::normalize_batch(points);
    G1::msm_unchecked(&affine, scalars)
}

/// calculate_domain over the public key, `L` generators after `Q_1`, and the header.
pub fn calculate_domain(pk: &PublicKey, gens: &[G1], header: &[u8]) -> Scalar {
    let mut input = pk.to_bytes().to_vec();
    input.extend_from_slice(&i2osp(gens.len() as u64 - 1, 8));
    for g in gens {
        input.extend_from_slice(&g1_to_bytes(g));
    }
    input.extend_from_slice(API_ID);
    input.extend_from_slice(&i2osp(header.len() as u64, 8));
    input.extend_from_slice(header);
    hash_to_scalar(&input, &dst(b"H2S_"))
}

fn check_sizes(count: usize, header: &[u8]) -> Result<(), BbsError> {
    if count > MAX_MESSAGES || header.len() > MAX_HEADER_LEN {
        return Err(BbsError::TooLarge);
    }
    Ok(())
}

/// `B = P1 + Q_1·domain + Σ H_i·msg_i + extra`, the point every signature equation uses.
fn compute_b(gens: &[G1], domain: Scalar, messages: &[(usize, Scalar)], extra: G1) -> G1 {
    let mut points = vec![gens[0]];
    let mut scalars = vec![domain];
    for (i, m) in messages {
        points.push(gens[i + 1]);
        scalars.push(*m);
    }
    p1() + msm(&points, &scalars) + extra
}

/// The signer's side of a signature where part of `B` was committed by the prover: `B`
/// includes `commitment` (the committed messages' `Σ H_i·m_i`, verified by the caller) and
/// the known messages at their indexes; `e` hashes the key, the commitment, the messages
/// and the domain.
pub fn sign_with_commitment(
    sk: &SecretKey,
    pk: &PublicKey,
    header: &[u8],
    message_count: usize,
    commitment: &G1,
    known: &[(usize, Scalar)],
) -> crate::Result<Signature> {
    check_sizes(message_count, header)?;
    if known.iter().any(|(i, _)| *i >= message_count) {
        return Err(BbsError::InvalidIndex.into());
    }
    let gens = generators(message_count + 1)?;
    let domain = calculate_domain(pk, &gens, header);
    let mut input = scalar_to_bytes(&sk.0).to_vec();
    input.extend_from_slice(&g1_to_bytes(commitment));
    for (_, m) in known {
        input.extend_from_slice(&scalar_to_bytes(m));
    }
    input.extend_from_slice(&scalar_to_bytes(&domain));
    let e = hash_to_scalar(&input, &dst(b"H2S_"));
    input.zeroize();
    let b = compute_b(&gens, domain, known, *commitment);
    Ok(finish_signature(sk, b, e)?)
}

fn finish_signature(sk: &SecretKey, b: G1, e: Scalar) -> Result<Signature, BbsError> {
    let inverse = (sk.0 + e).inverse().ok_or(BbsError::Degenerate)?;
    let a = b * inverse;
    if a.is_zero() {
        return Err(BbsError::Degenerate);
    }
    Ok(Signature { a, e })
}

/// Sign (CoreSign) the messages, given as scalars, under the header.
pub fn sign(
    sk: &SecretKey,
    pk: &PublicKey,
    header: &[u8],
    messages: &[Scalar],
) -> crate::Result<Signature> {
    check_sizes(messages.len(), header)?;
    let gens = generators(messages.len() + 1)?;
    let domain = calculate_domain(pk, &gens, header);
    let mut input = scalar_to_bytes(&sk.0).to_vec();
    for m in messages {
        input.extend_from_slice(&scalar_to_bytes(m));
    }
    input.extend_from_slice(&scalar_to_bytes(&domain));
    let e = hash_to_scalar(&input, &dst(b"H2S_"));
    input.zeroize();
    let indexed: Vec<(usize, Scalar)> = messages.iter().copied().enumerate().collect();
    Ok(finish_signature(
        sk,
        compute_b(&gens, domain, &indexed, G1::zero()),
        e,
    )?)
}

/// Verify (CoreVerify) a signature on the messages under the header.
pub fn verify(
    pk: &PublicKey,
    signature: &Signature,
    header: &[u8],
    messages: &[Scalar],
) -> crate::Result<()> {
    check_sizes(messages.len(), header)?;
    let gens = generators(messages.len() + 1)?;
    let domain = calculate_domain(pk, &gens, header);
    let indexed: Vec<(usize, Scalar)> = messages.iter().copied().enumerate().collect();
    Ok(verify_b(
        pk,
        signature,
        compute_b(&gens, domain, &indexed, G1::zero()),
    )?)
}

/// Verify a signature against a `B` computed by the caller (as a prover does whose messages
/// are partly held by a card): `e(A, W + BP2·e) = e(B, BP2)`.
pub fn verify_with_commitment(
    pk: &PublicKey,
    signature: &Signature,
    header: &[u8],
    message_count: usize,
    commitment: &G1,
    known: &[(usize, Scalar)],
) -> crate::Result<()> {
    check_sizes(message_count, header)?;
    let gens = generators(message_count + 1)?;
    let domain = calculate_domain(pk, &gens, header);
    Ok(verify_b(
        pk,
        signature,
        compute_b(&gens, domain, known, *commitment),
    )?)
}

fn verify_b(pk: &PublicKey, signature: &Signature, b: G1) -> Result<(), BbsError> {
    let bp2 = G2Affine::generator();
    let w_e = (pk.0 + bp2 * signature.e).into_affine();
    let minus_bp2 = (-bp2.into_group()).into_affine();
    if multi_pairing(&[signature.a, b], &[w_e, minus_bp2]).is_zero() {
        Ok(())
    } else {
        Err(BbsError::InvalidSignature)
    }
}

/// A message as the prover knows it.
// One short list per proof: the external variant's two points are not worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Copy)]
pub enum ProverMessage {
    /// Disclosed to the verifier.
    Disclosed(Scalar),
    /// Hidden; `blinding` is `m~` when another proof shares it, else drawn at random.
    Hidden {
        /// The message.
        value: Scalar,
        /// The blinding to use, when another statement must share it.
        blinding: Option<Scalar>,
    },
    /// Hidden and held by someone else, who gave `H_i·m` and the commitment `H_i·r` and
    /// will give the response `r + c·m`.
    External {
        /// `H_i·m`, the message's contribution to `B`.
        point: G1,
        /// `H_i·r`, the holder's contribution to `T2`.
        commitment: G1,
    },
}

/// The prover's state between the draft's ProofInit and ProofFinalize.
pub struct ProofInit {
    abar: G1,
    bbar: G1,
    d: G1,
    t1: G1,
    t2: G1,
    domain: Scalar,
    secrets: ProofSecrets,
    disclosed: Vec<(usize, Scalar)>,
    undisclosed: Vec<Undisclosed>,
}

#[derive(Zeroize, ZeroizeOnDrop)]
struct ProofSecrets {
    r1: Scalar,
    r2: Scalar,
    e: Scalar,
    e_tilde: Scalar,
    r1_tilde: Scalar,
    r3_tilde: Scalar,
}

enum Undisclosed {
    Known { value: Scalar, blinding: Scalar },
    External(usize),
}

impl Drop for Undisclosed {
    fn drop(&mut self) {
        if let Undisclosed::Known { value, blinding } = self {
            value.zeroize();
            blinding.zeroize();
        }
    }
}

/// A proof of knowledge of a signature (the draft's proof layout).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proof {
    /// `Abar`.
    pub abar: G1,
    /// `Bbar`.
    pub bbar: G1,
    /// `D`.
    pub d: G1,
    /// `e^`.
    pub e_hat: Scalar,
    /// `r1^`.
    pub r1_hat: Scalar,
    /// `r3^`.
    pub r3_hat: Scalar,
    /// `m^_j` for the undisclosed messages, in index order.
    pub m_hat: Vec<Scalar>,
    /// The challenge.
    pub challenge: Scalar,
}

impl ProofInit {
    /// ProofInit: `messages` are all the signed messages in order; `random` draws the
    /// draft's random scalars (r1, r2, e~, r1~, r3~, then m~ for each hidden message without
    /// a given blinding, in index order).
    pub fn new(
        pk: &PublicKey,
        signature: &Signature,
        header: &[u8],
        messages: &[ProverMessage],
        random: &mut dyn FnMut() -> Scalar,
    ) -> crate::Result<Self> {
        check_sizes(messages.len(), header)?;
        let gens = generators(messages.len() + 1)?;
        let domain = calculate_domain(pk, &gens, header);
        let secrets = ProofSecrets {
            r1: random(),
            r2: random(),
            e: signature.e,
            e_tilde: random(),
            r1_tilde: random(),
            r3_tilde: random(),
        };
        let mut known = Vec::new();
        let mut extra = G1::zero();
        let mut t2_points = Vec::new();
        let mut t2_scalars = Vec::new();
        let mut t2_extra = G1::zero();
        let mut disclosed = Vec::new();
        let mut undisclosed = Vec::new();
        for (i, message) in messages.iter().enumerate() {
            match message {
                ProverMessage::Disclosed(m) => {
                    known.push((i, *m));
                    disclosed.push((i, *m));
                }
                ProverMessage::Hidden { value, blinding } => {
                    known.push((i, *value));
                    let blinding = blinding.unwrap_or_else(&mut *random);
                    t2_points.push(gens[i + 1]);
                    t2_scalars.push(blinding);
                    undisclosed.push(Undisclosed::Known {
                        value: *value,
                        blinding,
                    });
                }
                ProverMessage::External { point, commitment } => {
                    extra += point;
                    t2_extra += commitment;
                    undisclosed.push(Undisclosed::External(i));
                }
            }
        }
        let b = compute_b(&gens, domain, &known, extra);
        let d = b * secrets.r2;
        let abar = signature.a * (secrets.r1 * secrets.r2);
        let bbar = d * secrets.r1 - abar * secrets.e;
        let t1 = abar * secrets.e_tilde + d * secrets.r1_tilde;
        t2_points.push(d);
        t2_scalars.push(secrets.r3_tilde);
        let t2 = msm(&t2_points, &t2_scalars) + t2_extra;
        t2_scalars.zeroize();
        Ok(ProofInit {
            abar,
            bbar,
            d,
            t1,
            t2,
            domain,
            secrets,
            disclosed,
            undisclosed,
        })
    }

    /// ProofChallengeCalculate over this init and the presentation header.
    pub fn challenge(&self, ph: &[u8]) -> crate::Result<Scalar> {
        if ph.len() > MAX_HEADER_LEN {
            return Err(BbsError::TooLarge.into());
        }
        Ok(challenge(
            &self.disclosed,
            [&self.abar, &self.bbar, &self.d, &self.t1, &self.t2],
            self.domain,
            ph,
        ))
    }

    /// ProofFinalize, with the responses `r + c·m` of the external messages by index.
    pub fn finalize(self, challenge: Scalar, external: &[(usize, Scalar)]) -> crate::Result<Proof> {
        let s = &self.secrets;
        let r3 = s.r2.inverse().ok_or(BbsError::Degenerate)?;
        let mut used = 0;
        let mut m_hat = Vec::with_capacity(self.undisclosed.len());
        for u in &self.undisclosed {
            match u {
                Undisclosed::Known { value, blinding } => {
                    m_hat.push(*blinding + *value * challenge)
                }
                Undisclosed::External(i) => {
                    let (_, response) = external
                        .iter()
                        .find(|(j, _)| j == i)
                        .ok_or(BbsError::ExternalResponses)?;
                    used += 1;
                    m_hat.push(*response);
                }
            }
        }
        if used != external.len() {
            return Err(BbsError::ExternalResponses.into());
        }
        Ok(Proof {
            abar: self.abar,
            bbar: self.bbar,
            d: self.d,
            e_hat: s.e_tilde + s.e * challenge,
            r1_hat: s.r1_tilde - s.r1 * challenge,
            r3_hat: s.r3_tilde - r3 * challenge,
            m_hat,
            challenge,
        })
    }
}

fn challenge(disclosed: &[(usize, Scalar)], points: [&G1; 5], domain: Scalar, ph: &[u8]) -> Scalar {
    let mut input = i2osp(disclosed.len() as u64, 8);
    for (i, m) in disclosed {
        input.extend_from_slice(&i2osp(*i as u64, 8));
        input.extend_from_slice(&scalar_to_bytes(m));
    }
    for p in points {
        input.extend_from_slice(&g1_to_bytes(p));
    }
    input.extend_from_slice(&scalar_to_bytes(&domain));
    input.extend_from_slice(&i2osp(ph.len() as u64, 8));
    input.extend_from_slice(ph);
    hash_to_scalar(&input, &dst(b"H2S_"))
}

/// ProofGen with all messages known to the prover and drawn randomness.
pub fn proof_gen(
    pk: &PublicKey,
    signature: &Signature,
    header: &[u8],
    ph: &[u8],
    messages: &[Scalar],
    disclosed_indexes: &[usize],
) -> crate::Result<Proof> {
    proof_gen_with(
        pk,
        signature,
        header,
        ph,
        messages,
        disclosed_indexes,
        &mut random_scalar,
    )
}

/// ProofGen with the random scalars from `random` (the draft's fixtures mock them).
pub fn proof_gen_with(
    pk: &PublicKey,
    signature: &Signature,
    header: &[u8],
    ph: &[u8],
    messages: &[Scalar],
    disclosed_indexes: &[usize],
    random: &mut dyn FnMut() -> Scalar,
) -> crate::Result<Proof> {
    if disclosed_indexes.iter().any(|i| *i >= messages.len())
        || disclosed_indexes.windows(2).any(|w| w[0] >= w[1])
    {
        return Err(BbsError::InvalidIndex.into());
    }
    let prover_messages: Vec<ProverMessage> = messages
        .iter()
        .enumerate()
        .map(|(i, m)| {
            if disclosed_indexes.contains(&i) {
                ProverMessage::Disclosed(*m)
            } else {
                ProverMessage::Hidden {
                    value: *m,
                    blinding: None,
                }
            }
        })
        .collect();
    let init = ProofInit::new(pk, signature, header, &prover_messages, random)?;
    let c = init.challenge(ph)?;
    init.finalize(c, &[])
}

/// ProofVerify: `disclosed` are the disclosed messages with their indexes, ascending.
pub fn proof_verify(
    pk: &PublicKey,
    proof: &Proof,
    header: &[u8],
    ph: &[u8],
    disclosed: &[(usize, Scalar)],
) -> crate::Result<()> {
    let count = disclosed.len() + proof.m_hat.len();
    check_sizes(count, header)?;
    if ph.len() > MAX_HEADER_LEN {
        return Err(BbsError::TooLarge.into());
    }
    if disclosed.iter().any(|(i, _)| *i >= count) || disclosed.windows(2).any(|w| w[0].0 >= w[1].0)
    {
        return Err(BbsError::InvalidIndex.into());
    }
    let gens = generators(count + 1)?;
    let domain = calculate_domain(pk, &gens, header);
    let c = proof.challenge;
    let t1 = msm(
        &[proof.bbar, proof.abar, proof.d],
        &[c, proof.e_hat, proof.r1_hat],
    );
    let bv = compute_b(&gens, domain, disclosed, G1::zero());
    let mut points = vec![bv, proof.d];
    let mut scalars = vec![c, proof.r3_hat];
    let undisclosed = (0..count).filter(|i| !disclosed.iter().any(|(j, _)| j == i));
    for (i, m) in undisclosed.zip(&proof.m_hat) {
        points.push(gens[i + 1]);
        scalars.push(*m);
    }
    let t2 = msm(&points, &scalars);
    let expected = challenge(
        disclosed,
        [&proof.abar, &proof.bbar, &proof.d, &t1, &t2],
        domain,
        ph,
    );
    if expected != c {
        return Err(BbsError::InvalidProof.into());
    }
    let minus_bp2 = (-G2Affine::generator().into_group()).into_affine();
    if multi_pairing(&[proof.abar, proof.bbar], &[pk.0, minus_bp2]).is_zero() {
        Ok(())
    } else {
        Err(BbsError::InvalidProof.into())
    }
}

impl Proof {
    /// The proof's octets: Abar, Bbar, D, e^, r1^, r3^, the m^_j, the challenge.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(3 * G1_LEN + (4 + self.m_hat.len()) * SCALAR_LEN);
        for p in [&self.abar, &self.bbar, &self.d] {
            out.extend_from_slice(&g1_to_bytes(p));
        }
        for s in [&self.e_hat, &self.r1_hat, &self.r3_hat] {
            out.extend_from_slice(&scalar_to_bytes(s));
        }
        for s in &self.m_hat {
            out.extend_from_slice(&scalar_to_bytes(s));
        }
        out.extend_from_slice(&scalar_to_bytes(&self.challenge));
        out
    }

    /// octets_to_proof: points in the subgroup and not the identity, scalars below r and
    /// not zero, at most [`MAX_MESSAGES`] responses.
    pub fn from_bytes(bytes: &[u8]) -> crate::Result<Self> {
        let fixed = 3 * G1_LEN + 4 * SCALAR_LEN;
        if bytes.len() < fixed || !(bytes.len() - fixed).is_multiple_of(SCALAR_LEN) {
            return Err(BbsError::Encoding(EncodingError::Length {
                expected: fixed,
                got: bytes.len(),
            })
            .into());
        }
        let u = (bytes.len() - fixed) / SCALAR_LEN;
        if u > MAX_MESSAGES {
            return Err(BbsError::TooLarge.into());
        }
        let point = |k: usize| {
            g1_nonzero_from_bytes(&bytes[k * G1_LEN..(k + 1) * G1_LEN]).map_err(BbsError::Encoding)
        };
        let (abar, bbar, d) = (point(0)?, point(1)?, point(2)?);
        let scalars: Vec<Scalar> = bytes[3 * G1_LEN..]
            .chunks(SCALAR_LEN)
            .map(|chunk| {
                let s = scalar_from_bytes(chunk)?;
                if s.is_zero() {
                    return Err(BbsError::Degenerate);
                }
                Ok(s)
            })
            .collect::<Result<_, BbsError>>()?;
        Ok(Proof {
            abar,
            bbar,
            d,
            e_hat: scalars[0],
            r1_hat: scalars[1],
            r3_hat: scalars[2],
            m_hat: scalars[3..3 + u].to_vec(),
            challenge: scalars[3 + u],
        })
    }
}

/// The draft's mocked random scalars (its fixtures use them in place of randomness).
pub fn seeded_random_scalars(seed: &[u8], dst: &[u8], count: usize) -> Vec<Scalar> {
    use ark_ff::PrimeField;
    expand_message_xmd(seed, dst, 48 * count)
        .chunks(48)
        .map(Scalar::from_be_bytes_mod_order)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;

    fn signed(count: usize) -> (PublicKey, Signature, Vec<Scalar>) {
        let sk = SecretKey::random();
        let pk = sk.public_key();
        let messages: Vec<Scalar> = (0..count).map(|_| random_scalar()).collect();
        let sig = sign(&sk, &pk, b"h", &messages).expect("sign");
        (pk, sig, messages)
    }

    #[test]
    fn malformed_bytes_are_refused_without_panic() {
        assert!(matches!(
            Signature::from_bytes(&[0u8; 79]),
            Err(Error::Bbs(BbsError::Encoding(_)))
        ));
        assert!(Signature::from_bytes(&[0xffu8; 80]).is_err());
        for len in [0, 1, 48, 271, 273, 300] {
            assert!(Proof::from_bytes(&vec![0x5a; len]).is_err(), "{len} bytes");
        }
        let (pk, sig, messages) = signed(3);
        let proof = proof_gen(&pk, &sig, b"h", b"p", &messages, &[1]).expect("proof");
        let mut bytes = proof.to_bytes();
        assert_eq!(Proof::from_bytes(&bytes).ok(), Some(proof));
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        let tampered = Proof::from_bytes(&bytes).expect("still a proof");
        assert!(matches!(
            proof_verify(&pk, &tampered, b"h", b"p", &[(1, messages[1])]),
            Err(Error::Bbs(BbsError::InvalidProof))
        ));
        let too_many = vec![0x11; 3 * G1_LEN + (5 + MAX_MESSAGES) * SCALAR_LEN];
        assert!(matches!(
            Proof::from_bytes(&too_many),
            Err(Error::Bbs(BbsError::TooLarge))
        ));
    }

    #[test]
    fn sizes_and_indexes_are_bounded() {
        let (pk, sig, messages) = signed(2);
        let sk = SecretKey::random();
        let many = vec![Scalar::from(1u8); MAX_MESSAGES + 1];
        let bbs = |r: crate::Result<()>| match r {
            Err(Error::Bbs(e)) => Some(e),
            _ => None,
        };
        assert_eq!(
            bbs(sign(&sk, &pk, b"", &many).map(drop)),
            Some(BbsError::TooLarge)
        );
        let header = vec![0u8; MAX_HEADER_LEN + 1];
        assert_eq!(
            bbs(verify(&pk, &sig, &header, &messages)),
            Some(BbsError::TooLarge)
        );
        assert_eq!(
            bbs(proof_gen(&pk, &sig, b"h", b"", &messages, &[2]).map(drop)),
            Some(BbsError::InvalidIndex)
        );
        assert_eq!(
            bbs(proof_gen(&pk, &sig, b"h", b"", &messages, &[1, 0]).map(drop)),
            Some(BbsError::InvalidIndex)
        );
        assert_eq!(
            bbs(verify(&pk, &sig, b"h", &messages[..1])),
            Some(BbsError::InvalidSignature)
        );
    }

    #[test]
    fn external_responses_must_match_the_external_messages() {
        let (pk, sig, messages) = signed(2);
        let h1 = generators(2).expect("generators")[1];
        let prover = [
            ProverMessage::External {
                point: h1 * messages[0],
                commitment: h1 * Scalar::from(5u8),
            },
            ProverMessage::Disclosed(messages[1]),
        ];
        let init = ProofInit::new(&pk, &sig, b"h", &prover, &mut random_scalar).expect("init");
        let c = init.challenge(b"").expect("challenge");
        assert!(matches!(
            init.finalize(c, &[]),
            Err(Error::Bbs(BbsError::ExternalResponses))
        ));
        let init = ProofInit::new(&pk, &sig, b"h", &prover, &mut random_scalar).expect("init");
        let c = init.challenge(b"").expect("challenge");
        let extra = [
            (0, Scalar::from(5u8) + c * messages[0]),
            (1, Scalar::from(1u8)),
        ];
        assert!(matches!(
            init.finalize(c, &extra),
            Err(Error::Bbs(BbsError::ExternalResponses))
        ));
        let init = ProofInit::new(&pk, &sig, b"h", &prover, &mut random_scalar).expect("init");
        let c = init.challenge(b"").expect("challenge");
        let proof = init
            .finalize(c, &[(0, Scalar::from(5u8) + c * messages[0])])
            .expect("finalize");
        assert!(proof_verify(&pk, &proof, b"h", b"", &[(1, messages[1])]).is_ok());
    }
}
