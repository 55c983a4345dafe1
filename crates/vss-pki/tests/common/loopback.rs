//! A PKI made with `init` and served on a free loopback port, as `vss pki serve` does.

use std::ops::Deref;

use vss_net::ServeLimits;
use vss_pki::http::{services, LoopbackServer, ServedPki};
use vss_pki::store::PkiStore;

use crate::made_pki::MadePki;

/// A served PKI; everything of [`MadePki`] through `Deref`.
pub struct Loopback {
    made: MadePki,
    pub url: String,
    server: LoopbackServer,
}

impl Loopback {
    /// Creates PKI `name` and binds its port; [`Loopback::start`] serves it.
    pub fn new(name: &str) -> Self {
        let made = MadePki::new(name);
        let server = LoopbackServer::bind().expect("bind");
        Loopback {
            made,
            url: server.url().to_string(),
            server,
        }
    }

    /// Serves the PKI (with the trust list as it is now) within the bounds of `config`.
    pub fn start(&mut self, config: ServeLimits) {
        let store: std::sync::Arc<dyn PkiStore> = self.made.store.clone();
        let services = services(
            &self.pki(),
            self.made.hsm.clone(),
            store,
            &ServedPki::both(),
        )
        .expect("services");
        self.server.serve(services, config).expect("served once");
    }
}

impl Deref for Loopback {
    type Target = MadePki;

    fn deref(&self) -> &MadePki {
        &self.made
    }
}
