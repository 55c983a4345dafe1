//! [`prepared_verify`]: a prepared verification key (vss-crypto's portable fixed-base tables)
//! against the library's verifier (AWS-LC for P-256 and P-384, OpenSSL for brainpool) on
//! signatures the library made and the input then altered.

use vss_crypto::{Curve, PreparedKey, PrivateKey, Signature};

/// The curves with prepared keys, picked by the first byte's two low bits.
const CURVES: [Curve; 4] = [Curve::P256, Curve::P384, Curve::Bp256, Curve::Bp384];

/// The longest digest taken (SHA-512's).
const MAX_DIGEST: usize = 64;

/// Input: a first byte (bits 0-1: the curve; bits 2-4: the alteration; bits 5-7: the
/// table's window, 2 to 9 bits), a private scalar of the curve's length, then the digest
/// (up to 64 bytes). The library signs the digest; the alteration (none, a bit flipped in the
/// signature or the digest, (r, s) made of the digest's bytes, r or s zero or all ones,
/// another key, a truncated digest) gives the signature and digest checked. The prepared
/// key's verdict must be the library's, and an unaltered signature valid for both.
pub fn prepared_verify(bytes: &[u8]) {
    let Some((&head, rest)) = bytes.split_first() else {
        return;
    };
    let curve = CURVES[usize::from(head & 3)];
    let len = curve.scalar_len();
    if rest.len() < len {
        return;
    }
    let (scalar, tail) = rest.split_at(len);
    let Ok(key) = PrivateKey::from_scalar(curve, scalar) else {
        return;
    };
    let mut digest = tail[..tail.len().min(MAX_DIGEST)].to_vec();
    let Ok(signed) = key.sign_digest(&digest) else {
        return;
    };
    let mut r_s = signed.to_p1363().to_vec();
    let mut public = key.public_key().clone();
    let bit = usize::from(digest.first().copied().unwrap_or(0));
    match (head >> 2) & 7 {
        0 => {}
        1 => {
            let at = (bit / 8) % r_s.len();
            r_s[at] ^= 1 << (bit % 8);
        }
        2 if !digest.is_empty() => {
            let at = (bit / 8) % digest.len();
            digest[at] ^= 1 << (bit % 8);
        }
        3 => {
            for (i, b) in r_s.iter_mut().enumerate() {
                *b = digest.get(i % digest.len().max(1)).copied().unwrap_or(0);
            }
        }
        4 => r_s[(bit % 2) * len..][..len].fill(0),
        5 => r_s[(bit % 2) * len..][..len].fill(0xff),
        6 => match PrivateKey::from_scalar(curve, &[&scalar[1..], &scalar[..1]].concat()) {
            Ok(other) => public = other.public_key().clone(),
            Err(_) => return,
        },
        _ => digest.truncate(bit % (digest.len() + 1)),
    }
    let signature = Signature::from_p1363(curve, &r_s).expect("the curve's length");
    let window = 2 + u32::from(head >> 5);
    let prepared = PreparedKey::with_window(&public, window).expect("a library key prepares");
    let library = public
        .verifying_key()
        .expect("a library key verifies")
        .verify_digest(&digest, &signature);
    assert_eq!(
        prepared.verify_digest(&digest, &signature),
        library,
        "{curve:?}, window {window}, alteration {}",
        (head >> 2) & 7
    );
    if (head >> 2) & 7 == 0 {
        assert!(library, "the library's own signature");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed seeds, and every alteration and window of each, pass.
    #[test]
    fn the_prepared_verify_seeds_pass() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/seeds/prepared_verify");
        let mut seeds = 0;
        for entry in std::fs::read_dir(dir).expect("seeds") {
            let seed = std::fs::read(entry.expect("entry").path()).expect("seed");
            for head in 0..=u8::MAX {
                if head & 3 == seed[0] & 3 {
                    let mut varied = seed.clone();
                    varied[0] = head;
                    prepared_verify(&varied);
                }
            }
            seeds += 1;
        }
        assert_eq!(seeds, 4);
    }
}
