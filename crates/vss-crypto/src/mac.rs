//! HMAC-SHA256, and MAC1 of IEEE 1609.2 ECIES (HMAC-SHA256 truncated to 128 bits).

use aws_lc_rs::constant_time::verify_slices_are_equal;
use aws_lc_rs::hmac;

/// Length of a MAC1 tag in bytes.
pub const MAC1_TAG_LEN: usize = 16;

/// HMAC-SHA256 of `message` under `key`.
pub fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    let key = hmac::Key::new(hmac::HMAC_SHA256, key);
    let mut out = [0u8; 32];
    out.copy_from_slice(hmac::sign(&key, message).as_ref());
    out
}

/// Whether `tag` is a valid HMAC-SHA256 tag (full or truncated to at least 16 bytes) of
/// `message`. Compared in constant time.
pub fn hmac_sha256_verify(key: &[u8], message: &[u8], tag: &[u8]) -> bool {
    if !(MAC1_TAG_LEN..=32).contains(&tag.len()) {
        return false;
    }
    let full = hmac_sha256(key, message);
    constant_time_eq(&full[..tag.len()], tag)
}

/// Whether two byte strings are equal, in time that depends only on their lengths.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    verify_slices_are_equal(a, b).is_ok()
}

/// MAC1 of IEEE 1609.2 §5.3.5: the first 16 bytes of HMAC-SHA256.
pub fn mac1(key: &[u8], message: &[u8]) -> [u8; MAC1_TAG_LEN] {
    let mut out = [0u8; MAC1_TAG_LEN];
    out.copy_from_slice(&hmac_sha256(key, message)[..MAC1_TAG_LEN]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc4231_case_2() {
        let tag = hmac_sha256(b"Jefe", b"what do ya want for nothing?");
        let hex: String = tag.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex,
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert_eq!(mac1(b"Jefe", b"what do ya want for nothing?"), tag[..16]);
        assert!(hmac_sha256_verify(
            b"Jefe",
            b"what do ya want for nothing?",
            &tag[..16]
        ));
        assert!(!hmac_sha256_verify(
            b"Jefe",
            b"what do ya want for nothing!",
            &tag
        ));
        assert!(!hmac_sha256_verify(
            b"Jefe",
            b"what do ya want for nothing?",
            &tag[..8]
        ));
    }
}
