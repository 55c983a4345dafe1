//! Fuzz target: [`vss_fuzz::prepared_verify`].
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| vss_fuzz::prepared_verify(bytes));
