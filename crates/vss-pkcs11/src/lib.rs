//! `libvss_pkcs11.so`: a PKCS#11 3.0 module whose slot holds the VSS key store named by
//! `VSS_STORE` (else the user's default store, as for `vss`), or whose slots hold the stores
//! that the file `VSS_PKCS11_CONF` lists. A token's user PIN is its store's PIN, and a wrong
//! one costs one of the store's tries; the store's retry counter shows in the token flags
//! (`CKF_USER_PIN_COUNT_LOW`, `_FINAL_TRY`, `_LOCKED`).
//!
//! Every key of a store is a public-key and a private-key object (`CKK_EC` or `CKK_RSA`,
//! `CKA_LABEL` the store's label, `CKA_ID` the id given at generation): the private key
//! visible after login, the public key before too (from the store's clear copy,
//! [`vss_hsm::PublicCopies`]); certificates and public keys made with `C_CreateObject` are
//! public objects kept beside them. Mechanisms: EC and RSA (2048–4096) key-pair generation,
//! ECDSA, PKCS #1 v1.5 and PSS signatures (raw and hashing), OAEP and PKCS #1 v1.5
//! decryption, ECDH derivation.
//! Private values are never readable. docs/OFFLOAD.md has the table and the clients.
//!
//! An application loads the module and asks for its function list:
//!
//! ```no_run
//! use cryptoki::context::{CInitializeArgs, CInitializeFlags, Pkcs11};
//!
//! std::env::set_var("VSS_STORE", "/var/lib/vss/store");
//! let module = Pkcs11::new("target/release/libvss_pkcs11.so")?;
//! module.initialize(CInitializeArgs::new(CInitializeFlags::OS_LOCKING_OK))?;
//! let slots = module.get_slots_with_token()?;
//! # Ok::<(), cryptoki::error::Error>(())
//! ```
//!
//! Layout: [`ffi`] is the C boundary (the only unsafe code: pointer checks and conversions,
//! `catch_unwind` around every entry point, the function lists); `module` holds the state
//! between `C_Initialize` and `C_Finalize` and the safe core of each function; `slot`,
//! `token`, `session`, `object` and `mechanism` are the standard's notions.

mod error;
pub mod ffi;
mod mechanism;
mod module;
mod object;
mod session;
mod slot;
mod token;

use cryptoki_sys::CK_VERSION;

/// `s` blank-padded (or cut at a character boundary) to the `N` bytes of a PKCS#11 text
/// field.
fn padded<const N: usize>(s: &str) -> [u8; N] {
    let mut out = [b' '; N];
    let mut end = s.len().min(N);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    out[..end].copy_from_slice(&s.as_bytes()[..end]);
    out
}

/// The module's version, from the crate's.
fn version() -> CK_VERSION {
    CK_VERSION {
        major: env!("CARGO_PKG_VERSION_MAJOR").parse().unwrap_or(0),
        minor: env!("CARGO_PKG_VERSION_MINOR").parse().unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_fields_are_blank_padded_and_cut_at_a_character_boundary() {
        assert_eq!(&padded::<5>("ab"), b"ab   ");
        assert_eq!(&padded::<3>("abcd"), b"abc");
        assert_eq!(&padded::<3>("aé"), b"a\xc3\xa9");
        assert_eq!(&padded::<2>("aé"), b"a ");
    }
}
