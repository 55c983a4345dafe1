//! KDF2 of IEEE 1363a (ISO/IEC 18033-2), as IEEE 1609.2 ECIES uses it with SHA-256.

use zeroize::Zeroizing;

use crate::{Error, HashAlg, Result};

/// KDF2: `Hash(Z ‖ I2OSP(1, 4) ‖ P) ‖ Hash(Z ‖ I2OSP(2, 4) ‖ P) ‖ …`, cut to `length` bytes.
pub fn kdf2(
    hash: HashAlg,
    shared_secret: &[u8],
    param: &[u8],
    length: usize,
) -> Result<Zeroizing<Vec<u8>>> {
    let blocks = length.div_ceil(hash.output_len());
    if blocks > u32::MAX as usize {
        return Err(Error::InvalidLength {
            what: "KDF2 output",
            expected: "at most (2^32 - 1) hash blocks",
            got: length,
        });
    }
    let mut out = Zeroizing::new(Vec::with_capacity(blocks * hash.output_len()));
    let mut input = Zeroizing::new(Vec::with_capacity(shared_secret.len() + 4 + param.len()));
    for counter in 1..=blocks as u32 {
        input.clear();
        input.extend_from_slice(shared_secret);
        input.extend_from_slice(&counter.to_be_bytes());
        input.extend_from_slice(param);
        out.extend_from_slice(&hash.digest(&input));
    }
    out.truncate(length);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kdf2_is_hash_of_z_counter_param_and_prefix_consistent() {
        let z = [0x11u8; 32];
        let out = kdf2(HashAlg::Sha256, &z, b"P", 80).expect("kdf2");
        let mut first = z.to_vec();
        first.extend_from_slice(&[0, 0, 0, 1]);
        first.push(b'P');
        assert_eq!(&out[..32], &HashAlg::Sha256.digest(&first)[..]);
        let short = kdf2(HashAlg::Sha256, &z, b"P", 48).expect("kdf2");
        assert_eq!(&out[..48], &short[..]);
        assert!(kdf2(HashAlg::Sha256, &z, b"", 0).expect("empty").is_empty());
    }
}
