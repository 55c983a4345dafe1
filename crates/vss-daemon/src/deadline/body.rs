//! An answer's body cut at the client's deadline: if it has not ended by then, it ends
//! with the trailers of `DEADLINE_EXCEEDED` and what remained of it is dropped (a stream's
//! tasks then stop, seeing their answers unread).

use std::future::Future;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use hyper::body::{Body as HttpBody, Bytes, Frame, SizeHint};
use hyper::HeaderMap;
use tokio::time::{Instant, Sleep};
use tonic::body::Body;
use tonic::Status;

use super::timeout::GrpcTimeout;

/// `body` until `deadline`, which `timeout` set.
pub struct UntilDeadline {
    body: Body,
    deadline: Pin<Box<Sleep>>,
    timeout: GrpcTimeout,
    ended: bool,
}

impl UntilDeadline {
    /// `body` ending at `deadline` at the latest.
    pub fn new(body: Body, deadline: Instant, timeout: GrpcTimeout) -> UntilDeadline {
        UntilDeadline {
            body,
            deadline: Box::pin(tokio::time::sleep_until(deadline)),
            timeout,
            ended: false,
        }
    }
}

/// The trailers of `status`.
fn trailers(status: &Status) -> HeaderMap {
    let mut trailers = HeaderMap::new();
    if let Err(e) = status.add_header(&mut trailers) {
        // Its message is percent-encoded: it is always a header value.
        tracing::debug!(error = %e, "a status without its message");
    }
    trailers
}

impl HttpBody for UntilDeadline {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        let this = &mut *self;
        if this.ended {
            return Poll::Ready(None);
        }
        if this.deadline.as_mut().poll(cx).is_ready() {
            this.ended = true;
            let end = trailers(&this.timeout.expired());
            return Poll::Ready(Some(Ok(Frame::trailers(end))));
        }
        let frame = ready!(Pin::new(&mut this.body).poll_frame(cx));
        // After trailers, the end or an error, the body has nothing more.
        this.ended = !matches!(&frame, Some(Ok(frame)) if frame.is_data());
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.ended || self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        if self.is_end_stream() {
            SizeHint::with_exact(0)
        } else {
            SizeHint::default()
        }
    }
}
