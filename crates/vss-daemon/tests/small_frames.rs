//! A `VerifyStream` of small requests (about 110 bytes, a digest-signed CAM's size) sent
//! one DATA frame each, whose answers the client does not read for a while: vssd stops
//! reading, the frames wait in its HTTP/2 windows, and the stream must go on once the
//! client reads (h2 closes a connection with ENHANCE_YOUR_CALM "too_many_data_frames" when
//! the small frames it holds unread outweigh its budget: with a 64 KiB stream window this
//! stream was cut before its first answer; `listen::http2::STREAM_WINDOW_BYTES`).

mod common;

use std::time::Duration;

use common::{small_window_client, Daemon, Station};
use vss_proto::proto::VerifyRequest;

/// Requests sent.
const REQUESTS: u64 = 3000;

#[test]
fn small_requests_waiting_in_the_windows_do_not_cut_the_stream() {
    let station = Station::new(&["A"], 1, |_| {});
    let daemon = Daemon::start(&station, &[]);
    tokio::runtime::Runtime::new()
        .expect("runtime")
        .block_on(async {
            let mut client = small_window_client(&daemon.socket).await;
            // One request per poll: the encoder flushes each into a DATA frame of its own.
            let requests = async_stream(REQUESTS);
            let mut answers = client
                .verify_stream(requests)
                .await
                .expect("stream")
                .into_inner();
            tokio::time::sleep(Duration::from_secs(2)).await;
            let mut tags = Vec::new();
            while let Some(answer) = answers.message().await.unwrap_or_else(|status| {
                panic!(
                    "after {} answers: {status}\n{}",
                    tags.len(),
                    daemon.stderr()
                )
            }) {
                tags.push(answer.tag);
            }
            assert_eq!(tags, (0..REQUESTS).collect::<Vec<_>>());
        });
}

/// `count` requests of 100 bytes that are not COER (answered MALFORMED), each after a yield.
fn async_stream(count: u64) -> impl tokio_stream::Stream<Item = VerifyRequest> {
    let items = tokio_stream::iter((0..count).map(|tag| VerifyRequest {
        data: vec![0xff; 100],
        tag,
    }));
    tokio_stream::StreamExt::then(items, |request| async move {
        tokio::task::yield_now().await;
        request
    })
}
