//! The GeoNetworking bridge on FlexStack's packets (tests/vectors/gn, made by an
//! independent ETSI stack): what the stack sends goes out secured under the pseudonym's
//! identity and verifies, on the receiving bridge and under a validator of its own; the
//! receiving bridge gives its stack the original packet back; tampered, replayed,
//! unsecured, mislabelled and own packets are dropped and announced on the events socket.

mod common;

use common::gn::*;
use vss_core::gn_bridge::{frame, profile, pseudonym_mac, Frame, Mac, Refusal};
use vss_gn::{Body, GnPacket, Limits};
use vss_its::{Psid, SignedMessage, TrustAnchors, Validator, Verdict};

#[test]
fn a_cam_goes_out_secured_verifies_twice_and_comes_back_as_it_was() {
    let s = setup(false);
    let cam = vector("shb_cam");
    let out = s.a.to_radio(&from_stack(&cam)).expect("signed");
    let (mac, data) = secured(&out);
    let signer = s.a.entity().pseudonyms().current().expect("a pseudonym");
    assert_eq!(
        mac,
        pseudonym_mac(signer),
        "the radio-side MAC is the pseudonym's"
    );
    assert_eq!(signed_source(&data), mac, "and so is the signed SO MID");
    let message = SignedMessage::from_bytes(&data).expect("signed data");
    assert_eq!(message.psid(), Some(Psid::CAM));
    assert_eq!(
        message.signer_digest(),
        None,
        "the first CAM carries the certificate"
    );

    // An independent validator, from the root and the AA alone.
    let mut anchors = TrustAnchors::new();
    anchors.add(s.station.aa.root.clone()).expect("root");
    let mut validator = Validator::new(anchors, 16);
    let now = vss_core::pseudonym::Clock::now(s.station.clock.as_ref());
    let aa = validator.verify_certificate(&s.station.aa.cert, &[], now);
    assert_eq!(aa.verdict, Verdict::Valid);
    let report = validator.verify_data(&data, &[], now);
    assert_eq!(report.verdict, Verdict::Valid, "{}", report.reason);

    let delivered = s.b.to_stack(&[&out]);
    let delivered = delivered[0].as_ref().expect("valid, delivered");
    let parsed = Frame::parse(delivered).expect("a GN frame");
    assert_eq!(parsed.source, STACK_SIDE_B, "never the stack's own MAC");
    assert_eq!(parsed.destination, Mac::BROADCAST);
    let mut expected = cam.clone();
    expected[SO_MID].copy_from_slice(&mac.0);
    assert_eq!(
        parsed.packet, expected,
        "the original, but for the rewritten source"
    );
    assert_ne!(expected, cam);
}

#[test]
fn tampered_replayed_unsecured_and_mislabelled_packets_are_dropped_and_announced() {
    let s = setup(false);
    let mut events = listen(&s.events);
    let cam = vector("shb_cam");
    let out = s.a.to_radio(&from_stack(&cam)).expect("signed");
    let signer = s.a.entity().pseudonyms().current().expect("a pseudonym");

    // A CAM byte changed in flight.
    let tail = &cam[cam.len() - 8..];
    let at = out
        .windows(tail.len())
        .position(|w| w == tail)
        .expect("the CAM in the signed data");
    let mut tampered = out.clone();
    tampered[at] ^= 0x01;
    let results = s.b.to_stack(&[&tampered, &out, &out, &from_stack(&cam)]);
    let names: Vec<&str> = results
        .iter()
        .map(|r| r.as_ref().map_or_else(Refusal::name, |_| "passed"))
        .collect();
    assert_eq!(
        names,
        ["FalseSignature", "passed", "DuplicateMessage", "Unsecured"]
    );
    let dropped = next_event(&mut events);
    assert_eq!(dropped["event"], "dropped");
    assert_eq!(dropped["report"], "FalseSignature");
    assert_eq!(dropped["code"], 2);
    assert_eq!(dropped["its_aid"], 36);
    assert_eq!(dropped["signer"], signer.to_string());
    let source = dropped["source"].as_str().expect("source");
    let mac = pseudonym_mac(signer);
    assert!(source.starts_with(&format!("gn:{mac}/")), "{source}");
    let replayed = next_event(&mut events);
    assert_eq!(
        (replayed["report"].as_str(), replayed["code"].as_u64()),
        (Some("DuplicateMessage"), Some(13))
    );
    let unsecured = next_event(&mut events);
    assert_eq!(unsecured["report"], "Unsecured");
    assert_eq!(unsecured["code"], 0);
    assert_eq!(unsecured["its_aid"], 36);
    assert_eq!(unsecured["source"], "gn:02:a1:b2:c3:d4:e5/140002A1B2C3D4E5");

    // A's own packet back at A.
    assert!(matches!(s.a.to_stack(&[&out])[0], Err(Refusal::OwnPacket)));

    // A DENM's packet signed as a CAM: the BTP port says ITS-AID 37.
    let denm = vector("gbc_denm");
    let body = &denm[4..];
    let signed =
        s.a.entity()
            .create_signature(Psid::CAM, body)
            .expect("sign");
    let mut packet = denm[..4].to_vec();
    packet[0] = (packet[0] & 0xf0) | 2;
    packet.extend_from_slice(&signed.bytes);
    let mislabelled = frame(Mac::BROADCAST, pseudonym_mac(signed.signer), &packet);
    match &s.b.to_stack(&[&mislabelled])[0] {
        Err(Refusal::WrongItsAid { port: 37, signed }) => assert_eq!(*signed, Psid::CAM),
        other => panic!("{other:?}"),
    }
    let wrong = next_event(&mut events);
    assert_eq!(wrong["report"], "InsufficientPermissions");
    assert_eq!(wrong["its_aid"], 36);

    // Not GeoNetworking, or no packet at all.
    let mut ipv6 = from_stack(&cam);
    ipv6[12..14].copy_from_slice(&[0x86, 0xdd]);
    assert!(matches!(
        s.b.to_stack(&[&ipv6])[0],
        Err(Refusal::NotGeoNetworking)
    ));
    // A secured packet cut short: the GN headers hold, the signed data does not.
    let short = &out[..20];
    match &s.b.to_stack(&[short])[0] {
        Err(Refusal::Invalid(Verdict::Malformed)) => {}
        other => panic!("{other:?}"),
    }
    // A Basic Header alone.
    let bare = &out[..16];
    assert!(matches!(
        s.b.to_stack(&[bare])[0],
        Err(Refusal::Malformed(_))
    ));
    for report in ["NotGeoNetworking", "Malformed", "Malformed"] {
        assert_eq!(next_event(&mut events)["report"], report);
    }
}

#[test]
fn unsecured_packets_cross_only_when_allowed() {
    let s = setup(true);
    let cam = vector("shb_cam");
    let delivered = s.b.to_stack(&[&from_stack(&cam)]);
    let parsed = Frame::parse(delivered[0].as_ref().expect("allowed")).expect("frame");
    assert_eq!((parsed.source, parsed.packet), (STACK_SIDE_B, &cam[..]));
}

#[test]
fn the_stack_side_refuses_what_it_cannot_sign_as_the_stack() {
    let s = setup(false);
    let cam = vector("shb_cam");
    // A packet the stack forwards for another station: its SO is not the sender's MAC.
    let forwarded = frame(Mac::BROADCAST, Mac([2, 9, 9, 9, 9, 9]), &cam);
    assert!(matches!(s.a.to_radio(&forwarded), Err(Refusal::Forwarded)));
    // The tickets permit CAMs only: a DENM (ITS-AID 37) and a CPM (639) are not signed.
    for name in ["gbc_denm", "gac_rect"] {
        let refused = s.a.to_radio(&from_stack(&vector(name)));
        assert!(
            matches!(
                refused,
                Err(Refusal::SignFailed(vss_core::Error::PsidNotPermitted(_)))
            ),
            "{name}: {refused:?}"
        );
    }
    // FlexStack's beacon sets a reserved flag, refused unless the limits allow it.
    let beacon = s.a.to_radio(&from_stack(&vector("beacon")));
    assert!(matches!(beacon, Err(Refusal::Malformed(_))), "{beacon:?}");
    let out =
        s.a.to_radio(&from_stack(&vector("shb_cam")))
            .expect("signed");
    assert!(matches!(s.a.to_radio(&out), Err(Refusal::Secured)));

    // The DENM profile: the certificate, and the source position as generation location.
    let denm = GnPacket::decode(&vector("gbc_denm"), &Limits::default()).expect("DENM");
    let Body::Unsecured(body) = denm.body else {
        panic!("unsecured")
    };
    let options = profile(Psid::DENM, &body);
    assert!(options.with_certificate);
    let location = options.generation_location.expect("a location");
    assert_eq!(*location.latitude.0, 413_872_340);
    assert_eq!(location.longitude.0 .0, 21_158_950);
    let cam_options = profile(Psid::CAM, &body);
    assert!(!cam_options.with_certificate && cam_options.generation_location.is_none());
}
