//! Fuzz target: [`vss_fuzz::certificate`].
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| vss_fuzz::certificate(bytes));
