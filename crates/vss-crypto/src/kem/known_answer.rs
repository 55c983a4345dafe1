//! The one door to fixed encapsulation randomness: known-answer tests only.

use zeroize::Zeroizing;

/// Fixed randomness for an encapsulation, so that a known-answer test can compare its
/// ciphertext and key with a reference: r for psec-kem (SeedLen octets), the scalar r for
/// ecies-kem, the ephemeral private key for ecies-1609. Encapsulation takes one only through
/// the `…_known_answer` functions ([`Kem::encapsulate_known_answer`](super::Kem)); every
/// other path draws fresh randomness.
pub struct KnownAnswerSeed(Zeroizing<Vec<u8>>);

impl KnownAnswerSeed {
    /// **Known-answer tests only, never in production.** `bytes` as the randomness of an
    /// encapsulation: a value that repeats or can be guessed gives away every key
    /// encapsulated with it.
    pub fn known_answer_test_only(bytes: &[u8]) -> Self {
        KnownAnswerSeed(Zeroizing::new(bytes.to_vec()))
    }

    /// The bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.0
    }
}

impl std::fmt::Debug for KnownAnswerSeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KnownAnswerSeed(..)")
    }
}
