//! A testbed in one temporary directory, removed when dropped: ETSI TS 102 941 PKIs served
//! on loopback that trust each other, and stations registered at all of them, with their
//! keys in a soft or a PKCS#11 HSM. `vss selftest`, `vss demo` and `vss testbed up` run on it; nothing in it
//! is simulated (real authorities over real HTTP, real key stores, real repositories).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use vss_crypto::Curve;
use vss_hsm::scratch::init_store;
use vss_hsm::{Backend, GenerateKeyRequest, Hsm, Pkcs11Hsm, SoftHsm, TokenRef};
use vss_its::HashedId8;
use vss_pki::authority::{init, Authorities, InitRequest, PeerPki, PkiDir};
use vss_pki::http::{services, LoopbackServer, ServedPki};
use vss_pki::station::{CertKind, Entry, Repository};
use vss_pki::store::{PkiStore, Role, SqliteStore, Station};

use vss_core::config::{
    DaemonConfig, EngineConfig, HsmConfig, PkiConfig, PseudonymConfig, ReplayCheckConfig,
    RepositoryConfig, StatisticsConfig, TrustConfig, VerificationConfig,
};
use vss_core::{Config, Result};

use crate::HsmOptions;

/// The PIN of every key store in a testbed (they live and die with its directory).
pub const PIN: &str = "24681357";
/// The PUK of the soft key stores, and the SO PIN of the PKCS#11 tokens.
const PUK: &str = "1357924680";
/// The label of a station's canonical key.
const CANONICAL_KEY: &str = "canonical";

/// One PKI of the testbed: root, EA and AA served at [`TestbedPki::url`].
pub struct TestbedPki {
    /// Its name.
    pub name: String,
    /// Its directory (certificates, keys, records).
    pub dir: PkiDir,
    /// The root, EA and AA certificates.
    pub certs: Authorities,
    store: Arc<SqliteStore>,
    hsm: Arc<dyn Hsm>,
    server: LoopbackServer,
}

impl TestbedPki {
    /// The base URL of its EA and AA.
    pub fn url(&self) -> &str {
        self.server.url()
    }

    /// Its key store (the root's, EA's and AA's keys), open.
    pub fn hsm(&self) -> &dyn Hsm {
        self.hsm.as_ref()
    }

    /// Its records (stations, requests, certificates, revocations and lists).
    pub fn store(&self) -> &dyn PkiStore {
        self.store.as_ref()
    }

    /// The HashedId8s of the tickets its AA has issued.
    pub fn tickets_issued(&self) -> Result<Vec<HashedId8>> {
        Ok(self
            .store
            .issued_by(Role::Aa)
            .map_err(vss_pki::Error::from)?
            .into_iter()
            .map(|c| c.hashed_id8)
            .collect())
    }
}

/// A station of the testbed: its key store and certificate repository.
pub struct TestbedStation {
    /// Its canonical id.
    pub name: String,
    /// Its directory (`keys/`, `repository/`).
    pub dir: PathBuf,
    /// Where its keys live.
    pub keys: HsmOptions,
    /// Its key store, open.
    pub hsm: Arc<dyn Hsm>,
    /// Its certificate repository.
    pub repository: Repository,
}

impl TestbedStation {
    /// Enrols at `pki`'s EA (re-enrols if it holds a credential already).
    pub fn enroll(&self, pki: &TestbedPki) -> Result<Entry> {
        Ok(vss_pki::station::enroll(
            self.hsm.as_ref(),
            &self.repository,
            &self.name,
            CANONICAL_KEY,
            pki.url(),
            &pki.certs.ea,
        )?)
    }

    /// Asks `aa`'s AA for `count` tickets with the newest credential, issued by `ea`.
    pub fn pseudonyms(&self, aa: &TestbedPki, ea: &TestbedPki, count: usize) -> Result<Vec<Entry>> {
        Ok(vss_pki::station::pseudonyms(
            self.hsm.as_ref(),
            &self.repository,
            aa.url(),
            &aa.certs.aa,
            &ea.certs.ea,
            &PseudonymConfig::default().psids,
            vss_pki::station::TicketBatch::of(count),
        )?)
    }

    /// Removes every key but the canonical one (seed 000's preamble, "remove all the keys
    /// from the HSM"), with the certificates that used them; returns how many keys went.
    pub fn clear(&self) -> Result<usize> {
        for kind in [CertKind::Enrolment, CertKind::Pseudonym] {
            for entry in self.repository.list(kind)? {
                self.repository.remove(kind, entry.cert.hashed_id8())?;
            }
        }
        let mut removed = 0;
        for key in self.hsm.keys()? {
            if key.label != CANONICAL_KEY {
                self.hsm.delete_key(&key.handle)?;
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// The configuration of a security entity on this station that trusts every PKI of
    /// `testbed` and takes new tickets from `aa`'s AA with the credential of `ea`'s EA;
    /// statistics (on) go to `stats`.
    pub fn config(
        &self,
        testbed: &Testbed,
        aa: &TestbedPki,
        ea: &TestbedPki,
        stats: &Path,
    ) -> Config {
        Config {
            hsm: HsmConfig {
                store: self.dir.join("keys"),
                pin_file: None,
            },
            repository: RepositoryConfig {
                dir: self.repository.dir().to_path_buf(),
            },
            trust: TrustConfig::new(
                testbed
                    .pkis
                    .iter()
                    .map(|p| p.dir.cert_path(Role::Root))
                    .collect(),
                testbed
                    .pkis
                    .iter()
                    .flat_map(|p| [p.dir.cert_path(Role::Ea), p.dir.cert_path(Role::Aa)])
                    .collect(),
                1024,
            ),
            pki: Some(PkiConfig {
                aa_url: aa.url().to_string(),
                aa_cert: aa.dir.cert_path(Role::Aa),
                ea_cert: ea.dir.cert_path(Role::Ea),
            }),
            pseudonyms: PseudonymConfig::default(),
            verification: VerificationConfig::default(),
            replay: ReplayCheckConfig::default(),
            engine: EngineConfig::default(),
            frames: None,
            statistics: StatisticsConfig {
                enabled: true,
                dir: stats.to_path_buf(),
                files: 4,
                max_bytes: 1 << 20,
            },
            daemon: DaemonConfig::default(),
        }
    }
}

/// PKIs on loopback and stations, in a temporary directory or one the caller names.
pub struct Testbed {
    /// The PKIs, in the order they were named (dropped first, so the servers stop before
    /// the directory goes).
    pub pkis: Vec<TestbedPki>,
    place: Place,
}

/// Where a testbed lives; what it made there is removed when it is dropped.
enum Place {
    /// A temporary directory of its own.
    Temp(tempfile::TempDir),
    /// A directory the caller named, empty or new; `created` when the testbed made it.
    Dir {
        path: PathBuf,
        created: bool,
        removed: bool,
    },
}

impl Place {
    /// A directory that is empty or does not exist yet (its parent must); anything else
    /// is refused before anything is made.
    fn claim(path: &Path) -> Result<Place> {
        let path = std::path::absolute(path).map_err(|e| io_error(path, e))?;
        let created = match std::fs::read_dir(&path) {
            Ok(mut entries) => {
                if entries.next().is_some() {
                    return Err(io_error(
                        &path,
                        std::io::Error::new(
                            std::io::ErrorKind::DirectoryNotEmpty,
                            "not empty: a testbed needs an empty or a new directory",
                        ),
                    )
                    .into());
                }
                false
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir(&path).map_err(|e| io_error(&path, e))?;
                true
            }
            Err(e) => return Err(io_error(&path, e).into()),
        };
        Ok(Place::Dir {
            path,
            created,
            removed: false,
        })
    }

    fn path(&self) -> &Path {
        match self {
            Place::Temp(dir) => dir.path(),
            Place::Dir { path, .. } => path,
        }
    }

    /// Removes what the testbed made: the temporary directory, the named directory if it
    /// made it, else everything in it.
    fn remove(&mut self) -> std::io::Result<()> {
        match self {
            Place::Temp(dir) => {
                let path = dir.path().to_path_buf();
                std::fs::remove_dir_all(&path).or_else(|e| match e.kind() {
                    std::io::ErrorKind::NotFound => Ok(()),
                    _ => Err(e),
                })
            }
            Place::Dir { removed: true, .. } => Ok(()),
            Place::Dir {
                path,
                created,
                removed,
            } => {
                if *created {
                    std::fs::remove_dir_all(&*path)?;
                } else {
                    for entry in std::fs::read_dir(&*path)? {
                        let entry = entry?;
                        if entry.file_type()?.is_dir() {
                            std::fs::remove_dir_all(entry.path())?;
                        } else {
                            std::fs::remove_file(entry.path())?;
                        }
                    }
                }
                *removed = true;
                Ok(())
            }
        }
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        if let Place::Dir { .. } = self {
            // A testbed that was not closed: best effort, as `TempDir` does.
            let _ = self.remove();
        }
    }
}

/// A file error of the testbed's, as the PKI reports one.
pub(crate) fn io_error(path: &Path, e: std::io::Error) -> vss_pki::Error {
    vss_pki::Error::Io {
        path: path.to_path_buf(),
        source: e,
    }
}

impl Testbed {
    /// Creates and serves one PKI per name; each trusts the others (its AA accepts their
    /// enrolment credentials).
    pub fn new(names: &[&str]) -> Result<Testbed> {
        let dir = tempfile::Builder::new()
            .prefix("vss-testbed-")
            .tempdir()
            .map_err(|e| io_error(&std::env::temp_dir(), e))?;
        Testbed::build(Place::Temp(dir), names)
    }

    /// As [`Testbed::new`], in `dir`: a directory that is empty or new (its parent must
    /// exist); a non-empty one is refused. What the testbed makes there is removed when it
    /// is closed or dropped, and `dir` too if the testbed made it.
    pub fn in_dir(dir: &Path, names: &[&str]) -> Result<Testbed> {
        Testbed::build(Place::claim(dir)?, names)
    }

    fn build(place: Place, names: &[&str]) -> Result<Testbed> {
        let mut pkis = Vec::new();
        for name in names {
            let pki = PkiDir::new(&place.path().join("pki").join(name));
            SoftHsm::init(&pki.keys(), PIN, PUK)?;
            let hsm: Arc<dyn Hsm> = Arc::new(SoftHsm::open(&pki.keys(), PIN)?);
            let certs = init(&pki, hsm.as_ref(), &InitRequest::new(name))?;
            let store = Arc::new(SqliteStore::open(&pki.database()).map_err(vss_pki::Error::from)?);
            pkis.push(TestbedPki {
                name: name.to_string(),
                dir: pki,
                certs,
                store,
                hsm,
                server: LoopbackServer::bind()?,
            });
        }
        for pki in &pkis {
            for other in pkis.iter().filter(|o| o.name != pki.name) {
                pki.dir.add_peer(&PeerPki {
                    name: other.name.clone(),
                    ea: other.certs.ea.clone(),
                    root: other.certs.root.clone(),
                    ea_url: other.url().to_string(),
                })?;
            }
        }
        for pki in &mut pkis {
            let store: Arc<dyn PkiStore> = pki.store.clone();
            let served = services(&pki.dir, pki.hsm.clone(), store, &ServedPki::both())?;
            pki.server.serve(served, vss_net::ServeLimits::default())?;
        }
        Ok(Testbed { pkis, place })
    }

    /// The testbed's directory (absolute).
    pub fn dir(&self) -> &Path {
        self.place.path()
    }

    /// Stops the servers and removes what the testbed made, saying what failed (dropping
    /// it does the same silently).
    pub fn close(self) -> Result<()> {
        let Testbed { pkis, mut place } = self;
        drop(pkis);
        place.remove().map_err(|e| io_error(place.path(), e).into())
    }

    /// The PKI named `name`.
    pub fn pki(&self, name: &str) -> Option<&TestbedPki> {
        self.pkis.iter().find(|p| p.name == name)
    }

    /// A new station `name` with its keys in a new store of `keys` (a PKCS#11 token is
    /// labelled `name`), its canonical key registered at every
    /// PKI (PSIDs 36 and 37).
    pub fn station(&self, name: &str, keys: &HsmOptions) -> Result<TestbedStation> {
        let dir = self.dir().join("stations").join(name);
        let store = dir.join("keys");
        init_store(&store, keys.backend, &keys.module, name, PIN, PUK)?;
        let hsm: Arc<dyn Hsm> = match keys.backend {
            Backend::Soft => Arc::new(SoftHsm::open(&store, PIN)?),
            Backend::Pkcs11 => Arc::new(Pkcs11Hsm::open(
                &TokenRef {
                    module: keys.module.clone(),
                    token_label: name.to_string(),
                },
                PIN,
            )?),
        };
        let canonical = hsm.generate_key(&GenerateKeyRequest::new(CANONICAL_KEY, Curve::P256))?;
        let public = hsm.public_key(&canonical.handle)?;
        for pki in &self.pkis {
            pki.store
                .register_station(&Station::new(
                    name,
                    &public,
                    &PseudonymConfig::default().psids,
                ))
                .map_err(vss_pki::Error::from)?;
        }
        Ok(TestbedStation {
            name: name.to_string(),
            repository: Repository::open(&dir.join("repository"))?,
            dir,
            keys: keys.clone(),
            hsm,
        })
    }
}
