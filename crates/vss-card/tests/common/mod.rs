//! What the integration tests share: the `vss-card` process and the full flow of a proof's
//! card share through [`CardClient`].

use std::time::{Duration, Instant};
use vss_card::channel::CardChannel;
use vss_card::client::CardClient;
use vss_cred::group::{hash_to_curve_g1, random_scalar, G1};
use vss_cred::holder::{scope_base, HolderError, SecretHolder};

/// The test PIN.
pub const PIN: &[u8] = b"1234";
/// The test PUK.
pub const PUK: &[u8] = b"12345678";

/// The base point of the tests' system parameters.
pub fn base() -> G1 {
    hash_to_curve_g1(b"base", b"VSS-CARD-TEST")
}

/// Selects, initializes, verifies the PIN (after one wrong try), stores the system
/// parameters and checks two card shares (with and without a scope); returns `P`.
pub fn full_flow<C: CardChannel>(card: &mut CardClient<C>) -> G1 {
    card.select().expect("select");
    card.initialize(PIN, PUK).expect("initialize");
    assert_eq!(card.public_point(), Err(HolderError::PinNotVerified));
    assert_eq!(card.verify_pin(b"0000"), Err(HolderError::WrongPin(2)));
    card.verify_pin(PIN).expect("verify");
    card.store_system_parameters(&base())
        .expect("system parameters");
    let p = card.public_point().expect("public point");

    let com = card.commit(Some(b"gate")).expect("commit");
    let c = random_scalar();
    let s = card.respond(&c).expect("respond");
    assert_eq!(base() * s, com.t + p * c);
    let nym = com.nym.expect("pseudonym");
    assert_eq!(scope_base(b"gate") * s, nym.t + nym.nym * c);
    assert_eq!(card.respond(&c), Err(HolderError::NoCommitment));

    let com = card.commit(None).expect("commit");
    let s = card.respond(&c).expect("respond");
    assert_eq!(base() * s, com.t + p * c);
    assert!(com.nym.is_none());
    p
}

/// The mean time of one APDU round trip over `pairs` COMMIT and RESPOND pairs.
pub fn round_trip<C: CardChannel>(card: &mut CardClient<C>, pairs: u32) -> Duration {
    let c = random_scalar();
    let start = Instant::now();
    for _ in 0..pairs {
        card.commit(None).expect("commit");
        card.respond(&c).expect("respond");
    }
    start.elapsed() / (2 * pairs)
}
