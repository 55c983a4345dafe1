//! The EC encodings PKCS#11 uses: `CKA_EC_PARAMS` (a DER OID) and `CKA_EC_POINT` (a DER
//! OCTET STRING holding the SEC1 point).

use vss_crypto::Curve;

/// `CKA_EC_PARAMS` for a curve: the DER encoding of its named-curve OID.
pub fn ec_params(curve: Curve) -> Vec<u8> {
    let arcs: Vec<u64> = curve
        .oid()
        .split('.')
        .map(|a| a.parse().unwrap_or(0))
        .collect();
    let mut body = base128(arcs[0] * 40 + arcs[1]);
    for &arc in &arcs[2..] {
        body.extend(base128(arc));
    }
    let mut der = vec![0x06, body.len() as u8];
    der.extend(body);
    der
}

fn base128(mut value: u64) -> Vec<u8> {
    let mut out = vec![(value & 0x7f) as u8];
    value >>= 7;
    while value > 0 {
        out.push(0x80 | (value & 0x7f) as u8);
        value >>= 7;
    }
    out.reverse();
    out
}

/// The curve whose `CKA_EC_PARAMS` these are, if it is one VSS supports.
pub fn curve_of(params: &[u8]) -> Option<Curve> {
    Curve::ALL.into_iter().find(|&c| ec_params(c) == params)
}

/// `CKA_EC_POINT` for a SEC1 point: DER OCTET STRING (every supported point is < 128 bytes).
pub fn ec_point(sec1: &[u8]) -> Vec<u8> {
    let mut der = vec![0x04, sec1.len() as u8];
    der.extend_from_slice(sec1);
    der
}

/// The uncompressed SEC1 point inside a `CKA_EC_POINT` value of a curve; tokens that store
/// the bare point (one byte shorter than DER's two-byte header allows) are accepted too.
pub fn sec1_of(curve: Curve, ec_point: &[u8]) -> &[u8] {
    let point_len = 1 + 2 * curve.scalar_len();
    match ec_point {
        [0x04, len, rest @ ..] if usize::from(*len) == point_len && rest.len() == point_len => rest,
        _ => ec_point,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_oid_encodings() {
        assert_eq!(
            ec_params(Curve::P256),
            [0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07]
        );
        assert_eq!(
            ec_params(Curve::P384),
            [0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22]
        );
        assert_eq!(
            ec_params(Curve::Bp256),
            [0x06, 0x09, 0x2b, 0x24, 0x03, 0x03, 0x02, 0x08, 0x01, 0x01, 0x07]
        );
        for c in Curve::ALL {
            assert_eq!(curve_of(&ec_params(c)), Some(c));
        }
        assert_eq!(curve_of(&[0x06, 0x01, 0x00]), None);
    }

    #[test]
    fn ec_point_round_trip() {
        let mut point = [0x41u8; 65];
        point[0] = 0x04;
        assert_eq!(sec1_of(Curve::P256, &ec_point(&point)), &point);
        assert_eq!(sec1_of(Curve::P256, &point), &point);
    }
}
