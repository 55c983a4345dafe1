//! The GPU engine against the CPU engine and the host build of its kernel, on P-256 and
//! brainpoolP256r1 batches mixing valid signatures and every kind of invalid one (and a
//! P-384 job left to the library). Without a CUDA driver or device the engine's error is
//! printed as "skipped: …" and the test returns; the kernel's NVRTC compilation is checked
//! wherever NVRTC can be loaded, GPU or not.
#![cfg(feature = "gpu")]

use vss_crypto::{Curve, PrivateKey};
use vss_engine::{CpuEngine, GpuEngine, GpuError, HostKernelEngine, VerifyEngine, VerifyJob};

/// Owned bytes of one job.
struct Case {
    curve: Curve,
    key: Vec<u8>,
    digest: Vec<u8>,
    signature: Vec<u8>,
}

impl Case {
    fn job(&self) -> VerifyJob<'_> {
        VerifyJob {
            curve: self.curve,
            public_key: &self.key,
            digest: &self.digest,
            signature: &self.signature,
        }
    }
}

/// Valid signatures from several signers, each followed now and then by broken copies
/// (flipped r, s or digest; another key; r or s zero, n or all ones; a key off the curve).
fn cases(curve: Curve, n: &[u8], signers: usize, per_signer: usize) -> Vec<Case> {
    let keys: Vec<PrivateKey> = (0..signers)
        .map(|_| PrivateKey::generate(curve).expect("key"))
        .collect();
    let mut out = Vec::new();
    for i in 0..signers * per_signer {
        let key = &keys[i % signers];
        let digest = curve
            .default_hash()
            .digest(format!("message {i}").as_bytes());
        let signature = key.sign_digest(&digest).expect("sign").to_p1363().to_vec();
        let public = if i % 2 == 0 {
            key.public_key().to_sec1_uncompressed().to_vec()
        } else {
            key.public_key().to_sec1_compressed().to_vec()
        };
        let case = |key: &[u8], digest: &[u8], signature: &[u8]| Case {
            curve,
            key: key.to_vec(),
            digest: digest.to_vec(),
            signature: signature.to_vec(),
        };
        if i % 16 == 0 {
            let (r, s) = signature.split_at(32);
            let mut flipped = signature.clone();
            flipped[7] ^= 4;
            out.push(case(&public, &digest, &flipped));
            flipped = signature.clone();
            flipped[40] ^= 4;
            out.push(case(&public, &digest, &flipped));
            let mut other_digest = digest.clone();
            other_digest[31] ^= 1;
            out.push(case(&public, &other_digest, &signature));
            let other = keys[(i + 1) % signers].public_key().to_sec1_compressed();
            out.push(case(other, &digest, &signature));
            for bad in [&[0u8; 32][..], n, &[0xff; 32][..]] {
                out.push(case(&public, &digest, &[bad, s].concat()));
                out.push(case(&public, &digest, &[r, bad].concat()));
            }
            let mut off_curve = key.public_key().to_sec1_uncompressed().to_vec();
            off_curve[64] ^= 1;
            out.push(case(&off_curve, &digest, &signature));
        }
        out.push(case(&public, &digest, &signature));
    }
    out
}

fn hex_bytes(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
        .collect()
}

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
    let mut all = cases(
        Curve::P256,
        &hex_bytes("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551"),
        8,
        300,
    );
    all.extend(cases(
        Curve::Bp256,
        &hex_bytes("a9fb57dba1eea9bc3e660a909d838d718c397aa3b561a6f7901e0e82974856a7"),
        8,
        300,
    ));
    let p384 = PrivateKey::generate(Curve::P384).expect("key");
    let digest = Curve::P384.default_hash().digest(b"p384");
    all.push(Case {
        curve: Curve::P384,
        key: p384.public_key().to_sec1_uncompressed().to_vec(),
        signature: p384.sign_digest(&digest).expect("sign").to_p1363().to_vec(),
        digest,
    });
    let jobs: Vec<VerifyJob<'_>> = all.iter().map(Case::job).collect();
    let expected = CpuEngine::default().verify_batch(&jobs);
    assert!(expected.iter().any(|v| *v) && expected.iter().any(|v| !*v));
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
