//! The connections the card's TCP port holds: the one served and those waiting for it, at
//! most `max_connections` in all. A connection is *ready* once its first frame arrived
//! whole; when the set is full a new connection takes the place of the oldest one not
//! ready (which is closed), and is refused only when every place is ready.

use std::collections::VecDeque;
use std::net::{Shutdown, TcpStream};
use std::sync::{Arc, Mutex, MutexGuard};

/// The connections held, in arrival order.
pub struct Waiting {
    cap: usize,
    inner: Mutex<Inner>,
}

struct Inner {
    next_id: u64,
    entries: VecDeque<Entry>,
}

struct Entry {
    id: u64,
    /// A handle on the socket, to close it when another connection takes its place.
    handle: TcpStream,
    ready: bool,
}

/// What became of a new connection.
pub enum Admission {
    /// Held: its place, and whether an older connection was closed to make room.
    Held(Place, bool),
    /// Refused: every place holds a ready connection.
    Full,
}

/// A connection's place in [`Waiting`], given back when dropped.
pub struct Place {
    id: u64,
    waiting: Arc<Waiting>,
}

impl Waiting {
    /// At most `cap` connections (at least 1).
    pub fn new(cap: usize) -> Arc<Self> {
        Arc::new(Waiting {
            cap: cap.max(1),
            inner: Mutex::new(Inner {
                next_id: 0,
                entries: VecDeque::new(),
            }),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Holds `handle`'s connection, closing the oldest one not ready if the set is full.
    pub fn admit(self: &Arc<Self>, handle: TcpStream) -> Admission {
        let mut inner = self.lock();
        let mut evicted = false;
        if inner.entries.len() >= self.cap {
            let Some(oldest) = inner.entries.iter().position(|e| !e.ready) else {
                return Admission::Full;
            };
            if let Some(entry) = inner.entries.remove(oldest) {
                // Its reader sees the end of the stream and lets go.
                let _ = entry.handle.shutdown(Shutdown::Both);
                evicted = true;
            }
        }
        let id = inner.next_id;
        inner.next_id += 1;
        inner.entries.push_back(Entry {
            id,
            handle,
            ready: false,
        });
        let place = Place {
            id,
            waiting: Arc::clone(self),
        };
        Admission::Held(place, evicted)
    }

    /// The connections held now.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.lock().entries.len()
    }
}

impl Place {
    /// Marks the connection ready (its first frame arrived); `false` if it was closed to
    /// make room meanwhile.
    pub fn ready(&self) -> bool {
        let mut inner = self.waiting.lock();
        match inner.entries.iter_mut().find(|e| e.id == self.id) {
            Some(entry) => {
                entry.ready = true;
                true
            }
            None => false,
        }
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        self.waiting.lock().entries.retain(|e| e.id != self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::net::TcpListener;

    /// A connected pair: the server's side (held) and the client's.
    fn pair(listener: &TcpListener) -> (TcpStream, TcpStream) {
        let client = TcpStream::connect(listener.local_addr().expect("addr")).expect("connect");
        let (server, _) = listener.accept().expect("accept");
        (server, client)
    }

    #[test]
    fn a_full_set_closes_its_oldest_unready_connection_and_refuses_past_ready_ones() {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let waiting = Waiting::new(2);
        let (s1, mut c1) = pair(&listener);
        let (s2, _c2) = pair(&listener);
        let (s3, _c3) = pair(&listener);
        let (s4, _c4) = pair(&listener);
        let Admission::Held(p1, false) = waiting.admit(s1) else {
            panic!("first held")
        };
        let Admission::Held(p2, false) = waiting.admit(s2) else {
            panic!("second held")
        };
        assert!(p2.ready());
        let Admission::Held(p3, true) = waiting.admit(s3) else {
            panic!("third takes the first's place")
        };
        assert_eq!(c1.read(&mut [0; 1]).expect("closed"), 0);
        assert!(!p1.ready());
        drop(p1);
        assert_eq!(waiting.len(), 2);
        assert!(p3.ready());
        assert!(matches!(waiting.admit(s4), Admission::Full));
        drop(p2);
        assert_eq!(waiting.len(), 1);
    }
}
