//! Random keys and signatures, valid and with one bit flipped; r and s out of range; the
//! windows and curves refused.

use vss_crypto::{Curve, HashAlg, PreparedKey, PrivateKey, Signature};

use crate::{flipped, order, random, sig_of, verdict, CURVES};

#[test]
fn random_signatures_and_their_one_bit_changes() {
    for curve in CURVES {
        let len = curve.scalar_len();
        for round in 0..4 {
            let key = PrivateKey::generate(curve).expect("key");
            let prepared = PreparedKey::with_window(key.public_key(), 3 + round).expect("prepared");
            let other =
                PreparedKey::with_window(PrivateKey::generate(curve).expect("key").public_key(), 4)
                    .expect("prepared");
            for digest_len in [len, 20, 64] {
                let digest = random(digest_len);
                let sig = key.sign_digest(&digest).expect("sign");
                assert!(verdict(&prepared, &digest, &sig), "{curve} valid");
                assert!(!verdict(&other, &digest, &sig), "{curve} another key");
                let bit = usize::from(random(2)[0]) * 8 + usize::from(random(1)[0] % 8);
                let p1363 = sig.to_p1363();
                for changed in [
                    flipped(p1363, bit % (8 * len)),
                    flipped(p1363, 8 * len + bit % (8 * len)),
                ] {
                    let changed = Signature::from_p1363(curve, &changed).expect("p1363");
                    assert!(
                        !verdict(&prepared, &digest, &changed),
                        "{curve} r or s flipped"
                    );
                }
                let digest_changed = flipped(&digest, bit % (8 * digest.len().min(len)));
                assert!(
                    !verdict(&prepared, &digest_changed, &sig),
                    "{curve} digest flipped"
                );
                let point = flipped(
                    key.public_key().to_sec1_uncompressed(),
                    8 + bit % (16 * len),
                );
                assert!(
                    PreparedKey::from_sec1(curve, &point).is_err(),
                    "{curve} key flipped: off the curve"
                );
            }
        }
    }
}

#[test]
fn scalars_out_of_range_are_refused() {
    for curve in CURVES {
        let len = curve.scalar_len();
        let key = PrivateKey::generate(curve).expect("key");
        let prepared = PreparedKey::new(key.public_key()).expect("prepared");
        let digest = random(len);
        let sig = key.sign_digest(&digest).expect("sign");
        let (r, s) = (sig.r(), sig.s());
        let n = order(curve);
        let mut n_plus_1 = n.clone();
        *n_plus_1.last_mut().expect("n") += 1;
        let zero = vec![0u8; len];
        for (r, s) in [
            (&n[..], s),
            (r, &n[..]),
            (&zero[..], s),
            (r, &zero[..]),
            (&n_plus_1[..], s),
            (r, &n_plus_1[..]),
            (&[0xff; 48][..len], s),
        ] {
            assert!(
                !verdict(&prepared, &digest, &sig_of(curve, r, s)),
                "{curve}"
            );
            assert!(!prepared.verify_prehashed(&digest, r, s), "{curve}");
        }
        assert!(
            !prepared.verify_prehashed(&digest, &[&[0u8][..], r].concat(), s),
            "{curve} a longer r"
        );
        assert!(
            !prepared.verify_prehashed(&digest, &r[1..], s),
            "{curve} a shorter r"
        );
        assert!(prepared.verify_prehashed(&digest, r, s), "{curve}");
        let foreign = Signature::from_p1363(Curve::P224, &[1u8; 56]).expect("p224");
        assert!(
            !prepared.verify_digest(&digest, &foreign),
            "{curve} another curve's signature"
        );
    }
}

#[test]
fn windows_out_of_range_and_other_curves_are_refused() {
    let key = PrivateKey::generate(Curve::P256).expect("key");
    for window in [0, 1, 11] {
        assert!(
            PreparedKey::with_window(key.public_key(), window).is_err(),
            "window {window}"
        );
    }
    let p224 = PrivateKey::generate(Curve::P224).expect("key");
    assert!(PreparedKey::new(p224.public_key()).is_err());
    assert!(
        CURVES.iter().all(|&c| PreparedKey::supports(c)) && !PreparedKey::supports(Curve::P224)
    );
    let prepared = PreparedKey::with_window(key.public_key(), 4).expect("prepared");
    assert_eq!(prepared.window(), 4);
    assert_eq!(
        prepared.memory_bytes(),
        64 * 8 * 64,
        "P-256, 4 bits: 64 sub-tables of 8 points"
    );
    assert_eq!(prepared.public_key(), key.public_key());
    let sig = key.sign(HashAlg::Sha256, b"CAM").expect("sign");
    assert!(prepared.verify(HashAlg::Sha256, b"CAM", &sig));
    assert!(!prepared.verify(HashAlg::Sha256, b"DENM", &sig));
}

#[test]
fn prepared_keys_can_be_shared_between_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<PreparedKey>();
}
