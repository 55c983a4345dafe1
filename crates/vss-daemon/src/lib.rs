//! `vssd`: the security entity of `vss-core` as a service. The API `vss.v1`
//! (`proto/vss/v1/vss.proto`) carries the SN-SAP primitives of ETSI TS 102 723-8 over gRPC.

/// The generated messages, server and client of `vss.v1`; their documentation is the
/// proto file's (generated items without a comment there have none).
#[allow(missing_docs, clippy::all)]
pub mod proto {
    tonic::include_proto!("vss.v1");
}

pub mod client;
