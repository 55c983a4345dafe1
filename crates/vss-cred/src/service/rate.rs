//! [`PerClientRate`]: how often one client may ask for what the service never gives back
//! (the revocation authority's handles): a burst, then one per interval.

use super::client::ClientKey;
use super::ServiceError;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The most clients whose rate is counted at once; past it (each of them having asked
/// within its last burst's time) a new client is answered 503.
pub const MAX_COUNTED_CLIENTS: usize = 4096;

/// A burst of `burst` requests per client, then one per `every` (a generic cell rate: each
/// client's next free time moves `every` ahead per request, and a request more than the
/// burst ahead of now is refused). A client idle for the burst's time takes no memory.
pub(super) struct PerClientRate {
    burst: u32,
    every: Duration,
    next: Mutex<HashMap<ClientKey, Instant>>,
}

impl PerClientRate {
    /// `burst` requests at once (at least 1), then one per `every`.
    pub(super) fn new(burst: u32, every: Duration) -> Self {
        PerClientRate {
            burst: burst.max(1),
            every,
            next: Mutex::default(),
        }
    }

    /// Counts one request of `client`: [`ServiceError::ClientRate`] with the wait when it
    /// is over its rate, [`ServiceError::TooManyClients`] when [`MAX_COUNTED_CLIENTS`] are
    /// counted.
    pub(super) fn hit(&self, client: ClientKey) -> Result<(), ServiceError> {
        let now = Instant::now();
        let mut next = self.next.lock().unwrap_or_else(|p| p.into_inner());
        if next.len() >= MAX_COUNTED_CLIENTS && !next.contains_key(&client) {
            next.retain(|_, at| *at > now);
            if next.len() >= MAX_COUNTED_CLIENTS {
                return Err(ServiceError::TooManyClients);
            }
        }
        let at = next.get(&client).map_or(now, |at| (*at).max(now));
        let ahead = at - now;
        if ahead + self.every > self.every * self.burst {
            let wait = ahead + self.every - self.every * self.burst;
            return Err(ServiceError::ClientRate(wait.as_secs().max(1)));
        }
        next.insert(client, at + self.every);
        Ok(())
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
    fn a_client_has_its_burst_then_one_per_interval() {
        let rate = PerClientRate::new(3, Duration::from_millis(500));
        for _ in 0..3 {
            rate.hit(client(1)).expect("within the burst");
        }
        assert!(matches!(
            rate.hit(client(1)),
            Err(ServiceError::ClientRate(1))
        ));
        rate.hit(client(2)).expect("another client");
        std::thread::sleep(Duration::from_millis(600));
        rate.hit(client(1)).expect("one more after the interval");
    }

    #[test]
    fn the_clients_counted_are_bounded() {
        let rate = PerClientRate::new(1, Duration::from_secs(60));
        for n in 0..MAX_COUNTED_CLIENTS {
            let ip = Ipv4Addr::from(0x0a00_0000 + n as u32);
            rate.hit(ClientKey::of(IpAddr::V4(ip))).expect("counted");
        }
        assert!(matches!(
            rate.hit(client(1)),
            Err(ServiceError::TooManyClients)
        ));
    }
}
