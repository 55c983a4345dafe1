//! Generates the gRPC code of `proto/vss/v1/vss.proto` with protox (a protobuf compiler in
//! Rust, so no `protoc` is needed) and tonic.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?).join("proto");
    let file = root.join("vss/v1/vss.proto");
    println!("cargo:rerun-if-changed={}", file.display());
    let descriptors = protox::compile([&file], [&root])?;
    tonic_prost_build::configure().compile_fds(descriptors)?;
    Ok(())
}
