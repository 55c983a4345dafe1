//! The GeoNetworking bridge's identity and certificate rules (TS 103 097 §7.1.1): the
//! radio-side MAC and GN address change with the pseudonym in the same packet as its
//! signer; the certificate goes once a second, after a change, for a new neighbour and when
//! a neighbour asks; an unknown signer's certificate is asked for (inline P2PCD).

mod common;

use std::time::{Duration, Instant};

use common::gn::*;
use serde_json::Value;
use vss_core::gn_bridge::{pseudonym_mac, Bridge, Refusal};
use vss_its::{HashedId8, SignedMessage, Verdict};

#[test]
fn the_certificate_goes_once_a_second_and_the_identity_changes_with_the_pseudonym() {
    let s = setup(false);
    let mut events = listen(&s.events);
    // B announces on the socket: it signs here.
    let cam = from_stack(&vector("shb_cam"));
    let mut signers: Vec<(HashedId8, bool)> = Vec::new();
    for i in 0..12 {
        if i == 2 {
            s.station_b.clock.advance(Duration::from_millis(1_100));
        }
        let out = s.b.to_radio(&cam).expect("signed");
        let (mac, data) = secured(&out);
        let message = SignedMessage::from_bytes(&data).expect("signed");
        let signer = message.signer_id().expect("signer");
        assert_eq!(
            mac,
            pseudonym_mac(signer),
            "packet {i}: MAC and signer together"
        );
        assert_eq!(signed_source(&data), mac, "packet {i}: GN address too");
        signers.push((signer, message.signer_digest().is_none()));
    }
    let whole: Vec<bool> = signers.iter().map(|(_, whole)| *whole).collect();
    // 5 uses per pseudonym: changes before packets 6 and 11 carry the new certificate;
    // packet 3 carries it a second after the first.
    assert_eq!(
        whole,
        [true, false, true, false, false, true, false, false, false, false, true, false]
    );
    assert_eq!(signers[4].0, signers[0].0);
    assert_ne!(signers[5].0, signers[4].0);
    assert_eq!(s.b.id_changes(), 3, "the first choice and two changes");
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut announced = Vec::new();
    while announced.len() < 3 && Instant::now() < deadline {
        let event = next_event(&mut events);
        assert_eq!(event["event"], "id_change");
        announced.push((event["signer"].clone(), event["mac"].clone()));
    }
    let expected = [signers[0].0, signers[5].0, signers[10].0].map(|id| {
        (
            Value::from(id.to_string()),
            Value::from(pseudonym_mac(id).to_string()),
        )
    });
    assert_eq!(announced, expected);
}

#[test]
fn a_new_neighbour_has_the_next_cam_carry_the_certificate() {
    let s = setup(false);
    let cam = from_stack(&vector("shb_cam"));
    let whole = |bridge: &Bridge| {
        let (_, data) = secured(&bridge.to_radio(&cam).expect("signed"));
        SignedMessage::from_bytes(&data)
            .expect("signed")
            .signer_digest()
            .is_none()
    };
    assert!(whole(&s.b), "B's first CAM");
    assert!(!whole(&s.b), "then by digest");
    let from_a = s.a.to_radio(&cam).expect("signed");
    assert!(s.b.to_stack(&[&from_a])[0].is_ok());
    assert!(whole(&s.b), "A is new to B: the certificate");
    assert!(!whole(&s.b));
    // Generated later, or it is the same message again (a replay).
    s.station.clock.advance(Duration::from_millis(10));
    let again = s.a.to_radio(&cam).expect("signed");
    assert!(s.b.to_stack(&[&again])[0].is_ok());
    assert!(!whole(&s.b), "A is no longer new");
}

#[test]
fn an_unknown_signer_is_asked_for_and_its_next_cam_carries_the_certificate() {
    let s = setup(false);
    let mut events = listen(&s.events);
    let cam = from_stack(&vector("shb_cam"));
    let sign = |bridge: &Bridge, station: &common::Station| {
        station.clock.advance(Duration::from_millis(10));
        let out = bridge.to_radio(&cam).expect("signed");
        let message = SignedMessage::from_bytes(&secured(&out).1).expect("signed");
        (out, message)
    };
    // A hears B (and B is new to A); B never hears A's first CAM, which carried A's
    // certificate: A's second, by digest, names a signer B does not know.
    let (b1, _) = sign(&s.b, &s.station_b);
    assert!(s.a.to_stack(&[&b1])[0].is_ok());
    let (_, a1) = sign(&s.a, &s.station);
    assert_eq!(
        a1.signer_digest(),
        None,
        "the certificate, for the new neighbour B"
    );
    let (a2, a2_message) = sign(&s.a, &s.station);
    let a_id = a2_message.signer_digest().expect("by digest");
    match &s.b.to_stack(&[&a2])[0] {
        Err(Refusal::Invalid(Verdict::SignerNotFound)) => {}
        other => panic!("{other:?}"),
    }
    let dropped = loop {
        let event = next_event(&mut events);
        if event["event"] == "dropped" {
            break event;
        }
        assert_eq!(event["event"], "id_change", "B's first pseudonym");
    };
    assert_eq!(dropped["report"], "SignerNotFound");
    assert_eq!(dropped["signer"], a_id.to_string());
    // B's next CAM asks for A's certificate (inline P2PCD), once.
    let asked = |message: &SignedMessage| {
        message
            .header()
            .inline_p2pcd_request
            .as_ref()
            .map(|ids| ids.0.iter().map(|id| id.0.to_vec()).collect::<Vec<_>>())
    };
    let (b2, b2_message) = sign(&s.b, &s.station_b);
    assert_eq!(asked(&b2_message), Some(vec![a_id.0[5..].to_vec()]));
    let (_, b3_message) = sign(&s.b, &s.station_b);
    assert_eq!(asked(&b3_message), None);
    // A answers with its certificate in its next CAM, and B takes it.
    assert!(s.a.to_stack(&[&b2])[0].is_ok());
    let (a3, a3_message) = sign(&s.a, &s.station);
    assert_eq!(
        a3_message.signer_digest(),
        None,
        "A's certificate, as asked"
    );
    assert!(s.b.to_stack(&[&a3])[0].is_ok());
    let (a4, a4_message) = sign(&s.a, &s.station);
    assert!(a4_message.signer_digest().is_some());
    assert!(s.b.to_stack(&[&a4])[0].is_ok(), "B knows A now");
}
