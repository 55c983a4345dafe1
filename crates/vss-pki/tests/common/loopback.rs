//! A PKI made with `init` and served on a free loopback port, as `vss pki serve` does.

use std::ops::Deref;

use vss_pki::http::{router, services};
use vss_pki::store::PkiStore;

use crate::made_pki::MadePki;

/// A served PKI; everything of [`MadePki`] through `Deref`.
pub struct Loopback {
    made: MadePki,
    pub url: String,
    runtime: tokio::runtime::Runtime,
    listener: Option<tokio::net::TcpListener>,
}

impl Loopback {
    /// Creates PKI `name` and binds its port; [`Loopback::start`] serves it.
    pub fn new(name: &str) -> Self {
        let made = MadePki::new(name);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("address"));
        Loopback {
            made,
            url,
            runtime,
            listener: Some(listener),
        }
    }

    /// Serves the PKI (with the trust list as it is now).
    pub fn start(&mut self) {
        let store: std::sync::Arc<dyn PkiStore> = self.made.store.clone();
        let services =
            services(&self.pki(), self.made.hsm.clone(), store, &self.url).expect("services");
        let listener = self.listener.take().expect("started once");
        self.runtime
            .spawn(async move { axum::serve(listener, router(services)).await });
    }
}

impl Deref for Loopback {
    type Target = MadePki;

    fn deref(&self) -> &MadePki {
        &self.made
    }
}
