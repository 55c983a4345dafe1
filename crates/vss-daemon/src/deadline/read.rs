//! Whether a request was read in time: a request's body that tells when it has ended, so
//! that `request_timeout` can bound the reading of a unary request (which the service's own
//! check, once the request is read, does not see) without bounding a stream's requests.

use std::pin::Pin;
use std::task::{ready, Context, Poll};

use hyper::body::{Body as HttpBody, Frame, SizeHint};
use hyper::Request;
use tokio::sync::oneshot;
use tokio::time::Instant;

/// A request's body that signals its end.
pub struct Watched<B> {
    body: B,
    ended: Option<oneshot::Sender<()>>,
}

/// The end of a [`Watched`] body, awaited.
pub struct Reading(oneshot::Receiver<()>);

/// `request` with its body watched, and the watch.
pub fn watched<B>(request: Request<B>) -> (Request<Watched<B>>, Reading) {
    let (sender, receiver) = oneshot::channel();
    let request = request.map(|body| Watched {
        body,
        ended: Some(sender),
    });
    (request, Reading(receiver))
}

impl Reading {
    /// Resolves at `at` if the body has not ended by then (nor been dropped unread to its
    /// end, as a finished stream's is); never otherwise.
    pub async fn unread_at(mut self, at: Instant) {
        tokio::time::sleep_until(at).await;
        if self.0.try_recv() != Err(oneshot::error::TryRecvError::Empty) {
            std::future::pending::<()>().await;
        }
    }
}

impl<B: HttpBody + Unpin> HttpBody for Watched<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        let this = &mut *self;
        let frame = ready!(Pin::new(&mut this.body).poll_frame(cx));
        if frame.is_none() || this.body.is_end_stream() {
            if let Some(ended) = this.ended.take() {
                // The watch is gone once the answer has begun.
                let _ = ended.send(());
            }
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
