//! A PKI made with `init` and served on a free loopback port, as `vss pki serve` does.

use std::sync::Arc;

use vss_hsm::{Hsm, SoftHsm};
use vss_its::Cert;
use vss_pki::authority::{init, Authorities, InitRequest, PkiDir};
use vss_pki::http::{router, services};
use vss_pki::store::{PkiStore, SqliteStore, Station};

/// A served PKI.
pub struct Loopback {
    pub dir: tempfile::TempDir,
    pub url: String,
    pub certs: Authorities,
    pub store: Arc<SqliteStore>,
    runtime: tokio::runtime::Runtime,
    listener: Option<tokio::net::TcpListener>,
    hsm: Arc<dyn Hsm>,
}

impl Loopback {
    /// Creates PKI `name` and binds its port; [`Loopback::start`] serves it.
    pub fn new(name: &str) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let pki = PkiDir::new(dir.path());
        SoftHsm::init(&pki.keys(), "1234", "12345678").expect("hsm");
        let hsm: Arc<dyn Hsm> = Arc::new(SoftHsm::open(&pki.keys(), "1234").expect("open"));
        let certs = init(&pki, hsm.as_ref(), &InitRequest::new(name)).expect("init");
        let store = Arc::new(SqliteStore::open(&pki.database()).expect("store"));
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
            dir,
            url,
            certs,
            store,
            runtime,
            listener: Some(listener),
            hsm,
        }
    }

    /// The PKI's directory.
    pub fn pki(&self) -> PkiDir {
        PkiDir::new(self.dir.path())
    }

    /// Serves the PKI (with the trust list as it is now).
    pub fn start(&mut self) {
        let store: Arc<dyn PkiStore> = self.store.clone();
        let services = services(&self.pki(), self.hsm.clone(), store, &self.url).expect("services");
        let listener = self.listener.take().expect("started once");
        self.runtime
            .spawn(async move { axum::serve(listener, router(services)).await });
    }

    /// Registers a station with its canonical public key and allowed PSIDs.
    pub fn register(&self, id: &str, key: &vss_crypto::PublicKey, psids: &[u64]) {
        self.store
            .register_station(&Station {
                canonical_id: id.into(),
                curve: key.curve().to_string(),
                public_key: key.to_sec1_compressed().to_vec(),
                psids: psids.to_vec(),
            })
            .expect("register");
    }

    /// The EA's certificate.
    pub fn ea(&self) -> &Cert {
        &self.certs.ea
    }

    /// The AA's certificate.
    pub fn aa(&self) -> &Cert {
        &self.certs.aa
    }
}
