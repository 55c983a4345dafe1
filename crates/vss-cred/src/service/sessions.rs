//! [`Sessions`]: the user service's open sessions, each held against the cap of the client
//! that opened it ([`MAX_SESSIONS_PER_CLIENT`]), the clients off loopback together leaving
//! [`LOOPBACK_SESSIONS`] of the table to the loopback ones.

use super::client::ClientKey;
use super::ServiceError;
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};
use vss_net::{ClientSlot, PerClient};

/// The most sessions open at once.
pub const MAX_SESSIONS: usize = 64;
/// How long a session waits for its next step.
pub const SESSION_TTL: Duration = Duration::from_secs(300);
/// Octets of randomness in a session identifier.
pub const SESSION_ID_LEN: usize = 16;
/// The most sessions one client ([`ClientKey`]: its IPv4 address or IPv6 /64) holds open at
/// once; one more is answered 429. Each ends with its last step or after [`SESSION_TTL`].
pub const MAX_SESSIONS_PER_CLIENT: usize = 8;
/// Of [`MAX_SESSIONS`], what clients off loopback (the service listening on another
/// address) leave to the loopback clients, the user's own: past their share they are
/// answered 503.
pub const LOOPBACK_SESSIONS: usize = 16;

/// The sessions open, by identifier.
pub(super) struct Sessions<T> {
    table: Mutex<HashMap<String, Entry<T>>>,
    per_client: PerClient<ClientKey>,
}

struct Entry<T> {
    at: Instant,
    held: Held,
    session: T,
}

/// A client's slot for one session: reserved before the work of opening it, kept while a
/// session is taken out for its step and put back for the next.
pub(super) struct Held {
    client: ClientKey,
    _slot: ClientSlot<ClientKey>,
}

impl<T> Default for Sessions<T> {
    fn default() -> Self {
        Sessions {
            table: Mutex::default(),
            per_client: PerClient::new(MAX_SESSIONS_PER_CLIENT),
        }
    }
}

impl<T> Sessions<T> {
    /// The table, its expired sessions gone (their clients' slots given back).
    fn table(&self) -> MutexGuard<'_, HashMap<String, Entry<T>>> {
        let mut table = self.table.lock().unwrap_or_else(|p| p.into_inner());
        table.retain(|_, e| e.at.elapsed() <= SESSION_TTL);
        table
    }

    /// Whether the table has room for one more session of `client`.
    fn room(table: &HashMap<String, Entry<T>>, client: ClientKey) -> Result<(), ServiceError> {
        let remote = |e: &&Entry<T>| !e.held.client.is_loopback();
        let full = table.len() >= MAX_SESSIONS
            || (!client.is_loopback()
                && table.values().filter(remote).count() >= MAX_SESSIONS - LOOPBACK_SESSIONS);
        if full {
            return Err(ServiceError::TooManySessions);
        }
        Ok(())
    }

    /// A slot for one more session of `client`, taken before the work of opening it:
    /// [`ServiceError::ClientSessionCap`] when the client holds [`MAX_SESSIONS_PER_CLIENT`],
    /// [`ServiceError::TooManySessions`] when the table (or the share of the clients off
    /// loopback) is full.
    pub(super) fn reserve(&self, client: ClientKey) -> Result<Held, ServiceError> {
        let table = self.table();
        let slot = self
            .per_client
            .try_take(client)
            .ok_or(ServiceError::ClientSessionCap(MAX_SESSIONS_PER_CLIENT))?;
        Self::room(&table, client)?;
        Ok(Held {
            client,
            _slot: slot,
        })
    }

    /// Opens a session in a reserved slot; its fresh identifier.
    pub(super) fn open(&self, held: Held, session: T) -> Result<String, ServiceError> {
        let mut table = self.table();
        Self::room(&table, held.client)?;
        let mut id = [0u8; SESSION_ID_LEN];
        rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut id);
        let id = hex::encode(id);
        let at = Instant::now();
        table.insert(id.clone(), Entry { at, held, session });
        Ok(id)
    }

    /// Takes a session out, its step being answered, with its client's slot.
    pub(super) fn take(&self, id: &str) -> Result<(T, Held), ServiceError> {
        self.table()
            .remove(id)
            .map(|e| (e.session, e.held))
            .ok_or(ServiceError::UnknownSession)
    }

    /// Puts a session back under `id` for its next step, its lifetime started again.
    pub(super) fn put_back(&self, id: &str, held: Held, session: T) -> Result<(), ServiceError> {
        let mut table = self.table();
        if table.len() >= MAX_SESSIONS {
            return Err(ServiceError::TooManySessions);
        }
        let at = Instant::now();
        table.insert(id.to_string(), Entry { at, held, session });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{IpAddr, Ipv4Addr};

    fn client(a: u8, d: u8) -> ClientKey {
        ClientKey::of(IpAddr::V4(Ipv4Addr::new(a, 0, 2, d)))
    }

    #[test]
    fn one_client_holds_its_cap_until_a_session_ends() {
        let sessions = Sessions::<()>::default();
        let ids: Vec<_> = (0..MAX_SESSIONS_PER_CLIENT)
            .map(|_| {
                let held = sessions.reserve(client(192, 1)).expect("under the cap");
                sessions.open(held, ()).expect("opened")
            })
            .collect();
        assert!(matches!(
            sessions.reserve(client(192, 1)),
            Err(ServiceError::ClientSessionCap(MAX_SESSIONS_PER_CLIENT))
        ));
        // A session taken out for its step keeps the slot; put back, still.
        let (session, held) = sessions.take(&ids[0]).expect("open");
        assert!(sessions.reserve(client(192, 1)).is_err());
        sessions.put_back(&ids[0], held, session).expect("back");
        assert!(sessions.reserve(client(192, 1)).is_err());
        drop(sessions.take(&ids[0]).expect("its last step"));
        assert!(
            sessions.reserve(client(192, 1)).is_ok(),
            "its slot given back"
        );
        assert!(matches!(
            sessions.take(&ids[0]),
            Err(ServiceError::UnknownSession)
        ));
    }

    #[test]
    fn clients_off_loopback_leave_the_loopback_ones_their_share() {
        let sessions = Sessions::<()>::default();
        let remote = MAX_SESSIONS - LOOPBACK_SESSIONS;
        for n in 0..remote {
            let held = sessions.reserve(client(192, n as u8)).expect("room");
            sessions.open(held, ()).expect("opened");
        }
        assert!(matches!(
            sessions.reserve(client(192, 250)),
            Err(ServiceError::TooManySessions)
        ));
        for n in 0..LOOPBACK_SESSIONS {
            let held = sessions.reserve(client(127, n as u8)).expect("loopback");
            sessions.open(held, ()).expect("opened");
        }
        assert!(matches!(
            sessions.reserve(client(127, 250)),
            Err(ServiceError::TooManySessions)
        ));
    }
}
