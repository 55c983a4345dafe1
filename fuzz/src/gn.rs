//! [`gn_packet`]: the GeoNetworking and BTP codec (vss-gn) on any bytes.

use vss_gn::{Body, GnAddress, GnPacket, Limits, Unsecured};

/// Decodes `bytes` as a GeoNetworking packet under the default limits and with reserved
/// flags allowed, and as a signed payload (Common Header on): what is accepted re-encodes
/// to the same bytes; an unsecured packet rebuilt from its signed payload is the same
/// packet; its source rewritten (as a pseudonym change does) decodes back as rewritten.
pub fn gn_packet(bytes: &[u8]) {
    for limits in [
        Limits::default(),
        Limits {
            allow_reserved_flags: true,
            ..Limits::default()
        },
    ] {
        if let Ok(packet) = GnPacket::decode(bytes, &limits) {
            assert_eq!(packet.encode().as_deref(), Ok(bytes), "{packet:?}");
            if let Body::Unsecured(body) = &packet.body {
                unsecured(&packet, body, &limits);
            }
        }
        if let Ok(body) = Unsecured::decode(bytes, &limits) {
            assert_eq!(body.encode().as_deref(), Ok(bytes), "{body:?}");
        }
    }
}

/// The checks of an accepted unsecured packet.
fn unsecured(packet: &GnPacket, body: &Unsecured, limits: &Limits) {
    let tbs = body.encode().expect("an accepted body encodes");
    let rebuilt = GnPacket::from_signed_payload(packet.basic, &tbs, limits);
    assert_eq!(rebuilt.as_ref(), Ok(packet));
    if let (Ok(Some((btp, _))), Some(aid)) = (body.btp(), body.its_aid()) {
        assert_eq!(vss_gn::its_aid_for_port(btp.destination_port()), Some(aid));
    }
    let mut renamed = body.clone();
    let mut source = *renamed.source();
    source.address = GnAddress::from_mac([0x02, 0, 0, 0, 0, 1], source.address.station_type);
    renamed.set_source(source);
    let again = GnPacket::unsecured(packet.basic, renamed.clone()).expect("hops unchanged");
    let wire = again.encode().expect("a rewritten source encodes");
    let back = GnPacket::decode(&wire, limits).expect("a rewritten packet decodes");
    assert_eq!(back.body, Body::Unsecured(renamed));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed seeds (FlexStack's packets, tests/vectors/gn) decode and pass.
    #[test]
    fn the_gn_packet_seeds_pass() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/seeds/gn_packet");
        let mut seeds = 0;
        for entry in std::fs::read_dir(dir).expect("seeds") {
            let bytes = std::fs::read(entry.expect("entry").path()).expect("seed");
            let lenient = Limits {
                allow_reserved_flags: true,
                ..Limits::default()
            };
            assert!(GnPacket::decode(&bytes, &lenient).is_ok());
            gn_packet(&bytes);
            seeds += 1;
        }
        assert_eq!(seeds, 8);
    }
}
