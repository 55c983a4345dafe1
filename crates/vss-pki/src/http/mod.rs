//! TS 102 941 over HTTP: the authorities' routes (axum) and the client (ureq).

mod client;
mod loopback;
mod media_type;
mod server;

pub use client::{post, HttpEaLink, HttpError};
pub use loopback::LoopbackServer;
pub use media_type::is_media_type;
pub use server::{router, services, Services, CODE_HEADER, REQUEST_TYPE, RESPONSE_TYPE};
