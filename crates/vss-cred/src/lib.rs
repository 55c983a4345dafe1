//! Privacy credentials of the BBS family on BLS12-381 (seed 003).
//!
//! The signature and its proof of knowledge follow the IETF CFRG BBS draft; the user's
//! secret lives on a card that computes its own share of every proof ([`holder`]).

pub mod attributes;
pub mod bbs;
pub mod codec;
pub mod group;
pub mod holder;
pub mod issuance;
pub mod predicates;
pub mod presentation;
#[cfg(feature = "service")]
pub mod roles;
#[cfg(feature = "service")]
pub mod scenario;
#[cfg(feature = "service")]
pub mod service;
pub mod spec;
