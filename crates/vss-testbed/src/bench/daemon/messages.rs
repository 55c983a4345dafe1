//! The messages of a run, all signed before the first measurement (on every core): every
//! signer's first message, its certificate in it, and one set per measurement, signers
//! named by digest.

use std::ops::Range;

use anyhow::{anyhow, Result};
use vss_its::{ItsTime, SignerKind};

use crate::bench::ticket_pki::Pki;

/// The messages of the run.
pub(super) struct Messages {
    /// Every signer's first message (its certificate in it), for each consumer's first round.
    pub(super) warm_up: Vec<Vec<u8>>,
    /// One set per measurement, signers named by digest.
    pub(super) sets: Vec<Vec<Vec<u8>>>,
}

impl Messages {
    /// A first message from each of the `signers`, then `sets` sets of `per_set`.
    pub(super) fn sign(
        pki: &Pki,
        signers: usize,
        per_set: usize,
        sets: usize,
        bar: &indicatif::ProgressBar,
    ) -> Result<Messages> {
        let now = ItsTime::now();
        let warm_up = sign_range(pki, 0..signers, SignerKind::Certificate, now, bar)?;
        let rest = sign_range(
            pki,
            signers..signers + per_set * sets,
            SignerKind::Digest,
            now,
            bar,
        )?;
        let sets = rest.chunks(per_set.max(1)).map(<[_]>::to_vec).collect();
        Ok(Messages { warm_up, sets })
    }
}

/// Messages `range` (message `i` from ticket `i mod signers`), signed on every core.
fn sign_range(
    pki: &Pki,
    range: Range<usize>,
    kind: SignerKind,
    now: ItsTime,
    bar: &indicatif::ProgressBar,
) -> Result<Vec<Vec<u8>>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let size = range.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let parts: Vec<_> = range
            .clone()
            .step_by(size)
            .map(|start| {
                let part = start..(start + size).min(range.end);
                scope.spawn(move || {
                    part.map(|i| {
                        bar.inc(1);
                        pki.sign(i, kind, now)
                    })
                    .collect::<Result<Vec<_>>>()
                })
            })
            .collect();
        let mut messages = Vec::with_capacity(range.len());
        for part in parts {
            messages.extend(
                part.join()
                    .map_err(|_| anyhow!("a signing thread panicked"))??,
            );
        }
        Ok(messages)
    })
}
