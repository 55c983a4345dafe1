//! A PKI made with `init` in a temporary directory: root, EA and AA with their keys in a soft
//! HSM, records in SQLite.

// Each test file uses a different subset of this helper.
#![allow(dead_code)]

use std::sync::Arc;

use vss_hsm::{Hsm, SoftHsm};
use vss_its::{Cert, Psid};
use vss_pki::authority::{init, Authorities, InitRequest, PkiDir};
use vss_pki::store::{PkiStore, SqliteStore, Station};

/// A made PKI.
pub struct MadePki {
    /// Its directory (removed when dropped).
    pub dir: tempfile::TempDir,
    /// Its key store.
    pub hsm: Arc<dyn Hsm>,
    /// The root, EA and AA certificates.
    pub certs: Authorities,
    /// Its records.
    pub store: Arc<SqliteStore>,
}

impl MadePki {
    /// Makes PKI `name`.
    pub fn new(name: &str) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let pki = PkiDir::new(dir.path());
        SoftHsm::init(&pki.keys(), "1234", "12345678").expect("hsm");
        let hsm: Arc<dyn Hsm> = Arc::new(SoftHsm::open(&pki.keys(), "1234").expect("open"));
        let certs = init(&pki, hsm.as_ref(), &InitRequest::new(name)).expect("init");
        let store = Arc::new(SqliteStore::open(&pki.database()).expect("store"));
        MadePki {
            dir,
            hsm,
            certs,
            store,
        }
    }

    /// The PKI's directory.
    pub fn pki(&self) -> PkiDir {
        PkiDir::new(self.dir.path())
    }

    /// Registers a station with its canonical public key and allowed PSIDs.
    pub fn register(&self, id: &str, key: &vss_crypto::PublicKey, psids: &[Psid]) {
        self.store
            .register_station(&Station {
                canonical_id: id.into(),
                curve: key.curve(),
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

/// A self-signed certificate for `key` that no authority of any made PKI issued.
pub fn foreign_credential(key: &vss_crypto::PrivateKey) -> Cert {
    let mut request = vss_its::CertificateRequest::new(
        vss_its::Profile::Root,
        key.public_key().clone(),
        vss_its::asn::Duration::Years(1),
    );
    request.name = Some("elsewhere".into());
    vss_its::issue_certificate(&request, None, key).expect("certificate")
}

/// Serves a distribution centre of the PKI and TLM directories `dirs` on `server`; each list
/// is read when asked, so what is issued after it starts is served.
pub fn serve_centre(server: &mut vss_pki::http::LoopbackServer, dirs: &[std::path::PathBuf]) {
    let centre = vss_pki::http::DistributionCentre::new(dirs).expect("DC");
    let services = vss_pki::http::Services {
        dc: Some(Arc::new(centre)),
        ..vss_pki::http::Services::default()
    };
    server
        .serve(services, vss_net::ServeLimits::default())
        .expect("serve");
}
