//! `vss bench its-verify`: 1609.2 signed-data verification with the certificate cache warm
//! and cold, as a ratio to the raw ECDSA verification rate measured in the same run.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Result};
use clap::{Args, ValueEnum};
use serde_json::json;
use vss_crypto::{Curve, PrivateKey};
use vss_its::asn::Duration;
use vss_its::{
    issue_certificate, Cert, CertificateRequest, ItsTime, Permission, Profile, SignedDataRequest,
    SignedMessage, SignerKind, TrustStore, Validator, Verdict,
};

use super::finish;
use crate::output::progress;
use crate::output::{Format, Table};

/// How the benchmark's messages name their signer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SignerForm {
    /// HashedId8 (the signer's certificate is cached from an earlier message).
    Digest,
    /// The whole certificate in every message.
    Certificate,
}

/// Options of `vss bench its-verify`.
#[derive(Args)]
pub struct ItsVerifyArgs {
    /// How messages name their signer.
    #[arg(long, value_enum, default_value = "digest")]
    signer: SignerForm,
    /// Curve of every key (the tickets' and the CAs').
    #[arg(long, default_value = "p256")]
    curve: Curve,
    /// Messages verified in each measurement.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..))]
    messages: u32,
    /// Distinct signers (authorization tickets), taking turns.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    signers: u32,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// A root, an AA and tickets, in memory.
pub(super) struct Pki {
    root: Cert,
    pub(super) aa: Cert,
    tickets: Vec<(Cert, PrivateKey)>,
}

/// Builds a root, an AA and `signers` tickets for PSID 36 on `curve`, starting `now`.
pub(super) fn build_pki(curve: Curve, signers: u32, now: ItsTime) -> Result<Pki> {
    let request = |profile, key: &PrivateKey, duration| {
        let mut r = CertificateRequest::new(profile, key.public_key().clone(), duration);
        r.start = now;
        r
    };
    let root_key = PrivateKey::generate(curve)?;
    let mut r = request(Profile::Root, &root_key, Duration::Years(10));
    r.name = Some("bench-root".into());
    let root = issue_certificate(&r, None, &root_key)?;
    let aa_key = PrivateKey::generate(curve)?;
    let mut r = request(Profile::Aa, &aa_key, Duration::Years(4));
    r.name = Some("bench-aa".into());
    r.encryption_key = Some(PrivateKey::generate(Curve::P256)?.public_key().clone());
    let aa = issue_certificate(&r, Some(&root), &root_key)?;
    let mut tickets = Vec::new();
    for _ in 0..signers {
        let key = PrivateKey::generate(curve)?;
        let mut r = request(Profile::At, &key, Duration::Hours(168));
        r.app_permissions = vec![Permission::psid(36)];
        tickets.push((issue_certificate(&r, Some(&aa), &aa_key)?, key));
    }
    Ok(Pki { root, aa, tickets })
}

impl Pki {
    /// The root.
    pub(super) fn root(&self) -> &Cert {
        &self.root
    }

    /// A trust store holding the root.
    pub(super) fn trust(&self) -> Result<TrustStore> {
        let mut t = TrustStore::new();
        t.add(self.root.clone())?;
        Ok(t)
    }

    /// Message `i`: its number signed by ticket `i mod signers`, generated `now`.
    pub(super) fn sign(&self, i: usize, kind: SignerKind, now: ItsTime) -> Result<Vec<u8>> {
        let (cert, key) = &self.tickets[i % self.tickets.len()];
        let payload = (i as u64).to_be_bytes();
        let mut r = SignedDataRequest::new(36, &payload);
        r.generation_time = Some(now);
        r.signer = kind;
        Ok(vss_its::encode_data(&vss_its::sign_data(
            &r,
            Some(cert),
            key,
        )?)?)
    }

    /// The raw ECDSA rate over `messages` (message `i` from ticket `i mod signers`): the
    /// same signatures over the same digests, keys already parsed; and how many verified.
    pub(super) fn raw_verify_rate(&self, messages: &[Vec<u8>]) -> Result<(f64, usize)> {
        let mut inputs = Vec::with_capacity(messages.len());
        for (i, bytes) in messages.iter().enumerate() {
            let m = SignedMessage::from_bytes(bytes)?;
            let cert = &self.tickets[i % self.tickets.len()].0;
            inputs.push((
                i % self.tickets.len(),
                m.signed_digest(Some(cert))?,
                m.signature()?,
            ));
        }
        let keys = self
            .tickets
            .iter()
            .map(|(c, _)| Ok(c.verification_key()?.verifying_key()?))
            .collect::<Result<Vec<_>>>()?;
        let started = Instant::now();
        let ok = inputs
            .iter()
            .filter(|(k, digest, sig)| keys[*k].verify_digest(digest, sig))
            .count();
        Ok((messages.len() as f64 / started.elapsed().as_secs_f64(), ok))
    }
}

impl ItsVerifyArgs {
    /// Runs the benchmark.
    pub fn run(self) -> Result<ExitCode> {
        let now = ItsTime::now();
        let pki = build_pki(self.curve, self.signers, now)?;
        let n = self.messages as usize;
        let bar = progress(n as u64 * 2, "signing");
        let sign = |i: usize, kind: SignerKind| pki.sign(i, kind, now);
        let kind = match self.signer {
            SignerForm::Digest => SignerKind::Digest,
            SignerForm::Certificate => SignerKind::Certificate,
        };
        let mut messages = Vec::with_capacity(n);
        for i in 0..n {
            messages.push(sign(i, kind)?);
            bar.inc(1);
        }
        let (raw_rate, raw_ok) = pki.raw_verify_rate(&messages)?;

        // Warm: every signer's chain is cached before the clock starts.
        let mut validator = Validator::new(pki.trust()?, pki.tickets.len() + 1);
        let chain = [pki.aa.clone()];
        for i in 0..pki.tickets.len() {
            let first = sign(i, SignerKind::Certificate)?;
            if validator.verify_data(&first, &chain, now).verdict != Verdict::Valid {
                bail!("the warm-up message of signer {i} is not valid");
            }
        }
        let validations_before = validator.cache_stats().inserts;
        let started = Instant::now();
        let mut warm_ok = 0;
        for bytes in &messages {
            warm_ok += usize::from(validator.verify_data(bytes, &chain, now).is_valid());
            bar.inc(1);
        }
        let warm_rate = n as f64 / started.elapsed().as_secs_f64();
        let warm_validations = validator.cache_stats().inserts - validations_before;
        bar.finish_and_clear();

        // Cold: a fresh cache for every message (certificate signers only: a digest names a
        // certificate the receiver must already hold).
        let cold = if self.signer == SignerForm::Certificate {
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

        let success = raw_ok == n && warm_ok == n && cold.is_none_or(|(_, ok)| ok == n);
        let ratio = warm_rate / raw_rate;
        let json = json!({
            "signer": self.signer.to_possible_value().map(|v| v.get_name().to_string()),
            "curve": self.curve.name(),
            "messages": n,
            "signers": pki.tickets.len(),
            "raw_verify_per_second": raw_rate,
            "warm": {"messages_per_second": warm_rate, "ratio_to_raw": ratio, "chain_validations": warm_validations},
            "cold": cold.map(|(rate, _)| json!({"messages_per_second": rate, "ratio_to_raw": rate / raw_rate})),
            "target_warm_ratio": 0.9,
            "success": success,
        });
        let mut table = Table::new(&["measurement", "per second", "ratio to raw ECDSA verify"]);
        table.row(vec![
            format!("raw ECDSA verify ({})", self.curve),
            format!("{raw_rate:.0}"),
            "1.00".into(),
        ]);
        table.row(vec![
            format!("signed data, cache warm ({warm_validations} chain validations)"),
            format!("{warm_rate:.0}"),
            format!("{ratio:.2}"),
        ]);
        if let Some((rate, _)) = cold {
            table.row(vec![
                "signed data, cache cold".into(),
                format!("{rate:.0}"),
                format!("{:.2}", rate / raw_rate),
            ]);
        }
        finish(
            self.format,
            &json,
            &table.render(),
            success,
            "a message of the benchmark did not verify",
        )
    }
}
