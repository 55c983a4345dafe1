//! The GPU tests of the `vss` command run where the machine that builds them has a CUDA
//! device (its driver's control node), as vss-engine's do; elsewhere they are reported as
//! ignored, with the reason, and the test of the refusal without a GPU runs instead.

fn main() {
    println!("cargo:rustc-check-cfg=cfg(vss_cuda_device)");
    if std::path::Path::new("/dev/nvidiactl").exists() {
        println!("cargo:rustc-cfg=vss_cuda_device");
    }
}
