//! The pass-through between a client and the backend: bytes both ways at once, and the idle
//! timeout counted from the last byte that moved in either direction, read or written, so
//! that it also runs while a write waits on a peer that does not read.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Instant;

/// The size of each direction's buffer: four TLS records (fewer system calls and wake-ups
/// per MB than one). A connection holds two: 128 KiB, so 512 MiB at the default cap.
const BUFFER: usize = 64 * 1024;

/// When a byte last moved, in milliseconds since the connection's start.
struct LastMove {
    start: Instant,
    millis: AtomicU64,
}

impl LastMove {
    fn touch(&self) {
        let now = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.millis.store(now, Ordering::Relaxed);
    }

    fn at(&self) -> Instant {
        self.start + Duration::from_millis(self.millis.load(Ordering::Relaxed))
    }
}

/// A stream that notes in a [`LastMove`] every read or write that moved bytes.
struct Moving<S> {
    io: S,
    last: Arc<LastMove>,
}

impl<S: AsyncRead + Unpin> AsyncRead for Moving<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.io).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.last.touch();
        }
        polled
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Moving<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.io).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.last.touch();
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

/// Completes once no byte has moved for `idle` since the last one `last` noted.
async fn idle_since(last: &LastMove, idle: Duration) {
    loop {
        let deadline = last.at() + idle;
        if deadline <= Instant::now() {
            return;
        }
        tokio::time::sleep_until(deadline).await;
    }
}

/// Passes bytes both ways at once until both sides have closed (each end's close passed on
/// as a shutdown of the other's writing side); [`io::ErrorKind::TimedOut`] when no byte moved
/// either way for `idle`, a write blocked on a peer that does not read included. A write
/// error (a [`vss_net::Guarded`] side's write timeout among them) ends it too.
pub(crate) async fn pump<A, B>(a: A, b: B, idle: Duration) -> io::Result<()>
where
    A: AsyncRead + AsyncWrite + Unpin,
    B: AsyncRead + AsyncWrite + Unpin,
{
    let last = Arc::new(LastMove {
        start: Instant::now(),
        millis: AtomicU64::new(0),
    });
    let mut a = Moving {
        io: a,
        last: Arc::clone(&last),
    };
    let mut b = Moving {
        io: b,
        last: Arc::clone(&last),
    };
    tokio::select! {
        passed = tokio::io::copy_bidirectional_with_sizes(&mut a, &mut b, BUFFER, BUFFER) => {
            passed.map(drop)
        }
        () = idle_since(&last, idle) => Err(io::ErrorKind::TimedOut.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test]
    async fn bytes_pass_both_ways_and_it_ends_when_both_close() {
        let (a, mut a_peer) = tokio::io::duplex(64);
        let (b, mut b_peer) = tokio::io::duplex(64);
        let pumping = tokio::spawn(pump(a, b, Duration::from_secs(5)));
        a_peer.write_all(b"GET /").await.expect("write");
        let mut got = [0u8; 5];
        b_peer.read_exact(&mut got).await.expect("read");
        assert_eq!(&got, b"GET /");
        b_peer.write_all(b"200").await.expect("write");
        let mut got = [0u8; 3];
        a_peer.read_exact(&mut got).await.expect("read");
        assert_eq!(&got, b"200");
        drop(a_peer);
        drop(b_peer);
        pumping.await.expect("join").expect("clean end");
    }

    #[tokio::test]
    async fn an_idle_connection_times_out() {
        let (a, _a_peer) = tokio::io::duplex(64);
        let (b, _b_peer) = tokio::io::duplex(64);
        let result = pump(a, b, Duration::from_millis(50)).await;
        assert_eq!(result.map_err(|e| e.kind()), Err(io::ErrorKind::TimedOut));
    }

    #[tokio::test]
    async fn the_idle_timeout_runs_while_a_write_is_blocked() {
        let (a, mut a_peer) = tokio::io::duplex(64);
        // The backend's side never reads.
        let (b, _b_peer) = tokio::io::duplex(64);
        let idle = Duration::from_millis(200);
        let pumping = tokio::spawn(pump(a, b, idle));
        let started = Instant::now();
        // The writer is blocked too once both buffers are full; it stops when the pump ends.
        let _ = a_peer.write_all(&[1u8; 4096]).await;
        let result = tokio::time::timeout(Duration::from_secs(5), pumping)
            .await
            .expect("ended by the idle timeout")
            .expect("join");
        assert_eq!(result.map_err(|e| e.kind()), Err(io::ErrorKind::TimedOut));
        assert!(started.elapsed() >= idle, "{:?}", started.elapsed());
    }

    #[tokio::test]
    async fn a_steady_trickle_keeps_the_connection() {
        let (a, mut a_peer) = tokio::io::duplex(64);
        let (b, mut b_peer) = tokio::io::duplex(64);
        let idle = Duration::from_millis(300);
        let pumping = tokio::spawn(pump(a, b, idle));
        // Four times the idle timeout in all, a byte every quarter of it.
        for _ in 0..16 {
            tokio::time::sleep(idle / 4).await;
            a_peer.write_all(b"x").await.expect("write");
            b_peer.read_exact(&mut [0u8; 1]).await.expect("passed on");
        }
        drop(a_peer);
        drop(b_peer);
        pumping.await.expect("join").expect("clean end");
    }
}
