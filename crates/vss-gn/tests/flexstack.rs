//! Packets made by FlexStack (tests/vectors/gn/make.py, an independent ETSI stack):
//! each decodes to the values FlexStack was given and re-encodes byte for byte.

use serde_json::Value;
use vss_gn::{
    AreaShape, Body, BtpHeader, CommonNextHeader, ExtendedHeader, GnAddress, GnError, GnPacket,
    Limits, LongPositionVector, ShortPositionVector, Unsecured,
};

fn vectors() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/vectors/gn/flexstack.json"
    );
    let text = std::fs::read_to_string(path).expect("the pinned vectors");
    let json: Value = serde_json::from_str(&text).expect("JSON");
    json["vectors"].as_array().expect("a list").clone()
}

fn num(v: &Value, key: &str) -> i64 {
    v[key].as_i64().unwrap_or_else(|| panic!("{key} in {v}"))
}

fn bytes(v: &Value, key: &str) -> Vec<u8> {
    hex::decode(v[key].as_str().unwrap_or_else(|| panic!("{key} in {v}"))).expect("hex")
}

fn address(v: &Value) -> GnAddress {
    let mid: [u8; 6] = bytes(v, "mid").try_into().expect("6 bytes");
    GnAddress::from_mac(mid, num(v, "station_type") as u8)
}

fn check_short(pv: &ShortPositionVector, v: &Value) {
    assert_eq!(pv.address, address(v));
    assert_eq!(i64::from(pv.timestamp), num(v, "tst"));
    assert_eq!(i64::from(pv.latitude), num(v, "lat"));
    assert_eq!(i64::from(pv.longitude), num(v, "lon"));
}

fn check_long(pv: &LongPositionVector, v: &Value) {
    check_short(&pv.short(), v);
    assert_eq!(pv.accurate, v["pai"].as_bool().expect("pai"));
    assert_eq!(i64::from(pv.speed), num(v, "speed"));
    assert_eq!(i64::from(pv.heading), num(v, "heading"));
}

/// FlexStack sets the lowest flag bit (reserved) in beacons and LS packets; the rest are
/// strict-clean.
fn limits_for(v: &Value) -> Limits {
    let lenient = matches!(
        v["kind"].as_str(),
        Some("beacon" | "ls_request" | "ls_reply")
    );
    Limits {
        allow_reserved_flags: lenient,
        ..Limits::default()
    }
}

fn check_extended(ext: &ExtendedHeader, v: &Value) {
    check_long(ext.source(), &v["source"]);
    if let Some(sn) = v.get("sn") {
        assert_eq!(ext.sequence().map(i64::from), sn.as_i64());
    }
    let shape = |s: &Value| match s.as_str() {
        Some("circle") => AreaShape::Circle,
        Some("rectangle") => AreaShape::Rectangle,
        _ => AreaShape::Ellipse,
    };
    match (v["kind"].as_str().expect("kind"), ext) {
        ("beacon", ExtendedHeader::Beacon { .. })
        | ("tsb", ExtendedHeader::TopoBroadcast { .. }) => {}
        (
            "shb",
            ExtendedHeader::SingleHop {
                media_dependent, ..
            },
        ) => {
            assert_eq!(media_dependent, &[0; 4]);
        }
        ("guc", ExtendedHeader::GeoUnicast { destination, .. })
        | ("ls_reply", ExtendedHeader::LsReply { destination, .. }) => {
            check_short(destination, &v["destination"]);
        }
        ("ls_request", ExtendedHeader::LsRequest { request, .. }) => {
            assert_eq!(*request, address(&v["request"]));
        }
        ("gbc", ExtendedHeader::GeoBroadcast { area, .. })
        | ("gac", ExtendedHeader::GeoAnycast { area, .. }) => {
            let a = &v["area"];
            assert_eq!(area.shape, shape(&v["shape"]));
            assert_eq!(i64::from(area.latitude), num(a, "lat"));
            assert_eq!(i64::from(area.longitude), num(a, "lon"));
            assert_eq!(i64::from(area.distance_a), num(a, "a"));
            assert_eq!(i64::from(area.distance_b), num(a, "b"));
            assert_eq!(i64::from(area.angle), num(a, "angle"));
        }
        (kind, other) => panic!("{kind} decoded as {other:?}"),
    }
}

fn check_btp(body: &Unsecured, v: &Value) {
    let Some(b) = v.get("btp") else {
        assert_eq!(body.common.next_header, CommonNextHeader::Any);
        assert!(body.payload.is_empty());
        return;
    };
    let (header, facilities) = body.btp().expect("BTP fits").expect("BTP");
    let expected = match b["type"].as_str() {
        Some("a") => BtpHeader::A {
            destination: num(b, "dst") as u16,
            source: num(b, "src") as u16,
        },
        _ => BtpHeader::B {
            destination: num(b, "dst") as u16,
            destination_info: num(b, "info") as u16,
        },
    };
    assert_eq!(header, expected);
    assert_eq!(facilities, bytes(v, "payload"));
}

#[test]
fn every_flexstack_packet_decodes_to_its_fields_and_re_encodes() {
    let all = vectors();
    assert_eq!(all.len(), 8, "one vector per packet kind");
    for v in &all {
        let name = v["name"].as_str().expect("name");
        let wire = bytes(v, "hex");
        let packet =
            GnPacket::decode(&wire, &limits_for(v)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            i64::from(packet.basic.remaining_hop_limit),
            num(v, "rhl"),
            "{name}"
        );
        assert_eq!(
            i64::from(packet.basic.lifetime.millis()),
            num(v, "lt_ms"),
            "{name}"
        );
        let Body::Unsecured(body) = &packet.body else {
            panic!("{name}: FlexStack sent it unsecured")
        };
        assert_eq!(
            i64::from(body.common.traffic_class.0),
            num(v, "tc"),
            "{name}"
        );
        assert_eq!(
            i64::from(body.common.max_hop_limit),
            num(v, "mhl"),
            "{name}"
        );
        let next = match v["next"].as_str() {
            Some("btp-a") => CommonNextHeader::BtpA,
            Some("btp-b") => CommonNextHeader::BtpB,
            _ => CommonNextHeader::Any,
        };
        assert_eq!(body.common.next_header, next, "{name}");
        check_extended(&body.extended, v);
        check_btp(body, v);
        assert_eq!(packet.encode().expect("encodes"), wire, "{name} re-encodes");
    }
}

#[test]
fn the_ports_flexstack_sends_to_map_to_its_aids() {
    let aid = |name: &str| {
        let v = vectors()
            .into_iter()
            .find(|v| v["name"] == name)
            .expect("vector");
        let packet = GnPacket::decode(&bytes(&v, "hex"), &Limits::default()).expect("decodes");
        match packet.body {
            Body::Unsecured(body) => body.its_aid(),
            Body::Secured(_) => None,
        }
    };
    assert_eq!(aid("shb_cam"), Some(36));
    assert_eq!(aid("gbc_denm"), Some(37));
    assert_eq!(aid("gac_rect"), Some(639));
    assert_eq!(aid("tsb"), Some(137));
}

#[test]
fn flexstack_beacon_flags_are_a_reserved_bit_under_the_standard() {
    for v in vectors()
        .iter()
        .filter(|v| limits_for(v).allow_reserved_flags)
    {
        let strict = GnPacket::decode(&bytes(v, "hex"), &Limits::default());
        assert_eq!(
            strict,
            Err(GnError::Reserved("Common Header flags")),
            "{}",
            v["name"]
        );
    }
}

#[test]
fn a_cam_goes_secured_and_comes_back() {
    let v = vectors()
        .into_iter()
        .find(|v| v["name"] == "shb_cam")
        .expect("vector");
    let wire = bytes(&v, "hex");
    let packet = GnPacket::decode(&wire, &Limits::default()).expect("decodes");
    let Body::Unsecured(body) = &packet.body else {
        panic!("unsecured")
    };
    let tbs = body.encode().expect("encodes");
    assert_eq!(
        tbs,
        wire[4..],
        "the signed payload is all after the Basic Header"
    );
    // Stand-in for the EtsiTs103097Data: this codec does not look inside it.
    let signed = [&[0x03, 0x81][..], &tbs].concat();
    let secured = GnPacket::secured(packet.basic, signed.clone())
        .encode()
        .expect("encodes");
    assert_eq!(
        secured[0], 0x12,
        "version 1, next header 2 (secured packet)"
    );
    assert_eq!(secured[1..4], wire[1..4]);
    let back = GnPacket::decode(&secured, &Limits::default()).expect("decodes");
    assert_eq!(back.body, Body::Secured(signed));
    let rebuilt = GnPacket::from_signed_payload(back.basic, &tbs, &Limits::default());
    assert_eq!(rebuilt.expect("valid").encode().expect("encodes"), wire);
}

#[test]
fn a_pseudonym_change_rewrites_the_source() {
    let v = vectors()
        .into_iter()
        .find(|v| v["name"] == "shb_cam")
        .expect("vector");
    let wire = bytes(&v, "hex");
    let mut packet = GnPacket::decode(&wire, &Limits::default()).expect("decodes");
    let Body::Unsecured(body) = &mut packet.body else {
        panic!("unsecured")
    };
    let station_type = body.source().address.station_type;
    body.set_source_address(GnAddress::from_mac([0x06, 1, 2, 3, 4, 5], station_type));
    let out = packet.encode().expect("encodes");
    // SO PV's GN_ADDR starts after Basic (4) and Common (8) Headers; the MID is its last 6.
    assert_eq!(out[14..20], [0x06, 1, 2, 3, 4, 5]);
    assert_eq!(out[..14], wire[..14]);
    assert_eq!(out[20..], wire[20..]);
}
