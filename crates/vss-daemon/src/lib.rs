//! `vssd`: the security entity of `vss-core` as a service. The API `vss.v1` (the crate
//! `vss-proto`: `crates/vss-proto/proto/vss/v1/vss.proto`, its generated code and client)
//! carries the SN-SAP primitives of ETSI TS 102 723-8 over gRPC on a Unix socket, and
//! optionally over TCP with mutual TLS (docs/DAEMON.md).
//!
//! - [`server`]: loading, serving, signals (SIGTERM/SIGINT stop, SIGHUP reloads);
//! - [`service`]: the RPCs on the entity; [`streams`]: their streams; [`batcher`]:
//!   `VerifyStream`'s batches;
//! - [`reply`]: the entity's results as statuses and responses;
//! - [`events`]: identifier changes broadcast to subscribers;
//! - [`listen`]: the sockets, the caps, the handshake and preface timeouts, HTTP/2 serving;
//!   [`deadline`]: each call within its client's deadline (`grpc-timeout`);
//!   [`notify`]: `sd_notify`;
//! - [`metrics`]: Prometheus metrics; [`stop`]: the stop signal; [`error`]: [`DaemonError`].

pub mod batcher;
pub mod deadline;
pub mod error;
pub mod events;
pub mod listen;
pub mod metrics;
pub mod notify;
pub mod reply;
pub mod server;
pub mod service;
pub mod stop;
pub mod streams;

pub use error::DaemonError;
