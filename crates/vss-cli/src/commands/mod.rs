//! One module per `vss` subcommand group.

pub mod bench;
pub mod card;
pub mod cred;
pub mod demo;
pub mod ecdsa;
pub mod engine;
pub mod filter;
pub mod hsm;
pub mod its;
pub mod kem;
pub mod keys;
pub mod pki;
pub mod selftest;
pub mod station;
pub mod stats;
pub mod tls;
