//! The key-encapsulation benchmark of seed 004 (PSEC-KEM, table 3; FPGA figures of table 1):
//! encapsulation and decapsulation latency and throughput, and the check that every
//! decapsulated key equals the encapsulated one.

use std::time::{Duration, Instant};

use anyhow::Result;
use serde_json::json;
use vss_crypto::kem::{Kem, KemParams, Scheme};
use vss_crypto::Curve;

use super::{BenchHsm, HsmOptions};
use crate::report::{progress, Report, Table};

/// Options of the key-encapsulation benchmark.
#[derive(Debug, Clone)]
pub struct KemOptions {
    /// The scheme.
    pub scheme: Scheme,
    /// The curve of the recipient's key.
    pub curve: Curve,
    /// Number of runs.
    pub runs: u32,
    /// Encapsulations and decapsulations per run.
    pub ops: u32,
    /// The scheme's parameters.
    pub params: KemParams,
    /// The HSM that holds the recipient's key and decapsulates.
    pub hsm: HsmOptions,
}

/// One row of seed 004's tables: a platform and its per-operation figures.
struct Reference {
    curve: &'static str,
    field: &'static str,
    platform: &'static str,
    source: &'static str,
    encap_us: f64,
    encap_per_second: f64,
    decap_us: f64,
    decap_per_second: f64,
}

/// PSEC-KEM over GF(2^283) in seed 004: software (table 3) and Virtex-5 FPGA (table 1).
const REFERENCES: [Reference; 4] = [
    Reference {
        curve: "Koblitz (k283)",
        field: "GF(2^283)",
        platform: "Intel Core 2 Duo (64 bit), 2.8 GHz",
        source: "seed 004 table 3",
        encap_us: 2890.0,
        encap_per_second: 346.0,
        decap_us: 2910.0,
        decap_per_second: 343.0,
    },
    Reference {
        curve: "Random (b283)",
        field: "GF(2^283)",
        platform: "Intel Core 2 Duo (64 bit), 2.8 GHz",
        source: "seed 004 table 3",
        encap_us: 5800.0,
        encap_per_second: 172.0,
        decap_us: 5800.0,
        decap_per_second: 172.0,
    },
    Reference {
        curve: "Koblitz (k283)",
        field: "GF(2^283)",
        platform: "Xilinx Virtex-5 FPGA, 31.8 MHz",
        source: "seed 004 table 1",
        encap_us: 80.0,
        encap_per_second: 12500.0,
        decap_us: 80.0,
        decap_per_second: 12500.0,
    },
    Reference {
        curve: "Random (b283)",
        field: "GF(2^283)",
        platform: "Xilinx Virtex-5 FPGA, 38.4 MHz",
        source: "seed 004 table 1",
        encap_us: 128.0,
        encap_per_second: 7812.0,
        decap_us: 128.0,
        decap_per_second: 7812.0,
    },
];

/// Time spent in each operation over one run, and whether every key matched.
struct Run {
    encap: Duration,
    decap: Duration,
    matched: bool,
}

/// Runs the benchmark; its check fails if any decapsulated key differed.
pub fn run(options: &KemOptions) -> Result<Report> {
    let kem = Kem::new(options.scheme, options.curve, &options.params)?;
    let bench = BenchHsm::new(&options.hsm, options.curve)?;
    let recipient = bench.hsm().public_key(bench.key())?;
    let bar = progress(
        u64::from(options.runs) * u64::from(options.ops),
        "encap/decap",
    );
    let mut runs = Vec::with_capacity(options.runs as usize);
    for _ in 0..options.runs {
        let mut run = Run {
            encap: Duration::ZERO,
            decap: Duration::ZERO,
            matched: true,
        };
        for _ in 0..options.ops {
            let started = Instant::now();
            let sent = kem.encapsulate(&recipient, None)?;
            let encapsulated = Instant::now();
            let received = kem.decapsulate(&sent.ciphertext, |point: &vss_crypto::PublicKey| {
                bench.hsm().ecdh(bench.key(), point)
            });
            run.decap += encapsulated.elapsed();
            run.encap += encapsulated - started;
            run.matched &= received.is_ok_and(|key| key == sent.key);
            bar.inc(1);
        }
        runs.push(run);
    }
    bar.finish_and_clear();
    let figures = Figures::new(options, &runs);
    Ok(Report::checked(
        figures.json(),
        figures.table(),
        figures.success,
        "a decapsulated key differed from the encapsulated one",
    ))
}

/// Latency and throughput of one operation.
#[derive(Clone, Copy)]
struct Rate {
    latency_us: f64,
    per_second: f64,
}

impl Rate {
    fn of(total: Duration, ops: u64) -> Rate {
        let seconds = total.as_secs_f64();
        Rate {
            latency_us: seconds * 1e6 / ops as f64,
            per_second: ops as f64 / seconds,
        }
    }

    fn json(self) -> serde_json::Value {
        json!({
            "latency_us": (self.latency_us * 100.0).round() / 100.0,
            "per_second": self.per_second.round(),
        })
    }
}

/// The whole benchmark's figures.
struct Figures {
    scheme: Scheme,
    curve: Curve,
    hsm: &'static str,
    ops: u32,
    runs: Vec<(Rate, Rate, bool)>,
    encap: Rate,
    decap: Rate,
    success: bool,
}

impl Figures {
    fn new(options: &KemOptions, runs: &[Run]) -> Self {
        let ops = u64::from(options.ops);
        let total_ops = ops * runs.len() as u64;
        Figures {
            scheme: options.scheme,
            curve: options.curve,
            hsm: options.hsm.backend.name(),
            ops: options.ops,
            runs: runs
                .iter()
                .map(|r| (Rate::of(r.encap, ops), Rate::of(r.decap, ops), r.matched))
                .collect(),
            encap: Rate::of(runs.iter().map(|r| r.encap).sum(), total_ops),
            decap: Rate::of(runs.iter().map(|r| r.decap).sum(), total_ops),
            success: runs.iter().all(|r| r.matched),
        }
    }

    fn table(&self) -> String {
        let mut out = format!(
            "VSS key-encapsulation benchmark: {} on {}, decapsulation in the {} HSM, \
             {} runs x {} operations, one thread\n\n",
            self.scheme.name(),
            self.curve,
            self.hsm,
            self.runs.len(),
            self.ops
        );
        let mut t = Table::new(&[
            "Run",
            "Encap latency (µs)",
            "Encap/s",
            "Decap latency (µs)",
            "Decap/s",
            "Keys matched",
        ]);
        for (i, (encap, decap, matched)) in self.runs.iter().enumerate() {
            t.row(vec![
                (i + 1).to_string(),
                format!("{:.1}", encap.latency_us),
                format!("{:.0}", encap.per_second),
                format!("{:.1}", decap.latency_us),
                format!("{:.0}", decap.per_second),
                if *matched { "yes" } else { "NO" }.into(),
            ]);
        }
        out.push_str(&t.render());
        out.push_str("\nIn the layout of seed 004's table 3, with the seed's rows:\n\n");
        let mut r = Table::new(&[
            "Elliptic curve",
            "Field",
            "Platform",
            "Encryption latency (µs)",
            "Encryptions/s",
            "Decryption latency (µs)",
            "Decryptions/s",
            "Source",
        ]);
        r.row(vec![
            self.curve.to_string(),
            field_of(self.curve),
            format!("this machine ({}, {} HSM)", cpu_model(), self.hsm),
            format!("{:.1}", self.encap.latency_us),
            format!("{:.0}", self.encap.per_second),
            format!("{:.1}", self.decap.latency_us),
            format!("{:.0}", self.decap.per_second),
            format!("vss bench kem ({})", self.scheme.name()),
        ]);
        for reference in &REFERENCES {
            r.row(vec![
                reference.curve.into(),
                reference.field.into(),
                reference.platform.into(),
                format!("{:.0}", reference.encap_us),
                format!("{:.0}", reference.encap_per_second),
                format!("{:.0}", reference.decap_us),
                format!("{:.0}", reference.decap_per_second),
                reference.source.into(),
            ]);
        }
        out.push_str(&r.render());
        out.push_str(&format!(
            "\nEvery decapsulated key matched: {}\n",
            if self.success { "yes" } else { "NO" }
        ));
        out
    }

    fn json(&self) -> serde_json::Value {
        json!({
            "benchmark": "kem",
            "scheme": self.scheme.name(),
            "curve": self.curve.name(),
            "hsm": self.hsm,
            "platform": cpu_model(),
            "ops_per_run": self.ops,
            "encap": self.encap.json(),
            "decap": self.decap.json(),
            "success": self.success,
            "runs": self.runs.iter().enumerate().map(|(i, (encap, decap, matched))| json!({
                "run": i + 1, "encap": encap.json(), "decap": decap.json(), "success": matched,
            })).collect::<Vec<_>>(),
            "references": REFERENCES.iter().map(|r| json!({
                "curve": r.curve, "field": r.field, "platform": r.platform, "source": r.source,
                "encap": { "latency_us": r.encap_us, "per_second": r.encap_per_second },
                "decap": { "latency_us": r.decap_us, "per_second": r.decap_per_second },
            })).collect::<Vec<_>>(),
        })
    }
}

/// The curve's field, as seed 004 writes it.
fn field_of(curve: Curve) -> String {
    match curve {
        Curve::K283 | Curve::B283 => "GF(2^283)".into(),
        other => format!("GF(p), {} bits", 8 * other.scalar_len()),
    }
}

/// The processor's model name from /proc/cpuinfo, or "unknown CPU".
fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find_map(|l| l.strip_prefix("model name"))
                .and_then(|rest| rest.split_once(':'))
                .map(|(_, name)| name.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use vss_hsm::Backend;

    #[test]
    fn every_decapsulated_key_matches_and_the_seed_rows_follow() {
        let options = KemOptions {
            scheme: Scheme::PsecKem,
            curve: Curve::P256,
            runs: 1,
            ops: 2,
            params: KemParams::default(),
            hsm: HsmOptions {
                backend: Backend::Soft,
                module: Default::default(),
            },
        };
        let report = run(&options).expect("benchmark");
        assert!(report.failure.is_none(), "{:?}", report.failure);
        assert_eq!(report.json["scheme"], "psec-kem");
        assert_eq!(report.json["references"].as_array().map(Vec::len), Some(4));
        assert!(report.table.contains("GF(p), 256 bits"), "{}", report.table);
    }
}
