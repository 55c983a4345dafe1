//! `vss bench filter`: messages per second through `vss filter`'s loop on one core, over
//! UDP on loopback and in-process, as a ratio to the raw P-256 verify rate of the same run.

use std::net::UdpSocket;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use clap::Args;
use serde_json::json;
use vss_core::filter::Filter;
use vss_crypto::Curve;
use vss_its::{ItsTime, SignerKind, Validator};

use super::finish;
use super::its_verify::{build_pki, Pki};
use crate::output::{progress, Format, Table};

/// Valid messages sent but not yet seen forwarded (keeps the receive buffer from
/// overflowing; a forwarded payload proves every earlier datagram was handled).
const WINDOW: usize = 64;

/// Options of `vss bench filter`.
#[derive(Args)]
pub struct FilterArgs {
    /// Messages through the filter.
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u32).range(1..))]
    messages: u32,
    /// Distinct signers (tickets): each one's first message carries its certificate, the
    /// rest name it by digest.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    signers: u32,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

fn validator(pki: &Pki) -> Result<Validator> {
    let mut v = Validator::new(pki.trust()?, 16_384);
    let report = v.verify_certificate(&pki.aa, &[], ItsTime::now());
    if !report.is_valid() {
        return Err(anyhow!("the AA does not validate: {}", report.reason));
    }
    Ok(v)
}

/// Sends `messages` through a filter on a thread and returns messages per second and how
/// many came out.
fn through_udp(
    pki: &Pki,
    messages: &[Vec<u8>],
    bar: &indicatif::ProgressBar,
) -> Result<(f64, usize)> {
    let listen = UdpSocket::bind("127.0.0.1:0").context("cannot bind on loopback")?;
    let receiver = UdpSocket::bind("127.0.0.1:0").context("cannot bind on loopback")?;
    receiver.set_read_timeout(Some(Duration::from_secs(10)))?;
    let forward = UdpSocket::bind("127.0.0.1:0").context("cannot bind on loopback")?;
    forward.connect(receiver.local_addr()?)?;
    let sender = UdpSocket::bind("127.0.0.1:0").context("cannot bind on loopback")?;
    let to = listen.local_addr()?;
    let filter = Filter::new(validator(pki)?);
    let limit = messages.len() as u64;
    std::thread::scope(|scope| {
        let running = scope.spawn(|| filter.run(&listen, &forward, Some(limit)));
        let mut buffer = vec![0u8; 65_536];
        let mut out = 0usize;
        let started = Instant::now();
        for (i, message) in messages.iter().enumerate() {
            sender.send_to(message, to)?;
            while i + 1 - out > WINDOW {
                receiver
                    .recv_from(&mut buffer)
                    .context("the filter stalled")?;
                out += 1;
                bar.inc(1);
            }
        }
        while out < messages.len() {
            receiver
                .recv_from(&mut buffer)
                .context("the filter stalled")?;
            out += 1;
            bar.inc(1);
        }
        let rate = messages.len() as f64 / started.elapsed().as_secs_f64();
        let counts = running
            .join()
            .map_err(|_| anyhow!("the filter thread panicked"))??;
        Ok((rate, counts.forwarded as usize))
    })
}

impl FilterArgs {
    /// Runs the benchmark.
    pub fn run(self) -> Result<ExitCode> {
        let now = ItsTime::now();
        let pki = build_pki(Curve::P256, self.signers, now)?;
        let n = self.messages as usize;
        let bar = progress(n as u64 * 2, "signing, then filtering");
        let mut messages = Vec::with_capacity(n);
        for i in 0..n {
            let kind = if i < self.signers as usize {
                SignerKind::Certificate
            } else {
                SignerKind::Digest
            };
            messages.push(pki.sign(i, kind, now)?);
            bar.inc(1);
        }
        let (raw_rate, raw_ok) = pki.raw_verify_rate(&messages)?;

        let filter = Filter::new(validator(&pki)?);
        let started = Instant::now();
        let inspected = messages
            .iter()
            .filter(|m| filter.inspect(m).is_ok())
            .count();
        let inspect_rate = n as f64 / started.elapsed().as_secs_f64();

        let (udp_rate, forwarded) = through_udp(&pki, &messages, &bar)?;
        bar.finish_and_clear();

        let success = raw_ok == n && inspected == n && forwarded == n;
        let json = json!({
            "messages": n,
            "signers": self.signers,
            "raw_verify_per_second": raw_rate,
            "in_process": {"messages_per_second": inspect_rate, "ratio_to_raw": inspect_rate / raw_rate},
            "udp": {"messages_per_second": udp_rate, "ratio_to_raw": udp_rate / raw_rate},
            "threads": 1,
            "success": success,
        });
        let mut table = Table::new(&["measurement (one core)", "per second", "ratio to raw"]);
        table.row(vec![
            "raw ECDSA verify (p256)".into(),
            format!("{raw_rate:.0}"),
            "1.00".into(),
        ]);
        table.row(vec![
            "filter, in process".into(),
            format!("{inspect_rate:.0}"),
            format!("{:.2}", inspect_rate / raw_rate),
        ]);
        table.row(vec![
            "filter, UDP in and out on loopback".into(),
            format!("{udp_rate:.0}"),
            format!("{:.2}", udp_rate / raw_rate),
        ]);
        finish(
            self.format,
            &json,
            &table.render(),
            success,
            "a message of the benchmark was not forwarded",
        )
    }
}
