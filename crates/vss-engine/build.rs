//! Builds the GPU kernel's source (kernels/) for the host with the C++ compiler, so the
//! kernel's arithmetic is tested without a GPU and the GPU engine's tables are made by the
//! same code. The compiled code is optimised even in debug builds: the tests verify
//! thousands of signatures through it.

fn main() {
    println!("cargo:rerun-if-changed=kernels");
    // The GPU tests run where the machine that builds them has a CUDA device (its driver's
    // control node); elsewhere they are reported as ignored, with the reason, not as passed.
    // On a GPU machine that did not build them: `--include-ignored`.
    println!("cargo:rustc-check-cfg=cfg(vss_cuda_device)");
    if std::path::Path::new("/dev/nvidiactl").exists() {
        println!("cargo:rustc-cfg=vss_cuda_device");
    }
    // Likewise the NVRTC test: it runs where libnvrtc is on LD_LIBRARY_PATH or in CUDA's
    // usual folder (scripts/test installs it from PyPI), and is ignored elsewhere.
    println!("cargo:rustc-check-cfg=cfg(vss_nvrtc)");
    println!("cargo:rerun-if-env-changed=LD_LIBRARY_PATH");
    let library_path = std::env::var("LD_LIBRARY_PATH").unwrap_or_default();
    let has_nvrtc = library_path
        .split(':')
        .chain(["/usr/local/cuda/lib64"])
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flatten()
        .flatten()
        .any(|entry| {
            entry
                .file_name()
                .to_string_lossy()
                .starts_with("libnvrtc.so")
        });
    if has_nvrtc {
        println!("cargo:rustc-cfg=vss_nvrtc");
    }
    // Likewise the AVX-512 IFMA lanes' tests: they run where the CPU that builds them has
    // IFMA (by the engine's own check), and are ignored elsewhere.
    println!("cargo:rustc-check-cfg=cfg(vss_avx512ifma)");
    if builds_on_ifma() {
        println!("cargo:rustc-cfg=vss_avx512ifma");
    }
    cc::Build::new()
        .cpp(true)
        .file("kernels/host.cpp")
        .opt_level(2)
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .compile("vss_kernel_host");
}

#[cfg(target_arch = "x86_64")]
#[path = "src/ifma/detect.rs"]
mod detect;

/// Whether the crate is built for x86-64 on a CPU with AVX-512 IFMA.
fn builds_on_ifma() -> bool {
    #[cfg(target_arch = "x86_64")]
    let here = detect::available();
    #[cfg(not(target_arch = "x86_64"))]
    let here = false;
    here && std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|arch| arch == "x86_64")
}
