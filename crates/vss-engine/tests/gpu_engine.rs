//! The GPU engine against the CPU engine and the host build of its kernel, on P-256 and
//! brainpoolP256r1 batches mixing valid signatures and every kind of invalid one (and a
//! P-384 job left to the library). Without a CUDA driver or device the engine's error is
//! printed as "skipped: …" and the test returns; the kernel's NVRTC compilation is checked
//! wherever NVRTC can be loaded, GPU or not.
#![cfg(feature = "gpu")]

mod common;

use common::{constructed, mixed_batch, valid_cases, Case};
use vss_crypto::Curve;
use vss_engine::{CpuEngine, GpuEngine, GpuError, HostKernelEngine, VerifyEngine, VerifyJob};

#[test]
fn gpu_verdicts_match_the_cpu_engine() {
    let gpu = match GpuEngine::new() {
        Ok(gpu) => gpu,
        Err(e) => {
            println!("skipped: {e}");
            return;
        }
    };
    assert_eq!(gpu.name(), "gpu");
    println!("device: {}", gpu.device());
    assert!(gpu.verify_batch(&[]).is_empty());
    let mut all = mixed_batch(Curve::P256, 8, 300);
    all.extend(mixed_batch(Curve::Bp256, 8, 300));
    all.extend(constructed(Curve::P256));
    all.extend(constructed(Curve::Bp256));
    // A P-384 job in the batch is left to the library.
    all.extend(valid_cases(Curve::P384, 1, 1));
    let jobs: Vec<VerifyJob<'_>> = all.iter().map(Case::job).collect();
    let expected = CpuEngine::default().verify_batch(&jobs);
    let valid: Vec<bool> = all.iter().map(|c| c.valid).collect();
    assert_eq!(expected, valid);
    assert_eq!(gpu.try_verify_batch(&jobs), Ok(expected.clone()));
    assert_eq!(gpu.verify_batch(&jobs), expected);
    assert_eq!(HostKernelEngine.verify_batch(&jobs), expected);
    for size in [1, 31, 129] {
        assert_eq!(
            gpu.verify_batch(&jobs[..size]),
            expected[..size],
            "{size} jobs"
        );
    }
}

#[test]
fn the_kernel_compiles_with_nvrtc() {
    match GpuEngine::compile_ptx((7, 5)) {
        Ok(ptx) => assert!(ptx.contains("vss_ecdsa_verify_batch"), "{ptx}"),
        Err(GpuError::NoCompiler) => println!("skipped: {}", GpuError::NoCompiler),
        Err(e) => panic!("{e}"),
    }
}

/// Jobs per curve in the large comparison.
const MILLION: usize = 1 << 20;

#[test]
fn a_million_jobs_per_curve_agree_with_the_cpu_engine() {
    let gpu = match GpuEngine::new() {
        Ok(gpu) => gpu,
        Err(e) => {
            println!("skipped: {e}");
            return;
        }
    };
    let cpu = CpuEngine::default();
    for curve in [Curve::P256, Curve::Bp256] {
        // About 20,000 distinct cases (valid, every broken kind, constructed sums), each
        // also with its digest's last bit flipped; the million jobs cycle through both.
        let mut base = mixed_batch(curve, 16, 1000);
        base.extend(constructed(curve));
        let flipped: Vec<Case> = base
            .iter()
            .map(|c| {
                let mut digest = c.digest.clone();
                if let Some(last) = digest.last_mut() {
                    *last ^= 1;
                }
                Case {
                    curve: c.curve,
                    key: c.key.clone(),
                    digest,
                    signature: c.signature.clone(),
                    valid: false,
                }
            })
            .collect();
        let jobs: Vec<VerifyJob<'_>> = (0..MILLION)
            .map(|i| {
                let pool = if (i / base.len()).is_multiple_of(2) {
                    &base
                } else {
                    &flipped
                };
                pool[i % base.len()].job()
            })
            .collect();
        let expected = cpu.verify_batch(&jobs);
        assert!(expected.iter().any(|v| *v) && expected.iter().any(|v| !*v));
        let got = gpu.try_verify_batch(&jobs).expect("the device answers");
        let differ = expected.iter().zip(&got).filter(|(a, b)| a != b).count();
        assert_eq!(
            differ, 0,
            "{curve:?}: {differ} of {MILLION} verdicts differ"
        );
    }
}
