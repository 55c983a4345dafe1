//! Fuzz target: [`vss_fuzz::decode_data`].
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| vss_fuzz::decode_data(bytes));
