//! Bounded TCP serving: a connection cap, and waiting out a lack of descriptors.

use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// How long accepting waits when the process is out of descriptors or memory.
pub const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// Raises this process's soft limit of open files to its hard limit; the limit now.
pub fn raise_open_file_limit() -> io::Result<u64> {
    let (_, hard) = rlimit::getrlimit(rlimit::Resource::NOFILE)?;
    rlimit::increase_nofile_limit(hard)
}

/// An accept error that waiting can mend (descriptors or memory run out).
pub fn out_of_resources(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::OutOfMemory
        || matches!(
            e.raw_os_error(),
            Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
        )
}

/// A connection taken by [`accept_bounded`].
#[derive(Debug)]
pub enum Accepted {
    /// Within the cap: the connection and its slot, free again once dropped.
    Slot(TcpStream, OwnedSemaphorePermit),
    /// Past the cap: the connection, for the caller to tell (or not) and close.
    Refused(TcpStream),
}

/// The next connection on `listener`, with one of `slots` if one is free; while the process
/// is out of descriptors or memory it waits [`ACCEPT_BACKOFF`] and accepts again, and any
/// other accept error is returned.
///
/// Cancel-safe (a `select!` branch loses no connection): nothing waits between taking a
/// connection and returning it.
pub async fn accept_bounded(
    listener: &TcpListener,
    slots: &Arc<Semaphore>,
) -> io::Result<Accepted> {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                return Ok(match Arc::clone(slots).try_acquire_owned() {
                    Ok(slot) => Accepted::Slot(stream, slot),
                    Err(_) => Accepted::Refused(stream),
                });
            }
            Err(e) if out_of_resources(&e) => tokio::time::sleep(ACCEPT_BACKOFF).await,
            Err(e) => return Err(e),
        }
    }
}

/// Serves `listener` with at most `max_connections` connections at once (at most
/// [`Semaphore::MAX_PERMITS`]), each on its own task running `connection(stream)` with its
/// slot held; a connection past the cap gets one write of `refusal` that does not wait,
/// then is closed. Returns only when accepting fails ([`accept_bounded`]), with that error.
pub async fn serve_bounded<F, C>(
    listener: &TcpListener,
    max_connections: usize,
    refusal: &[u8],
    mut connection: F,
) -> io::Result<()>
where
    F: FnMut(TcpStream) -> C,
    C: Future<Output = ()> + Send + 'static,
{
    let slots = Arc::new(Semaphore::new(max_connections.min(Semaphore::MAX_PERMITS)));
    loop {
        match accept_bounded(listener, &slots).await? {
            Accepted::Slot(stream, slot) => {
                let served = connection(stream);
                tokio::spawn(async move {
                    served.await;
                    drop(slot);
                });
            }
            Accepted::Refused(stream) => {
                let _ = stream.try_write(refusal);
            }
        }
    }
}

/// The whole answer of an HTTP server to a connection past its cap: `503 Service
/// Unavailable` with `Retry-After` (`retry_after` in whole seconds, at least 1), `body` of
/// `content_type`, and `connection: close`.
pub fn busy_response(retry_after: Duration, content_type: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 503 Service Unavailable\r\nretry-after: {}\r\ncontent-type: {content_type}\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{body}",
        retry_after.as_secs().max(1),
        body.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[test]
    fn only_a_lack_of_descriptors_or_memory_is_waited_out() {
        for errno in [libc::EMFILE, libc::ENFILE, libc::ENOBUFS, libc::ENOMEM] {
            assert!(out_of_resources(&io::Error::from_raw_os_error(errno)));
        }
        assert!(out_of_resources(&io::ErrorKind::OutOfMemory.into()));
        assert!(!out_of_resources(&io::Error::from_raw_os_error(
            libc::ECONNABORTED
        )));
        assert!(!out_of_resources(&io::Error::from_raw_os_error(
            libc::EBADF
        )));
        assert!(!out_of_resources(&io::ErrorKind::InvalidInput.into()));
    }

    #[test]
    fn the_busy_answer_is_a_whole_503_with_retry_after() {
        let text = busy_response(Duration::from_secs(3), "text/plain", "busy\n");
        assert!(text.starts_with("HTTP/1.1 503 "), "{text}");
        assert!(text.contains("\r\nretry-after: 3\r\n"), "{text}");
        assert!(text.contains("\r\ncontent-type: text/plain\r\n"), "{text}");
        let (head, body) = text.split_once("\r\n\r\n").expect("head and body");
        assert!(head.contains(&format!("content-length: {}", body.len())));
        assert_eq!(body, "busy\n");
        let rounded = busy_response(Duration::from_millis(10), "text/plain", "");
        assert!(rounded.contains("\r\nretry-after: 1\r\n"), "{rounded}");
    }

    #[tokio::test]
    async fn past_the_cap_a_connection_is_refused_until_a_slot_is_free() {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("address");
        let slots = Arc::new(Semaphore::new(1));
        let _first_client = TcpStream::connect(address).await.expect("connect");
        let first = accept_bounded(&listener, &slots).await.expect("accept");
        assert!(matches!(first, Accepted::Slot(..)), "{first:?}");
        let _second = TcpStream::connect(address).await.expect("connect");
        let refused = accept_bounded(&listener, &slots).await.expect("accept");
        assert!(matches!(refused, Accepted::Refused(_)), "{refused:?}");
        drop(first);
        let _third = TcpStream::connect(address).await.expect("connect");
        let taken = accept_bounded(&listener, &slots).await.expect("accept");
        assert!(matches!(taken, Accepted::Slot(..)), "{taken:?}");
    }

    #[tokio::test]
    async fn a_refused_connection_gets_the_refusal_and_is_closed() {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("address");
        let serving = tokio::spawn(async move {
            serve_bounded(&listener, 1, b"busy", |mut stream| async move {
                // Greets, then holds its slot until the client closes.
                let _ = stream.write_all(b"hi").await;
                let _ = stream.read(&mut [0u8; 1]).await;
            })
            .await
        });
        let mut first = TcpStream::connect(address).await.expect("connect");
        let mut greeting = [0u8; 2];
        first.read_exact(&mut greeting).await.expect("greeting");
        assert_eq!(&greeting, b"hi");
        let mut second = TcpStream::connect(address).await.expect("connect");
        let mut answer = Vec::new();
        second.read_to_end(&mut answer).await.expect("refusal");
        assert_eq!(answer, b"busy");
        serving.abort();
    }
}
