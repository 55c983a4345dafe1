//! PSEC-KEM acceptance: on every curve 10,000 random encapsulations decapsulate to the same
//! key; sampled single-bit flips of C0 are rejected; off-curve, infinity and truncated C0 get
//! clear errors.

use vss_crypto::kem::psec_kem::{PsecKem, DEFAULT_KEY_LEN};
use vss_crypto::{Curve, Error, PrivateKey, PublicKey};

const ROUND_TRIPS: usize = 10_000;
const FLIPS: usize = 128;

fn acceptance(curve: Curve) {
    let kem = PsecKem::new(curve, DEFAULT_KEY_LEN).expect("kem");
    let recipient = PrivateKey::generate(curve).expect("key");
    let decap = |c0: &[u8]| kem.decapsulate_with_key(c0, &recipient);
    let mut last = None;
    for i in 0..ROUND_TRIPS {
        let sent = kem.encapsulate(recipient.public_key()).expect("encap");
        let got = decap(&sent.ciphertext).unwrap_or_else(|e| panic!("{curve} #{i}: {e}"));
        assert_eq!(got, sent.key, "{curve} #{i}");
        last = Some(sent);
    }
    let sent = last.expect("one encapsulation");
    let bits = 8 * sent.ciphertext.len();
    for k in 0..FLIPS {
        // Spread the sampled bits over EG and v, first and last bits included.
        let bit = k * (bits - 1) / (FLIPS - 1);
        let mut flipped = sent.ciphertext.clone();
        flipped[bit / 8] ^= 0x80 >> (bit % 8);
        match decap(&flipped) {
            Err(Error::KemRejected(_)) => {}
            Ok(key) => panic!("{curve}: flip of bit {bit} answered with a key {key:?}"),
            Err(other) => panic!("{curve}: flip of bit {bit}: unexpected {other}"),
        }
    }
    let n = curve.scalar_len();
    let v = &sent.ciphertext[1 + n..];
    // An x with no point on the curve.
    let off_curve = (1u8..=255)
        .map(|x| {
            let mut eg = vec![0x02; 1];
            eg.extend(std::iter::repeat_n(0u8, n - 1));
            eg.push(x);
            eg
        })
        .find(|eg| PublicKey::from_sec1(curve, eg).is_err())
        .expect("some x is off the curve");
    let err = decap(&[off_curve, v.to_vec()].concat()).expect_err("off curve");
    assert!(
        err.to_string().contains("not a point of the curve"),
        "{curve}: {err}"
    );
    let infinity = [vec![0u8; 1 + n], v.to_vec()].concat();
    let err = decap(&infinity).expect_err("infinity");
    assert!(
        err.to_string().contains("not a point of the curve"),
        "{curve}: {err}"
    );
    for cut in [0, 1, n, sent.ciphertext.len() - 1] {
        let err = decap(&sent.ciphertext[..cut]).expect_err("truncated");
        assert!(matches!(err, Error::InvalidLength { .. }), "{curve}: {err}");
    }
}

#[test]
fn p256() {
    acceptance(Curve::P256);
}

#[test]
fn p384() {
    acceptance(Curve::P384);
}

#[test]
fn bp256() {
    acceptance(Curve::Bp256);
}

#[test]
fn bp384() {
    acceptance(Curve::Bp384);
}

#[test]
fn k283() {
    acceptance(Curve::K283);
}

#[test]
fn b283() {
    acceptance(Curve::B283);
}

#[test]
fn p224() {
    acceptance(Curve::P224);
}

#[test]
fn p192() {
    acceptance(Curve::P192);
}
