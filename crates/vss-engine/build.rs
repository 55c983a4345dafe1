//! Builds the GPU kernel's source (kernels/) for the host with the C++ compiler, so the
//! kernel's arithmetic is tested without a GPU and the GPU engine's tables are made by the
//! same code. The compiled code is optimised even in debug builds: the tests verify
//! thousands of signatures through it.

fn main() {
    println!("cargo:rerun-if-changed=kernels");
    cc::Build::new()
        .cpp(true)
        .file("kernels/host.cpp")
        .opt_level(2)
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .compile("vss_kernel_host");
}
