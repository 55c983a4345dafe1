//! The gRPC contract of `vssd`: the API `vss.v1` (`proto/vss/v1/vss.proto` in this crate),
//! the SN-SAP primitives of ETSI TS 102 723-8, shared by the daemon that serves it and the
//! front ends that call it.
//!
//! - [`proto`]: the generated messages, server and client;
//! - [`client`]: connecting to `vssd` on its Unix socket, a report code as a verdict;
//! - [`codes`]: a verdict as its report code, report and gRPC codes as their names.

pub mod client;
pub mod codes;

/// The generated messages, server and client of `vss.v1`; their documentation is the
/// proto file's (generated items without a comment there have none).
#[allow(missing_docs, clippy::all)]
pub mod proto {
    tonic::include_proto!("vss.v1");
}
