//! The GPU engine against the CPU engine and the host build of its kernel, on P-256 and
//! brainpoolP256r1 batches mixing valid signatures and every kind of invalid one (and a
//! P-384 job left to the library). The tests that need a device are ignored, with the
//! reason, where the machine that built them had none (build.rs); where one was there but
//! the engine cannot open, they fail. The kernel's NVRTC compilation is checked wherever
//! NVRTC can be loaded, GPU or not, and configurations out of range are refused everywhere.
#![cfg(feature = "gpu")]

mod common;

use common::{constructed, mixed_batch, valid_cases, Case};
use vss_crypto::Curve;
use vss_engine::{
    CpuEngine, GpuConfig, GpuEngine, GpuError, HostKernelEngine, KeyTableConfig, VerifyEngine,
    VerifyJob,
};

/// The engine with `config`; a device test fails when it cannot open.
fn open(config: GpuConfig) -> GpuEngine {
    GpuEngine::with_config(config).unwrap_or_else(|e| panic!("the GPU engine does not open: {e}"))
}

#[test]
#[cfg_attr(
    not(vss_cuda_device),
    ignore = "no CUDA device (/dev/nvidiactl) where the tests were built"
)]
fn gpu_verdicts_match_the_cpu_engine() {
    let gpu = open(GpuConfig::default());
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
    assert_eq!(HostKernelEngine::default().verify_batch(&jobs), expected);
    for size in [1, 31, 129] {
        assert_eq!(
            gpu.verify_batch(&jobs[..size]),
            expected[..size],
            "{size} jobs"
        );
    }
}

#[test]
#[cfg_attr(not(vss_nvrtc), ignore = "no libnvrtc where the tests were built")]
fn the_kernel_compiles_with_nvrtc() {
    // Turing (the oldest the engine is meant for) and Hopper (the H100 it was tuned on).
    for capability in [(7, 5), (9, 0)] {
        match GpuEngine::compile_ptx(capability) {
            Ok(ptx) => {
                assert!(ptx.contains("vss_ecdsa_verify_batch"), "{ptx}");
                assert!(ptx.contains("vss_ecdsa_verify_prepared_batch"), "{ptx}");
            }
            Err(e) => panic!("NVRTC for {capability:?}: {e}"),
        }
    }
}

#[test]
#[cfg_attr(
    not(vss_cuda_device),
    ignore = "no CUDA device (/dev/nvidiactl) where the tests were built"
)]
fn small_chunks_over_several_streams_keep_the_order() {
    // 1,300 mixed jobs (two curves and a P-384 one) in chunks of 97 over three streams:
    // every chunk ends mid-group, and the streams finish out of step.
    let gpu = open(GpuConfig {
        chunk: 97,
        streams: 3,
        ..GpuConfig::default()
    });
    let mut all = mixed_batch(Curve::Bp256, 4, 50);
    all.extend(mixed_batch(Curve::P256, 4, 50));
    all.extend(valid_cases(Curve::P384, 1, 1));
    let jobs: Vec<VerifyJob<'_>> = all.iter().map(Case::job).collect();
    let valid: Vec<bool> = all.iter().map(|c| c.valid).collect();
    assert_eq!(gpu.try_verify_batch(&jobs), Ok(valid.clone()));
    let reversed: Vec<VerifyJob<'_>> = jobs.iter().rev().copied().collect();
    let expected: Vec<bool> = valid.iter().rev().copied().collect();
    assert_eq!(gpu.try_verify_batch(&reversed), Ok(expected));
}

#[test]
#[cfg_attr(
    not(vss_cuda_device),
    ignore = "no CUDA device (/dev/nvidiactl) where the tests were built"
)]
fn prepared_keys_on_the_device_give_the_cpu_engines_verdicts() {
    // Few signers, every case twice: each key gets a table in device memory, and the
    // prepared kernel decides valid signatures, every kind of invalid one and the
    // constructed sums.
    let gpu = open(GpuConfig {
        keys: KeyTableConfig {
            slots: 64,
            prepare_after: 2,
        },
        ..GpuConfig::default()
    });
    for curve in [Curve::P256, Curve::Bp256] {
        let mut all = mixed_batch(curve, 4, 200);
        all.extend(constructed(curve));
        let twice: Vec<&Case> = all.iter().chain(all.iter()).collect();
        let jobs: Vec<VerifyJob<'_>> = twice.iter().map(|c| c.job()).collect();
        let expected: Vec<bool> = twice.iter().map(|c| c.valid).collect();
        let before = gpu.prepared_keys();
        assert_eq!(gpu.try_verify_batch(&jobs), Ok(expected.clone()), "{curve}");
        assert!(gpu.prepared_keys() > before, "{curve}: no key was prepared");
        assert_eq!(
            gpu.try_verify_batch(&jobs),
            Ok(expected),
            "{curve}, tables kept"
        );
    }
    // Two slots for five busy signers, chunks of 97 over three streams: slots change hands
    // only when no chunk in flight reads them.
    let gpu = open(GpuConfig {
        chunk: 97,
        streams: 3,
        keys: KeyTableConfig {
            slots: 2,
            prepare_after: 3,
        },
        ..GpuConfig::default()
    });
    let all = mixed_batch(Curve::P256, 5, 120);
    let jobs: Vec<VerifyJob<'_>> = all.iter().map(Case::job).collect();
    let expected: Vec<bool> = all.iter().map(|c| c.valid).collect();
    for round in 0..3 {
        let from = round * 31;
        assert_eq!(
            gpu.try_verify_batch(&jobs[from..]),
            Ok(expected[from..].to_vec()),
            "round {round}"
        );
    }
    assert_eq!(gpu.prepared_keys(), 2);
}

#[test]
fn configurations_out_of_range_are_refused_before_the_device_is_opened() {
    let base = GpuConfig::default();
    assert_eq!(base.check(), Ok(()));
    for bad in [
        GpuConfig { block: 0, ..base },
        GpuConfig { block: 100, ..base },
        GpuConfig {
            block: 2048,
            ..base
        },
        GpuConfig {
            min_blocks: 0,
            ..base
        },
        GpuConfig {
            min_blocks: 33,
            ..base
        },
        GpuConfig { chunk: 0, ..base },
        GpuConfig {
            chunk: (1 << 20) + 1,
            ..base
        },
        GpuConfig { streams: 0, ..base },
        GpuConfig { streams: 9, ..base },
        GpuConfig {
            keys: KeyTableConfig {
                slots: 4097,
                ..base.keys
            },
            ..base
        },
        GpuConfig {
            keys: KeyTableConfig {
                prepare_after: 1,
                ..base.keys
            },
            ..base
        },
    ] {
        assert!(
            matches!(GpuEngine::with_config(bad), Err(GpuError::InvalidConfig(_))),
            "{bad:?}"
        );
    }
}

/// Jobs per curve in the large comparison.
const MILLION: usize = 1 << 20;

#[test]
#[cfg_attr(
    not(vss_cuda_device),
    ignore = "no CUDA device (/dev/nvidiactl) where the tests were built"
)]
fn a_million_jobs_per_curve_agree_with_the_cpu_engine() {
    // With prepared keys (the default: the 16 busy signers get tables) and without.
    let generic = GpuConfig {
        keys: KeyTableConfig {
            slots: 0,
            ..GpuConfig::default().keys
        },
        ..GpuConfig::default()
    };
    let engines = [open(GpuConfig::default()), open(generic)];
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
        for gpu in &engines {
            let got = gpu.try_verify_batch(&jobs).expect("the device answers");
            let differ = expected.iter().zip(&got).filter(|(a, b)| a != b).count();
            assert_eq!(
                differ,
                0,
                "{curve:?}, {:?}: {differ} of {MILLION} verdicts differ",
                gpu.config().keys
            );
        }
        assert!(
            engines[0].prepared_keys() >= 16,
            "the busy signers were prepared"
        );
        assert_eq!(engines[1].prepared_keys(), 0);
    }
}
