//! vssd's resident memory while clients hold every connection of its cap with every
//! stream open, its windows full and its answers unread: it grows by at most the bound
//! documented in docs/DAEMON.md, computed from the configuration
//! (`vss_daemon::listen::http2::memory_bound`).

mod common;

use std::time::{Duration, Instant};

use common::{small_window_client, Daemon, Station};
use vss_daemon::listen::http2::memory_bound;
use vss_proto::proto::{StatusRequest, VerifyRequest};

const CONNECTIONS: usize = 8;
const STREAMS: u32 = 8;

/// The resident memory of process `pid`, in bytes.
fn resident(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS");
    kib * 1024
}

/// Requests without end, each 1 KiB that is not COER (answered MALFORMED at once).
fn endless() -> impl tokio_stream::Stream<Item = VerifyRequest> {
    tokio_stream::iter(std::iter::repeat(VerifyRequest {
        data: vec![0xff; 1024],
        tag: 1,
    }))
}

#[test]
fn every_connection_with_every_stream_stays_under_the_documented_bound() {
    let station = Station::new(&["A"], 1, |c| {
        c.daemon.max_connections = CONNECTIONS;
        c.daemon.max_streams_per_connection = STREAMS;
    });
    let daemon = Daemon::start(&station, &[]);
    let bound = memory_bound(&station.config.daemon, 1);
    tokio::runtime::Runtime::new()
        .expect("runtime")
        .block_on(async {
            // Warm up: the runtime's threads and the batcher's, the allocator's arenas.
            let mut warm = small_window_client(&daemon.socket).await;
            let mut answers = warm
                .verify_stream(tokio_stream::StreamExt::take(endless(), 2000))
                .await
                .expect("stream")
                .into_inner();
            while answers.message().await.expect("answer").is_some() {}
            warm.status(StatusRequest {}).await.expect("status");
            let before = resident(daemon.child.id());

            // The warm client's connection is the first of the cap.
            let mut clients = vec![warm];
            for _ in 1..CONNECTIONS {
                clients.push(small_window_client(&daemon.socket).await);
            }
            let mut held = Vec::new();
            for client in &mut clients {
                for _ in 0..STREAMS {
                    held.push(client.verify_stream(endless()).await.expect("stream"));
                }
            }
            let mut peak = 0;
            let started = Instant::now();
            while started.elapsed() < Duration::from_secs(3) {
                peak = peak.max(resident(daemon.child.id()));
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            let grown = peak.saturating_sub(before);
            eprintln!(
                "vssd grew by {} KiB (bound {} KiB)",
                grown / 1024,
                bound / 1024
            );
            assert!(
                grown <= bound,
                "grew by {grown} bytes, bound {bound}\n{}",
                daemon.stderr()
            );
            drop((held, clients));
        });
}
