//! Fuzz target: [`vss_fuzz::pkcs11_templates`].
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| vss_fuzz::pkcs11_templates(bytes));
