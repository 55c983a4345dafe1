//! [`Guarded`]: a connection whose blocked writes fail with [`io::ErrorKind::TimedOut`] once
//! they have waited too long, so that a client that stops reading cannot keep its slot.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

/// One direction's clock: armed when an operation first waits, disarmed when one makes
/// progress.
struct Stall {
    timeout: Duration,
    deadline: Option<Pin<Box<Sleep>>>,
}

impl Stall {
    fn new(timeout: Duration) -> Self {
        Stall {
            timeout,
            deadline: None,
        }
    }

    /// Passes `polled` on, except that a wait longer than the timeout becomes `TimedOut`
    /// (`what` says which wait in the error).
    fn watch<T>(
        &mut self,
        cx: &mut Context<'_>,
        what: &'static str,
        polled: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        if polled.is_ready() {
            self.deadline = None;
            return polled;
        }
        let timeout = self.timeout;
        let deadline = self
            .deadline
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        match deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("{what} for more than {timeout:?}"),
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

/// A connection (any tokio stream) whose write, flush or shutdown that stays blocked for
/// longer than its write timeout fails with [`io::ErrorKind::TimedOut`]: the server above
/// sees an error and closes the connection. Reads pass through unbounded (each server
/// bounds them by its protocol). The clock runs only while a write waits, so a server busy
/// with a request is never cut short.
pub struct Guarded<S> {
    io: S,
    write: Stall,
}

impl<S> Guarded<S> {
    /// `io`, its writes bounded by `write_timeout` ([`crate::ServeLimits::write_timeout`]).
    pub fn new(io: S, write_timeout: Duration) -> Self {
        Guarded {
            io,
            write: Stall::new(write_timeout),
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Guarded<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Guarded<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.io).poll_write(cx, buf);
        this.write.watch(cx, "the client read nothing", polled)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.io).poll_write_vectored(cx, bufs);
        this.write.watch(cx, "the client read nothing", polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.io).poll_flush(cx);
        this.write.watch(cx, "the client read nothing", polled)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.io).poll_shutdown(cx);
        this.write.watch(cx, "the client read nothing", polled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    const SHORT: Duration = Duration::from_millis(200);

    #[tokio::test]
    async fn a_write_the_peer_never_reads_times_out() {
        let (near, _far) = tokio::io::duplex(64);
        let mut guarded = Guarded::new(near, SHORT);
        let started = tokio::time::Instant::now();
        let error = guarded
            .write_all(&[0u8; 4096])
            .await
            .expect_err("the peer reads nothing");
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        assert!(started.elapsed() >= SHORT, "{:?}", started.elapsed());
    }

    #[tokio::test]
    async fn a_slow_but_steady_reader_is_served() {
        let (near, mut far) = tokio::io::duplex(64);
        let mut guarded = Guarded::new(near, SHORT);
        let reader = tokio::spawn(async move {
            let mut all = Vec::new();
            let mut chunk = [0u8; 64];
            loop {
                tokio::time::sleep(SHORT / 4).await;
                match far.read(&mut chunk).await.expect("read") {
                    0 => return all,
                    n => all.extend_from_slice(&chunk[..n]),
                }
            }
        });
        // Ten times the timeout in all, never more than a quarter of it blocked.
        guarded.write_all(&[7u8; 640]).await.expect("written");
        guarded.shutdown().await.expect("shut down");
        assert_eq!(reader.await.expect("reader"), vec![7u8; 640]);
    }

    #[tokio::test]
    async fn reads_wait_unbounded() {
        let (near, mut far) = tokio::io::duplex(64);
        let mut guarded = Guarded::new(near, SHORT);
        let late = tokio::spawn(async move {
            tokio::time::sleep(SHORT * 2).await;
            far.write_all(b"late").await.expect("write");
            far
        });
        let mut got = [0u8; 4];
        guarded.read_exact(&mut got).await.expect("read");
        assert_eq!(&got, b"late");
        drop(late.await);
    }
}
