//! The formats of the PIN and the PUK: ASCII digits, the PIN padded with `FF` to the
//! stored length, and their comparison in constant time.

use crate::state::CODE_LEN;
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

/// The shortest PIN, in digits.
pub const MIN_PIN_LEN: usize = 4;
/// The longest PIN, in digits.
pub const MAX_PIN_LEN: usize = CODE_LEN;
/// The PUK's length, in digits.
pub const PUK_LEN: usize = CODE_LEN;

/// A PIN or PUK in its stored form.
pub type CodeBlock = Zeroizing<[u8; CODE_LEN]>;

/// The stored form of a PIN: 4 to 8 ASCII digits, padded with `FF`.
pub fn pin_block(pin: &[u8]) -> Option<CodeBlock> {
    if !(MIN_PIN_LEN..=MAX_PIN_LEN).contains(&pin.len()) || !pin.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut block = Zeroizing::new([0xFF; CODE_LEN]);
    block[..pin.len()].copy_from_slice(pin);
    Some(block)
}

/// The stored form of a PUK: exactly 8 ASCII digits.
pub fn puk_block(puk: &[u8]) -> Option<CodeBlock> {
    if puk.len() != PUK_LEN || !puk.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut block = Zeroizing::new([0; CODE_LEN]);
    block.copy_from_slice(puk);
    Some(block)
}

/// Whether two stored codes are equal, in time independent of where they differ.
pub fn codes_equal(a: &CodeBlock, b: &CodeBlock) -> bool {
    a[..].ct_eq(&b[..]).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_and_puks_are_digits_of_the_allowed_lengths() {
        assert!(pin_block(b"1234").is_some());
        assert!(pin_block(b"12345678").is_some());
        for bad in [&b"123"[..], b"123456789", b"12a4", b""] {
            assert!(pin_block(bad).is_none(), "{bad:?}");
        }
        assert!(puk_block(b"12345678").is_some());
        assert!(puk_block(b"1234567").is_none());
        assert!(puk_block(b"1234567x").is_none());
        let a = pin_block(b"1234").expect("valid");
        assert!(codes_equal(&a, &pin_block(b"1234").expect("valid")));
        assert!(!codes_equal(&a, &pin_block(b"12345").expect("valid")));
    }
}
