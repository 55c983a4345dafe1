//! Privacy credentials of the BBS family on BLS12-381 (seed 003).
//!
//! The signature and its proof of knowledge follow the IETF CFRG BBS draft; the user's
//! secret lives on a card that computes its own share of every proof ([`holder`]). Every
//! public function returns the crate's [`Result`] ([`error`]), but those of [`group`] and
//! the card's side of [`holder`], which the card links on its own.

pub mod attributes;
pub mod bbs;
pub mod codec;
pub mod error;
pub mod group;
pub mod holder;
pub mod issuance;
#[cfg(feature = "service")]
pub mod layout;
pub mod predicates;
pub mod presentation;
#[cfg(feature = "service")]
pub mod roles;
#[cfg(feature = "service")]
pub mod scenario;
#[cfg(feature = "service")]
pub mod service;
pub mod spec;
#[cfg(feature = "service")]
pub mod system;

pub use error::{Error, Result};
