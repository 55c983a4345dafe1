//! The clients of a measurement: N threads calling the entity in this process, or N gRPC
//! clients of `vssd` (each on its own connection) calling `Verify` one message at a time or
//! keeping a window of messages in flight on one `VerifyStream`. Each message's latency is
//! taken from the moment it is handed over to the moment its answer is back.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use tokio::sync::{mpsc, Semaphore};
use tokio_stream::wrappers::ReceiverStream;
use vss_core::verify::Outcome;
use vss_core::Vss;
use vss_its::Verdict;
use vss_proto::client::{answer, connect, Answer};
use vss_proto::proto::security_entity_client::SecurityEntityClient;
use vss_proto::proto::VerifyRequest;

/// What the clients of one measurement saw: how many messages were answered, every
/// message's latency (none where answers come in batches), and how many were valid.
#[derive(Default)]
pub(super) struct Seen {
    pub(super) messages: usize,
    pub(super) latencies: Vec<Duration>,
    pub(super) valid: usize,
}

impl Seen {
    fn merge(&mut self, other: Seen) {
        self.messages += other.messages;
        self.latencies.extend(other.latencies);
        self.valid += other.valid;
    }

    fn answered(&mut self, latency: Duration, valid: bool) {
        self.messages += 1;
        self.latencies.push(latency);
        self.valid += usize::from(valid);
    }
}

/// Splits `messages` into `clients` runs of consecutive messages (as even as they go).
pub(super) fn split(messages: &[Vec<u8>], clients: usize) -> Vec<Vec<Vec<u8>>> {
    let size = messages.len().div_ceil(clients.max(1)).max(1);
    messages.chunks(size).map(<[Vec<u8>]>::to_vec).collect()
}

/// Each part verified by its own thread through [`Vss::verify_signature`].
pub(super) fn in_process(vss: &Vss, parts: &[Vec<Vec<u8>>]) -> Result<Seen> {
    std::thread::scope(|scope| {
        let threads: Vec<_> = parts
            .iter()
            .map(|part| {
                scope.spawn(move || {
                    let mut seen = Seen::default();
                    for message in part {
                        let started = Instant::now();
                        let outcome = vss.verify_signature(message)?;
                        seen.answered(started.elapsed(), matches!(outcome, Outcome::Valid { .. }));
                    }
                    Ok::<_, vss_core::Error>(seen)
                })
            })
            .collect();
        let mut seen = Seen::default();
        for thread in threads {
            let part = thread
                .join()
                .map_err(|_| anyhow!("a verifying thread panicked"))??;
            seen.merge(part);
        }
        Ok(seen)
    })
}

/// Each part sent by its own client of `socket`, one unary `Verify` after another.
pub(super) async fn unary(socket: &Path, parts: Vec<Vec<Vec<u8>>>) -> Result<Seen> {
    let mut clients = Vec::with_capacity(parts.len());
    for part in parts {
        let mut client = connect(socket).await?;
        clients.push(tokio::spawn(async move {
            let mut seen = Seen::default();
            for data in part {
                let started = Instant::now();
                let response = client
                    .verify(VerifyRequest { data, tag: 0 })
                    .await
                    .context("Verify")?
                    .into_inner();
                seen.answered(started.elapsed(), is_valid(response.report));
            }
            Ok::<_, anyhow::Error>(seen)
        }));
    }
    gather(clients).await
}

/// Each part sent by its own client of `socket` on one `VerifyStream`, at most `window`
/// messages awaiting their answers.
pub(super) async fn stream(socket: &Path, parts: Vec<Vec<Vec<u8>>>, window: usize) -> Result<Seen> {
    let mut clients = Vec::with_capacity(parts.len());
    for part in parts {
        let client = connect(socket).await?;
        clients.push(tokio::spawn(stream_one(client, part, window)));
    }
    gather(clients).await
}

async fn stream_one(
    mut client: SecurityEntityClient<tonic::transport::Channel>,
    part: Vec<Vec<u8>>,
    window: usize,
) -> Result<Seen> {
    let count = part.len();
    let sent = Arc::new(Mutex::new(vec![Instant::now(); count]));
    let room = Arc::new(Semaphore::new(window));
    let (requests, queue) = mpsc::channel(window);
    let sender = {
        let (sent, room) = (sent.clone(), room.clone());
        tokio::spawn(async move {
            for (tag, data) in part.into_iter().enumerate() {
                room.acquire().await?.forget();
                if let Ok(mut sent) = sent.lock() {
                    sent[tag] = Instant::now();
                }
                let request = VerifyRequest {
                    data,
                    tag: tag as u64,
                };
                if requests.send(request).await.is_err() {
                    break;
                }
            }
            Ok::<_, tokio::sync::AcquireError>(())
        })
    };
    let mut answers = client
        .verify_stream(ReceiverStream::new(queue))
        .await
        .context("VerifyStream")?
        .into_inner();
    let mut seen = Seen::default();
    while seen.messages < count {
        let response = answers
            .message()
            .await
            .context("VerifyStream")?
            .ok_or_else(|| anyhow!("VerifyStream ended before every message was answered"))?;
        let started = usize::try_from(response.tag)
            .ok()
            .and_then(|tag| sent.lock().ok()?.get(tag).copied())
            .ok_or_else(|| anyhow!("VerifyStream answered tag {} never sent", response.tag))?;
        seen.answered(started.elapsed(), is_valid(response.report));
        room.add_permits(1);
    }
    sender
        .await
        .map_err(|_| anyhow!("a stream's sender panicked"))??;
    Ok(seen)
}

fn is_valid(report: i32) -> bool {
    answer(report) == Some(Answer::Verdict(Verdict::Valid))
}

async fn gather(clients: Vec<tokio::task::JoinHandle<Result<Seen>>>) -> Result<Seen> {
    let mut seen = Seen::default();
    for client in clients {
        seen.merge(
            client
                .await
                .map_err(|_| anyhow!("a client task panicked"))??,
        );
    }
    Ok(seen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_split_into_consecutive_runs_one_per_client() {
        let messages: Vec<Vec<u8>> = (0u8..10).map(|i| vec![i]).collect();
        let parts = split(&messages, 4);
        assert_eq!(parts.iter().map(Vec::len).collect::<Vec<_>>(), [3, 3, 3, 1]);
        assert_eq!(parts.concat(), messages);
        assert_eq!(split(&messages, 64).len(), 10);
        assert_eq!(split(&messages, 1), vec![messages.clone()]);
    }
}
