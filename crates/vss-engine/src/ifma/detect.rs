//! Whether this CPU can run the lanes. build.rs compiles this file too: the lanes' tests run
//! where the CPU that builds them passes this check (cfg `vss_avx512ifma`).

/// Whether this CPU has AVX-512 IFMA (and AVX-512 F), the lanes' target features.
pub(crate) fn available() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512ifma")
}
