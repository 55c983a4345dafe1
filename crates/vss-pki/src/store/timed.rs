//! A store that measures another: the wall-clock and CPU time its calls take (for `vss bench
//! pki`), and the CPU time of a thread or the process.

use vss_its::HashedId8;

use super::{
    AuditEntry, IssueList, IssuedCertificate, IssuedList, Outcome, PkiStore, Role, Station,
    StoreError,
};
use crate::lists::ListKind;

/// A store that measures the time spent in another store's calls, and the CPU time of the
/// threads that made them (for `vss bench pki`).
pub struct Timed {
    inner: Box<dyn PkiStore>,
    nanos: std::sync::atomic::AtomicU64,
    cpu_nanos: std::sync::atomic::AtomicU64,
}

/// The CPU time the calling thread has used.
pub fn thread_cpu_time() -> std::time::Duration {
    cpu_time(rustix::time::ClockId::ThreadCPUTime)
}

/// The CPU time the whole process has used, all threads together.
pub fn process_cpu_time() -> std::time::Duration {
    cpu_time(rustix::time::ClockId::ProcessCPUTime)
}

fn cpu_time(clock: rustix::time::ClockId) -> std::time::Duration {
    let t = rustix::time::clock_gettime(clock);
    std::time::Duration::new(
        u64::try_from(t.tv_sec).unwrap_or(0),
        u32::try_from(t.tv_nsec).unwrap_or(0),
    )
}

impl Timed {
    /// Measures `inner`.
    pub fn new(inner: Box<dyn PkiStore>) -> Self {
        Timed {
            inner,
            nanos: std::sync::atomic::AtomicU64::new(0),
            cpu_nanos: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// The time spent in the store so far.
    pub fn spent(&self) -> std::time::Duration {
        std::time::Duration::from_nanos(self.nanos.load(std::sync::atomic::Ordering::Relaxed))
    }

    /// The CPU time the store's calls used so far (waits for the disk or for a lock are not
    /// CPU time).
    pub fn cpu_spent(&self) -> std::time::Duration {
        std::time::Duration::from_nanos(self.cpu_nanos.load(std::sync::atomic::Ordering::Relaxed))
    }

    fn time<T>(&self, call: impl FnOnce(&dyn PkiStore) -> T) -> T {
        let add = |counter: &std::sync::atomic::AtomicU64, d: std::time::Duration| {
            let nanos = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
            counter.fetch_add(nanos, std::sync::atomic::Ordering::Relaxed);
        };
        let (started, cpu_started) = (std::time::Instant::now(), thread_cpu_time());
        let result = call(self.inner.as_ref());
        add(&self.nanos, started.elapsed());
        add(
            &self.cpu_nanos,
            thread_cpu_time().saturating_sub(cpu_started),
        );
        result
    }
}

impl PkiStore for Timed {
    fn register_station(&self, station: &Station) -> Result<(), StoreError> {
        self.time(|s| s.register_station(station))
    }

    fn station(&self, canonical_id: &str) -> Result<Option<Station>, StoreError> {
        self.time(|s| s.station(canonical_id))
    }

    fn seen(&self, role: Role, request_id: &[u8]) -> Result<bool, StoreError> {
        self.time(|s| s.seen(role, request_id))
    }

    fn record(&self, role: Role, request_id: &[u8], outcome: &Outcome) -> Result<(), StoreError> {
        self.time(|s| s.record(role, request_id, outcome))
    }

    fn record_deferred(
        &self,
        role: Role,
        request_id: &[u8],
        outcome: &Outcome,
    ) -> Result<(), StoreError> {
        self.time(|s| s.record_deferred(role, request_id, outcome))
    }

    fn issued(&self, hashed_id8: &HashedId8) -> Result<Option<IssuedCertificate>, StoreError> {
        self.time(|s| s.issued(hashed_id8))
    }

    fn issued_by(&self, role: Role) -> Result<Vec<IssuedCertificate>, StoreError> {
        self.time(|s| s.issued_by(role))
    }

    fn audit(&self) -> Result<Vec<AuditEntry>, StoreError> {
        self.time(|s| s.audit())
    }

    fn revoke(&self, hashed_id8: &HashedId8) -> Result<bool, StoreError> {
        self.time(|s| s.revoke(hashed_id8))
    }

    fn revoked(&self) -> Result<Vec<HashedId8>, StoreError> {
        self.time(|s| s.revoked())
    }

    fn last_list(&self, kind: ListKind) -> Result<Option<IssuedList>, StoreError> {
        self.time(|s| s.last_list(kind))
    }

    fn issue_list(&self, kind: ListKind, issue: IssueList<'_>) -> crate::Result<IssuedList> {
        self.time(|s| s.issue_list(kind, issue))
    }
}
