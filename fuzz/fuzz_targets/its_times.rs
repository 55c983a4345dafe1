//! Fuzz target: [`vss_fuzz::times`].
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| vss_fuzz::times(bytes));
