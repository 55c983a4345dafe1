//! The HTTP/2 settings of every `vssd` connection, which bound what one connection may make
//! the daemon hold ([`connection_memory`]): its streams (`[daemon]
//! max_streams_per_connection`), its flow-control windows, its send buffers, the size of
//! its frames and headers. A peer that stops answering pings is closed.

use std::time::Duration;

use hyper::server::conn::http2::Builder;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use vss_core::config::DaemonConfig;

/// The window of each stream: request bytes a stream may send before the daemon reads them.
/// Small enough that a stalled `VerifyStream` whose requests come one DATA frame each, each
/// at least 85 bytes (1609.2 signed data is larger), stays within h2's budget of unread small
/// frames (half the connection window): past it h2 closes the connection with
/// ENHANCE_YOUR_CALM "too_many_data_frames" (tests/small_frames.rs).
pub const STREAM_WINDOW_BYTES: u32 = 32 * 1024;
/// The window of a connection: request bytes all its streams together may send before the
/// daemon reads them.
pub const CONNECTION_WINDOW_BYTES: u32 = 128 * 1024;
/// The largest HTTP/2 frame the daemon accepts (the protocol's least).
pub const MAX_FRAME_BYTES: u32 = 16 * 1024;
/// The largest header list of a request.
pub const MAX_HEADER_LIST_BYTES: u32 = 16 * 1024;
/// Answer bytes of one stream buffered beyond what the client's window lets through.
pub const SEND_BUFFER_BYTES: usize = 16 * 1024;
/// What a connection costs beside its window and its streams: its HTTP/2 state and read
/// and write buffers, its tasks.
pub const CONNECTION_STATE_BYTES: u64 = 256 * 1024;
/// What a stream costs beside its send buffer, its request bytes within the connection
/// window aside: its state in HTTP/2 and gRPC, its tasks, and the answers of a
/// `VerifyStream` in flight (`service::STREAM_WINDOW` of them, small messages).
pub const STREAM_STATE_BYTES: u64 = 112 * 1024;
/// How often an idle connection is pinged.
pub const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(30);
/// Streams a client may reset before the daemon has accepted them (a rapid-reset attack).
pub const MAX_PENDING_RESETS: usize = 32;

/// The HTTP/2 server of one connection within `config`; a ping unanswered within
/// `write_timeout` closes the connection.
pub fn builder(config: &DaemonConfig) -> Builder<TokioExecutor> {
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .timer(TokioTimer::new())
        .max_concurrent_streams(config.max_streams_per_connection)
        .initial_stream_window_size(STREAM_WINDOW_BYTES)
        .initial_connection_window_size(CONNECTION_WINDOW_BYTES)
        .max_frame_size(MAX_FRAME_BYTES)
        .max_header_list_size(MAX_HEADER_LIST_BYTES)
        .max_send_buf_size(SEND_BUFFER_BYTES)
        .max_pending_accept_reset_streams(MAX_PENDING_RESETS)
        .keep_alive_interval(KEEPALIVE_INTERVAL)
        .keep_alive_timeout(config.write_timeout);
    builder
}

/// The most one connection holding its every stream, with full windows and answers that it
/// does not read, adds to the daemon's resident memory (small messages: a request or
/// answer of `n` bytes in flight adds up to `n`): the connection window and state plus,
/// per stream, its send buffer and its state. At the defaults (16 streams) 2,432 KiB.
pub fn connection_memory(config: &DaemonConfig) -> u64 {
    u64::from(CONNECTION_WINDOW_BYTES)
        + CONNECTION_STATE_BYTES
        + u64::from(config.max_streams_per_connection)
            * (SEND_BUFFER_BYTES as u64 + STREAM_STATE_BYTES)
}

/// [`connection_memory`] for every connection of `listeners` listeners at their cap: the
/// most the daemon's resident memory grows under attack.
pub fn memory_bound(config: &DaemonConfig, listeners: u64) -> u64 {
    listeners * config.max_connections as u64 * connection_memory(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_bounds_at_the_defaults() {
        let config = DaemonConfig::default();
        assert_eq!(connection_memory(&config), 2432 * 1024);
        assert_eq!(memory_bound(&config, 1), 608 * 1024 * 1024);
    }
}
