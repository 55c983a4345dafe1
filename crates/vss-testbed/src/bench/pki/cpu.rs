//! CPU-share accounting: the CPU time a measurement used, the store's part of it, and the
//! shares of a ticket's CPU time.

use std::time::Duration;

use anyhow::Result;
use serde_json::json;
use vss_pki::store::{process_cpu_time, Timed};

/// The CPU time a measurement used: the whole process's (server and clients), and the
/// store's calls' within it.
#[derive(Clone, Copy)]
pub(super) struct CpuSpent {
    pub(super) process: Duration,
    store: Duration,
}

impl CpuSpent {
    /// Runs `measurement`, and the CPU time it used.
    pub(super) fn of<T>(
        store: &Timed,
        measurement: impl FnOnce() -> Result<T>,
    ) -> Result<(T, CpuSpent)> {
        let (process, in_store) = (process_cpu_time(), store.cpu_spent());
        let result = measurement()?;
        Ok((
            result,
            CpuSpent {
                process: process_cpu_time().saturating_sub(process),
                store: store.cpu_spent().saturating_sub(in_store),
            },
        ))
    }

    /// The shares of this CPU time: the store's calls, the transport (`transport` per
    /// ticket, for `tickets`) and the rest, cryptography and codec.
    pub(super) fn shares(&self, transport: Duration, tickets: u32) -> serde_json::Value {
        let whole = self.process.as_secs_f64();
        let store = self.store.as_secs_f64() / whole;
        let http = (transport * tickets).as_secs_f64() / whole;
        json!({"store": store, "http": http, "crypto_and_codec": 1.0 - store - http})
    }
}
