//! A station's trust update against a distribution centre on loopback: a TLM's ECTL of two
//! made PKIs' roots, each root's CTL and CRL. The update verifies every list, the store
//! it saves loads again, and the validator's trust store from it refuses an AA once its root
//! has revoked it. A forged, stale or wrongly signed list fails the update and the last good
//! store stays.

#[path = "common/made_pki.rs"]
mod made_pki;

use std::path::Path;
use std::time::Duration;

use made_pki::MadePki;
use vss_hsm::{Hsm, SoftHsm};
use vss_its::{Cert, ItsTime, StaleCrlPolicy, Validator, Verdict};
use vss_pki::authority::{init_tlm, CtlRequest, EctlRequest, InitRequest, PkiDir};
use vss_pki::http::{list_url, ListKind, LoopbackServer};
use vss_pki::station::{EctlSource, StationTrust};
use vss_pki::store::SqliteStore;
use vss_pki::Error;

const DAY: Duration = Duration::from_secs(86_400);

/// Two PKIs and a TLM, their lists issued and served by one distribution centre.
struct Lists {
    alpha: MadePki,
    beta: MadePki,
    tlm: Cert,
    tlm_dir: tempfile::TempDir,
    tlm_hsm: SoftHsm,
    dc: String,
    _server: LoopbackServer,
}

impl Lists {
    fn new() -> Lists {
        let (alpha, beta) = (MadePki::new("alpha"), MadePki::new("beta"));
        let tlm_dir = tempfile::tempdir().expect("tempdir");
        let dir = PkiDir::new(tlm_dir.path());
        SoftHsm::init(&dir.keys(), "1234", "12345678").expect("hsm");
        let tlm_hsm = SoftHsm::open(&dir.keys(), "1234").expect("open");
        let tlm = init_tlm(&dir, &tlm_hsm, &InitRequest::new("tlm")).expect("TLM");
        let mut server = LoopbackServer::bind().expect("bind");
        let dc = server.url().to_string();
        // The centre reads each list when asked: it serves what is issued after it starts.
        let dirs = [alpha.pki(), beta.pki(), dir].map(|d| d.path().to_path_buf());
        made_pki::serve_centre(&mut server, &dirs);
        let lists = Lists {
            alpha,
            beta,
            tlm,
            tlm_dir,
            tlm_hsm,
            dc,
            _server: server,
        };
        for made in [&lists.alpha, &lists.beta] {
            lists.issue_root_lists(made, ItsTime::now(), DAY);
        }
        lists.issue_ectl(ItsTime::now(), 7 * DAY);
        lists
    }

    fn issue_root_lists(&self, made: &MadePki, now: ItsTime, validity: Duration) {
        let request = CtlRequest {
            ea_url: "http://127.0.0.1:8081".into(),
            aa_url: "http://127.0.0.1:8081".into(),
            dc_url: self.dc.clone(),
            now,
            validity,
        };
        let hsm: &dyn Hsm = made.hsm.as_ref();
        made.pki()
            .issue_ctl(hsm, made.store.as_ref(), &request)
            .expect("CTL");
        made.pki()
            .issue_crl(hsm, made.store.as_ref(), now, validity)
            .expect("CRL");
    }

    fn issue_ectl(&self, now: ItsTime, validity: Duration) {
        let roots = [self.alpha.certs.root.clone(), self.beta.certs.root.clone()];
        let dir = PkiDir::new(self.tlm_dir.path());
        let store = SqliteStore::open(&dir.database()).expect("store");
        let request = EctlRequest::at_one_centre(&roots, &self.dc, now, validity);
        dir.issue_ectl(&self.tlm_hsm, &store, &request)
            .expect("ECTL");
    }

    fn ectl_url(&self) -> EctlSource {
        EctlSource::Url(list_url(&self.dc, ListKind::Ectl, &self.tlm.hashed_id8()))
    }

    fn update(&self, store: &Path, now: ItsTime) -> Result<StationTrust, Error> {
        let trust = StationTrust::fetch(&self.tlm, &self.ectl_url(), now)?;
        trust.save(store)?;
        Ok(trust)
    }
}

/// The verdicts on alpha's and beta's AA under `trust` at `now`.
fn verdicts(trust: &StationTrust, lists: &Lists, now: ItsTime) -> [Verdict; 2] {
    let store = trust.trust_store(StaleCrlPolicy::Refuse).expect("store");
    let mut validator = Validator::new(store, 16);
    [lists.alpha.aa(), lists.beta.aa()].map(|aa| validator.verify_certificate(aa, &[], now).verdict)
}

fn later(seconds: u64) -> ItsTime {
    ItsTime::now().plus_micros(seconds * 1_000_000)
}

#[test]
fn an_update_verifies_every_list_and_a_revoked_aa_is_refused_after_the_next_one() {
    let lists = Lists::new();
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("trust");
    let now = later(1);

    let fetched = lists.update(&store, now).expect("update");
    assert_eq!(fetched.roots.len(), 2);
    assert_eq!(fetched.authorities().len(), 4, "each root's EA and AA");
    for root in &fetched.roots {
        assert_eq!(root.dc_url, lists.dc);
        assert!(root.crl.list.revoked.is_empty());
    }
    assert_eq!(
        verdicts(&fetched, &lists, now),
        [Verdict::Valid, Verdict::Valid]
    );
    let loaded = StationTrust::load(&store, now).expect("load");
    assert_eq!(loaded.ectl.bytes, fetched.ectl.bytes);
    assert_eq!(
        verdicts(&loaded, &lists, now),
        [Verdict::Valid, Verdict::Valid]
    );

    assert!(lists
        .beta
        .pki()
        .revoke(lists.beta.store.as_ref(), lists.beta.aa())
        .expect("revoke"));
    let hsm: &dyn Hsm = lists.beta.hsm.as_ref();
    lists
        .beta
        .pki()
        .issue_crl(hsm, lists.beta.store.as_ref(), ItsTime::now(), DAY)
        .expect("CRL");
    let updated = lists.update(&store, later(2)).expect("update");
    assert_eq!(
        verdicts(&updated, &lists, later(2)),
        [Verdict::Valid, Verdict::Revoked]
    );
    assert_eq!(
        updated.authorities().len(),
        4,
        "the revoked AA is still on the CTL"
    );
    let loaded = StationTrust::load(&store, later(2)).expect("load");
    assert_eq!(
        verdicts(&loaded, &lists, later(2)),
        [Verdict::Valid, Verdict::Revoked]
    );
    let generations: Vec<_> = std::fs::read_dir(&store)
        .expect("store")
        .map(|e| e.expect("entry").file_name().into_string().expect("name"))
        .filter(|n| n.starts_with("gen-"))
        .collect();
    assert_eq!(generations, ["gen-2"], "the older generation is removed");
}

/// Replaces the last list of `kind` in the store of `pki` (its SQLite file), which its
/// distribution centre serves: a forger at the centre.
fn replace_served_list(pki: &PkiDir, kind: ListKind, bytes: &[u8]) {
    let db = rusqlite::Connection::open(pki.database()).expect("store");
    let changed = db
        .execute(
            "UPDATE lists SET list = ?1 WHERE name = ?2",
            rusqlite::params![bytes, kind.name()],
        )
        .expect("update");
    assert_eq!(changed, 1, "no {} in the store", kind.name());
}

/// Each root's distribution centre is kept with its lists: a load names the one they came
/// from, refuses a store that names one the ECTL does not list, and takes the first for a
/// store saved without it.
#[test]
fn a_loaded_store_names_the_distribution_centre_its_lists_came_from() {
    let lists = Lists::new();
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("trust");
    lists.update(&store, later(1)).expect("update");
    let loaded = StationTrust::load(&store, later(1)).expect("load");
    assert!(loaded.roots.iter().all(|r| r.dc_url == lists.dc));
    let alpha = lists.alpha.certs.root.hashed_id8();
    let named = store.join("current").join(format!("{alpha}.dc"));
    assert_eq!(std::fs::read_to_string(&named).expect("kept"), lists.dc);
    std::fs::write(&named, "http://elsewhere.example").expect("tamper");
    match StationTrust::load(&store, later(1)) {
        Err(Error::Malformed { detail, .. }) => {
            assert!(detail.contains("the ECTL does not list"), "{detail}")
        }
        other => panic!("{other:?}"),
    }
    std::fs::remove_file(&named).expect("remove");
    let loaded = StationTrust::load(&store, later(1)).expect("load");
    assert!(loaded.roots.iter().all(|r| r.dc_url == lists.dc));
}

#[test]
fn a_forged_stale_or_wrongly_signed_list_fails_the_update_and_the_last_good_store_stays() {
    let lists = Lists::new();
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("trust");
    let good = lists.update(&store, later(1)).expect("update");
    let kept = || {
        StationTrust::load(&store, later(1))
            .expect("the last good store")
            .ectl
            .bytes
    };

    // A CTL whose signature no longer verifies, as the distribution centre serves it.
    let alpha_pki = lists.alpha.pki();
    let ctl = std::fs::read(alpha_pki.ctl_path()).expect("CTL");
    let mut forged = ctl.clone();
    let last = forged.len() - 1;
    forged[last] ^= 1;
    replace_served_list(&alpha_pki, ListKind::Ctl, &forged);
    match lists.update(&store, later(1)) {
        Err(Error::UntrustedList { list, verdict, .. }) => {
            assert!(list.starts_with("CTL of root CA"), "{list}");
            assert_eq!(verdict, Verdict::FalseSignature);
        }
        other => panic!("a forged CTL: {other:?}"),
    }
    assert_eq!(kept(), good.ectl.bytes);
    replace_served_list(&alpha_pki, ListKind::Ctl, &ctl);

    // A CRL past its next update.
    match lists.update(&store, later(2 * 86_400)) {
        Err(Error::StaleList { list, .. }) => assert!(list.contains("of root CA"), "{list}"),
        other => panic!("stale lists: {other:?}"),
    }

    // The ECTL checked against another TLM's certificate.
    let other_dir = tempfile::tempdir().expect("tempdir");
    let other = PkiDir::new(other_dir.path());
    SoftHsm::init(&other.keys(), "1234", "12345678").expect("hsm");
    let other_hsm = SoftHsm::open(&other.keys(), "1234").expect("open");
    let impostor = init_tlm(&other, &other_hsm, &InitRequest::new("tlm")).expect("TLM");
    match StationTrust::fetch(&impostor, &lists.ectl_url(), later(1)) {
        Err(Error::UntrustedList { list, verdict, .. }) => {
            assert_eq!(list, "ECTL");
            assert_eq!(verdict, Verdict::UntrustedRoot, "it names the real TLM");
        }
        other => panic!("another TLM: {other:?}"),
    }

    // An ECTL past its next update, read from a file.
    lists.issue_ectl(ItsTime::now(), Duration::from_secs(60));
    let file = EctlSource::File(PkiDir::new(lists.tlm_dir.path()).ectl_path());
    match StationTrust::fetch(&lists.tlm, &file, later(120)) {
        Err(Error::StaleList { list, .. }) => assert_eq!(list, "ECTL"),
        other => panic!("a stale ECTL: {other:?}"),
    }
    assert!(StationTrust::fetch(&lists.tlm, &file, later(1)).is_ok());
    assert_eq!(kept(), good.ectl.bytes);
}

#[test]
fn a_stale_crl_in_a_loaded_store_is_the_validators_policy() {
    let lists = Lists::new();
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("trust");
    lists.update(&store, later(1)).expect("update");
    let after_crl = later(2 * 86_400);
    let loaded = StationTrust::load(&store, after_crl).expect("a stale store still loads");
    let refuse = loaded.trust_store(StaleCrlPolicy::Refuse).expect("store");
    assert_eq!(refuse.stale_crls(after_crl).len(), 2);
    let mut validator = Validator::new(refuse, 4);
    let report = validator.verify_certificate(lists.alpha.aa(), &[], after_crl);
    assert_eq!(report.verdict, Verdict::UnlistedCa, "{}", report.reason);
    let warn = loaded.trust_store(StaleCrlPolicy::Warn).expect("store");
    let report = Validator::new(warn, 4).verify_certificate(lists.alpha.aa(), &[], after_crl);
    assert_eq!(report.verdict, Verdict::Valid, "{}", report.reason);
}

#[test]
fn a_directory_without_a_store_says_how_to_make_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let err = StationTrust::load(dir.path(), ItsTime::now()).expect_err("empty");
    assert!(
        err.to_string().contains("vss station trust-update"),
        "{err}"
    );
}

#[test]
fn a_delta_ctl_is_applied_kept_and_reloaded_and_a_stale_or_foreign_one_fails_the_update() {
    let lists = Lists::new();
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("trust");
    let (alpha, beta) = (&lists.alpha, &lists.beta);
    // Alpha revokes its AA and says so in a delta current for a minute; beta issues one too.
    assert!(alpha
        .pki()
        .revoke(alpha.store.as_ref(), alpha.aa())
        .expect("revoke"));
    let delta = |made: &MadePki| {
        let request = CtlRequest {
            ea_url: "http://127.0.0.1:8081".into(),
            aa_url: "http://127.0.0.1:8081".into(),
            dc_url: lists.dc.clone(),
            now: ItsTime::now(),
            validity: Duration::from_secs(60),
        };
        made.pki()
            .issue_delta_ctl(made.hsm.as_ref(), made.store.as_ref(), &request)
            .expect("delta CTL")
    };
    let alpha_delta = delta(alpha);
    let beta_delta = delta(beta);

    let updated = lists.update(&store, later(1)).expect("update");
    let alpha_root = alpha.certs.root.hashed_id8();
    let in_force = |trust: &StationTrust| {
        let root = trust
            .roots
            .iter()
            .find(|r| r.cert.hashed_id8() == alpha_root)
            .expect("alpha")
            .clone();
        let listed: Vec<_> = root.authorities().map(|c| c.hashed_id8()).collect();
        (root.delta_ctl.map(|d| d.bytes), listed)
    };
    let (kept_delta, listed) = in_force(&updated);
    assert_eq!(kept_delta.as_deref(), Some(alpha_delta.as_slice()));
    assert_eq!(listed, [alpha.ea().hashed_id8()], "the AA is deleted");
    // Loaded back: the same delta, applied the same way.
    let loaded = StationTrust::load(&store, later(1)).expect("load");
    assert_eq!(in_force(&loaded), in_force(&updated));
    let report = Validator::new(
        loaded.trust_store(StaleCrlPolicy::Refuse).expect("store"),
        4,
    )
    .verify_certificate(alpha.aa(), &[], later(1));
    assert_eq!(report.verdict, Verdict::UnlistedCa, "{}", report.reason);

    // Past the delta's next update: the update fails, the store stays.
    match lists.update(&store, later(120)) {
        Err(Error::StaleList { list, .. }) => assert!(list.starts_with("delta CTL"), "{list}"),
        other => panic!("a stale delta: {other:?}"),
    }
    // Beta's delta served as alpha's: not signed by alpha's root.
    replace_served_list(&alpha.pki(), ListKind::DeltaCtl, &beta_delta);
    match lists.update(&store, later(1)) {
        Err(Error::UntrustedList { list, .. }) => assert!(list.starts_with("delta CTL"), "{list}"),
        other => panic!("a foreign delta: {other:?}"),
    }
    let reloaded = StationTrust::load(&store, later(1)).expect("load");
    assert_eq!(
        in_force(&reloaded),
        in_force(&updated),
        "the last good store"
    );
}
