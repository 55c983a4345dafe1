//! The extended headers: every kind round-trips; unknown kinds and reserved fields fail.

use super::*;

fn pv(last: u8) -> LongPositionVector {
    LongPositionVector {
        address: GnAddress::from_mac([2, 0, 0, 0, 0, last], 5),
        timestamp: 1,
        latitude: -2,
        longitude: 3,
        accurate: false,
        speed: -4,
        heading: 5,
    }
}

fn every_kind() -> Vec<(ExtendedHeader, usize)> {
    let area = |shape| Area {
        shape,
        latitude: -10,
        longitude: 20,
        distance_a: 30,
        distance_b: 40,
        angle: 50,
    };
    let (source, sequence, destination) = (pv(1), 9, pv(2).short());
    vec![
        (ExtendedHeader::Beacon { source }, 24),
        (
            ExtendedHeader::SingleHop {
                source,
                media_dependent: [1, 2, 3, 4],
            },
            28,
        ),
        (ExtendedHeader::TopoBroadcast { sequence, source }, 28),
        (
            ExtendedHeader::GeoUnicast {
                sequence,
                source,
                destination,
            },
            48,
        ),
        (
            ExtendedHeader::GeoBroadcast {
                sequence,
                source,
                area: area(AreaShape::Ellipse),
            },
            44,
        ),
        (
            ExtendedHeader::GeoAnycast {
                sequence,
                source,
                area: area(AreaShape::Circle),
            },
            44,
        ),
        (
            ExtendedHeader::LsRequest {
                sequence,
                source,
                request: pv(3).address,
            },
            36,
        ),
        (
            ExtendedHeader::LsReply {
                sequence,
                source,
                destination,
            },
            48,
        ),
    ]
}

#[test]
fn every_kind_round_trips_at_its_length() {
    for (header, len) in every_kind() {
        let mut out = Vec::new();
        header.write(&mut out).expect("fits");
        assert_eq!(out.len(), len, "{header:?}");
        let (ht, hst) = header.type_and_subtype();
        let back = ExtendedHeader::read(ht, hst, &mut Reader::new(&out));
        assert_eq!(back, Ok(header));
        for cut in 0..len {
            let short = ExtendedHeader::read(ht, hst, &mut Reader::new(&out[..cut]));
            assert!(
                matches!(short, Err(GnError::Truncated { .. })),
                "{header:?} cut at {cut}"
            );
        }
    }
}

#[test]
fn unknown_types_and_reserved_fields_are_refused() {
    let zeros = [0u8; 64];
    for (ht, hst) in [
        (0, 0),
        (1, 1),
        (2, 1),
        (3, 3),
        (4, 15),
        (5, 2),
        (6, 2),
        (7, 0),
        (15, 15),
    ] {
        let got = ExtendedHeader::read(ht, hst, &mut Reader::new(&zeros));
        assert_eq!(
            got,
            Err(GnError::UnknownHeaderType {
                header_type: ht,
                subtype: hst
            })
        );
    }
    let mut tsb = zeros;
    tsb[3] = 1;
    let got = ExtendedHeader::read(5, 1, &mut Reader::new(&tsb));
    assert_eq!(got, Err(GnError::Reserved(RESERVED)));
    let mut gbc = zeros;
    gbc[43] = 1;
    let got = ExtendedHeader::read(4, 0, &mut Reader::new(&gbc));
    assert_eq!(got, Err(GnError::Reserved(RESERVED)));
}

#[test]
fn the_source_can_be_rewritten_in_every_kind() {
    for (mut header, _) in every_kind() {
        header.source_mut().address.mid = [9; 6];
        assert_eq!(header.source().address.mid, [9; 6]);
    }
}
