//! [`PerClient`]: a cap on what one client may hold at once (connections, open offers,
//! streams), keyed by whatever names a client to the server (a peer address, Unix
//! credentials, a client certificate's digest).

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};

/// Counts what each client holds, up to a cap per client; a [`ClientSlot`] is one held
/// thing, given back when dropped. Clients holding nothing take no memory.
#[derive(Debug)]
pub struct PerClient<K: Hash + Eq> {
    cap: usize,
    held: Arc<Mutex<HashMap<K, usize>>>,
}

/// One thing a client holds under a [`PerClient`] cap; dropping it gives it back.
#[derive(Debug)]
pub struct ClientSlot<K: Hash + Eq> {
    key: Option<K>,
    held: Arc<Mutex<HashMap<K, usize>>>,
}

impl<K: Hash + Eq + Clone> PerClient<K> {
    /// At most `cap` things per client (at least 1).
    pub fn new(cap: usize) -> Self {
        PerClient {
            cap: cap.max(1),
            held: Arc::default(),
        }
    }

    /// One more thing for `client`, or `None` when it holds the cap already.
    pub fn try_take(&self, client: K) -> Option<ClientSlot<K>> {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        let count = held.entry(client.clone()).or_insert(0);
        if *count >= self.cap {
            return None;
        }
        *count += 1;
        Some(ClientSlot {
            key: Some(client),
            held: Arc::clone(&self.held),
        })
    }
}

impl<K: Hash + Eq> Drop for ClientSlot<K> {
    fn drop(&mut self) {
        let Some(key) = self.key.take() else { return };
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(count) = held.get_mut(&key) {
            *count -= 1;
            if *count == 0 {
                held.remove(&key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_client_at_its_cap_leaves_the_others_served() {
        let caps = PerClient::new(2);
        let a1 = caps.try_take("a").expect("first");
        let _a2 = caps.try_take("a").expect("second");
        assert!(caps.try_take("a").is_none(), "past the cap");
        let _b = caps.try_take("b").expect("another client");
        drop(a1);
        let _a3 = caps.try_take("a").expect("a slot given back");
        assert!(caps.try_take("a").is_none(), "the cap again");
    }

    #[test]
    fn a_client_that_holds_nothing_takes_no_room() {
        let caps = PerClient::new(1);
        for client in 0..1000u32 {
            drop(caps.try_take(client).expect("free"));
        }
        assert!(caps.held.lock().expect("lock").is_empty());
    }
}
