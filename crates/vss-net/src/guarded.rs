//! [`Guarded`]: a connection whose blocked writes (and, where asked, pending reads) fail
//! with [`io::ErrorKind::TimedOut`] once they have waited too long, so that a client that
//! stops reading, or never speaks, cannot keep its slot.

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

/// How a [`Guarded`] bounds reads.
enum ReadBound {
    /// Reads may wait as long as the protocol above wants.
    None,
    /// Until the first byte arrives (a TLS handshake's or an HTTP/2 preface's), then none.
    FirstByte(Stall),
    /// Every read.
    Every(Stall),
}

/// A connection (any tokio stream) whose write, flush or shutdown that stays blocked for
/// longer than its write timeout fails with [`io::ErrorKind::TimedOut`]: the server above
/// sees an error and closes the connection. Reads are bounded only where asked
/// ([`Guarded::first_byte_within`], [`Guarded::reading_within`]). The clocks run only
/// while an operation waits, so a server busy with a request is never cut short.
pub struct Guarded<S> {
    io: S,
    write: Stall,
    read: ReadBound,
}

impl<S> Guarded<S> {
    /// `io`, its writes bounded by `write_timeout` ([`crate::ServeLimits::write_timeout`]).
    pub fn new(io: S, write_timeout: Duration) -> Self {
        Guarded {
            io,
            write: Stall::new(write_timeout),
            read: ReadBound::None,
        }
    }

    /// The first byte from the client must arrive within `timeout` of the first read (a
    /// handshake or preface timeout); later reads are not bounded.
    pub fn first_byte_within(mut self, timeout: Duration) -> Self {
        self.read = ReadBound::FirstByte(Stall::new(timeout));
        self
    }

    /// Every read must bring bytes (or the end) within `timeout` of its first wait.
    pub fn reading_within(mut self, timeout: Duration) -> Self {
        self.read = ReadBound::Every(Stall::new(timeout));
        self
    }

    /// The connection inside.
    pub fn get_ref(&self) -> &S {
        &self.io
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Guarded<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.io).poll_read(cx, buf);
        match &mut this.read {
            ReadBound::None => polled,
            ReadBound::Every(stall) => stall.watch(cx, "no bytes from the client", polled),
            ReadBound::FirstByte(stall) => {
                let watched = stall.watch(cx, "no first byte from the client", polled);
                if watched.is_ready() {
                    this.read = ReadBound::None;
                }
                watched
            }
        }
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
    async fn reads_wait_unbounded_unless_asked() {
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

    #[tokio::test]
    async fn a_silent_client_misses_its_first_byte_deadline() {
        let (near, _far) = tokio::io::duplex(64);
        let mut guarded = Guarded::new(near, SHORT).first_byte_within(SHORT);
        let error = guarded.read(&mut [0u8; 1]).await.expect_err("nothing sent");
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
    }

    #[tokio::test]
    async fn after_the_first_byte_reads_are_free_and_every_read_bound_is_kept() {
        let (near, mut far) = tokio::io::duplex(64);
        let mut first = Guarded::new(near, SHORT).first_byte_within(SHORT);
        far.write_all(b"a").await.expect("write");
        first.read_exact(&mut [0u8; 1]).await.expect("first byte");
        let later = tokio::spawn(async move {
            tokio::time::sleep(SHORT * 2).await;
            far.write_all(b"b").await.expect("write");
            far
        });
        first.read_exact(&mut [0u8; 1]).await.expect("a late byte");
        let mut far = later.await.expect("writer");

        let (near, _other) = tokio::io::duplex(64);
        let mut every = Guarded::new(near, SHORT).reading_within(SHORT);
        far.write_all(b"c").await.expect("write");
        let error = every.read(&mut [0u8; 1]).await.expect_err("silent");
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
    }
}
