//! TS 102 941 over HTTP: the authorities' routes (axum) and the client (ureq).

mod client;
mod loopback;
mod server;

pub use client::{post, HttpEaLink, HttpError};
pub use loopback::LoopbackServer;
pub use server::{router, services, Services, CODE_HEADER, REQUEST_TYPE, RESPONSE_TYPE};
