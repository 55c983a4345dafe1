//! Helpers of the vss-core tests: a clock the test moves, and `LocalAa`, a test double of
//! the authorization authority. It issues real 1609.2 tickets (under a real root and AA
//! certificate) for keys it generates in the station's HSM and stores them as the PKI client
//! would, without the TS 102 941 exchange (that is tested in vss-pki).

// Each test file uses a different subset of these helpers.
#![allow(dead_code)]

pub mod gn;

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use vss_core::config::PseudonymConfig;
use vss_core::pseudonym::{Clock, TicketSource};
use vss_core::PseudonymManager;
use vss_crypto::{Curve, PrivateKey};
use vss_hsm::{GenerateKeyRequest, Hsm, SoftHsm};
use vss_its::{
    asn, issue_certificate, Cert, CertificateRequest, ItsTime, Profile, Psid, TrustAnchors,
    Validator, Verdict,
};
use vss_pki::station::{CertKind, Entry, Repository};

/// A clock the test moves: the time it was made, plus what the test added.
pub struct ManualClock {
    base: ItsTime,
    offset: AtomicU64,
}

impl ManualClock {
    pub fn new() -> Arc<Self> {
        Arc::new(ManualClock {
            base: ItsTime::now(),
            offset: AtomicU64::new(0),
        })
    }

    pub fn advance(&self, d: Duration) {
        self.offset
            .fetch_add(d.as_micros() as u64, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> ItsTime {
        self.base.plus_micros(self.offset.load(Ordering::SeqCst))
    }
}

/// The test double of an AA: a root-signed AA key that issues tickets for keys it
/// generates in the station's HSM, stored in the station's repository.
pub struct LocalAa {
    hsm: Arc<dyn Hsm>,
    repository: Repository,
    /// The root above the AA.
    pub root: Cert,
    /// The AA certificate.
    pub cert: Cert,
    key: PrivateKey,
    serial: AtomicUsize,
    /// Refill requests received.
    pub asked: AtomicUsize,
}

impl LocalAa {
    /// The AA's signing key.
    pub fn key(&self) -> &PrivateKey {
        &self.key
    }

    /// A ticket for PSID 36 valid from `start` for `hours`, stored in the repository.
    pub fn ticket(&self, start: ItsTime, hours: u16) -> Entry {
        let n = self.serial.fetch_add(1, Ordering::SeqCst);
        let label = format!("at-{n}");
        let info = self
            .hsm
            .generate_key(&GenerateKeyRequest::new(&label, Curve::P256))
            .expect("key");
        let public = self.hsm.public_key(&info.handle).expect("public");
        let mut request = CertificateRequest::new(Profile::At, public, asn::Duration::Hours(hours));
        request.start = start;
        request.app_permissions = vec![vss_its::Permission::psid(Psid::CAM)];
        let cert = issue_certificate(&request, Some(&self.cert), &self.key).expect("ticket");
        self.repository
            .store(CertKind::Pseudonym, &cert, &label, None)
            .expect("store")
    }
}

impl TicketSource for LocalAa {
    fn request(&self, count: usize) -> vss_core::Result<Vec<Entry>> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        Ok((0..count)
            .map(|_| self.ticket(ItsTime::now(), 24))
            .collect())
    }
}

/// A station: its HSM and repository in a temporary directory, and the local AA.
pub struct Station {
    pub dir: tempfile::TempDir,
    pub hsm: Arc<dyn Hsm>,
    pub aa: Arc<LocalAa>,
    pub clock: Arc<ManualClock>,
}

/// A request for an authority certificate `name` with `key`, valid for a year.
fn authority(profile: Profile, key: &PrivateKey, name: &str) -> CertificateRequest {
    let mut request =
        CertificateRequest::new(profile, key.public_key().clone(), asn::Duration::Years(1));
    request.name = Some(name.into());
    request
}

/// A station with `tickets` tickets in its repository.
pub fn station(tickets: usize) -> Station {
    let dir = tempfile::tempdir().expect("tempdir");
    SoftHsm::init(&dir.path().join("keys"), "1234", "12345678").expect("hsm");
    let hsm: Arc<dyn Hsm> =
        Arc::new(SoftHsm::open(&dir.path().join("keys"), "1234").expect("open"));
    let repository = Repository::open(&dir.path().join("repository")).expect("repository");
    let root_key = PrivateKey::generate(Curve::P256).expect("key");
    let root_request = authority(Profile::Root, &root_key, "test-root");
    let root = issue_certificate(&root_request, None, &root_key).expect("root");
    let key = PrivateKey::generate(Curve::P256).expect("key");
    let encryption = PrivateKey::generate(Curve::P256).expect("key");
    let mut aa = authority(Profile::Aa, &key, "test-aa");
    // The root's period exactly: made a second later, the AA's would end after the root's.
    aa.start = root_request.start;
    aa.encryption_key = Some(encryption.public_key().clone());
    aa.issue_psids = vec![Psid::CAM];
    let cert = issue_certificate(&aa, Some(&root), &root_key).expect("aa");
    let aa = Arc::new(LocalAa {
        hsm: hsm.clone(),
        repository,
        root,
        cert,
        key,
        serial: AtomicUsize::new(0),
        asked: AtomicUsize::new(0),
    });
    for _ in 0..tickets {
        aa.ticket(ItsTime::now(), 24);
    }
    Station {
        dir,
        hsm,
        aa,
        clock: ManualClock::new(),
    }
}

/// Pseudonym rules: five minutes of age, refills of 3, changes without a listener.
pub fn rules(max_uses: u64, min_pool: usize, ask: bool) -> PseudonymConfig {
    PseudonymConfig {
        max_uses,
        max_age: Duration::from_secs(300),
        min_pool,
        ask_new_pseudonyms: ask,
        request_count: 3,
        change_needs_listener: false,
        ..PseudonymConfig::default()
    }
}

/// A manager over the station's repository, refilled from its local AA if `with_source`.
pub fn manager(s: &Station, rules: PseudonymConfig, with_source: bool) -> PseudonymManager {
    let source: Option<Arc<dyn TicketSource>> = if with_source {
        Some(s.aa.clone())
    } else {
        None
    };
    PseudonymManager::new(
        s.hsm.clone(),
        Repository::open(&s.dir.path().join("repository")).expect("repository"),
        rules,
        source,
        s.clock.clone(),
    )
    .expect("manager")
}

/// A configuration file for the station (anchor: the local AA's root; the AA known in
/// advance; 5 uses per pseudonym; statistics on), with `extra` appended to `[statistics]`.
pub fn config_for(s: &Station, extra: &str) -> vss_core::Config {
    std::fs::write(s.dir.path().join("root.cert"), s.aa.root.bytes()).expect("root");
    std::fs::write(s.dir.path().join("aa.cert"), s.aa.cert.bytes()).expect("aa");
    let path = s.dir.path().join("vss.toml");
    std::fs::write(
        &path,
        format!(
            "[hsm]\nstore = \"keys\"\n[repository]\ndir = \"repository\"\n\
             [trust]\nanchors = [\"root.cert\"]\nauthorities = [\"aa.cert\"]\n\
             [pseudonyms]\nmax_uses = 5\n[statistics]\nenabled = true\nfiles = 2\n{extra}"
        ),
    )
    .expect("config");
    vss_core::Config::load(&path).expect("load")
}

/// A validator trusting the station's root that knows its AA (validated, so cached), as a
/// receiver would from the trust list.
pub fn validator(s: &Station) -> Validator {
    let mut anchors = TrustAnchors::new();
    anchors.add(s.aa.root.clone()).expect("anchor");
    let mut validator = Validator::new(anchors, 64);
    let known = validator.verify_certificate(&s.aa.cert, &[], s.clock.now());
    assert_eq!(known.verdict, Verdict::Valid, "{}", known.reason);
    validator
}

/// The path of a root certificate (COER) that has nothing to do with the station's PKI.
pub fn other_root(s: &Station) -> std::path::PathBuf {
    let key = PrivateKey::generate(Curve::P256).expect("key");
    let root =
        issue_certificate(&authority(Profile::Root, &key, "other root"), None, &key).expect("root");
    let path = s.dir.path().join("other-root.cert");
    std::fs::write(&path, root.bytes()).expect("write");
    path
}
