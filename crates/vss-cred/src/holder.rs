//! The user's secret and its share of every proof. [`CardSecret`] is what runs on the card;
//! [`SecretHolder`] is how the user service reaches it (a card over APDUs, or in process).
//!
//! The card holds `sk`, the secret message of every credential, and never exports it. It
//! exports `P = base·sk` once, and for each proof answers a commitment `T = base·r` (with a
//! pseudonym `nym = H(scope)·sk` and `T_nym = H(scope)·r` when a scope is given) and then one
//! response `s = r + c·sk` to the challenge `c`. `r` is fresh per commitment, used for one
//! response only and erased after it.

use crate::group::{hash_to_curve_g1, random_scalar, Scalar, G1};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// The domain separation tag of the scope-exclusive pseudonym's base point.
pub const NYM_DST: &[u8] = b"VSS_CRED_NYM_BLS12381G1_XMD:SHA-256_SSWU_RO_";
/// The longest scope accepted, in bytes.
pub const MAX_SCOPE_LEN: usize = 255;

/// The base point of the pseudonyms of one scope: hash_to_curve(scope) with [`NYM_DST`].
pub fn scope_base(scope: &[u8]) -> G1 {
    hash_to_curve_g1(scope, NYM_DST)
}

/// A card's commitment for one proof.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CardCommitment {
    /// `T = base·r`, added to the prover's commitment for the secret message.
    pub t: G1,
    /// The pseudonym for the scope, when one was asked for.
    pub nym: Option<PseudonymCommitment>,
}

/// A scope-exclusive pseudonym and the card's commitment for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PseudonymCommitment {
    /// `nym = H(scope)·sk`: the same for the same card and scope.
    pub nym: G1,
    /// `T_nym = H(scope)·r`, with the same `r` as the secret message's commitment.
    pub t: G1,
}

/// Why the holder of the secret did not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HolderError {
    /// A response was asked for without a commitment waiting for it.
    #[error("no commitment is waiting for a response")]
    NoCommitment,
    /// The scope is longer than [`MAX_SCOPE_LEN`].
    #[error("scope is {0} bytes, at most {MAX_SCOPE_LEN} are allowed")]
    ScopeTooLong(usize),
    /// The PIN has not been verified in this session.
    #[error("the card's PIN has not been verified")]
    PinNotVerified,
    /// The PIN was wrong; this many tries are left.
    #[error("wrong PIN, {0} tries left")]
    WrongPin(u8),
    /// Card setup on a card that is already set up (erase it first, with the PUK).
    #[error("the card is already set up (erase it with the PUK first)")]
    AlreadySetUp,
    /// The card refused the PIN or PUK given to set it up as malformed (a length or a
    /// character it does not take): the caller's input, not the card, is at fault.
    #[error("the card refused the PIN or PUK as malformed (its length or characters)")]
    InvalidCode,
    /// The PIN (or the PUK) is blocked.
    #[error("the card's PIN is blocked")]
    Blocked,
    /// The card answered with a status word the holder does not expect.
    #[error("the card answered status word {0:04X}")]
    Card(u16),
    /// The card's answer is not what the command returns.
    #[error("the card's answer is malformed")]
    Malformed,
    /// The card could not be reached.
    #[error("the card could not be reached: {0}")]
    Transport(String),
}

/// What the user service asks of whoever holds the secret.
pub trait SecretHolder {
    /// `P = base·sk`, the card's public point for the secret message's generator.
    fn public_point(&mut self) -> Result<G1, HolderError>;
    /// A fresh commitment, with the pseudonym for `scope` when one is given.
    fn commit(&mut self, scope: Option<&[u8]>) -> Result<CardCommitment, HolderError>;
    /// The response `r + c·sk` to the last commitment, which is then forgotten.
    fn respond(&mut self, challenge: &Scalar) -> Result<Scalar, HolderError>;
}

/// APDUs exchanged with a card and their bytes, commands and responses both counted (as the
/// seed counts them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Command APDUs sent (each answered by one response).
    pub apdus: u64,
    /// Bytes of the commands and the responses.
    pub bytes: u64,
}

impl std::ops::Add for Traffic {
    type Output = Traffic;

    fn add(self, other: Traffic) -> Traffic {
        Traffic {
            apdus: self.apdus + other.apdus,
            bytes: self.bytes + other.bytes,
        }
    }
}

impl std::ops::Sub for Traffic {
    type Output = Traffic;

    fn sub(self, earlier: Traffic) -> Traffic {
        Traffic {
            apdus: self.apdus - earlier.apdus,
            bytes: self.bytes - earlier.bytes,
        }
    }
}

/// A card as the user service drives it: the secret's share of each proof, and the rest of
/// P2ABCE's smart-card interface (personalisation, PIN, storage of parameters and credentials).
pub trait Card: SecretHolder {
    /// Card setup: selects the application, sets the PIN and the PUK (the card generates its
    /// secret), verifies the PIN and stores the system parameters.
    fn setup(
        &mut self,
        pin: &str,
        puk: &str,
        system: &crate::spec::SystemParameters,
    ) -> Result<(), HolderError>;
    /// Selects the application and returns the card to its factory state, with the PUK.
    fn erase(&mut self, puk: &str) -> Result<(), HolderError>;
    /// Selects the application and verifies the PIN for this session.
    fn verify_pin(&mut self, pin: &str) -> Result<(), HolderError>;
    /// Stores a credential in a slot (an empty one deletes it).
    fn store_credential(&mut self, slot: u8, bytes: &[u8]) -> Result<(), HolderError>;
    /// The credential in a slot, if any.
    fn load_credential(&mut self, slot: u8) -> Result<Option<Vec<u8>>, HolderError>;
    /// The card process's peak resident memory in kB.
    fn peak_rss_kb(&mut self) -> Result<u32, HolderError>;
    /// The traffic so far.
    fn traffic(&self) -> Traffic;
}

/// The secret and the commitment waiting for its response: the card's arithmetic.
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct CardSecret {
    sk: Scalar,
    pending: Option<Scalar>,
}

impl CardSecret {
    /// A fresh secret from the operating system's generator.
    pub fn generate() -> Self {
        CardSecret {
            sk: random_scalar(),
            pending: None,
        }
    }

    /// The secret from its stored form (32 bytes, see [`CardSecret::to_bytes`]).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, crate::group::EncodingError> {
        Ok(CardSecret {
            sk: crate::group::scalar_from_bytes(bytes)?,
            pending: None,
        })
    }

    /// The secret's stored form; the caller zeroizes it after use.
    pub fn to_bytes(&self) -> zeroize::Zeroizing<[u8; 32]> {
        zeroize::Zeroizing::new(crate::group::scalar_to_bytes(&self.sk))
    }

    /// `P = base·sk`.
    pub fn public_point(&self, base: &G1) -> G1 {
        *base * self.sk
    }

    /// A commitment with a fresh `r`, replacing any commitment still waiting.
    pub fn commit(
        &mut self,
        base: &G1,
        scope: Option<&[u8]>,
    ) -> Result<CardCommitment, HolderError> {
        if let Some(scope) = scope {
            if scope.len() > MAX_SCOPE_LEN {
                return Err(HolderError::ScopeTooLong(scope.len()));
            }
        }
        let r = random_scalar();
        let nym = scope.map(|scope| {
            let h = scope_base(scope);
            PseudonymCommitment {
                nym: h * self.sk,
                t: h * r,
            }
        });
        self.pending = Some(r);
        Ok(CardCommitment { t: *base * r, nym })
    }

    /// `s = r + c·sk` for the waiting commitment, whose `r` is then erased.
    pub fn respond(&mut self, challenge: &Scalar) -> Result<Scalar, HolderError> {
        let mut r = self.pending.take().ok_or(HolderError::NoCommitment)?;
        let s = r + *challenge * self.sk;
        r.zeroize();
        Ok(s)
    }
}

/// The secret held in this process, with no card: the same arithmetic as the card's,
/// for tests and for callers that keep the secret themselves.
pub struct LocalHolder {
    secret: CardSecret,
    base: G1,
}

impl LocalHolder {
    /// A fresh secret for the generator `base` (the system parameters' `secret_base`).
    pub fn generate(base: G1) -> Self {
        LocalHolder {
            secret: CardSecret::generate(),
            base,
        }
    }
}

impl SecretHolder for LocalHolder {
    fn public_point(&mut self) -> Result<G1, HolderError> {
        Ok(self.secret.public_point(&self.base))
    }

    fn commit(&mut self, scope: Option<&[u8]>) -> Result<CardCommitment, HolderError> {
        self.secret.commit(&self.base, scope)
    }

    fn respond(&mut self, challenge: &Scalar) -> Result<Scalar, HolderError> {
        self.secret.respond(challenge)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group::hash_to_curve_g1;

    #[test]
    fn responses_satisfy_the_schnorr_equations_once_per_commitment() {
        let base = hash_to_curve_g1(b"base", b"TEST");
        let mut card = CardSecret::generate();
        let p = card.public_point(&base);
        let com = card.commit(&base, Some(b"scope")).expect("test value");
        let c = random_scalar();
        let s = card.respond(&c).expect("test value");
        assert_eq!(base * s, com.t + p * c);
        let nym = com.nym.expect("test value");
        assert_eq!(scope_base(b"scope") * s, nym.t + nym.nym * c);
        assert_eq!(card.respond(&c), Err(HolderError::NoCommitment));
    }

    #[test]
    fn pseudonyms_are_per_scope() {
        let base = hash_to_curve_g1(b"base", b"TEST");
        let mut card = CardSecret::generate();
        let a = card
            .commit(&base, Some(b"gate"))
            .expect("test value")
            .nym
            .expect("test value")
            .nym;
        let b = card
            .commit(&base, Some(b"gate"))
            .expect("test value")
            .nym
            .expect("test value")
            .nym;
        let other = card
            .commit(&base, Some(b"shop"))
            .expect("test value")
            .nym
            .expect("test value")
            .nym;
        assert_eq!(a, b);
        assert_ne!(a, other);
        let long = vec![0u8; MAX_SCOPE_LEN + 1];
        assert_eq!(
            card.commit(&base, Some(&long)),
            Err(HolderError::ScopeTooLong(256))
        );
        let restored = CardSecret::from_bytes(&card.to_bytes()[..]).expect("test value");
        assert_eq!(restored.public_point(&base), card.public_point(&base));
    }
}
