//! `vss bench its-verify`: 1609.2 signed-data verification with the certificate cache warm
//! (every signature checked by the library, then with the prepared keys of repeat signers,
//! with their memory) and cold, as a ratio to the raw ECDSA verification rate measured in
//! the same run; or, with `traffic`, seed 001's traffic model ([`super::traffic`]).

use std::time::Instant;

use anyhow::{bail, Result};
use indicatif::ProgressBar;
use serde_json::json;
use vss_crypto::Curve;
use vss_its::{CacheStats, ItsTime, PreparedKeyPolicy, SignerKind, Validator, Verdict};

use super::ticket_pki::{build_pki, Pki};
use crate::report::{progress, Report, Table};

/// How the benchmark's messages name their signer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum SignerForm {
    /// HashedId8 (the signer's certificate is cached from an earlier message).
    Digest,
    /// The whole certificate in every message.
    Certificate,
}

impl SignerForm {
    /// Its name in the report (as `--signer` takes it).
    pub fn name(self) -> &'static str {
        match self {
            SignerForm::Digest => "digest",
            SignerForm::Certificate => "certificate",
        }
    }

    fn kind(self) -> SignerKind {
        match self {
            SignerForm::Digest => SignerKind::Digest,
            SignerForm::Certificate => SignerKind::Certificate,
        }
    }
}

/// Options of the its-verify benchmark.
#[derive(Debug, Clone)]
pub struct ItsVerifyOptions {
    /// How messages name their signer.
    pub signer: SignerForm,
    /// Curve of every key (the tickets' and the CAs').
    pub curve: Curve,
    /// Messages verified in each measurement (at least 1).
    pub messages: u32,
    /// Distinct signers (authorization tickets), taking turns (at least 1); with `traffic`,
    /// the neighbours in range.
    pub signers: u32,
    /// Seconds of seed 001's traffic to verify instead ([`super::traffic`]), 1 to 3,600.
    pub traffic: Option<u32>,
}

/// What one run measured: rates per second, and whether every message verified.
struct Rates {
    raw: f64,
    /// Warm, every signature checked by the library.
    library: Warm,
    /// Warm, with the prepared keys of the default [`PreparedKeyPolicy`].
    prepared: Warm,
    /// Certificate signers only.
    cold: Option<f64>,
    success: bool,
}

/// One warm measurement: every signer's chain cached before the clock starts.
struct Warm {
    rate: f64,
    /// Chain validations while the clock ran.
    validations: u64,
    /// The cache's counters at the end (warm-up included).
    stats: CacheStats,
    /// Messages that verified.
    ok: usize,
}

/// Runs the benchmark.
pub fn run(options: &ItsVerifyOptions) -> Result<Report> {
    if let Some(seconds) = options.traffic {
        return super::traffic::run(options.curve, options.signers, seconds);
    }
    let rates = measure(options)?;
    Ok(report(options, &rates))
}

/// Signs the messages, then verifies them raw, with the cache warm (with and without
/// prepared keys) and (certificate signers) cold.
fn measure(options: &ItsVerifyOptions) -> Result<Rates> {
    let now = ItsTime::now();
    let pki = build_pki(options.curve, options.signers, now)?;
    let n = options.messages as usize;
    let bar = progress(n as u64 * 3, "signing");
    let mut messages = Vec::with_capacity(n);
    for i in 0..n {
        messages.push(pki.sign(i, options.signer.kind(), now)?);
        bar.inc(1);
    }
    let (raw_rate, raw_ok) = pki.raw_verify_rate(&messages)?;
    let library = warm(&pki, &messages, PreparedKeyPolicy::OFF, now, &bar)?;
    let prepared = warm(&pki, &messages, PreparedKeyPolicy::default(), now, &bar)?;
    bar.finish_and_clear();

    // Cold: a fresh cache for every message (certificate signers only: a digest names a
    // certificate the receiver must already hold).
    let chain = [pki.aa.clone()];
    let cold = if options.signer == SignerForm::Certificate {
        let started = Instant::now();
        let mut ok = 0;
        for bytes in &messages {
            let mut fresh = Validator::new(pki.trust()?, 4);
            ok += usize::from(fresh.verify_data(bytes, &chain, now).is_valid());
        }
        Some((n as f64 / started.elapsed().as_secs_f64(), ok))
    } else {
        None
    };
    let success =
        raw_ok == n && library.ok == n && prepared.ok == n && cold.is_none_or(|(_, ok)| ok == n);
    Ok(Rates {
        raw: raw_rate,
        library,
        prepared,
        cold: cold.map(|(rate, _)| rate),
        success,
    })
}

/// Verifies `messages` with every signer's chain cached before the clock starts, keys
/// prepared under `policy`.
fn warm(
    pki: &Pki,
    messages: &[Vec<u8>],
    policy: PreparedKeyPolicy,
    now: ItsTime,
    bar: &ProgressBar,
) -> Result<Warm> {
    let mut validator = Validator::new(pki.trust()?, pki.signers() + 1).with_prepared_keys(policy);
    let chain = [pki.aa.clone()];
    for i in 0..pki.signers() {
        let first = pki.sign(i, SignerKind::Certificate, now)?;
        if validator.verify_data(&first, &chain, now).verdict != Verdict::Valid {
            bail!("the warm-up message of signer {i} is not valid");
        }
    }
    let validations_before = validator.cache_stats().inserts;
    let started = Instant::now();
    let mut ok = 0;
    for bytes in messages {
        ok += usize::from(validator.verify_data(bytes, &chain, now).is_valid());
        bar.inc(1);
    }
    let rate = messages.len() as f64 / started.elapsed().as_secs_f64();
    let stats = validator.cache_stats();
    Ok(Warm {
        rate,
        validations: stats.inserts - validations_before,
        stats,
        ok,
    })
}

impl Warm {
    /// Its JSON, with its ratio to the raw rate.
    fn json(&self, raw_rate: f64) -> serde_json::Value {
        json!({
            "messages_per_second": self.rate,
            "ratio_to_raw": self.rate / raw_rate,
            "chain_validations": self.validations,
        })
    }

    /// Its table row.
    fn row(&self, what: &str, raw_rate: f64) -> Vec<String> {
        vec![
            format!(
                "signed data, cache warm, {what} ({} chain validations)",
                self.validations
            ),
            format!("{:.0}", self.rate),
            format!("{:.2}", self.rate / raw_rate),
        ]
    }
}

/// The report of a run: its rates as JSON and as a table.
fn report(options: &ItsVerifyOptions, rates: &Rates) -> Report {
    let raw_rate = rates.raw;
    let stats = rates.prepared.stats;
    let json = json!({
        "signer": options.signer.name(),
        "curve": options.curve.name(),
        "messages": options.messages,
        "signers": options.signers,
        "raw_verify_per_second": raw_rate,
        "warm": rates.prepared.json(raw_rate),
        "warm_library": rates.library.json(raw_rate),
        "prepared_keys": super::traffic::prepared_keys_json(&stats),
        "cold": rates.cold.map(|rate| json!({"messages_per_second": rate, "ratio_to_raw": rate / raw_rate})),
        "target_warm_ratio": 0.9,
        "success": rates.success,
    });
    let mut table = Table::new(&["measurement", "per second", "ratio to raw ECDSA verify"]);
    table.row(vec![
        format!("raw ECDSA verify ({})", options.curve),
        format!("{raw_rate:.0}"),
        "1.00".into(),
    ]);
    table.row(rates.library.row("library", raw_rate));
    table.row(rates.prepared.row(
        &format!(
            "prepared keys ({} built, {} KiB)",
            stats.prepared_builds,
            stats.prepared_bytes >> 10
        ),
        raw_rate,
    ));
    if let Some(rate) = rates.cold {
        table.row(vec![
            "signed data, cache cold".into(),
            format!("{rate:.0}"),
            format!("{:.2}", rate / raw_rate),
        ]);
    }
    Report::checked(
        json,
        table.render(),
        rates.success,
        "a message of the benchmark did not verify",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_verifies_warm_and_cold() {
        let options = ItsVerifyOptions {
            signer: SignerForm::Certificate,
            curve: Curve::P256,
            messages: 6,
            signers: 2,
            traffic: None,
        };
        let report = run(&options).expect("its-verify");
        assert!(report.failure.is_none(), "{}", report.json);
        assert_eq!(report.json["signer"], "certificate");
        assert_eq!(report.json["signers"], 2);
        assert!(report.json["cold"]["messages_per_second"].as_f64() > Some(0.0));
        assert!(report.table.contains("signed data, cache cold"));
        // Six messages from two signers: none heard more than eight times.
        assert_eq!(report.json["prepared_keys"]["builds"], 0);
    }

    #[test]
    fn repeat_signers_are_verified_with_prepared_keys_within_the_bound() {
        let options = ItsVerifyOptions {
            signer: SignerForm::Digest,
            curve: Curve::P256,
            messages: 40,
            signers: 2,
            traffic: None,
        };
        let report = run(&options).expect("its-verify");
        assert!(report.failure.is_none(), "{}", report.json);
        let prepared = &report.json["prepared_keys"];
        // The two tickets (the AA checked only their two certificates).
        assert_eq!(prepared["builds"], 2, "{prepared}");
        assert!(prepared["hits"].as_u64() > Some(20), "{prepared}");
        assert!(prepared["bytes"].as_u64() <= prepared["max_bytes"].as_u64());
        assert!(report.json["warm_library"]["messages_per_second"].as_f64() > Some(0.0));
        assert!(report.table.contains("prepared keys (2 built"));
    }
}
