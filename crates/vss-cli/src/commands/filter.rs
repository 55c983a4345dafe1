//! `vss filter`: seed 001's transparent mode. Secured messages (IEEE 1609.2 signed data, one
//! per UDP datagram) are verified, the payloads of valid ones are forwarded, the rest are
//! dropped and counted by reason.

use std::net::{SocketAddr, UdpSocket};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, Context, Result};
use serde_json::json;
use vss_core::filter::{Filter, FilterCounts};
use vss_its::{TrustStore, Validator, Verdict};

use super::its::read_cert;
use crate::output::{emit, print_json, Format, Table};

/// An address written `udp:HOST:PORT`.
#[derive(Debug, Clone, Copy)]
pub struct UdpAddr(SocketAddr);

impl std::str::FromStr for UdpAddr {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let address = text
            .strip_prefix("udp:")
            .ok_or_else(|| format!("'{text}' is not udp:HOST:PORT"))?;
        address
            .parse()
            .map(UdpAddr)
            .map_err(|e| format!("'{address}': {e}"))
    }
}

/// `vss filter`.
#[derive(clap::Args)]
pub struct FilterArgs {
    /// Where secured messages arrive (udp:HOST:PORT).
    #[arg(long, value_name = "udp:ADDR")]
    listen: UdpAddr,
    /// Where the payloads of valid ones go (udp:HOST:PORT).
    #[arg(long, value_name = "udp:ADDR")]
    forward: UdpAddr,
    /// A root certificate (COER) to trust. Repeatable; at least one.
    #[arg(long = "anchor", value_name = "FILE", required = true)]
    anchors: Vec<PathBuf>,
    /// An EA or AA certificate known in advance (so digest-signed messages resolve).
    /// Repeatable.
    #[arg(long = "authority", value_name = "FILE")]
    authorities: Vec<PathBuf>,
    /// Certificates kept in the cache once validated.
    #[arg(long, default_value_t = 4096)]
    cache_capacity: usize,
    /// Stop after this many datagrams and print what happened [default: run until killed].
    #[arg(long, value_name = "N")]
    count: Option<u64>,
    /// Output format of the summary.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

impl FilterArgs {
    /// Runs the filter.
    pub fn run(self) -> Result<ExitCode> {
        let mut anchors = TrustStore::new();
        for path in &self.anchors {
            anchors
                .add(read_cert(path)?)
                .with_context(|| format!("{}", path.display()))?;
        }
        let mut validator = Validator::new(anchors, self.cache_capacity);
        for path in &self.authorities {
            let report =
                validator.verify_certificate(&read_cert(path)?, &[], vss_its::ItsTime::now());
            if report.verdict != Verdict::Valid {
                return Err(anyhow!(
                    "{}: not valid under the anchors: {}",
                    path.display(),
                    report.reason
                ));
            }
        }
        let listen = UdpSocket::bind(self.listen.0)
            .with_context(|| format!("cannot listen on udp:{}", self.listen.0))?;
        let unspecified: SocketAddr = if self.forward.0.is_ipv4() {
            ([0, 0, 0, 0], 0).into()
        } else {
            (std::net::Ipv6Addr::UNSPECIFIED, 0).into()
        };
        let forward = UdpSocket::bind(unspecified).context("cannot open the forward socket")?;
        forward
            .connect(self.forward.0)
            .with_context(|| format!("cannot forward to udp:{}", self.forward.0))?;
        eprintln!(
            "filtering udp:{} -> udp:{}",
            listen.local_addr()?,
            self.forward.0
        );
        let counts = Filter::new(validator)
            .run(&listen, &forward, self.count)
            .context("the filter stopped")?;
        summary(self.format, &counts)?;
        Ok(ExitCode::SUCCESS)
    }
}

fn summary(format: Format, counts: &FilterCounts) -> Result<()> {
    let dropped: u64 = counts.dropped.values().sum();
    match format {
        Format::Json => print_json(&json!({
            "received": counts.received,
            "forwarded": counts.forwarded,
            "forward_refused": counts.forward_refused,
            "dropped": dropped,
            "dropped_by_reason": counts.dropped,
        })),
        Format::Table => {
            let mut table = Table::new(&["what", "messages"]);
            table.row(vec!["received".into(), counts.received.to_string()]);
            table.row(vec!["forwarded".into(), counts.forwarded.to_string()]);
            if counts.forward_refused > 0 {
                table.row(vec![
                    "valid, forward refused".into(),
                    counts.forward_refused.to_string(),
                ]);
            }
            for (reason, n) in &counts.dropped {
                table.row(vec![format!("dropped: {reason}"), n.to_string()]);
            }
            emit(&table.render())
        }
    }
}
