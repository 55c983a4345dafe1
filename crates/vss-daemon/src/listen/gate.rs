//! [`Gate`]: who a listener admits. At most `max_connections` connections at once; when all
//! are taken, a new connection displaces the oldest one still in its handshake or preface
//! (a silent client cannot lock the others out), and when none is, it is closed at once.
//! Once past its preface a connection takes a place of its client's
//! (`max_connections_per_client`, keyed by [`ClientKey`]).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;
use vss_core::config::DaemonConfig;
use vss_net::PerClient;

use super::wait::{Handshakes, Place, Wait};
use super::ClientKey;

/// A listener's caps and the connections still in their handshake.
#[derive(Debug)]
pub struct Gate {
    permits: Arc<Semaphore>,
    clients: Arc<PerClient<ClientKey>>,
    handshakes: Arc<Handshakes>,
    header_timeout: Duration,
}

impl Gate {
    /// The caps of `config` for one listener.
    pub fn new(config: &DaemonConfig) -> Gate {
        Gate {
            permits: Arc::new(Semaphore::new(config.max_connections)),
            clients: Arc::new(PerClient::new(config.max_connections_per_client)),
            handshakes: Arc::default(),
            header_timeout: config.header_timeout,
        }
    }

    /// A place for a connection of `client` and its wait for the handshake and preface;
    /// `None` when every place is taken by a connection past its preface.
    pub async fn admit(&self, client: ClientKey) -> Option<(Place, Wait)> {
        let permit = match self.permits.clone().try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) => {
                if !self.handshakes.displace_oldest() {
                    return None;
                }
                // The displaced connection gives its permit back as soon as it sees it.
                self.permits.clone().acquire_owned().await.ok()?
            }
        };
        let place = Place::new(permit, client, self.clients.clone());
        Some((place, self.handshakes.enter(self.header_timeout)))
    }
}
