//! Fuzz target: [`vss_fuzz::gn_packet`].
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| vss_fuzz::gn_packet(bytes));
