//! Revocation: the authority keeps an accumulator of the revocation handles of live
//! credentials; a holder proves that the hidden handle of its credential is still in it.
//!
//! The accumulator is vb_accumulator's non-adaptive positive accumulator (the construction of
//! Vitto–Biryukov with the additions of Karantaidou–Baldimtsi: issuing a handle leaves the
//! accumulator value `V` unchanged, so live witnesses change only on revocation). The handle's
//! witness is the weak-BB signature `C = V·1/(y+α)` under the authority's key `α`; revoking
//! `y_r` sets `V' = V·1/(y_r+α)`, and every other holder updates its witness from the public
//! removal log alone, `C' = (C − V')·1/(y_r − y)`. The revoked holder cannot (the division is by
//! zero). Handles are random scalars chosen by the authority, the setting in which the
//! non-adaptive accumulator is secure.
//!
//! The membership proof is vb_accumulator's `proofs_cdh` protocol (Camenisch et al.'s proof of
//! knowledge of a weak-BB signature): the prover computes no pairing and needs no proving key,
//! the verifier computes one product of two pairings.

use super::{hex_serde, put_g1, put_g2, put_scalar, PredicateError, Reader};
use crate::group::{random_scalar, Scalar};
use ark_bls12_381::{Bls12_381, G1Affine};
use ark_ec::AffineRepr;
use schnorr_pok::discrete_log::PokPedersenCommitment;
use short_group_sig::weak_bb_sig_pok_cdh::PoKOfSignatureG1;
use std::collections::{BTreeSet, VecDeque};
use vb_accumulator::kb_positive_accumulator::non_adaptive_accumulator::NonAdaptivePositiveAccumulator;
use vb_accumulator::persistence::State;
use vb_accumulator::positive::Accumulator;
use vb_accumulator::proofs_cdh::{MembershipProof, MembershipProofProtocol};
use vb_accumulator::setup::{Keypair, PublicKey, SecretKey, SetupParams};
use vb_accumulator::witness::MembershipWitness as VbWitness;
use zeroize::Zeroizing;

/// The most live handles an authority holds (its state file is then about 32 MiB).
pub const MAX_MEMBERS: usize = 1 << 20;
/// The most removals the public log keeps; older entries are dropped, and a holder whose
/// witness is older than the oldest kept entry asks the authority for a fresh witness
/// ([`RevocationAuthority::refresh_witness`]).
pub const MAX_LOG_ENTRIES: usize = 16_384;
/// Label from which the accumulator's generators `P`, `P~` are hashed (nothing up the sleeve).
const PARAMS_LABEL: &[u8] = b"VSS-CRED-V1 revocation accumulator";
/// Prefix of the non-revocation statement in the transcript.
const TRANSCRIPT_TAG: &[u8] = b"VSS-CRED-V1 non-revocation";
/// Octets of an encoded [`RevocationInfo`].
const INFO_LEN: usize = 48 + 96 + 96 + 8 + 48;
/// Octets of an encoded [`RemovalEntry`].
const ENTRY_LEN: usize = 8 + 32 + 48;
/// Octets of an encoded [`MembershipWitness`].
const WITNESS_LEN: usize = 8 + 48;
/// Octets of an encoded [`NonRevocationProof`].
const PROOF_LEN: usize = 3 * 48 + 2 * 32;

/// The set of live handles, as vb_accumulator's state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Members(BTreeSet<Scalar>);

impl State<Scalar> for Members {
    fn add(&mut self, element: Scalar) {
        self.0.insert(element);
    }

    fn remove(&mut self, element: &Scalar) {
        self.0.remove(element);
    }

    fn has(&self, element: &Scalar) -> bool {
        self.0.contains(element)
    }

    fn size(&self) -> u64 {
        self.0.len() as u64
    }
}

/// One revocation, as published: the epoch it opened, the revoked handle and the accumulator
/// value after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemovalEntry {
    /// The epoch this removal opened (the first removal opens epoch 1).
    pub epoch: u64,
    /// The revoked handle.
    pub handle: Scalar,
    /// The accumulator value after the removal.
    pub accumulator: G1Affine,
}

impl RemovalEntry {
    /// Epoch (8 octets), handle (32), accumulator (48).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(ENTRY_LEN);
        out.extend_from_slice(&self.epoch.to_be_bytes());
        put_scalar(&mut out, &self.handle);
        put_g1(&mut out, &self.accumulator);
        out
    }

    /// Decodes [`Self::to_bytes`], refusing an identity accumulator.
    pub fn from_bytes(bytes: &[u8]) -> crate::Result<Self> {
        let mut r = Reader::new(bytes);
        let e = Self::read(&mut r)?;
        r.finish()?;
        Ok(e)
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, PredicateError> {
        Ok(Self {
            epoch: r.u64()?,
            handle: r.scalar()?,
            accumulator: r.g1_nonzero()?,
        })
    }
}
hex_serde!(RemovalEntry);

/// A holder's membership witness for its handle, valid for the accumulator of one epoch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MembershipWitness {
    epoch: u64,
    point: G1Affine,
}

impl MembershipWitness {
    /// The epoch whose accumulator this witness matches.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Epoch (8 octets), point (48).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(WITNESS_LEN);
        out.extend_from_slice(&self.epoch.to_be_bytes());
        put_g1(&mut out, &self.point);
        out
    }

    /// Decodes [`Self::to_bytes`], refusing the identity.
    pub fn from_bytes(bytes: &[u8]) -> crate::Result<Self> {
        let mut r = Reader::new(bytes);
        let w = Self {
            epoch: r.u64()?,
            point: r.g1_nonzero()?,
        };
        r.finish()?;
        Ok(w)
    }
}
hex_serde!(MembershipWitness);

/// What verifiers and holders need from the authority: the generators, its public key and
/// the current epoch with its accumulator value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RevocationInfo {
    params: SetupParams<Bls12_381>,
    public_key: PublicKey<Bls12_381>,
    /// The current epoch (the number of revocations so far).
    pub epoch: u64,
    /// The current accumulator value.
    pub accumulator: G1Affine,
}

impl RevocationInfo {
    /// `P` (48 octets), `P~` (96), public key (96), epoch (8), accumulator (48).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(INFO_LEN);
        put_g1(&mut out, &self.params.P);
        put_g2(&mut out, &self.params.P_tilde);
        put_g2(&mut out, &self.public_key.0);
        out.extend_from_slice(&self.epoch.to_be_bytes());
        put_g1(&mut out, &self.accumulator);
        out
    }

    /// Decodes [`Self::to_bytes`]: every point in its subgroup and none the identity.
    pub fn from_bytes(bytes: &[u8]) -> crate::Result<Self> {
        let mut r = Reader::new(bytes);
        let info = Self::read(&mut r)?;
        r.finish()?;
        Ok(info)
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, PredicateError> {
        Ok(Self {
            params: SetupParams {
                P: r.g1_nonzero()?,
                P_tilde: r.g2()?,
            },
            public_key: PublicKey(r.g2()?),
            epoch: r.u64()?,
            accumulator: r.g1_nonzero()?,
        })
    }

    fn write_state(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_bytes());
    }
}
hex_serde!(RevocationInfo);

/// What the revocation authority keeps beside its key: the public state, the live handles
/// and the public removal log. Nothing in it is secret (the handles are hidden from
/// verifiers by the proofs, not by this state), so it can be kept in a plain file and read
/// without the key, by holders that update their witnesses from the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RevocationState {
    info: RevocationInfo,
    members: Members,
    log: VecDeque<RemovalEntry>,
}

impl RevocationState {
    /// The public state for verifiers and holders.
    pub fn public(&self) -> RevocationInfo {
        self.info.clone()
    }

    /// The logged removals after `epoch`, oldest first; [`PredicateError::LogGap`] when some
    /// of them were already dropped from the bounded log.
    pub fn removals_since(&self, epoch: u64) -> crate::Result<Vec<RemovalEntry>> {
        let oldest = self.log.front().map_or(self.info.epoch + 1, |e| e.epoch);
        if epoch + 1 < oldest && epoch < self.info.epoch {
            return Err(PredicateError::LogGap(epoch).into());
        }
        Ok(self
            .log
            .iter()
            .filter(|e| e.epoch > epoch)
            .cloned()
            .collect())
    }

    /// [`RevocationInfo`], member count (4) and members (32 each), log count (4) and entries.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            INFO_LEN + 8 + 32 * self.members.0.len() + ENTRY_LEN * self.log.len(),
        );
        self.info.write_state(&mut out);
        out.extend_from_slice(&(self.members.0.len() as u32).to_be_bytes());
        for m in &self.members.0 {
            put_scalar(&mut out, m);
        }
        out.extend_from_slice(&(self.log.len() as u32).to_be_bytes());
        for e in &self.log {
            out.extend_from_slice(&e.to_bytes());
        }
        out
    }

    /// Decodes [`Self::to_bytes`], checking the counts against [`MAX_MEMBERS`] and
    /// [`MAX_LOG_ENTRIES`], and that the log ends at the current epoch.
    pub fn from_bytes(bytes: &[u8]) -> crate::Result<Self> {
        let mut r = Reader::new(bytes);
        let info = RevocationInfo::read(&mut r)?;
        let n = r.count("live handles", MAX_MEMBERS)?;
        let mut members = Members::default();
        for _ in 0..n {
            if !members.0.insert(r.scalar()?) {
                return Err(PredicateError::Malformed("repeated handle").into());
            }
        }
        let n = r.count("log entries", MAX_LOG_ENTRIES)?;
        let mut log = VecDeque::with_capacity(n);
        for _ in 0..n {
            let e = RemovalEntry::read(&mut r)?;
            if log
                .back()
                .is_some_and(|p: &RemovalEntry| p.epoch + 1 != e.epoch)
            {
                return Err(PredicateError::Malformed("log epochs not consecutive").into());
            }
            log.push_back(e);
        }
        if let Some(last) = log.back() {
            if last.epoch != info.epoch || last.accumulator != info.accumulator {
                return Err(
                    PredicateError::Malformed("log does not end at the current epoch").into(),
                );
            }
        }
        r.finish()?;
        Ok(Self { info, members, log })
    }
}
hex_serde!(RevocationState);

/// The revocation authority: its key `α` and its [`RevocationState`].
pub struct RevocationAuthority {
    /// The accumulator secret `α` (vb_accumulator zeroizes it on drop).
    secret: SecretKey<Scalar>,
    state: RevocationState,
}

impl RevocationAuthority {
    /// A fresh authority with a random key, a random initial accumulator and no members.
    pub fn new() -> Self {
        let mut rng = rand::rngs::OsRng;
        let params = SetupParams::<Bls12_381>::new::<sha2::Sha256>(PARAMS_LABEL);
        let keypair = Keypair::<Bls12_381>::generate_using_rng(&mut rng, &params);
        let accumulator = NonAdaptivePositiveAccumulator::<G1Affine>::initialize(&mut rng, &params);
        Self {
            secret: keypair.secret_key.clone(),
            state: RevocationState {
                info: RevocationInfo {
                    params,
                    public_key: keypair.public_key.clone(),
                    epoch: 0,
                    accumulator: accumulator.0,
                },
                members: Members::default(),
                log: VecDeque::new(),
            },
        }
    }

    fn accumulator(&self) -> NonAdaptivePositiveAccumulator<G1Affine> {
        NonAdaptivePositiveAccumulator(self.state.info.accumulator)
    }

    fn witness_now(&self, handle: &Scalar) -> MembershipWitness {
        MembershipWitness {
            epoch: self.state.info.epoch,
            point: self
                .accumulator()
                .compute_membership_witness(handle, &self.secret)
                .0,
        }
    }

    /// Issues a new random handle, adds it to the live set and returns it with its witness for
    /// the current epoch. Fails when [`MAX_MEMBERS`] handles are live.
    pub fn issue_handle(&mut self) -> crate::Result<(Scalar, MembershipWitness)> {
        if self.state.members.0.len() >= MAX_MEMBERS {
            return Err(PredicateError::TooLarge {
                what: "live handles",
                max: MAX_MEMBERS,
            }
            .into());
        }
        let handle = loop {
            let h = random_scalar();
            // A handle equal to −α would have no witness; a repeat would be one member.
            if h + self.secret.0 != Scalar::from(0u8) && !self.state.members.has(&h) {
                break h;
            }
        };
        self.accumulator()
            .add(handle, &mut self.state.members)
            .map_err(|_| PredicateError::Malformed("handle already live"))?;
        let witness = self.witness_now(&handle);
        Ok((handle, witness))
    }

    /// A witness for the current epoch for a live handle (for a holder whose witness is older
    /// than the kept log).
    pub fn refresh_witness(&self, handle: &Scalar) -> crate::Result<MembershipWitness> {
        if !self.state.members.has(handle) {
            return Err(PredicateError::UnknownHandle.into());
        }
        Ok(self.witness_now(handle))
    }

    /// Revokes a live handle: the accumulator moves to the next epoch and the removal is
    /// logged (the oldest entry is dropped past [`MAX_LOG_ENTRIES`]). A handle never issued or
    /// already revoked is [`PredicateError::UnknownHandle`].
    pub fn revoke(&mut self, handle: &Scalar) -> crate::Result<&RemovalEntry> {
        let next = self
            .accumulator()
            .remove(handle, &self.secret, &mut self.state.members)
            .map_err(|_| PredicateError::UnknownHandle)?;
        self.state.info.epoch += 1;
        self.state.info.accumulator = next.0;
        if self.state.log.len() == MAX_LOG_ENTRIES {
            self.state.log.pop_front();
        }
        self.state.log.push_back(RemovalEntry {
            epoch: self.state.info.epoch,
            handle: *handle,
            accumulator: next.0,
        });
        self.state
            .log
            .back()
            .ok_or(PredicateError::Malformed("empty log").into())
    }

    /// The public state for verifiers and holders.
    pub fn public(&self) -> RevocationInfo {
        self.state.public()
    }

    /// The logged removals after `epoch` (see [`RevocationState::removals_since`]).
    pub fn removals_since(&self, epoch: u64) -> crate::Result<Vec<RemovalEntry>> {
        self.state.removals_since(epoch)
    }

    /// Everything but the key, for a file of its own.
    pub fn state(&self) -> &RevocationState {
        &self.state
    }

    /// The key `α`, 32 octets, for the authority's key store.
    pub fn secret_to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut out = Zeroizing::new(Vec::with_capacity(32));
        put_scalar(&mut out, &self.secret.0);
        out
    }

    /// The authority of the key [`Self::secret_to_bytes`] gave and the state, refused when
    /// the key does not match the state's public key.
    pub fn from_parts(secret: &[u8], state: RevocationState) -> crate::Result<Self> {
        let mut r = Reader::new(secret);
        let secret = SecretKey(r.scalar()?);
        r.finish()?;
        if PublicKey::new_from_secret_key(&secret, &state.info.params) != state.info.public_key {
            return Err(PredicateError::Malformed("secret key does not match public key").into());
        }
        Ok(Self { secret, state })
    }
}

impl Default for RevocationAuthority {
    fn default() -> Self {
        Self::new()
    }
}

/// Brings a holder's witness up to date from the public removal log (entries after the
/// witness's epoch, oldest first; earlier entries are skipped). No secret is needed.
/// [`PredicateError::Revoked`] if the handle itself was removed, [`PredicateError::LogGap`]
/// if the entries do not continue from the witness's epoch.
pub fn update_witness(
    witness: &MembershipWitness,
    handle: &Scalar,
    entries: &[RemovalEntry],
) -> crate::Result<MembershipWitness> {
    let mut w = witness.clone();
    for e in entries.iter().filter(|e| e.epoch > witness.epoch) {
        if e.epoch != w.epoch + 1 {
            return Err(PredicateError::LogGap(w.epoch).into());
        }
        if e.handle == *handle {
            return Err(PredicateError::Revoked.into());
        }
        let next = VbWitness(w.point)
            .update_after_removal(handle, &e.handle, &e.accumulator)
            .map_err(|_| PredicateError::Revoked)?;
        w = MembershipWitness {
            epoch: e.epoch,
            point: next.0,
        };
    }
    Ok(w)
}

/// Appends the non-revocation statement and commitments.
fn transcript(
    out: &mut Vec<u8>,
    info: &RevocationInfo,
    a_prime: &G1Affine,
    a_bar: &G1Affine,
    t: &G1Affine,
) {
    out.extend_from_slice(TRANSCRIPT_TAG);
    info.write_state(out);
    put_g1(out, a_prime);
    put_g1(out, a_bar);
    put_g1(out, t);
}

/// The prover's side of the proof that a hidden handle is in the current accumulator.
pub struct NonRevocationProtocol {
    /// vb_accumulator's protocol (zeroizes its randomness and witness on drop).
    inner: MembershipProofProtocol<Bls12_381>,
    info: RevocationInfo,
}

impl NonRevocationProtocol {
    /// Starts the proof for `handle` with `witness` against `info`'s accumulator, with the
    /// BBS proof's blinding `handle_blinding` for the handle attribute.
    /// [`PredicateError::StaleWitness`] if the witness is for another epoch.
    pub fn init(
        info: &RevocationInfo,
        handle: Scalar,
        witness: &MembershipWitness,
        handle_blinding: Scalar,
    ) -> crate::Result<Self> {
        if witness.epoch != info.epoch {
            return Err(PredicateError::StaleWitness {
                witness: witness.epoch,
                accumulator: info.epoch,
            }
            .into());
        }
        let inner = MembershipProofProtocol::init(
            &mut rand::rngs::OsRng,
            handle,
            Some(handle_blinding),
            &info.accumulator,
            &VbWitness(witness.point),
        );
        Ok(Self {
            inner,
            info: info.clone(),
        })
    }

    /// Appends the statement (tag, [`RevocationInfo`]) and the commitments `A'`, `A¯`, `T`.
    pub fn challenge_bytes(&self, out: &mut Vec<u8>) {
        let p = &self.inner.0;
        transcript(out, &self.info, &p.A_prime, &p.A_bar, &p.sc.t);
    }

    /// The responses to `challenge`.
    pub fn gen_proof(self, challenge: &Scalar) -> NonRevocationProof {
        // The protocol zeroizes on drop, so its state is cloned out (both copies are wiped).
        let p = self.inner.0.clone().gen_proof(challenge);
        let (t, resp_randomizer, resp_handle) = match p.sc {
            Some(sc) => (sc.t, sc.response1, sc.response2),
            None => (G1Affine::zero(), Scalar::from(0u8), Scalar::from(0u8)),
        };
        NonRevocationProof {
            a_prime: p.A_prime,
            a_bar: p.A_bar,
            t,
            resp_randomizer,
            resp_handle,
        }
    }
}

/// A proof that a hidden handle is in the accumulator of a [`RevocationInfo`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NonRevocationProof {
    a_prime: G1Affine,
    a_bar: G1Affine,
    t: G1Affine,
    resp_randomizer: Scalar,
    resp_handle: Scalar,
}

impl NonRevocationProof {
    /// Appends what [`NonRevocationProtocol::challenge_bytes`] appended.
    pub fn challenge_bytes(&self, info: &RevocationInfo, out: &mut Vec<u8>) -> crate::Result<()> {
        transcript(out, info, &self.a_prime, &self.a_bar, &self.t);
        Ok(())
    }

    /// Checks the proof against `info`'s current accumulator (one product of two pairings).
    pub fn verify(&self, challenge: &Scalar, info: &RevocationInfo) -> crate::Result<()> {
        let proof = MembershipProof(PoKOfSignatureG1::<Bls12_381> {
            A_prime: self.a_prime,
            A_bar: self.a_bar,
            sc: Some(PokPedersenCommitment {
                t: self.t,
                response1: self.resp_randomizer,
                response2: self.resp_handle,
            }),
            sc_partial: None,
        });
        proof
            .verify(
                &info.accumulator,
                challenge,
                info.public_key.clone(),
                info.params.clone(),
            )
            .map_err(|_| PredicateError::InvalidProof("non-revocation").into())
    }

    /// The handle's response `y^ = y~ + c·y`, to compare with the BBS proof's.
    pub fn value_response(&self) -> Scalar {
        self.resp_handle
    }

    /// `A'`, `A¯`, `T` (48 octets each), the randomizer's and the handle's responses (32 each).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(PROOF_LEN);
        put_g1(&mut out, &self.a_prime);
        put_g1(&mut out, &self.a_bar);
        put_g1(&mut out, &self.t);
        put_scalar(&mut out, &self.resp_randomizer);
        put_scalar(&mut out, &self.resp_handle);
        out
    }

    /// Decodes [`Self::to_bytes`]; `A'` must not be the identity.
    pub fn from_bytes(bytes: &[u8]) -> crate::Result<Self> {
        let mut r = Reader::new(bytes);
        let p = Self {
            a_prime: r.g1_nonzero()?,
            a_bar: r.g1()?,
            t: r.g1()?,
            resp_randomizer: r.scalar()?,
            resp_handle: r.scalar()?,
        };
        r.finish()?;
        Ok(p)
    }
}
hex_serde!(NonRevocationProof);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group::hash_to_scalar;
    use crate::predicates::own;

    fn challenge(bytes: &[u8]) -> Scalar {
        hash_to_scalar(bytes, b"VSS-CRED-TEST-CHALLENGE")
    }

    /// Proves membership with a fixed blinding and returns the proof and challenge.
    fn prove(
        info: &RevocationInfo,
        handle: Scalar,
        w: &MembershipWitness,
        blinding: Scalar,
    ) -> (NonRevocationProof, Scalar) {
        let proto = NonRevocationProtocol::init(info, handle, w, blinding).expect("init");
        let mut t = Vec::new();
        proto.challenge_bytes(&mut t);
        let c = challenge(&t);
        (proto.gen_proof(&c), c)
    }

    fn check(info: &RevocationInfo, proof: &NonRevocationProof) -> Result<(), PredicateError> {
        let mut t = Vec::new();
        own(proof.challenge_bytes(info, &mut t))?;
        own(proof.verify(&challenge(&t), info))
    }

    #[test]
    fn completeness_and_linked_response() {
        let mut ra = RevocationAuthority::new();
        let (h, w) = ra.issue_handle().expect("issue");
        let info = ra.public();
        let blinding = Scalar::from(1234567u64);
        let (proof, c) = prove(&info, h, &w, blinding);
        assert_eq!(check(&info, &proof), Ok(()));
        assert_eq!(proof.value_response(), blinding + c * h);
        let back = NonRevocationProof::from_bytes(&proof.to_bytes()).expect("decode");
        assert_eq!(back, proof);
        assert_eq!(proof.to_bytes().len(), PROOF_LEN);
    }

    #[test]
    fn wrong_handle_or_tampered_proof_fails() {
        let mut ra = RevocationAuthority::new();
        let (h, w) = ra.issue_handle().expect("issue");
        let info = ra.public();
        let (proof, _) = prove(&info, h + Scalar::from(1u8), &w, random_scalar());
        assert!(check(&info, &proof).is_err());
        let (proof, _) = prove(&info, h, &w, random_scalar());
        let bytes = proof.to_bytes();
        for i in [0, 60, 100, 150, 180, PROOF_LEN - 1] {
            let mut bad = bytes.clone();
            bad[i] ^= 0x01;
            if let Ok(p) = NonRevocationProof::from_bytes(&bad) {
                assert!(check(&info, &p).is_err(), "flip at {i}");
            }
        }
    }

    #[test]
    fn revoked_handle_fails_and_cannot_update() {
        let mut ra = RevocationAuthority::new();
        let (h1, w1) = ra.issue_handle().expect("issue");
        let (h2, w2) = ra.issue_handle().expect("issue");
        let entry = ra.revoke(&h1).expect("revoke").clone();
        assert_eq!(
            own(ra.revoke(&h1)).err(),
            Some(PredicateError::UnknownHandle)
        );
        assert_eq!(
            own(ra.revoke(&random_scalar())).err(),
            Some(PredicateError::UnknownHandle)
        );
        let info = ra.public();
        assert_eq!(info.epoch, 1);
        // The revoked holder's old witness, even relabelled with the current epoch, fails.
        let stale = MembershipWitness {
            epoch: info.epoch,
            point: w1.point,
        };
        let (proof, _) = prove(&info, h1, &stale, random_scalar());
        assert!(check(&info, &proof).is_err());
        assert!(matches!(
            own(NonRevocationProtocol::init(&info, h1, &w1, random_scalar())),
            Err(PredicateError::StaleWitness { .. })
        ));
        assert_eq!(
            own(update_witness(&w1, &h1, std::slice::from_ref(&entry))),
            Err(PredicateError::Revoked)
        );
        // A live holder's stale witness also fails until updated.
        let stale2 = MembershipWitness {
            epoch: info.epoch,
            point: w2.point,
        };
        let (proof, _) = prove(&info, h2, &stale2, random_scalar());
        assert!(check(&info, &proof).is_err());
        let w2 = update_witness(&w2, &h2, &[entry]).expect("update");
        let (proof, _) = prove(&info, h2, &w2, random_scalar());
        assert_eq!(check(&info, &proof), Ok(()));
    }

    #[test]
    fn witness_update_over_several_removals() {
        let mut ra = RevocationAuthority::new();
        let (h, w) = ra.issue_handle().expect("issue");
        let mut others = Vec::new();
        for _ in 0..5 {
            others.push(ra.issue_handle().expect("issue").0);
        }
        let (late, late_w) = ra.issue_handle().expect("issue");
        for o in &others {
            ra.revoke(o).expect("revoke");
        }
        let log = ra.removals_since(w.epoch).expect("log");
        assert_eq!(log.len(), 5);
        let w = update_witness(&w, &h, &log).expect("update");
        assert_eq!(w.epoch, 5);
        assert_eq!(w, ra.refresh_witness(&h).expect("refresh"));
        let info = ra.public();
        let (proof, _) = prove(&info, h, &w, random_scalar());
        assert_eq!(check(&info, &proof), Ok(()));
        // Gaps are refused; the late handle's witness updates the same way.
        assert_eq!(
            own(update_witness(&late_w, &late, &log[1..])),
            Err(PredicateError::LogGap(0))
        );
        let late_w = update_witness(&late_w, &late, &log).expect("update");
        assert_eq!(late_w, ra.refresh_witness(&late).expect("refresh"));
    }

    #[test]
    fn state_round_trips_and_garbage_is_refused() {
        let mut ra = RevocationAuthority::new();
        let (h, _) = ra.issue_handle().expect("issue");
        let (h2, _) = ra.issue_handle().expect("issue");
        ra.revoke(&h2).expect("revoke");
        let bytes = ra.state().to_bytes();
        let state = RevocationState::from_bytes(&bytes).expect("decode");
        assert_eq!(state.to_bytes(), bytes);
        let back = RevocationAuthority::from_parts(&ra.secret_to_bytes(), state.clone())
            .expect("key and state");
        assert_eq!(back.public(), ra.public());
        let other = RevocationAuthority::new();
        assert!(RevocationAuthority::from_parts(&other.secret_to_bytes(), state.clone()).is_err());
        assert!(RevocationAuthority::from_parts(&[0u8; 31], state).is_err());
        assert!(back.refresh_witness(&h).is_ok());
        let json = serde_json::to_string(&ra.public()).expect("json");
        let info: RevocationInfo = serde_json::from_str(&json).expect("from json");
        assert_eq!(info, ra.public());
        for n in 0..bytes.len().min(400) {
            assert!(RevocationState::from_bytes(&bytes[..n]).is_err());
        }
        assert!(RevocationState::from_bytes(&[0xff; 600]).is_err());
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(
            own(RevocationState::from_bytes(&longer)).err(),
            Some(PredicateError::TrailingBytes)
        );
        let info_bytes = ra.public().to_bytes();
        for n in 0..info_bytes.len() {
            assert!(RevocationInfo::from_bytes(&info_bytes[..n]).is_err());
        }
        assert!(NonRevocationProof::from_bytes(&[0u8; PROOF_LEN]).is_err());
        assert!(NonRevocationProof::from_bytes(&[0xab; 17]).is_err());
        assert!(MembershipWitness::from_bytes(&[1u8; WITNESS_LEN]).is_err());
        let mut huge = ra.public().to_bytes();
        huge.extend_from_slice(&u32::MAX.to_be_bytes());
        assert!(matches!(
            own(RevocationState::from_bytes(&huge)),
            Err(PredicateError::TooLarge { .. }) | Err(PredicateError::Malformed(_))
        ));
    }
}
