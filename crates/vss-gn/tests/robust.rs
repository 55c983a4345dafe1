//! No input panics the decoder, and whatever it accepts re-encodes to the same bytes (so
//! nothing it keeps is lost or normalised on the way through the bridge).

use proptest::prelude::*;
use vss_gn::{Body, GnPacket, Limits, Unsecured};

/// A valid SHB with a CAM's BTP-B header, from the FlexStack vectors.
const SHB: &str =
    "110005012050028000040100140002a1b2c3d4e5f595c78818ab30d40142dc26856d0a910000000007d10000";

fn check(bytes: &[u8], limits: &Limits) {
    if let Ok(packet) = GnPacket::decode(bytes, limits) {
        assert_eq!(packet.encode().expect("an accepted packet encodes"), bytes);
        if let Body::Unsecured(body) = &packet.body {
            let tbs = body.encode().expect("encodes");
            assert_eq!(Unsecured::decode(&tbs, limits).as_ref(), Ok(body));
            let _ = body.its_aid();
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200), lenient: bool) {
        let limits = Limits { allow_reserved_flags: lenient, ..Limits::default() };
        check(&bytes, &limits);
    }

    #[test]
    fn mutations_of_a_valid_packet(edits in proptest::collection::vec((0usize..44, any::<u8>()), 1..4)) {
        let mut bytes = hex::decode(SHB).expect("hex");
        for (at, value) in edits {
            bytes[at] = value;
        }
        check(&bytes, &Limits::default());
    }
}

#[test]
fn the_mutated_packet_is_valid_to_start_with() {
    let bytes = hex::decode(SHB).expect("hex");
    let packet = GnPacket::decode(&bytes, &Limits::default()).expect("valid");
    let Body::Unsecured(body) = packet.body else {
        panic!("unsecured")
    };
    assert_eq!(body.its_aid(), Some(36));
}
