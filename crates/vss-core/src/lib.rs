//! The V2X security entity (seed 000's VSS): what a V2X stack calls to sign what it sends
//! and check what it receives while the vehicle's pseudonyms stay private.
//!
//! - [`config`]: the one TOML file (the seed's `pcom.cfg`);
//! - [`pseudonym`]: the [`PseudonymManager`], a pool of authorization tickets with their
//!   HSM keys, its change rules, block/free and the stack's callbacks;
//! - [`policy`]: the [`VerificationPolicy`] (always, sampling, on demand);
//! - [`sign`]: the [`SignService`], signing with the current pseudonym;
//! - [`verify`]: the [`VerifyService`], verdicts under the policy, verification on demand,
//!   signatures checked in batches on a `vss_engine::VerifyEngine`;
//! - [`frame`]: frame encryption to a certificate's encryption key, decryption in the HSM;
//! - [`filter`]: seed 001's transparent mode, forwarding only what verifies, in batches
//!   bounded by a size and a deadline;
//! - [`gn_bridge`]: the same on the GeoNetworking wire, both ways: a bridge between an
//!   unsecured ITS stack and the radio that signs what the stack sends and verifies what
//!   it receives;
//! - [`events`]: the outer system told of each dropped message and pseudonym change;
//! - [`stats`]: checkpoints logged to rotating files, and their report;
//! - [`entity`]: [`Vss`], all of it built from the configuration;
//! - [`id_change`]: identifier changes as PREPARE, COMMIT and ABORT events;
//! - [`pin`]: where an unattended entity finds its key store's PIN.
//!
//! The harnesses that run the entity (loopback PKIs, seed 000's validation suite, the demo,
//! the benchmarks) are the `vss-testbed` crate's.

pub mod config;
pub mod entity;
mod error;
pub mod events;
pub mod filter;
pub mod frame;
pub mod gn_bridge;
pub mod id_change;
pub mod pin;
pub mod policy;
pub mod pseudonym;
pub mod replay;
pub mod sign;
pub mod stats;
pub mod verify;

pub use config::Config;
pub use entity::{TrustRefresh, Vss};
pub use error::{Error, Result};
pub use policy::VerificationPolicy;
pub use pseudonym::PseudonymManager;
pub use sign::SignService;
pub use verify::VerifyService;
