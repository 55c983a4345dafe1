//! Fuzz target: [`vss_fuzz::pki_intake`].
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| vss_fuzz::pki_intake(bytes));
