//! [`Nonces`]: the offers or policies a service opened and those it saw answered, each open
//! one held against the cap of the client that asked for it ([`MAX_OPEN_PER_CLIENT`]).

use super::client::ClientKey;
use super::ServiceError;
use crate::roles::{MAX_OPEN, OPEN_TTL};
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;
use vss_net::{ClientSlot, PerClient};

/// The most offers (or policies) one client ([`ClientKey`]: its IPv4 address or IPv6 /64)
/// holds open at once on a service; one more is answered 429. Each closes when answered or
/// after [`OPEN_TTL`].
pub const MAX_OPEN_PER_CLIENT: usize = 16;

/// What [`Nonces::take`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NonceState {
    /// Open, and now taken.
    Open,
    /// Taken before.
    Spent,
    /// Never opened here, or expired.
    Unknown,
}

/// The nonces of the offers or policies this process opened, and those it saw answered, so
/// a request for an unknown nonce is refused before any work and a replay is told from an
/// unknown nonce. Both sets hold at most [`MAX_OPEN`] nonces of the last [`OPEN_TTL`]; an
/// open nonce holds a slot of its client's [`MAX_OPEN_PER_CLIENT`] until it is taken or
/// expires.
pub(super) struct Nonces {
    inner: Mutex<NonceSets>,
    per_client: PerClient<ClientKey>,
}

impl Default for Nonces {
    fn default() -> Self {
        Nonces {
            inner: Mutex::default(),
            per_client: PerClient::new(MAX_OPEN_PER_CLIENT),
        }
    }
}

#[derive(Default)]
struct NonceSets {
    open: HashMap<Vec<u8>, (Instant, ClientSlot<ClientKey>)>,
    spent: HashMap<Vec<u8>, Instant>,
}

impl NonceSets {
    /// Forgets what is older than [`OPEN_TTL`], giving the clients' slots back.
    fn expire(&mut self) {
        self.open.retain(|_, (at, _)| at.elapsed() <= OPEN_TTL);
        self.spent.retain(|_, at| at.elapsed() <= OPEN_TTL);
    }
}

impl Nonces {
    fn sets(&self) -> MutexGuard<'_, NonceSets> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A slot for one more open nonce of `client`, taken before the work of opening it;
    /// [`ServiceError::ClientOpenCap`] when the client holds [`MAX_OPEN_PER_CLIENT`].
    pub(super) fn reserve(&self, client: ClientKey) -> Result<ClientSlot<ClientKey>, ServiceError> {
        self.sets().expire();
        self.per_client
            .try_take(client)
            .ok_or(ServiceError::ClientOpenCap(MAX_OPEN_PER_CLIENT))
    }

    /// Records a nonce opened with its client's slot; the role bounds the number open, so
    /// this set needs no more.
    pub(super) fn open(&self, nonce: &[u8], slot: ClientSlot<ClientKey>) {
        let mut sets = self.sets();
        sets.expire();
        if sets.open.len() < MAX_OPEN {
            sets.open.insert(nonce.to_vec(), (Instant::now(), slot));
        }
    }

    /// Takes a nonce: the first caller finds it [`NonceState::Open`], later ones `Spent`.
    pub(super) fn take(&self, nonce: &[u8]) -> NonceState {
        let mut sets = self.sets();
        sets.expire();
        if sets.open.remove(nonce).is_some() {
            if sets.spent.len() >= MAX_OPEN {
                let oldest = sets
                    .spent
                    .iter()
                    .min_by_key(|(_, at)| **at)
                    .map(|(n, _)| n.clone());
                if let Some(oldest) = oldest {
                    sets.spent.remove(&oldest);
                }
            }
            sets.spent.insert(nonce.to_vec(), Instant::now());
            NonceState::Open
        } else if sets.spent.contains_key(nonce) {
            NonceState::Spent
        } else {
            NonceState::Unknown
        }
    }

    /// Whether `nonce` is open, leaving it so: the errors of [`Nonces::take_open`], for a
    /// check before work that may fail and should not spend the nonce.
    pub(super) fn check_open(&self, nonce: &[u8]) -> Result<(), ServiceError> {
        let mut sets = self.sets();
        sets.expire();
        if sets.open.contains_key(nonce) {
            Ok(())
        } else if sets.spent.contains_key(nonce) {
            Err(ServiceError::Replayed)
        } else {
            Err(ServiceError::UnknownNonce)
        }
    }

    /// [`Nonces::take`] as a result.
    pub(super) fn take_open(&self, nonce: &[u8]) -> Result<(), ServiceError> {
        match self.take(nonce) {
            NonceState::Open => Ok(()),
            NonceState::Spent => Err(ServiceError::Replayed),
            NonceState::Unknown => Err(ServiceError::UnknownNonce),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{IpAddr, Ipv4Addr};

    fn client(last: u8) -> ClientKey {
        ClientKey::of(IpAddr::V4(Ipv4Addr::new(192, 0, 2, last)))
    }

    #[test]
    fn checking_a_nonce_leaves_it_open() {
        let nonces = Nonces::default();
        assert!(matches!(
            nonces.check_open(b"n"),
            Err(ServiceError::UnknownNonce)
        ));
        let slot = nonces.reserve(client(1)).expect("slot");
        nonces.open(b"n", slot);
        assert!(nonces.check_open(b"n").is_ok());
        assert!(nonces.check_open(b"n").is_ok());
        assert!(nonces.take_open(b"n").is_ok());
        assert!(matches!(
            nonces.check_open(b"n"),
            Err(ServiceError::Replayed)
        ));
    }

    #[test]
    fn a_nonce_is_taken_once() {
        let nonces = Nonces::default();
        let slot = nonces.reserve(client(1)).expect("free");
        nonces.open(b"a", slot);
        assert_eq!(nonces.take(b"b"), NonceState::Unknown);
        assert_eq!(nonces.take(b"a"), NonceState::Open);
        assert_eq!(nonces.take(b"a"), NonceState::Spent);
    }

    #[test]
    fn one_client_holds_at_most_its_cap_until_its_nonces_are_taken() {
        let nonces = Nonces::default();
        for n in 0..MAX_OPEN_PER_CLIENT {
            let slot = nonces.reserve(client(1)).expect("under the cap");
            nonces.open(&n.to_be_bytes(), slot);
        }
        assert!(matches!(
            nonces.reserve(client(1)),
            Err(ServiceError::ClientOpenCap(MAX_OPEN_PER_CLIENT))
        ));
        drop(nonces.reserve(client(2)).expect("another client"));
        assert_eq!(nonces.take(&0usize.to_be_bytes()), NonceState::Open);
        assert!(nonces.reserve(client(1)).is_ok(), "its slot given back");
    }
}
