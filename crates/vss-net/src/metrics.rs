//! Prometheus metrics over HTTP: `GET /metrics` answers the metrics of a
//! [`prometheus_client`] registry in the text exposition format 0.0.4.
//!
//! A server registers its counters, gauges and histograms (with labels: a derived
//! `EncodeLabelSet` or `[(&str, &str); N]`) in a [`Registry`], then hands it to [`serve`]:
//!
//! ```no_run
//! use std::sync::Arc;
//! use prometheus_client::metrics::{counter::Counter, family::Family};
//! use prometheus_client::registry::Registry;
//!
//! # async fn run() -> std::io::Result<()> {
//! let mut registry = Registry::default();
//! let verdicts = Family::<[(&'static str, &'static str); 1], Counter>::default();
//! registry.register("vss_verifications", "Verifications by verdict", verdicts.clone());
//! verdicts.get_or_create(&[("verdict", "valid")]).inc();
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:9100").await?;
//! vss_net::metrics::serve(listener, Arc::new(registry), vss_net::metrics::default_limits()).await
//! # }
//! ```
//!
//! The endpoint is bounded like VSS's other servers, by a [`ServeLimits`] ([`default_limits`]):
//! a few connections at once, one request each, the whole connection (its head read and its
//! answer written, however slowly the client sends or reads) within the request timeout, and a
//! write the client does not read closed after the write timeout. Other paths are 404, other
//! methods 405.

use std::convert::Infallible;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderValue, ALLOW, CONTENT_TYPE};
use hyper::server::conn::http1;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use prometheus_client::encoding::prometheus_text;
pub use prometheus_client::registry::Registry;
use tokio::net::{TcpListener, TcpStream};

use crate::{Guarded, ServeLimits};

/// The path the metrics are served at.
pub const PATH: &str = "/metrics";

/// The content type of the answer: the Prometheus text format, version 0.0.4.
pub const CONTENT_TYPE_TEXT: &str = prometheus_text::CONTENT_TYPE;

/// The largest request head the endpoint reads (16 KiB); a larger one is answered 431.
pub const MAX_HEAD: usize = 16 * 1024;

/// The endpoint's defaults: a connection is served (its request head read and the answer
/// written) within the request timeout, 10 s, then closed, sooner once a write has stayed
/// blocked for the write timeout (10 s); 16 connections at once, more get a 503 and are
/// closed. [`serve`] applies no other bound.
pub fn default_limits() -> ServeLimits {
    ServeLimits {
        request_timeout: Duration::from_secs(10),
        max_connections: 16,
        ..ServeLimits::default()
    }
}

/// The metrics of `registry` in the text exposition format 0.0.4.
pub fn render(registry: &Registry) -> String {
    let mut text = String::new();
    // Writing into a String cannot fail, and the registry's metrics encode themselves
    // without error.
    let _ = prometheus_text::encode(&mut text, registry);
    text
}

/// Serves `registry` at [`PATH`] on `listener` within `limits` (their request timeout, write
/// timeout and connection cap), each connection answered once and closed; returns only when accepting
/// fails (as [`crate::serve_bounded`]), with that error. `limits` out of range are refused at
/// once ([`std::io::ErrorKind::InvalidInput`]).
pub async fn serve(
    listener: TcpListener,
    registry: Arc<Registry>,
    limits: ServeLimits,
) -> io::Result<()> {
    limits
        .check()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    // The whole answer to a connection past the cap, as every server of VSS gives it.
    let busy = crate::busy_response(limits.retry_after, "text/plain", "busy\n");
    crate::serve_bounded(
        &listener,
        limits.max_connections,
        busy.as_bytes(),
        |stream| connection(stream, registry.clone(), limits),
    )
    .await
}

/// Answers one request on `stream`, all within the request timeout, a write blocked for no
/// longer than the write timeout.
async fn connection(stream: TcpStream, registry: Arc<Registry>, limits: ServeLimits) {
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        let response = answer(&request, &registry);
        async move { Ok::<_, Infallible>(response) }
    });
    let served = http1::Builder::new()
        .keep_alive(false)
        .max_buf_size(MAX_HEAD)
        .serve_connection(
            TokioIo::new(Guarded::new(stream, limits.write_timeout)),
            service,
        );
    // A client that is slow or gone is dropped with its connection either way.
    let _ = tokio::time::timeout(limits.request_timeout, served).await;
}

/// The answer to `request`: the metrics, 404 for another path, 405 for another method.
fn answer(request: &Request<Incoming>, registry: &Registry) -> Response<Full<Bytes>> {
    let plain = |status: StatusCode, text: &'static str| {
        let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())));
        *response.status_mut() = status;
        response
            .headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static("text/plain"));
        response
    };
    if request.uri().path() != PATH {
        return plain(
            StatusCode::NOT_FOUND,
            "not found: metrics are at /metrics\n",
        );
    }
    if !matches!(*request.method(), Method::GET | Method::HEAD) {
        let mut response = plain(StatusCode::METHOD_NOT_ALLOWED, "GET /metrics\n");
        response
            .headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    let mut response = Response::new(Full::new(Bytes::from(render(registry))));
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE_TEXT));
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use prometheus_client::metrics::counter::Counter;
    use prometheus_client::metrics::family::Family;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A registry with one labelled counter, served on a free loopback port; its address.
    async fn served(
        config: ServeLimits,
    ) -> (
        std::net::SocketAddr,
        Family<[(&'static str, &'static str); 1], Counter>,
    ) {
        let mut registry = Registry::default();
        let requests = Family::<[(&'static str, &'static str); 1], Counter>::default();
        registry.register("test_requests", "Requests by code", requests.clone());
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("address");
        tokio::spawn(serve(listener, Arc::new(registry), config));
        (address, requests)
    }

    /// Sends `request` on a new connection; everything the server wrote until it closed.
    async fn exchange(address: std::net::SocketAddr, request: &str) -> String {
        let mut stream = TcpStream::connect(address).await.expect("connect");
        stream.write_all(request.as_bytes()).await.expect("request");
        let mut answer = Vec::new();
        tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut answer))
            .await
            .expect("the server closes after answering")
            .expect("read");
        String::from_utf8(answer).expect("UTF-8")
    }

    fn head(answer: &str) -> String {
        answer
            .split("\r\n\r\n")
            .next()
            .unwrap_or_default()
            .to_lowercase()
    }

    #[tokio::test]
    async fn get_metrics_answers_the_counters_as_text_0_0_4() {
        let (address, requests) = served(default_limits()).await;
        requests.get_or_create(&[("code", "200")]).inc_by(3);
        requests.get_or_create(&[("code", "404")]).inc();
        let answer = exchange(address, "GET /metrics HTTP/1.1\r\nhost: vss\r\n\r\n").await;
        assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
        assert!(
            head(&answer).contains("content-type: text/plain; version=0.0.4"),
            "{answer}"
        );
        assert!(
            answer.contains("# TYPE test_requests_total counter\n"),
            "{answer}"
        );
        assert!(
            answer.contains("test_requests_total{code=\"200\"} 3\n"),
            "{answer}"
        );
        assert!(
            answer.contains("test_requests_total{code=\"404\"} 1\n"),
            "{answer}"
        );
        // A query string does not change the path.
        let answer = exchange(address, "GET /metrics?x=1 HTTP/1.1\r\nhost: vss\r\n\r\n").await;
        assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
    }

    #[tokio::test]
    async fn another_path_is_404_and_another_method_405() {
        let (address, _) = served(default_limits()).await;
        let answer = exchange(address, "GET /other HTTP/1.1\r\nhost: vss\r\n\r\n").await;
        assert!(answer.starts_with("HTTP/1.1 404 "), "{answer}");
        let answer = exchange(address, "GET /metrics/ HTTP/1.1\r\nhost: vss\r\n\r\n").await;
        assert!(answer.starts_with("HTTP/1.1 404 "), "{answer}");
        let post = "POST /metrics HTTP/1.1\r\nhost: vss\r\ncontent-length: 2\r\n\r\nhi";
        let answer = exchange(address, post).await;
        assert!(answer.starts_with("HTTP/1.1 405 "), "{answer}");
        assert!(head(&answer).contains("allow: get, head"), "{answer}");
        let answer = exchange(address, "HEAD /metrics HTTP/1.1\r\nhost: vss\r\n\r\n").await;
        assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
        assert!(answer.ends_with("\r\n\r\n"), "no body for HEAD: {answer}");
    }

    #[tokio::test]
    async fn a_slow_client_is_closed_after_the_timeout() {
        let config = ServeLimits {
            request_timeout: Duration::from_millis(200),
            ..default_limits()
        };
        let (address, _) = served(config).await;
        let mut stream = TcpStream::connect(address).await.expect("connect");
        stream
            .write_all(b"GET /metr")
            .await
            .expect("part of a head");
        let mut answer = Vec::new();
        let closed =
            tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut answer)).await;
        assert!(closed.is_ok(), "the connection stayed open");
        assert!(answer.is_empty(), "{:?}", String::from_utf8_lossy(&answer));
    }

    #[tokio::test]
    async fn a_head_larger_than_the_bound_is_refused() {
        let (address, _) = served(default_limits()).await;
        let long = format!(
            "GET /metrics HTTP/1.1\r\nhost: vss\r\nx-pad: {}\r\n\r\n",
            "a".repeat(MAX_HEAD)
        );
        let answer = exchange(address, &long).await;
        assert!(answer.starts_with("HTTP/1.1 431 "), "{answer}");
    }

    #[tokio::test]
    async fn a_client_that_never_reads_its_answer_loses_its_slot_at_the_write_timeout() {
        let write_timeout = Duration::from_millis(500);
        let config = ServeLimits {
            write_timeout,
            request_timeout: Duration::from_secs(60),
            max_connections: 2,
            ..default_limits()
        };
        // An answer far larger than what the sockets on the way back hold.
        let mut registry = Registry::default();
        registry.register("big", "x".repeat(16 << 20), Counter::<u64>::default());
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("address");
        tokio::spawn(serve(listener, Arc::new(registry), config));
        // Twice the cap ask and never read, each with a small receive window.
        let mut attackers = Vec::new();
        for _ in 0..4 {
            let socket = tokio::net::TcpSocket::new_v4().expect("socket");
            socket.set_recv_buffer_size(4096).expect("window");
            let mut stream = socket.connect(address).await.expect("connect");
            stream
                .write_all(b"GET /metrics HTTP/1.1\r\nhost: vss\r\n\r\n")
                .await
                .expect("request");
            attackers.push(stream);
        }
        let started = tokio::time::Instant::now();
        let mut turned_away = false;
        loop {
            // Turned away, the request unread: a 503, or a reset that may come before it.
            let mut stream = TcpStream::connect(address).await.expect("connect");
            let mut answer = Vec::new();
            let asked = stream
                .write_all(b"GET /metrics HTTP/1.1\r\nhost: vss\r\n\r\n")
                .await;
            let read = stream.read_to_end(&mut answer).await;
            if asked.is_ok() && read.is_ok() && answer.starts_with(b"HTTP/1.1 200 ") {
                break;
            }
            let reset = read.is_err_and(|e| e.kind() == io::ErrorKind::ConnectionReset);
            assert!(reset || answer.starts_with(b"HTTP/1.1 503 "), "{asked:?}");
            turned_away = true;
            assert!(
                started.elapsed() < write_timeout + Duration::from_secs(1),
                "not served within the write timeout + 1 s"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(turned_away, "the attackers held no slot");
        drop(attackers);
    }

    #[tokio::test]
    async fn past_the_cap_a_connection_gets_503() {
        let config = ServeLimits {
            max_connections: 1,
            ..default_limits()
        };
        let (address, _) = served(config).await;
        // Holds the one slot: a head that never ends.
        let mut first = TcpStream::connect(address).await.expect("connect");
        first.write_all(b"GET /metrics").await.expect("part");
        // Connections are accepted in the order they came: the first takes the slot.
        let answer = exchange(address, "GET /metrics HTTP/1.1\r\nhost: vss\r\n\r\n").await;
        assert!(answer.starts_with("HTTP/1.1 503 "), "{answer}");
    }
}
