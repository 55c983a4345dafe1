//! A client's connection to the card's TCP port, every wait bounded: the first byte of a
//! frame within the idle timeout, the rest of the frame within the frame timeout of its
//! first byte, an answer written whole within the write timeout. `SO_RCVTIMEO` and
//! `SO_SNDTIMEO` bound one system call each, so they are set to the time left before each
//! read and write: a client that sends or reads a byte at a time gains nothing.

use crate::frame::FrameIo;
use std::io::{self, ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};
use vss_net::ServeLimits;

/// A client's connection with the card's bounds.
pub struct Conn {
    stream: TcpStream,
    idle_timeout: Duration,
    frame_timeout: Duration,
    write_timeout: Duration,
    /// The end of the frame being read; `None` while waiting for a frame's first byte.
    frame_deadline: Option<Instant>,
    /// The end of the answer being written.
    write_deadline: Option<Instant>,
}

/// What ran out, for the error that ends the connection.
const IDLE: &str = "silent for the idle timeout";
const FRAME: &str = "frame not complete within the frame timeout";
const WRITE: &str = "answer not read within the write timeout";

impl Conn {
    /// `stream` bounded by `limits`: `idle_timeout`, `header_timeout` (a frame's),
    /// `write_timeout`.
    pub fn new(stream: TcpStream, limits: &ServeLimits) -> Self {
        Conn {
            stream,
            idle_timeout: limits.idle_timeout,
            frame_timeout: limits.header_timeout,
            write_timeout: limits.write_timeout,
            frame_deadline: None,
            write_deadline: None,
        }
    }
}

/// The time left before `deadline`, or the error that it passed.
fn left(deadline: Instant, what: &'static str) -> io::Result<Duration> {
    deadline
        .checked_duration_since(Instant::now())
        .filter(|d| !d.is_zero())
        .ok_or_else(|| io::Error::new(ErrorKind::TimedOut, what))
}

/// A socket timeout (`EAGAIN` on Unix) as the bound that ran out.
fn timed_out(e: io::Error, what: &'static str) -> io::Error {
    match e.kind() {
        ErrorKind::WouldBlock | ErrorKind::TimedOut => io::Error::new(ErrorKind::TimedOut, what),
        _ => e,
    }
}

impl Read for Conn {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let (wait, what) = match self.frame_deadline {
            None => (self.idle_timeout, IDLE),
            Some(deadline) => (left(deadline, FRAME)?, FRAME),
        };
        self.stream.set_read_timeout(Some(wait))?;
        self.stream.read(buf).map_err(|e| timed_out(e, what))
    }
}

impl Write for Conn {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let wait = match self.write_deadline {
            None => self.write_timeout,
            Some(deadline) => left(deadline, WRITE)?,
        };
        self.stream.set_write_timeout(Some(wait))?;
        self.stream.write(buf).map_err(|e| timed_out(e, WRITE))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.stream.flush()
    }
}

impl FrameIo for Conn {
    fn before_frame(&mut self) {
        self.frame_deadline = None;
    }

    fn frame_started(&mut self) {
        self.frame_deadline = Some(Instant::now() + self.frame_timeout);
    }

    fn before_answer(&mut self) {
        self.write_deadline = Some(Instant::now() + self.write_timeout);
    }
}
