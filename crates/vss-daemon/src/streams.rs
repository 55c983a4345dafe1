//! The streams of the API: a `VerifyStream`'s reading (until its end, an error,
//! `stream_timeout` or the daemon's stop) and its answers in request order, and a
//! subscriber's identifier-change events.

use std::time::Duration;

use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Status, Streaming};
use vss_proto::proto::{IdChangeEvent, VerifyRequest, VerifyResponse};

use crate::batcher::{Answer, Batcher};
use crate::reply::bounded;
use crate::stop::until_stopped;

/// Answers of one `VerifyStream` in flight before its reading waits.
pub const STREAM_WINDOW: usize = 256;
/// Events buffered per subscriber before the broadcast buffer fills up.
pub const SUBSCRIBER_QUEUE: usize = 16;

/// What a stream's writer waits for next.
pub enum Pending {
    /// The answer of the next request.
    Answer(oneshot::Receiver<Answer>),
    /// The status the stream ends with.
    End(Status),
}

fn stream_expired(limit: Duration) -> Status {
    Status::deadline_exceeded(format!(
        "the stream reached stream_timeout ({limit:?}): later requests were not read"
    ))
}

fn shutting_down() -> Status {
    Status::unavailable("vssd is shutting down: later requests of this stream were not read")
}

/// Reads `requests` (each at most `max_bytes`) into `batcher`, each answer's receiver to
/// `pending` in order, until the caller ends the stream, a request is refused, `limit` has
/// passed since the start, or `shutdown` turns true; then the end's status. Stops at once
/// when the answers are no longer read, and so lets the requests go.
pub async fn read_requests(
    (batcher, max_bytes): (Batcher, usize),
    mut requests: Streaming<VerifyRequest>,
    pending: mpsc::Sender<Pending>,
    mut shutdown: watch::Receiver<bool>,
    limit: Duration,
) {
    let mut deadline = std::pin::pin!(tokio::time::sleep(limit));
    let end = loop {
        let next = tokio::select! {
            biased;
            _ = until_stopped(&mut shutdown) => break Some(shutting_down()),
            _ = deadline.as_mut() => break Some(stream_expired(limit)),
            // The answers are dropped (the caller gone, or its deadline passed).
            _ = pending.closed() => break None,
            next = requests.message() => next,
        };
        let request = match next {
            Ok(Some(request)) => request,
            Ok(None) => break None,
            Err(status) => break Some(status),
        };
        if let Err(status) = bounded("data", &request.data, max_bytes) {
            break Some(status);
        }
        let answer = match batcher.submit(request.data, request.tag).await {
            Ok(answer) => answer,
            Err(status) => break Some(status),
        };
        if pending.send(Pending::Answer(answer)).await.is_err() {
            break None;
        }
    };
    if let Some(status) = end {
        // The writer is gone when the caller is.
        let _ = pending.send(Pending::End(status)).await;
    }
}

/// A stream that ends with `end` after the answers of `answers`, in their order; when it
/// is dropped, `answers` is too.
pub fn answer_in_order(
    mut answers: mpsc::Receiver<Pending>,
) -> ReceiverStream<Result<VerifyResponse, Status>> {
    let (sender, receiver) = mpsc::channel(STREAM_WINDOW);
    tokio::spawn(async move {
        loop {
            let pending = tokio::select! {
                _ = sender.closed() => break,
                pending = answers.recv() => match pending {
                    Some(pending) => pending,
                    None => break,
                },
            };
            let answer = match pending {
                Pending::Answer(answer) => answer
                    .await
                    .unwrap_or_else(|_| Err(Status::internal("the batch was lost"))),
                Pending::End(status) => Err(status),
            };
            let last = answer.is_err();
            if sender.send(answer).await.is_err() || last {
                break;
            }
        }
    });
    ReceiverStream::new(receiver)
}

/// Sends `events` to a subscriber's `sender` until it goes, falls behind (then
/// RESOURCE_EXHAUSTED) or the daemon stops (UNAVAILABLE).
pub async fn forward_events(
    mut events: broadcast::Receiver<IdChangeEvent>,
    sender: mpsc::Sender<Result<IdChangeEvent, Status>>,
    mut shutdown: watch::Receiver<bool>,
) {
    loop {
        let event = tokio::select! {
            _ = until_stopped(&mut shutdown) => {
                Err(Status::unavailable("vssd is shutting down"))
            }
            _ = sender.closed() => break,
            event = events.recv() => match event {
                Ok(event) => Ok(event),
                Err(broadcast::error::RecvError::Lagged(missed)) => {
                    Err(Status::resource_exhausted(format!(
                        "this subscriber fell {missed} events behind: subscribe again"
                    )))
                }
                Err(broadcast::error::RecvError::Closed) => break,
            },
        };
        let last = event.is_err();
        if sender.send(event).await.is_err() || last {
            break;
        }
    }
}
