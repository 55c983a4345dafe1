//! libvss: the security entity of `vss-core` for C programs, in-process, with the
//! semantics of `vssd`'s gRPC API (the same verdicts, identifier-change events and
//! bounds). The header `include/vss.h` is generated from this crate by cbindgen; the
//! guide is docs/FFI.md.
//!
//! - [`types`]: the C types (status codes, verdicts, buffers, events) and the bounds;
//! - `error`: the mapping of `vss_core::Error` to a status, and the thread-local last error;
//! - [`api`]: the entry points, the only unsafe code.

pub mod api;
mod error;
pub mod types;

pub use api::*;
pub use types::*;
