//! The PKI the benchmark measures: a throw-away PKI (keys in a soft store with a generated
//! PIN, records in SQLite or PostgreSQL) with one registered station, its requests, and the
//! PKI served over HTTP on loopback.

use std::path::Path;
use std::sync::Arc;

use anyhow::{anyhow, Context, Result};
use vss_crypto::{Curve, PrivateKey};
use vss_hsm::scratch::ScratchStore;
use vss_hsm::{Backend, Hsm};
use vss_its::{Cert, ItsTime, TrustAnchors};
use vss_pki::authority::{init, Answer, Ea, InitRequest, PkiDir};
use vss_pki::station::{authorization_request, enrolment_request, Outer, TicketKeys};
use vss_pki::store::{PkiStore, Station, StoreLocation, Timed};

/// A throw-away PKI with one registered station.
pub(super) struct Bench {
    /// The PKI's directory; its key store is the scratch store's.
    pub(super) dir: PkiDir,
    pub(super) hsm: Arc<dyn Hsm>,
    pub(super) store: Arc<Timed>,
    root: Cert,
    pub(super) ea: Cert,
    pub(super) aa: Cert,
    canonical: PrivateKey,
    /// The registered station's canonical id (fresh each run, so a shared database works).
    station: String,
    // Dropped last: the directory of everything above.
    _scratch: ScratchStore,
}

impl Bench {
    /// Makes the PKI, its records in `database` (SQLite in the PKI's directory when
    /// `None`), and registers a fresh station.
    pub(super) fn new(database: Option<&StoreLocation>) -> Result<Self> {
        let scratch = ScratchStore::create("vss-bench-pki-", "keys", Backend::Soft, Path::new(""))?;
        let dir = PkiDir::new(scratch.dir());
        let hsm: Arc<dyn Hsm> = Arc::from(scratch.open()?);
        let made = init(&dir, hsm.as_ref(), &InitRequest::new("bench"))?;
        let store = Arc::new(Timed::new(dir.open_store(database)?));
        let canonical = PrivateKey::generate(Curve::P256)?;
        let mut id = [0u8; 8];
        vss_crypto::random_bytes(&mut id)?;
        let station = format!("bench-station-{}", hex::encode(id));
        store.register_station(&Station::new(&station, canonical.public_key(), &[]))?;
        Ok(Bench {
            dir,
            hsm,
            store,
            root: made.root,
            ea: made.ea,
            aa: made.aa,
            canonical,
            station,
            _scratch: scratch,
        })
    }

    /// The PKI's EA, trusting its root.
    pub(super) fn ea(&self) -> Arc<Ea> {
        let mut trust = TrustAnchors::new();
        trust
            .add(self.root.clone())
            .expect("the bench root is self-signed");
        Arc::new(Ea::new(
            self.ea.clone(),
            self.hsm.clone(),
            self.store.clone(),
            trust,
        ))
    }

    /// An EC of the bench station from `ea`, and its key.
    pub(super) fn enrolled(&self, ea: &Ea) -> Result<(Cert, PrivateKey)> {
        let ec_key = PrivateKey::generate(Curve::P256)?;
        let request = enrolment_request(
            &self.station,
            &ec_key,
            Outer::Canonical(&self.canonical),
            &self.ea,
            ItsTime::now(),
        )?;
        let Answer::Response { body, .. } = ea.enrol(&request.bytes, ItsTime::now())? else {
            return Err(anyhow!("the bench EA did not answer"));
        };
        let ec = request
            .read_response(&body, &self.ea)?
            .certificate
            .context("the bench EA refused to enrol")?;
        Ok((ec, ec_key))
    }

    /// Serves the PKI over HTTP on loopback as `vss pki serve` does; the runtime and URL.
    pub(super) fn serve(&self) -> Result<(tokio::runtime::Runtime, String)> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?;
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))?;
        let url = format!("http://{}", listener.local_addr()?);
        let store: Arc<dyn PkiStore> = self.store.clone();
        let services = vss_pki::http::services(
            &self.dir,
            self.hsm.clone(),
            store,
            &vss_pki::http::ServedPki::both(),
        )?;
        runtime.spawn(async move {
            vss_pki::http::serve(listener, services, vss_net::ServeLimits::default()).await
        });
        Ok((runtime, url))
    }

    /// `n` enrolment requests of the station, each for a fresh key.
    pub(super) fn enrolment_requests(&self, n: u32) -> Result<Vec<Vec<u8>>> {
        (0..n)
            .map(|_| {
                let key = PrivateKey::generate(Curve::P256)?;
                let outer = Outer::Canonical(&self.canonical);
                Ok(enrolment_request(&self.station, &key, outer, &self.ea, ItsTime::now())?.bytes)
            })
            .collect()
    }

    /// `n` authorization requests signed with the EC `ec` (key `ec_key`), each for a fresh
    /// ticket key.
    pub(super) fn ticket_requests(
        &self,
        n: u32,
        ec: &Cert,
        ec_key: &PrivateKey,
    ) -> Result<Vec<Vec<u8>>> {
        (0..n)
            .map(|_| {
                let key = PrivateKey::generate(Curve::P256)?;
                let request = authorization_request(
                    TicketKeys::signing(&key),
                    ec,
                    ec_key,
                    &self.ea,
                    &self.aa,
                    &[vss_its::Psid::CAM],
                    ItsTime::now(),
                )?;
                Ok(request.bytes)
            })
            .collect()
    }
}
