//! Authorities served on a free loopback port in a runtime of their own, until dropped: how
//! `vss selftest`, `vss demo` and the tests start a PKI inside one process.

use std::net::SocketAddr;

use vss_net::ServeLimits;

use super::{serve, Services};
use crate::{Error, Result};

/// A loopback port bound now and served once [`LoopbackServer::serve`] is given the
/// authorities (whose trust lists may name the URL of another server bound before).
pub struct LoopbackServer {
    url: String,
    runtime: tokio::runtime::Runtime,
    listener: Option<tokio::net::TcpListener>,
}

impl LoopbackServer {
    /// Binds a free port on 127.0.0.1.
    pub fn bind() -> Result<Self> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| Error::Serve(format!("no runtime: {e}")))?;
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind(SocketAddr::from((
                [127, 0, 0, 1],
                0,
            ))))
            .map_err(|e| Error::Serve(format!("no free port: {e}")))?;
        let address = listener
            .local_addr()
            .map_err(|e| Error::Serve(format!("the bound port has no address: {e}")))?;
        Ok(LoopbackServer {
            url: format!("http://{address}"),
            runtime,
            listener: Some(listener),
        })
    }

    /// The base URL (`http://127.0.0.1:PORT`).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Serves `services` on the bound port within `limits`; a second call is refused.
    pub fn serve(&mut self, services: Services, limits: ServeLimits) -> Result<()> {
        let listener = self
            .listener
            .take()
            .ok_or_else(|| Error::Serve(format!("{} is already served", self.url)))?;
        self.runtime
            .spawn(async move { serve(listener, services, limits).await });
        Ok(())
    }
}
