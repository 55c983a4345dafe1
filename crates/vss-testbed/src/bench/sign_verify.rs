//! The sign/verify benchmark of PRESERVE D3.1.1 (seed 000, section 4; Test_Sign_Verify_VB_01).

use std::time::{Duration, Instant};

use anyhow::Result;
use serde_json::json;
use vss_crypto::{Curve, HashAlg};

use super::references::references;
use super::{BenchHsm, HsmOptions};
use crate::report::{progress, Report, Table};

/// Options of the sign/verify benchmark.
#[derive(Debug, Clone)]
pub struct SignVerifyOptions {
    /// The curve of the key.
    pub curve: Curve,
    /// The hash; the curve's own when `None`.
    pub hash: Option<HashAlg>,
    /// Number of runs (the seed's tables have 10).
    pub runs: u32,
    /// Signatures and verifications per run; message i of a run is i+1 bytes long.
    pub ops: u32,
    /// The HSM that signs.
    pub hsm: HsmOptions,
}

/// The outcome of one run.
struct Run {
    sign: Duration,
    verify: Duration,
    success: bool,
}

/// Runs the benchmark; its check fails if a signature did not verify or a tampered copy
/// was accepted.
pub fn run(options: &SignVerifyOptions) -> Result<Report> {
    let hash = options.hash.unwrap_or(options.curve.default_hash());
    let bench = BenchHsm::new(&options.hsm, options.curve)?;
    let verifier = bench.hsm().public_key(bench.key())?.verifying_key()?;
    let bar = progress(
        u64::from(options.runs) * u64::from(options.ops),
        "sign/verify",
    );
    let mut runs = Vec::with_capacity(options.runs as usize);
    for _ in 0..options.runs {
        let mut run = Run {
            sign: Duration::ZERO,
            verify: Duration::ZERO,
            success: true,
        };
        for i in 0..options.ops as usize {
            // Test_Sign_Verify_VB_01: each message is one byte longer than the last.
            let message: Vec<u8> = (0..=i).map(|b| (b * 31 + 7) as u8).collect();
            let started = Instant::now();
            let signature = bench
                .hsm()
                .sign_digest(bench.key(), &hash.digest(&message))?;
            let signed = Instant::now();
            let valid = verifier.verify(hash, &message, &signature);
            run.verify += signed.elapsed();
            run.sign += signed - started;
            let mut tampered = message;
            tampered[i / 2] ^= 0x01;
            let rejected = !verifier.verify(hash, &tampered, &signature);
            run.success &= valid && rejected;
            bar.inc(1);
        }
        runs.push(run);
    }
    bar.finish_and_clear();
    let figures = Figures::new(options, hash, &runs);
    Ok(Report::checked(
        figures.json(),
        figures.table(),
        figures.success,
        "a signature failed to verify or a tampered copy was accepted",
    ))
}

/// Per-operation figures of the whole benchmark.
struct Figures {
    curve: Curve,
    hash: HashAlg,
    hsm: &'static str,
    ops: u32,
    runs: Vec<(f64, f64, bool)>,
    sign_ms: f64,
    verify_ms: f64,
    success: bool,
}

impl Figures {
    fn new(options: &SignVerifyOptions, hash: HashAlg, runs: &[Run]) -> Self {
        let per_op = |d: Duration| d.as_secs_f64() * 1000.0 / f64::from(options.ops);
        let runs: Vec<_> = runs
            .iter()
            .map(|r| (per_op(r.sign), per_op(r.verify), r.success))
            .collect();
        let mean =
            |f: fn(&(f64, f64, bool)) -> f64| runs.iter().map(f).sum::<f64>() / runs.len() as f64;
        Figures {
            curve: options.curve,
            hash,
            hsm: options.hsm.backend.name(),
            ops: options.ops,
            sign_ms: mean(|r| r.0),
            verify_ms: mean(|r| r.1),
            success: runs.iter().all(|r| r.2),
            runs,
        }
    }

    fn table(&self) -> String {
        let mut out = format!(
            "VSS sign/verify benchmark: curve {}, hash {}, hsm {}, {} runs x {} operations \
             (messages of 1..{} bytes)\n\n",
            self.curve,
            self.hash,
            self.hsm,
            self.runs.len(),
            self.ops,
            self.ops
        );
        let mut t = Table::new(&[
            "Test #",
            "Sign Duration (ms)",
            "Verify Duration (ms)",
            "Success",
        ]);
        for (i, (sign, verify, ok)) in self.runs.iter().enumerate() {
            t.row(vec![
                (i + 1).to_string(),
                format!("{sign:.3}"),
                format!("{verify:.3}"),
                if *ok { "yes" } else { "NO" }.into(),
            ]);
        }
        t.row(vec![
            "average".into(),
            format!("{:.3}", self.sign_ms),
            format!("{:.3}", self.verify_ms),
            "-".into(),
        ]);
        t.row(vec![
            "per second".into(),
            format!("{:.0}", 1000.0 / self.sign_ms),
            format!("{:.0}", 1000.0 / self.verify_ms),
            "-".into(),
        ]);
        out.push_str(&t.render());
        out.push_str("\nReference rows from the seeds, and this machine's speed-up over each:\n\n");
        let mut r = Table::new(&[
            "Reference",
            "Curve",
            "Sign (ms)",
            "Verify (ms)",
            "Sign/s",
            "Verify/s",
            "Speed-up sign",
            "Speed-up verify",
            "Source",
        ]);
        for reference in references(self.curve) {
            r.row(vec![
                reference.name.into(),
                reference.curve.into(),
                format!("{:.2}", reference.sign_ms),
                format!("{:.2}", reference.verify_ms),
                format!("{:.1}", 1000.0 / reference.sign_ms),
                format!("{:.1}", 1000.0 / reference.verify_ms),
                format!("{:.0}x", reference.sign_ms / self.sign_ms),
                format!("{:.0}x", reference.verify_ms / self.verify_ms),
                reference.source.into(),
            ]);
        }
        out.push_str(&r.render());
        out
    }

    fn json(&self) -> serde_json::Value {
        json!({
            "benchmark": "sign-verify",
            "curve": self.curve.name(),
            "hash": self.hash.name(),
            "hsm": self.hsm,
            "ops_per_run": self.ops,
            "runs": self.runs.iter().enumerate().map(|(i, (sign, verify, ok))| json!({
                "run": i + 1, "sign_ms": round3(*sign), "verify_ms": round3(*verify), "success": ok,
            })).collect::<Vec<_>>(),
            "average": { "sign_ms": round3(self.sign_ms), "verify_ms": round3(self.verify_ms) },
            "per_second": { "sign": 1000.0 / self.sign_ms, "verify": 1000.0 / self.verify_ms },
            "success": self.success,
            "references": references(self.curve).iter().map(|r| json!({
                "name": r.name, "source": r.source, "curve": r.curve,
                "sign_ms": r.sign_ms, "verify_ms": r.verify_ms,
                "speedup_sign": r.sign_ms / self.sign_ms,
                "speedup_verify": r.verify_ms / self.verify_ms,
            })).collect::<Vec<_>>(),
        })
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use vss_hsm::Backend;

    #[test]
    fn a_short_run_passes_and_reports_its_runs_beside_the_references() {
        let options = SignVerifyOptions {
            curve: Curve::P256,
            hash: None,
            runs: 2,
            ops: 3,
            hsm: HsmOptions {
                backend: Backend::Soft,
                module: Default::default(),
            },
        };
        let report = run(&options).expect("benchmark");
        assert!(report.failure.is_none(), "{:?}", report.failure);
        assert_eq!(report.json["hash"], "sha256");
        assert_eq!(report.json["runs"].as_array().map(Vec::len), Some(2));
        assert!(report.table.contains("Speed-up sign"), "{}", report.table);
    }
}
