//! Group commit: records submitted while a commit is under way wait for it, then go into the
//! next transaction together, so concurrent requests share one fsync. The first waiter leads
//! (runs the transaction for everyone queued); no thread of its own, no timer, and a lone
//! request commits at once.

use std::collections::HashMap;
use std::sync::{Condvar, Mutex, MutexGuard};

use super::{Outcome, Role, StoreError};

/// One record waiting for its transaction.
pub(super) struct Job {
    /// The authority recording.
    pub role: Role,
    /// The request's id.
    pub request_id: Vec<u8>,
    /// How the request ended.
    pub outcome: Outcome,
}

#[derive(Default)]
struct State {
    /// Submitted and not yet taken by a leader, with their tickets.
    waiting: Vec<(u64, Job)>,
    /// Results not yet collected, by ticket.
    done: HashMap<u64, Result<(), StoreError>>,
    next_ticket: u64,
    leading: bool,
}

/// The queue of one store's records.
#[derive(Default)]
pub(super) struct GroupCommit {
    state: Mutex<State>,
    turn: Condvar,
}

fn poisoned<T>(_: T) -> StoreError {
    StoreError::Database("a thread panicked holding the store's commit queue".into())
}

/// Hands the lead back when the leader's commit returns or unwinds; on unwinding, the jobs
/// it held fail.
struct Lead<'a> {
    queue: &'a GroupCommit,
    tickets: Vec<u64>,
    results: Option<Vec<Result<(), StoreError>>>,
}

impl Drop for Lead<'_> {
    fn drop(&mut self) {
        let Ok(mut state) = self.queue.state.lock() else {
            return;
        };
        let results = self.results.take().unwrap_or_default();
        let mut results = results.into_iter();
        for &ticket in &self.tickets {
            let result = results.next().unwrap_or_else(|| {
                Err(StoreError::Database(
                    "the commit of this record failed".into(),
                ))
            });
            state.done.insert(ticket, result);
        }
        state.leading = false;
        self.queue.turn.notify_all();
    }
}

impl GroupCommit {
    /// Records `job` in the next transaction `commit` runs: `commit` gets every job queued
    /// and returns each one's result, in order, having committed those that succeeded.
    pub(super) fn submit(
        &self,
        job: Job,
        commit: impl Fn(&[Job]) -> Vec<Result<(), StoreError>>,
    ) -> Result<(), StoreError> {
        let mut state = self.state.lock().map_err(poisoned)?;
        let ticket = state.next_ticket;
        state.next_ticket += 1;
        state.waiting.push((ticket, job));
        loop {
            if let Some(result) = state.done.remove(&ticket) {
                return result;
            }
            if state.leading {
                state = self.turn.wait(state).map_err(poisoned)?;
                continue;
            }
            state = self.lead(state, &commit)?;
        }
    }

    /// Takes every waiting job, commits them with the state unlocked, posts the results.
    fn lead<'a>(
        &'a self,
        mut state: MutexGuard<'a, State>,
        commit: &impl Fn(&[Job]) -> Vec<Result<(), StoreError>>,
    ) -> Result<MutexGuard<'a, State>, StoreError> {
        state.leading = true;
        let (tickets, jobs): (Vec<u64>, Vec<Job>) =
            std::mem::take(&mut state.waiting).into_iter().unzip();
        drop(state);
        let mut lead = Lead {
            queue: self,
            tickets,
            results: None,
        };
        lead.results = Some(commit(&jobs));
        drop(lead);
        self.state.lock().map_err(poisoned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Barrier};

    fn job(id: u8) -> Job {
        Job {
            role: Role::Aa,
            request_id: vec![id],
            outcome: Outcome::Answered(
                crate::messages::AuthorizationValidationResponseCode::Ok.into(),
            ),
        }
    }

    #[test]
    fn a_lone_record_commits_at_once_with_its_own_result() {
        let queue = GroupCommit::default();
        let commits = AtomicUsize::new(0);
        let commit = |jobs: &[Job]| {
            commits.fetch_add(1, Ordering::SeqCst);
            jobs.iter()
                .map(|j| match j.request_id[0] {
                    7 => Err(StoreError::Replay("07".into())),
                    _ => Ok(()),
                })
                .collect()
        };
        assert!(queue.submit(job(1), commit).is_ok());
        assert!(matches!(
            queue.submit(job(7), commit),
            Err(StoreError::Replay(_))
        ));
        assert_eq!(commits.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn concurrent_records_share_commits_and_each_gets_its_own_result() {
        let queue = Arc::new(GroupCommit::default());
        let commits = Arc::new(AtomicUsize::new(0));
        let threads = 16;
        let start = Arc::new(Barrier::new(threads));
        let handles: Vec<_> = (0..threads as u8)
            .map(|id| {
                let (queue, commits, start) = (queue.clone(), commits.clone(), start.clone());
                std::thread::spawn(move || {
                    start.wait();
                    queue.submit(job(id), |jobs: &[Job]| {
                        commits.fetch_add(1, Ordering::SeqCst);
                        std::thread::sleep(std::time::Duration::from_millis(20));
                        jobs.iter()
                            .map(|j| match j.request_id[0] % 2 {
                                0 => Ok(()),
                                _ => Err(StoreError::Replay(hex::encode(&j.request_id))),
                            })
                            .collect()
                    })
                })
            })
            .collect();
        for (id, handle) in handles.into_iter().enumerate() {
            let result = handle.join().expect("no panic");
            assert_eq!(result.is_ok(), id % 2 == 0, "record {id}: {result:?}");
        }
        let commits = commits.load(Ordering::SeqCst);
        assert!(commits < threads, "{commits} commits for {threads} records");
    }

    #[test]
    fn a_commit_that_panics_fails_its_records_and_frees_the_queue() {
        let queue = GroupCommit::default();
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            queue.submit(job(1), |_: &[Job]| panic!("the database vanished"))
        }));
        assert!(panicked.is_err());
        assert!(queue
            .submit(job(2), |jobs: &[Job]| jobs.iter().map(|_| Ok(())).collect())
            .is_ok());
    }
}
