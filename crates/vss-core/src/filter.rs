//! Seed 001's transparent mode: secured messages arrive as UDP datagrams, each is verified
//! (every one: the policy is `always`), and only the payloads of valid ones are forwarded;
//! the rest are counted by the verdict that refused them.

use std::collections::BTreeMap;
use std::io;
use std::net::UdpSocket;
use std::sync::Arc;

use vss_its::Validator;

use crate::config::{PolicyKind, VerificationConfig};
use crate::pseudonym::SystemClock;
use crate::verify::Outcome;
use crate::{VerificationPolicy, VerifyService};

/// The largest UDP payload.
const MAX_DATAGRAM: usize = 65_507;

/// What a filter did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FilterCounts {
    /// Datagrams received.
    pub received: u64,
    /// Payloads forwarded.
    pub forwarded: u64,
    /// Valid payloads the forward address refused (nothing listening there).
    pub forward_refused: u64,
    /// Datagrams dropped, by the verdict's name (`FalseSignature`, `Expired`, …).
    pub dropped: BTreeMap<&'static str, u64>,
}

/// Verifies datagrams and forwards the payloads of valid ones.
pub struct Filter {
    verify: VerifyService,
}

impl Filter {
    /// A filter trusting what `validator` trusts.
    pub fn new(validator: Validator) -> Self {
        let policy = VerificationPolicy::new(&VerificationConfig {
            policy: PolicyKind::Always,
            ..VerificationConfig::default()
        });
        Filter {
            verify: VerifyService::new(validator, policy, Arc::new(SystemClock)),
        }
    }

    /// The payload to forward, or the name of the verdict that drops the datagram.
    pub fn inspect(&self, datagram: &[u8]) -> Result<Vec<u8>, &'static str> {
        match self.verify.receive(datagram) {
            Outcome::Valid { payload, .. } => Ok(payload),
            Outcome::Invalid { verdict, .. } => Err(verdict.name()),
            Outcome::Skipped { .. } => Err("Skipped"),
        }
    }

    /// Receives on `listen` and sends each valid payload on `forward` (connected to where
    /// payloads go), until `limit` datagrams were received (or for ever); one thread.
    pub fn run(
        &self,
        listen: &UdpSocket,
        forward: &UdpSocket,
        limit: Option<u64>,
    ) -> io::Result<FilterCounts> {
        let mut counts = FilterCounts::default();
        let mut buffer = vec![0u8; MAX_DATAGRAM];
        while limit.is_none_or(|l| counts.received < l) {
            let (len, _) = listen.recv_from(&mut buffer)?;
            counts.received += 1;
            match self.inspect(&buffer[..len]) {
                Ok(payload) => match forward.send(&payload) {
                    Ok(_) => counts.forwarded += 1,
                    Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
                        counts.forward_refused += 1;
                    }
                    Err(e) => return Err(e),
                },
                Err(reason) => *counts.dropped.entry(reason).or_default() += 1,
            }
        }
        Ok(counts)
    }
}
