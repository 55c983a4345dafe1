//! vssd honours the client's deadline (the `grpc-timeout` request header): a call ends with
//! DEADLINE_EXCEEDED at the earlier of the client's deadline and the daemon's own limit, a
//! `VerifyStream` during its answers, a subscription, a unary call while its request is
//! still being read (which `request_timeout` bounds too); a malformed deadline is ignored.

mod common;

use std::time::{Duration, Instant};

use common::{Daemon, Station};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::transport::Channel;
use tonic::{Code, Request, Status};
use vss_proto::proto::security_entity_client::SecurityEntityClient;
use vss_proto::proto::{StatusRequest, SubscribeIdChangeRequest, VerifyRequest};

/// The client's deadline in these tests.
const DEADLINE: Duration = Duration::from_millis(200);
/// `stream_timeout` in these tests.
const STREAM_TIMEOUT: Duration = Duration::from_secs(2);
/// `request_timeout` in these tests.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(1);
/// What a deadline may be late by on a loaded machine.
const MARGIN: Duration = Duration::from_secs(1);

fn run<F: std::future::Future>(test: F) -> F::Output {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(test)
}

/// A `VerifyStream` of `client` with the deadline `deadline` (none: no header) that sends
/// `first` and then nothing while it stays open; the answers it got, how it ended and when,
/// and its requests, still open.
async fn held_stream(
    client: &mut SecurityEntityClient<Channel>,
    deadline: Option<Duration>,
    first: Option<VerifyRequest>,
) -> (Vec<u64>, Status, Duration, mpsc::Sender<VerifyRequest>) {
    let (sender, requests) = mpsc::channel(1);
    if let Some(first) = first {
        sender.send(first).await.expect("queued");
    }
    let mut request = Request::new(ReceiverStream::new(requests));
    if let Some(deadline) = deadline {
        request.set_timeout(deadline);
    }
    let started = Instant::now();
    let mut answers = client
        .verify_stream(request)
        .await
        .expect("stream")
        .into_inner();
    let mut tags = Vec::new();
    let end = loop {
        let next = tokio::time::timeout(STREAM_TIMEOUT + MARGIN, answers.message())
            .await
            .expect("the stream ends in time");
        match next {
            Ok(Some(answer)) => tags.push(answer.tag),
            Ok(None) => panic!("the stream ended without a status"),
            Err(status) => break status,
        }
    };
    (tags, end, started.elapsed(), sender)
}

/// A station whose vssd has the test's `stream_timeout` and `request_timeout`, and one
/// stream per connection.
fn station() -> Station {
    Station::new(&["A"], 1, |c| {
        c.daemon.stream_timeout = STREAM_TIMEOUT;
        c.daemon.request_timeout = REQUEST_TIMEOUT;
        c.daemon.max_streams_per_connection = 1;
    })
}

#[test]
fn a_verify_stream_ends_at_the_clients_deadline_after_the_answers_before_it() {
    let station = station();
    let daemon = Daemon::start(&station, &[]);
    run(async {
        let garbage = VerifyRequest {
            data: b"not a message".to_vec(),
            tag: 7,
        };
        let mut client = daemon.client().await;
        let (tags, end, elapsed, _open) =
            held_stream(&mut client, Some(DEADLINE), Some(garbage)).await;
        assert_eq!(tags, [7], "the answer before the deadline arrives");
        assert_eq!(end.code(), Code::DeadlineExceeded, "{end:?}");
        assert!(end.message().contains("grpc-timeout"), "{end:?}");
        assert!(
            elapsed >= DEADLINE && elapsed <= DEADLINE + MARGIN,
            "{elapsed:?}"
        );
        // The connection's only stream is free although the client still sends: the
        // daemon let the requests go.
        tokio::time::timeout(MARGIN, client.status(StatusRequest {}))
            .await
            .expect("served in time")
            .expect("status");
    });
}

#[test]
fn without_a_deadline_or_with_a_later_one_a_stream_ends_at_stream_timeout() {
    let station = station();
    let daemon = Daemon::start(&station, &[]);
    run(async {
        let later = STREAM_TIMEOUT * 10;
        let (mut first, mut second) = (daemon.client().await, daemon.client().await);
        let (none, later) = tokio::join!(
            held_stream(&mut first, None, None),
            held_stream(&mut second, Some(later), None),
        );
        for (tags, end, elapsed, _) in [none, later] {
            assert!(tags.is_empty());
            assert_eq!(end.code(), Code::DeadlineExceeded, "{end:?}");
            assert!(end.message().contains("stream_timeout"), "{end:?}");
            assert!(
                elapsed >= STREAM_TIMEOUT && elapsed <= STREAM_TIMEOUT + MARGIN,
                "{elapsed:?}"
            );
        }
    });
}

#[test]
fn a_subscription_with_a_deadline_ends_at_it() {
    let station = station();
    let daemon = Daemon::start(&station, &[]);
    run(async {
        let mut client = daemon.client().await;
        let mut request = Request::new(SubscribeIdChangeRequest {});
        request.set_timeout(DEADLINE);
        let started = Instant::now();
        let mut events = client
            .subscribe_id_change(request)
            .await
            .expect("subscribed")
            .into_inner();
        let end = tokio::time::timeout(DEADLINE + MARGIN, events.message())
            .await
            .expect("the subscription ends in time")
            .expect_err("a status");
        let elapsed = started.elapsed();
        assert_eq!(end.code(), Code::DeadlineExceeded, "{end:?}");
        assert!(
            elapsed >= DEADLINE && elapsed <= DEADLINE + MARGIN,
            "{elapsed:?}"
        );
    });
}

/// The `grpc-status` of a unary `Status` call over a bare HTTP/2 client (tonic's client
/// enforces a deadline itself) with `grpc-timeout: timeout` (none if `None`), and when it
/// came: with its (empty) message when `finished`, else with a request that never ends.
async fn status_call(daemon: &Daemon, timeout: Option<&str>, finished: bool) -> (String, Duration) {
    let io = tokio::net::UnixStream::connect(&daemon.socket)
        .await
        .expect("connect");
    let (client, connection) = h2::client::handshake(io).await.expect("handshake");
    tokio::spawn(connection);
    let mut client = client.ready().await.expect("ready");
    let mut request = hyper::Request::post("http://localhost/vss.v1.SecurityEntity/Status")
        .header("content-type", "application/grpc")
        .header("te", "trailers");
    if let Some(timeout) = timeout {
        request = request.header("grpc-timeout", timeout);
    }
    let request = request.body(()).expect("request");
    let started = Instant::now();
    let (response, mut body) = client.send_request(request, false).expect("sent");
    if finished {
        // An uncompressed message of 0 bytes.
        body.send_data(hyper::body::Bytes::from_static(&[0; 5]), true)
            .expect("message");
    }
    let answer = async {
        let response = response.await.expect("response");
        let head = response.headers().get("grpc-status").cloned();
        let mut answer = response.into_body();
        while let Some(data) = answer.data().await {
            data.expect("data");
        }
        let trailers = answer.trailers().await.expect("trailers");
        let status = head.or_else(|| trailers?.get("grpc-status").cloned());
        status.map(|s| String::from_utf8_lossy(s.as_bytes()).into_owned())
    };
    let status = tokio::time::timeout(REQUEST_TIMEOUT + MARGIN, answer)
        .await
        .expect("an answer in time")
        .expect("a grpc-status");
    (status, started.elapsed())
}

#[test]
fn a_unary_call_still_reading_its_request_ends_at_the_earlier_deadline() {
    let station = station();
    let daemon = Daemon::start(&station, &[]);
    run(async {
        let deadline_exceeded = (Code::DeadlineExceeded as i32).to_string();
        let (status, elapsed) = status_call(&daemon, Some("200m"), false).await;
        assert_eq!(status, deadline_exceeded);
        assert!(
            elapsed >= DEADLINE && elapsed <= DEADLINE + MARGIN,
            "{elapsed:?}"
        );
        // Without a deadline, or with a later one, request_timeout ends the reading.
        for timeout in [None, Some("30S")] {
            let (status, elapsed) = status_call(&daemon, timeout, false).await;
            assert_eq!(status, deadline_exceeded, "grpc-timeout {timeout:?}");
            assert!(
                elapsed >= REQUEST_TIMEOUT && elapsed <= REQUEST_TIMEOUT + MARGIN,
                "grpc-timeout {timeout:?}: {elapsed:?}"
            );
        }
        // A whole request is answered; a malformed deadline is ignored, as tonic's server
        // does.
        for timeout in ["5S", "5s", "123456789m", "-1S", ""] {
            let (status, _) = status_call(&daemon, Some(timeout), true).await;
            assert_eq!(status, "0", "grpc-timeout {timeout:?}");
        }
    });
}
