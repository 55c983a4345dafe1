//! The one batcher of `VerifyStream`: requests of all callers are gathered into batches of
//! at most `[daemon] batch_max` messages, each waiting at most `batch_deadline` to fill, and
//! verified on the engine through [`Vss::verify_batch`]; each request gets its answer on its
//! own channel. Batches run on the blocking pool, as many at once as there are CPUs; a batch
//! is gathered once a worker is free for it, so under load batches leave full.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot, Semaphore};
use tonic::Status;
use vss_core::verify::Outcome;
use vss_core::Vss;
use vss_proto::proto::VerifyResponse;

use crate::metrics::Metrics;
use crate::reply::{response, status};

/// Requests waiting for a batch, per message of `batch_max` (at least 1024).
const QUEUE_PER_BATCH: usize = 4;

/// The answer to one request.
pub type Answer = Result<VerifyResponse, Status>;

struct Job {
    data: Vec<u8>,
    tag: u64,
    answer: oneshot::Sender<Answer>,
}

/// Where requests go to be batched (cheap to clone).
#[derive(Clone)]
pub struct Batcher {
    jobs: mpsc::Sender<Job>,
}

impl Batcher {
    /// Starts the batcher of `vss` (on the current Tokio runtime); it runs until every
    /// clone of the returned handle is dropped and the queue is empty.
    pub fn start(vss: Arc<Vss>, batch_max: usize, deadline: Duration, metrics: Metrics) -> Self {
        let (jobs, queue) = mpsc::channel((batch_max * QUEUE_PER_BATCH).max(1024));
        tokio::spawn(run(queue, vss, batch_max, deadline, metrics));
        Batcher { jobs }
    }

    /// Queues `data` (answered with `tag`); the answer comes on the returned channel.
    pub async fn submit(
        &self,
        data: Vec<u8>,
        tag: u64,
    ) -> Result<oneshot::Receiver<Answer>, Status> {
        let (answer, receiver) = oneshot::channel();
        self.jobs
            .send(Job { data, tag, answer })
            .await
            .map_err(|_| Status::unavailable("vssd is shutting down"))?;
        Ok(receiver)
    }
}

async fn run(
    mut queue: mpsc::Receiver<Job>,
    vss: Arc<Vss>,
    batch_max: usize,
    deadline: Duration,
    metrics: Metrics,
) {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let running = Arc::new(Semaphore::new(workers));
    // A free worker first, then its batch: while every worker is busy requests queue up,
    // and the next batch takes them at once (up to `batch_max`) instead of leaving with
    // what came within one deadline.
    while let Ok(permit) = running.clone().acquire_owned().await {
        let Some(first) = queue.recv().await else {
            break;
        };
        let mut batch = vec![first];
        let until = tokio::time::Instant::now() + deadline;
        while batch.len() < batch_max {
            match tokio::time::timeout_at(until, queue.recv()).await {
                Ok(Some(job)) => batch.push(job),
                Ok(None) | Err(_) => break,
            }
        }
        let (vss, metrics) = (vss.clone(), metrics.clone());
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            verify(&vss, batch, &metrics);
        });
    }
}

/// Verifies one batch and answers each request.
fn verify(vss: &Vss, batch: Vec<Job>, metrics: &Metrics) {
    let started = Instant::now();
    let messages: Vec<&[u8]> = batch.iter().map(|job| job.data.as_slice()).collect();
    let outcomes: Vec<Result<Outcome, Status>> = match vss.verify_batch(&messages) {
        Ok(outcomes) => outcomes.into_iter().map(Ok).collect(),
        Err(e) => batch.iter().map(|_| Err(status(&e))).collect(),
    };
    metrics.batch(batch.len());
    let count = u32::try_from(batch.len().max(1)).unwrap_or(u32::MAX);
    let share = started.elapsed() / count;
    for (job, outcome) in batch.into_iter().zip(outcomes) {
        let answer = outcome.map(|o| response(o, job.tag));
        if let Ok(r) = &answer {
            metrics.verified(r.report(), share);
        }
        // A caller that went away needs no answer.
        let _ = job.answer.send(answer);
    }
}
