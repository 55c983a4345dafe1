//! Helpers of the GeoNetworking bridge's tests: FlexStack's packets (tests/vectors/gn), two
//! stations with their bridges, the events socket.

use std::io::{BufRead, BufReader};
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use vss_core::events::EventHub;
use vss_core::gn_bridge::{frame, Bridge, BridgeConfig, Frame, Mac};
use vss_core::Vss;
use vss_gn::{Body, GnPacket, Limits, Unsecured};
use vss_its::SignedMessage;

/// The bridges' stack-side MACs.
pub const STACK_SIDE_A: Mac = Mac([0x02, 0, 0, 0, 0xa, 0x1]);
pub const STACK_SIDE_B: Mac = Mac([0x02, 0, 0, 0, 0xb, 0x1]);

/// Where the source GN address's MID sits in an SHB packet (Basic and Common Headers, then
/// the SO position vector's GN_ADDR: M/ST and reserved, then the MID).
pub const SO_MID: std::ops::Range<usize> = 14..20;

/// The FlexStack packet `name`.
pub fn vector(name: &str) -> Vec<u8> {
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
pub fn from_stack(packet: &[u8]) -> Vec<u8> {
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
pub struct Setup {
    pub station: super::Station,
    pub station_b: super::Station,
    pub a: Bridge,
    pub b: Bridge,
    pub events: std::path::PathBuf,
}

/// The configuration of `s` (the common one) trusting `other`'s root and AA too.
pub fn config_trusting(s: &super::Station, other: &super::Station) -> vss_core::Config {
    super::config_for(s, "");
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

pub fn setup(allow_unsecured: bool) -> Setup {
    let (station, station_b) = (super::station(3), super::station(3));
    // Each station's clock started before the other's certificates were issued (their
    // validity starts on the second): both move past that.
    for s in [&station, &station_b] {
        s.clock.advance(Duration::from_secs(2));
    }
    let open = |s: &super::Station, other| {
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
pub fn listen(path: &std::path::Path) -> BufReader<UnixStream> {
    let stream = UnixStream::connect(path).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(2)))
        .expect("timeout");
    // The hub takes a client on its accepting thread; give it a moment.
    std::thread::sleep(Duration::from_millis(100));
    BufReader::new(stream)
}

pub fn next_event(reader: &mut BufReader<UnixStream>) -> Value {
    let mut line = String::new();
    reader.read_line(&mut line).expect("an event line");
    serde_json::from_str(&line).expect("JSON")
}

/// The secured data of a frame for the radio, with the frame's source MAC.
pub fn secured(frame_bytes: &[u8]) -> (Mac, Vec<u8>) {
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
pub fn signed_source(data: &[u8]) -> Mac {
    let message = SignedMessage::from_bytes(data).expect("signed data");
    let body = Unsecured::decode(message.payload().expect("payload"), &Limits::default())
        .expect("the Common Header on");
    Mac(body.source().address.mid)
}
