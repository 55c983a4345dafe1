//! The GeoNetworking bridge on FlexStack's packets (tests/vectors/gn, made by an
//! independent ETSI stack): what the stack sends goes out secured under the pseudonym's
//! identity and verifies, on the receiving bridge and under a validator of its own; the
//! receiving bridge gives its stack the original packet back; tampered, replayed,
//! unsecured and mislabelled packets are dropped and announced on the events socket.

mod common;

use std::io::{BufRead, BufReader};
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use vss_core::events::EventHub;
use vss_core::gn_bridge::{
    frame, profile, pseudonym_mac, Bridge, BridgeConfig, Frame, Mac, Refusal,
};
use vss_core::Vss;
use vss_gn::{Body, GnPacket, Limits, Unsecured};
use vss_its::{HashedId8, Psid, SignedMessage, TrustAnchors, Validator, Verdict};

/// The bridges' stack-side MACs.
const STACK_SIDE_A: Mac = Mac([0x02, 0, 0, 0, 0xa, 0x1]);
const STACK_SIDE_B: Mac = Mac([0x02, 0, 0, 0, 0xb, 0x1]);

/// Where the source GN address's MID sits in an SHB packet (Basic and Common Headers, then
/// the SO position vector's GN_ADDR: M/ST and reserved, then the MID).
const SO_MID: std::ops::Range<usize> = 14..20;

/// The FlexStack packet `name`.
fn vector(name: &str) -> Vec<u8> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/vectors/gn/flexstack.json"
    );
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("vectors")).expect("JSON");
    let found = json["vectors"]
        .as_array()
        .expect("a list")
        .iter()
        .find(|v| v["name"] == name)
        .unwrap_or_else(|| panic!("no vector {name}"));
    hex::decode(found["hex"].as_str().expect("hex")).expect("hex")
}

/// The frame FlexStack puts on the link for `packet`: broadcast, from the MID of its
/// source GN address.
fn from_stack(packet: &[u8]) -> Vec<u8> {
    let lenient = Limits {
        allow_reserved_flags: true,
        ..Limits::default()
    };
    let decoded = GnPacket::decode(packet, &lenient).expect("a FlexStack packet");
    let Body::Unsecured(body) = decoded.body else {
        panic!("unsecured")
    };
    frame(Mac::BROADCAST, Mac(body.source().address.mid), packet)
}

/// Two stations, each with its bridge, each trusting both stations' roots and AAs; B
/// announces on an events socket.
struct Setup {
    station: common::Station,
    station_b: common::Station,
    a: Bridge,
    b: Bridge,
    events: std::path::PathBuf,
}

/// The configuration of `s` (the common one) trusting `other`'s root and AA too.
fn config_trusting(s: &common::Station, other: &common::Station) -> vss_core::Config {
    common::config_for(s, "");
    let dir = s.dir.path();
    std::fs::write(dir.join("other-root.cert"), other.aa.root.bytes()).expect("root");
    std::fs::write(dir.join("other-aa.cert"), other.aa.cert.bytes()).expect("aa");
    let path = dir.join("vss.toml");
    let text = std::fs::read_to_string(&path).expect("config").replace(
        "anchors = [\"root.cert\"]\nauthorities = [\"aa.cert\"]",
        "anchors = [\"root.cert\", \"other-root.cert\"]\n\
         authorities = [\"aa.cert\", \"other-aa.cert\"]",
    );
    std::fs::write(&path, text).expect("config");
    vss_core::Config::load(&path).expect("load")
}

fn setup(allow_unsecured: bool) -> Setup {
    let (station, station_b) = (common::station(3), common::station(3));
    // Each station's clock started before the other's certificates were issued (their
    // validity starts on the second): both move past that.
    for s in [&station, &station_b] {
        s.clock.advance(Duration::from_secs(2));
    }
    let open = |s: &common::Station, other| {
        let config = config_trusting(s, other);
        Arc::new(Vss::open_with_clock(&config, "1234", s.clock.clone()).expect("open"))
    };
    let bridge_config = |mac| BridgeConfig {
        limits: Limits::default(),
        allow_unsecured,
        stack_side_mac: mac,
    };
    let events = station_b.dir.path().join("events.sock");
    let hub = Arc::new(EventHub::bind(&events).expect("events"));
    let a = Bridge::new(
        open(&station, &station_b),
        bridge_config(STACK_SIDE_A),
        None,
    );
    let b = Bridge::new(
        open(&station_b, &station),
        bridge_config(STACK_SIDE_B),
        Some(hub),
    );
    Setup {
        station,
        station_b,
        a,
        b,
        events,
    }
}

/// A client of the events socket, connected once the hub has taken it.
fn listen(path: &std::path::Path) -> BufReader<UnixStream> {
    let stream = UnixStream::connect(path).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(2)))
        .expect("timeout");
    // The hub takes a client on its accepting thread; give it a moment.
    std::thread::sleep(Duration::from_millis(100));
    BufReader::new(stream)
}

fn next_event(reader: &mut BufReader<UnixStream>) -> Value {
    let mut line = String::new();
    reader.read_line(&mut line).expect("an event line");
    serde_json::from_str(&line).expect("JSON")
}

/// The secured data of a frame for the radio, with the frame's source MAC.
fn secured(frame_bytes: &[u8]) -> (Mac, Vec<u8>) {
    let parsed = Frame::parse(frame_bytes).expect("a GN frame");
    assert_eq!(
        parsed.packet[0] & 0x0f,
        2,
        "Basic Header next header: secured"
    );
    match GnPacket::decode(parsed.packet, &Limits::default()).expect("decodes") {
        GnPacket {
            body: Body::Secured(data),
            ..
        } => (parsed.source, data),
        other => panic!("not secured: {other:?}"),
    }
}

/// The signed payload's source GN address MID.
fn signed_source(data: &[u8]) -> Mac {
    let message = SignedMessage::from_bytes(data).expect("signed data");
    let body = Unsecured::decode(message.payload().expect("payload"), &Limits::default())
        .expect("the Common Header on");
    Mac(body.source().address.mid)
}

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
