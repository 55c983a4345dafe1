//! A new connection's wait for its TLS handshake and HTTP/2 preface: at most
//! `header_timeout` from accept ([`Wait`]), and displaceable meanwhile by a newer
//! connection when the listener is full ([`Handshakes::displace_oldest`]). [`Admitted`] is
//! the connection served, holding its [`Place`] under the caps until it closes.

use std::collections::VecDeque;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{oneshot, OwnedSemaphorePermit};
use tokio::time::{Instant, Sleep};
use vss_net::{ClientSlot, PerClient};

use super::ClientKey;

/// The client preface of HTTP/2 (RFC 9113 §3.4): its bytes must all arrive in time.
pub const PREFACE_LEN: usize = 24;

/// The connections of a listener still in their handshake or preface, oldest first.
#[derive(Debug, Default)]
pub struct Handshakes {
    queue: Mutex<Queue>,
}

/// The waiting connections by number, each with the sender that displaces it.
#[derive(Debug, Default)]
struct Queue {
    last: u64,
    waiting: VecDeque<(u64, oneshot::Sender<()>)>,
}

impl Handshakes {
    /// Closes the oldest connection still waiting; false when none is.
    pub fn displace_oldest(&self) -> bool {
        let mut queue = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        let Some((_, displace)) = queue.waiting.pop_front() else {
            return false;
        };
        // A receiver already gone is a connection ending anyway: its place frees.
        let _ = displace.send(());
        true
    }

    /// A new connection's wait, ending `timeout` from now.
    pub fn enter(self: &Arc<Self>, timeout: std::time::Duration) -> Wait {
        let (displace, displaced) = oneshot::channel();
        let mut queue = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        queue.last += 1;
        let id = queue.last;
        queue.waiting.push_back((id, displace));
        Wait {
            deadline: Box::pin(tokio::time::sleep_until(Instant::now() + timeout)),
            displaced,
            ticket: Some((id, Arc::clone(self))),
        }
    }

    /// Takes `id` out of the queue; false when it was displaced already.
    fn leave(&self, id: u64) -> bool {
        let mut queue = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        let Some(at) = queue.waiting.iter().position(|(queued, _)| *queued == id) else {
            return false;
        };
        queue.waiting.remove(at);
        true
    }
}

/// Why `vssd` closed a connection before serving it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Closed {
    /// No TLS handshake and HTTP/2 preface within `header_timeout`.
    #[error("no TLS handshake and HTTP/2 preface within header_timeout")]
    TimedOut,
    /// A newer connection took its place while the listener was full.
    #[error("displaced by a newer connection before its handshake and preface")]
    Displaced,
    /// Its client holds `max_connections_per_client` already.
    #[error("the client holds max_connections_per_client already")]
    ClientCap,
}

impl Closed {
    fn error(self) -> io::Error {
        io::Error::other(self)
    }

    /// Why, when `error` is one of these.
    pub fn of(error: &io::Error) -> Option<Closed> {
        error.get_ref()?.downcast_ref::<Closed>().copied()
    }
}

/// One connection's wait: its deadline and the signal that it was displaced.
#[derive(Debug)]
pub struct Wait {
    deadline: Pin<Box<Sleep>>,
    displaced: oneshot::Receiver<()>,
    ticket: Option<(u64, Arc<Handshakes>)>,
}

impl Wait {
    /// Ready when the wait is over, past its deadline or displaced.
    fn poll_end(&mut self, cx: &mut Context<'_>) -> Poll<Closed> {
        if Pin::new(&mut self.displaced).poll(cx).is_ready() {
            return Poll::Ready(Closed::Displaced);
        }
        if self.deadline.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Closed::TimedOut);
        }
        Poll::Pending
    }

    /// `step` (a TLS handshake), unless the wait ends first.
    pub async fn within<T>(&mut self, step: impl Future<Output = io::Result<T>>) -> io::Result<T> {
        let mut step = std::pin::pin!(step);
        std::future::poll_fn(|cx| {
            if let Poll::Ready(end) = self.poll_end(cx) {
                return Poll::Ready(Err(end.error()));
            }
            step.as_mut().poll(cx)
        })
        .await
    }

    /// The wait is over in time: the connection may no longer be displaced. False when it
    /// was displaced already.
    fn finish(&mut self) -> bool {
        match self.ticket.take() {
            Some((id, handshakes)) => handshakes.leave(id),
            None => true,
        }
    }
}

impl Drop for Wait {
    fn drop(&mut self) {
        self.finish();
    }
}

/// What an admitted connection holds: its permit, and once past its preface its client's
/// place; given back when dropped.
#[derive(Debug)]
pub struct Place {
    _permit: OwnedSemaphorePermit,
    client: ClientKey,
    clients: Arc<PerClient<ClientKey>>,
    slot: Option<ClientSlot<ClientKey>>,
}

impl Place {
    /// The place of `permit`, for a connection of `client` under `clients`.
    pub fn new(
        permit: OwnedSemaphorePermit,
        client: ClientKey,
        clients: Arc<PerClient<ClientKey>>,
    ) -> Place {
        Place {
            _permit: permit,
            client,
            clients,
            slot: None,
        }
    }

    /// Takes the client's place; `ClientCap` when it holds all of its own already.
    pub fn established(&mut self) -> Result<(), Closed> {
        if self.slot.is_none() {
            self.slot = Some(
                self.clients
                    .try_take(self.client)
                    .ok_or(Closed::ClientCap)?,
            );
        }
        Ok(())
    }
}

/// A connection admitted under a listener's caps: until the HTTP/2 preface has arrived its
/// reads fail once the [`Wait`] ends; then it takes its client's place
/// ([`Place::established`]). Its places are given back when it closes.
pub struct Admitted<S> {
    io: S,
    preface: Option<(usize, Wait)>,
    place: Place,
}

impl<S> Admitted<S> {
    /// `io` (past its TLS handshake, if any) waiting for the preface within `wait`.
    pub fn new(io: S, wait: Wait, place: Place) -> Self {
        Admitted {
            io,
            preface: Some((PREFACE_LEN, wait)),
            place,
        }
    }

    /// Counts `n` preface bytes read; once all arrived, the wait is finished.
    fn preface_read(&mut self, n: usize) -> io::Result<()> {
        let Some((left, wait)) = &mut self.preface else {
            return Ok(());
        };
        *left = left.saturating_sub(n);
        if *left > 0 {
            return Ok(());
        }
        if !wait.finish() {
            return Err(Closed::Displaced.error());
        }
        self.preface = None;
        self.place.established().map_err(Closed::error)
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Admitted<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if let Some((_, wait)) = &mut this.preface {
            if let Poll::Ready(end) = wait.poll_end(cx) {
                return Poll::Ready(Err(end.error()));
            }
        }
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.io).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = &polled {
            let n = buf.filled().len() - before;
            if n > 0 {
                this.preface_read(n)?;
            }
        }
        polled
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Admitted<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}
