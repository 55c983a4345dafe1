//! Fuzz target: [`vss_fuzz::verify`].
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| vss_fuzz::verify(bytes));
