//! TS 102 941 over HTTP: the authorities' routes (axum) served with bounded waits and
//! connections (hyper), each request logged and optionally counted, and the client (ureq).

mod client;
mod dc;
mod loopback;
mod media_type;
mod observe;
mod serve;
mod server;

pub use crate::lists::ListKind;
pub use client::{get_list, post, HttpEaLink, HttpError};
pub use dc::{
    list_url, DistributionCentre, NotServed, GET_CRL, GET_CTL, GET_DELTA_CTL, GET_ECTL,
    MAX_LIST_FILE,
};
pub use loopback::LoopbackServer;
pub use media_type::is_media_type;
pub use observe::{HttpMetrics, MAX_LOGGED, OTHER_ENDPOINT};
pub use serve::{serve, serve_with_metrics};
pub use server::{
    services, ServedPki, Services, Serving, CODE_HEADER, LIST_TYPE, REQUEST_TYPE, RESPONSE_TYPE,
};
