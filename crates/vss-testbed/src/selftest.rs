//! Seed 000's validation suite (PRESERVE D3.1 §2.2), run against two PKIs served on
//! loopback (the seed's Fraunhofer and Escrypt PKIs): long-term certificate requests
//! (Test_LTCREQ_VB_01–03), pseudonym requests within and across the PKIs
//! (Test_PSNYMREQ_VB_01–05), 200 sign/verify calls under each pseudonym rule
//! (Test_Sign_Verify_VB_01–06) and sampling with verification on demand
//! (Test_Verification_On_Demand_VB_01). The seed's "with the FPGA" cases run with the
//! PKCS#11 HSM.
//!
//! Each case runs its preamble, body and postamble and reports what it checked; a case
//! that fails says why and the suite goes on.

use std::collections::BTreeSet;
use std::fmt::Display;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use vss_its::{HashedId8, ItsTime, TrustAnchors, Validator, Verdict};
use vss_pki::station::CertKind;

use serde_json::json;
use vss_core::config::{PolicyKind, PseudonymConfig, VerificationConfig};
use vss_core::pseudonym::ChangeListener;
use vss_core::verify::Outcome;
use vss_core::{Result, Vss};
use vss_hsm::scratch::softhsm_config;
use vss_hsm::DEFAULT_PKCS11_MODULE;

use crate::loopback::{Testbed, TestbedPki, TestbedStation, PIN};
use crate::report::{Report, Table};
use crate::HsmOptions;
/// Sign/verify calls in each body (the buffer grows by one byte per call).
pub const CALLS: usize = 200;
/// Signatures per pseudonym in the sign/verify cases: 200 calls use three pseudonyms.
const MAX_USES: u64 = 80;
/// Tickets in the pool at the start of each sign/verify case.
const POOL: usize = 4;
/// The seed's two PKIs.
const PKI_A: &str = "pki-a";
const PKI_B: &str = "pki-b";

/// What runs the suite.
#[derive(Debug, Clone)]
pub struct SelftestOptions {
    /// The HSM of the software cases.
    pub hsm: HsmOptions,
    /// The PKCS#11 module of the "with the FPGA" cases.
    pub pkcs11_module: PathBuf,
}

impl Default for SelftestOptions {
    fn default() -> Self {
        SelftestOptions {
            hsm: HsmOptions::soft(),
            pkcs11_module: PathBuf::from(DEFAULT_PKCS11_MODULE),
        }
    }
}

/// The outcome of one case.
#[derive(Debug, Clone)]
pub struct CaseReport {
    /// The seed's name of the case.
    pub name: &'static str,
    /// Whether every check passed.
    pub passed: bool,
    /// What was checked, or why it failed.
    pub detail: String,
    /// How long the case took.
    pub elapsed: Duration,
}

impl CaseReport {
    /// `PASS` or `FAIL`.
    pub fn verdict(&self) -> &'static str {
        if self.passed {
            "PASS"
        } else {
            "FAIL"
        }
    }
}

type Checked = std::result::Result<String, String>;

fn check(ok: bool, failure: impl FnOnce() -> String) -> std::result::Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(failure())
    }
}

fn because<E: Display>(what: &'static str) -> impl FnOnce(E) -> String {
    move |e| format!("{what}: {e}")
}

/// The seed's customer function: changes a (simulated) network id with the pseudonym and
/// counts the changes it was told of.
#[derive(Default)]
struct NetworkId {
    asked: AtomicU64,
    changed: AtomicU64,
}

impl ChangeListener for NetworkId {
    fn before_change(&self, _from: Option<HashedId8>, _to: HashedId8) -> bool {
        self.asked.fetch_add(1, Ordering::SeqCst);
        true
    }

    fn after_change(&self, from: Option<HashedId8>, _to: HashedId8) {
        if from.is_some() {
            self.changed.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// What a body saw.
struct Body {
    signers: Vec<HashedId8>,
    /// When each call was made, from the start of the body.
    at: Vec<Duration>,
    skipped: Vec<(u64, Vec<u8>)>,
}

impl Body {
    fn distinct(&self) -> usize {
        self.signers.iter().collect::<BTreeSet<_>>().len()
    }

    /// The call that first signed with another pseudonym.
    fn first_change(&self) -> Option<usize> {
        let first = self.signers.first()?;
        self.signers.iter().position(|s| s != first)
    }

    /// Messages the sampling policy verifies: per signer, the first and every N-th.
    fn sampled(&self, every: u64) -> u64 {
        let mut seen = std::collections::HashMap::new();
        self.signers
            .iter()
            .filter(|s| {
                let n = seen.entry(**s).or_insert(0u64);
                *n += 1;
                (*n - 1) % every == 0
            })
            .count() as u64
    }
}

/// The suite's world: two PKIs and the stations.
struct Suite {
    testbed: Testbed,
    options: SelftestOptions,
    car_a: TestbedStation,
    car_b: TestbedStation,
    car_fpga: Option<TestbedStation>,
}

impl Suite {
    fn pki(&self, name: &str) -> &TestbedPki {
        self.testbed
            .pki(name)
            .unwrap_or_else(|| unreachable!("the suite made {name}"))
    }

    /// Test_LTCREQ: preamble, enrolment, and the checks of the stored credential.
    fn long_term_certificate(station: &TestbedStation, pki: &TestbedPki) -> Checked {
        let removed = station.clear().map_err(because("preamble"))?;
        let entry = station.enroll(pki).map_err(because("enrolment"))?;
        let id = entry.cert.hashed_id8();
        let stored = station
            .repository
            .list(CertKind::Enrolment)
            .map_err(because("repository"))?;
        check(stored.iter().any(|e| e.cert.hashed_id8() == id), || {
            format!("EC {id} is not in the repository with its .meta")
        })?;
        let report = validator(pki)?.verify_certificate(
            &entry.cert,
            std::slice::from_ref(&pki.certs.ea),
            ItsTime::now(),
        );
        check(report.verdict == Verdict::Valid, || {
            format!("EC {id} does not verify: {}", report.reason)
        })?;
        station
            .hsm
            .key(&entry.meta.verification_key)
            .map_err(because("postamble: the EC's key"))?;
        Ok(format!(
            "{removed} old keys removed; EC {id} from {}'s EA stored with .meta (key {}), \
             its signature verified to {}'s root; the key is still in the {} HSM",
            pki.name, entry.meta.verification_key, pki.name, station.keys.backend
        ))
    }

    /// Test_PSNYMREQ: tickets from `aa` with the credential of `ea`, and their checks.
    fn pseudonyms(station: &TestbedStation, aa: &TestbedPki, ea: &TestbedPki) -> Checked {
        const COUNT: usize = 5;
        let before = aa.tickets_issued().map_err(because("the AA's records"))?;
        let tickets = station
            .pseudonyms(aa, ea, COUNT)
            .map_err(because("pseudonym request"))?;
        check(tickets.len() == COUNT, || {
            format!("{} tickets for {COUNT} asked", tickets.len())
        })?;
        let stored: BTreeSet<HashedId8> = station
            .repository
            .list(CertKind::Pseudonym)
            .map_err(because("repository"))?
            .iter()
            .map(|e| e.cert.hashed_id8())
            .collect();
        let issued = aa.tickets_issued().map_err(because("the AA's records"))?;
        let mut validator = validator(aa)?;
        for ticket in &tickets {
            let id = ticket.cert.hashed_id8();
            check(stored.contains(&id), || {
                format!("ticket {id} is not in the repository with its .meta")
            })?;
            let report = validator.verify_certificate(
                &ticket.cert,
                std::slice::from_ref(&aa.certs.aa),
                ItsTime::now(),
            );
            check(report.verdict == Verdict::Valid, || {
                format!("ticket {id} does not verify: {}", report.reason)
            })?;
            check(issued.contains(&id) && !before.contains(&id), || {
                format!("ticket {id} is not a new record of {}'s AA", aa.name)
            })?;
            station
                .hsm
                .key(&ticket.meta.verification_key)
                .map_err(because("postamble: a ticket's key"))?;
        }
        Ok(format!(
            "{COUNT} tickets from {}'s AA (credential from {}'s EA) stored with .meta, \
             verified to {}'s root, recorded by the AA; their keys are in the {} HSM",
            aa.name, ea.name, aa.name, station.keys.backend
        ))
    }

    /// Replaces every pseudonym of car A with `POOL` fresh ones from PKI A.
    fn fresh_pool(&self) -> std::result::Result<(), String> {
        let station = &self.car_a;
        for entry in station
            .repository
            .list(CertKind::Pseudonym)
            .map_err(because("repository"))?
        {
            station
                .repository
                .remove(CertKind::Pseudonym, entry.cert.hashed_id8())
                .map_err(because("repository"))?;
            entry
                .meta
                .delete_keys(station.hsm.as_ref())
                .map_err(because("HSM"))?;
        }
        let a = self.pki(PKI_A);
        station
            .pseudonyms(a, a, POOL)
            .map(|_| ())
            .map_err(because("preamble: pseudonyms"))
    }

    /// Opens car A's security entity for case `name` with `rules` and `verification`.
    fn entity(
        &self,
        name: &str,
        rules: PseudonymConfig,
        verification: VerificationConfig,
    ) -> std::result::Result<(Vss, PathBuf), String> {
        self.fresh_pool()?;
        let a = self.pki(PKI_A);
        let stats = self.car_a.dir.join("stats").join(name);
        let mut config = self.car_a.config(&self.testbed, a, a, &stats);
        config.pseudonyms = rules;
        config.verification = verification;
        let vss = Vss::open(&config, PIN).map_err(because("opening the entity"))?;
        Ok((vss, stats))
    }

    /// The body: `CALLS` signatures over buffers of 1, 2, … bytes, each verified at once;
    /// `before_call` runs first each time; with `pace`, a call waits that long after it.
    fn body(
        vss: &Vss,
        pace: Option<Duration>,
        mut before_call: impl FnMut(usize, &Vss),
    ) -> std::result::Result<Body, String> {
        let start = Instant::now();
        let mut body = Body {
            signers: Vec::new(),
            at: Vec::new(),
            skipped: Vec::new(),
        };
        for i in 0..CALLS {
            before_call(i, vss);
            let payload: Vec<u8> = (0..=i).map(|b| b as u8).collect();
            body.at.push(start.elapsed());
            let signed = vss
                .create_signature(vss_its::Psid::CAM, &payload)
                .map_err(|e| format!("call {}: createSignature: {e}", i + 1))?;
            match vss
                .verify_signature(&signed.bytes)
                .map_err(|e| format!("call {}: verifySignature: {e}", i + 1))?
            {
                Outcome::Valid { payload: p, .. } => check(p == payload, || {
                    format!("call {}: the payload came back changed", i + 1)
                })?,
                Outcome::Skipped { id } => body.skipped.push((id, payload)),
                Outcome::Invalid { verdict } => {
                    return Err(format!("call {}: verifySignature: {verdict}", i + 1))
                }
            }
            body.signers.push(signed.signer);
            if let Some(pace) = pace {
                std::thread::sleep(pace);
            }
        }
        Ok(body)
    }

    /// Postamble: the statistics log holds `CALLS` successful signatures and
    /// `verified` valid verifications.
    fn log_successes(stats: &std::path::Path, verified: u64) -> std::result::Result<(), String> {
        let (functions, _) = vss_core::stats::report(stats).map_err(because("the log"))?;
        let count = |function: &str, result: &str| {
            functions
                .iter()
                .find(|f| f.function == function)
                .and_then(|f| f.results.get(result).copied())
                .unwrap_or(0)
        };
        let (signed, valid) = (
            count("createSignature", "ok"),
            count("verifySignature", "Valid"),
        );
        check(signed == CALLS as u64 && valid == verified, || {
            format!(
                "the log holds {signed} signatures and {valid} valid verifications, \
                 not {CALLS} and {verified}"
            )
        })
    }

    fn rules(ask: bool) -> PseudonymConfig {
        PseudonymConfig {
            max_uses: MAX_USES,
            max_age: Duration::from_secs(3600),
            min_pool: POOL - 1,
            ask_new_pseudonyms: ask,
            request_count: 3,
            ..PseudonymConfig::default()
        }
    }

    fn sign_verify_no_listener(&self) -> Checked {
        let (vss, stats) = self.entity(
            "Test_Sign_Verify_VB_01",
            Self::rules(false),
            VerificationConfig::default(),
        )?;
        let body = Self::body(&vss, None, |_, _| {})?;
        Self::log_successes(&stats, CALLS as u64)?;
        let s = vss.pseudonyms().stats();
        check(s.changes == 0 && body.distinct() == 1, || {
            format!("{} changes without a customer function", s.changes)
        })?;
        Ok(format!(
            "{CALLS} signatures and {CALLS} valid verifications in the log; no customer \
             function, so no change ({} changes deferred past {MAX_USES} uses)",
            s.deferred
        ))
    }

    fn sign_verify_changes(&self) -> Checked {
        let (vss, stats) = self.entity(
            "Test_Sign_Verify_VB_02",
            Self::rules(false),
            VerificationConfig::default(),
        )?;
        let labels: Vec<(HashedId8, Vec<String>)> = self
            .car_a
            .repository
            .list(CertKind::Pseudonym)
            .map_err(because("repository"))?
            .into_iter()
            .map(|e| {
                (
                    e.cert.hashed_id8(),
                    e.meta.key_labels().map(String::from).collect(),
                )
            })
            .collect();
        let network = Arc::new(NetworkId::default());
        vss.register_network_id_listener(network.clone());
        let body = Self::body(&vss, None, |_, _| {})?;
        Self::log_successes(&stats, CALLS as u64)?;
        let s = vss.pseudonyms().stats();
        check(s.changes == 2 && body.distinct() == 3, || {
            format!(
                "{} changes and {} pseudonyms, not 2 and 3",
                s.changes,
                body.distinct()
            )
        })?;
        check(network.changed.load(Ordering::SeqCst) == s.changes, || {
            "the customer function was not told of every change".into()
        })?;
        let current = vss.pseudonyms().current();
        let remaining = self
            .car_a
            .repository
            .list(CertKind::Pseudonym)
            .map_err(because("repository"))?;
        let used: Vec<&(HashedId8, Vec<String>)> = labels
            .iter()
            .filter(|(id, _)| body.signers.contains(id) && Some(*id) != current)
            .collect();
        for (id, keys) in &used {
            check(
                !remaining.iter().any(|e| e.cert.hashed_id8() == *id),
                || format!("used pseudonym {id} is still in the repository"),
            )?;
            for label in keys {
                check(self.car_a.hsm.key(label).is_err(), || {
                    format!(
                        "the key {label} of used pseudonym {id} is still in the HSM ({} \
                         retired, {} failed: {:?})",
                        s.retired, s.retire_failures, s.last_error
                    )
                })?;
            }
        }
        check(s.refills == 0, || "new pseudonyms were asked for".into())?;
        Ok(format!(
            "{CALLS} signatures and verifications in the log; 3 pseudonyms used, {} changes \
             told to the customer function; the {} used ones removed from the repository \
             with their keys; none asked for",
            s.changes,
            used.len()
        ))
    }

    fn sign_verify_refill(&self) -> Checked {
        let (vss, stats) = self.entity(
            "Test_Sign_Verify_VB_03",
            Self::rules(true),
            VerificationConfig::default(),
        )?;
        let aa = self.pki(PKI_A);
        let before = aa.tickets_issued().map_err(because("the AA's records"))?;
        vss.register_network_id_listener(Arc::new(NetworkId::default()));
        Self::body(&vss, None, |_, _| {})?;
        vss.pseudonyms().wait_for_refill();
        Self::log_successes(&stats, CALLS as u64)?;
        let s = vss.pseudonyms().stats();
        check(s.changes >= 1 && s.retired >= 1, || {
            format!("{} changes, {} retired", s.changes, s.retired)
        })?;
        check(s.refills >= 1 && s.refill_failures == 0, || {
            format!(
                "{} refills, {} failed: {:?}",
                s.refills, s.refill_failures, s.last_error
            )
        })?;
        let issued = aa.tickets_issued().map_err(because("the AA's records"))?;
        let new: Vec<_> = issued.iter().filter(|id| !before.contains(id)).collect();
        let stored = self
            .car_a
            .repository
            .list(CertKind::Pseudonym)
            .map_err(because("repository"))?;
        check(new.len() as u64 == s.tickets_received, || {
            format!(
                "the AA issued {} tickets, the station received {}",
                new.len(),
                s.tickets_received
            )
        })?;
        for id in &new {
            check(stored.iter().any(|e| e.cert.hashed_id8() == **id), || {
                format!("new ticket {id} is not in the repository")
            })?;
        }
        Ok(format!(
            "{CALLS} signatures and verifications in the log; {} changes, {} used pseudonyms \
             removed; below {} left a request went to {}'s AA and its {} new pseudonyms \
             are stored",
            s.changes,
            s.retired,
            POOL - 1,
            aa.name,
            new.len()
        ))
    }

    /// Test_Sign_Verify_VB_04–06: changes blocked for `block`; with `free_at`, freed at
    /// that call; with `pace`, calls are spread out so a short block ends mid-test.
    fn sign_verify_blocked(
        &self,
        name: &str,
        block: Duration,
        free_at: Option<usize>,
        pace: Option<Duration>,
    ) -> std::result::Result<(Body, Vss), String> {
        let (vss, stats) = self.entity(name, Self::rules(true), VerificationConfig::default())?;
        vss.register_network_id_listener(Arc::new(NetworkId::default()));
        let body = Self::body(&vss, pace, |i, vss| {
            if i == 0 {
                vss.block_pseudonym_change(block);
            }
            if Some(i) == free_at {
                vss.free_pseudonym_change();
            }
        })?;
        Self::log_successes(&stats, CALLS as u64)?;
        Ok((body, vss))
    }

    fn sign_verify_block_long(&self) -> Checked {
        let (body, vss) = self.sign_verify_blocked(
            "Test_Sign_Verify_VB_04",
            Duration::from_secs(3600),
            None,
            None,
        )?;
        let s = vss.pseudonyms().stats();
        check(s.changes == 0 && body.distinct() == 1, || {
            format!("{} changes while blocked", s.changes)
        })?;
        check(s.deferred > 0, || "no change fell due".into())?;
        Ok(format!(
            "{CALLS} signatures and verifications in the log; blocked for an hour: no change \
             ({} due changes deferred)",
            s.deferred
        ))
    }

    fn sign_verify_block_short(&self) -> Checked {
        let block = Duration::from_millis(120);
        let (body, vss) = self.sign_verify_blocked(
            "Test_Sign_Verify_VB_05",
            block,
            None,
            Some(Duration::from_millis(1)),
        )?;
        let s = vss.pseudonyms().stats();
        let first = body
            .first_change()
            .ok_or_else(|| "no pseudonym change after the block ended".to_string())?;
        check(body.at[first] >= block, || {
            format!(
                "a change at {:?}, inside the {block:?} block",
                body.at[first]
            )
        })?;
        Ok(format!(
            "{CALLS} signatures and verifications in the log; blocked for {block:?} of a \
             {:?} test: {} changes, the first at call {} ({:?}), after the block",
            body.at[CALLS - 1],
            s.changes,
            first + 1,
            body.at[first]
        ))
    }

    fn sign_verify_free(&self) -> Checked {
        const FREE_AT: usize = 100;
        let (body, vss) = self.sign_verify_blocked(
            "Test_Sign_Verify_VB_06",
            Duration::from_secs(3600),
            Some(FREE_AT),
            None,
        )?;
        let s = vss.pseudonyms().stats();
        let first = body
            .first_change()
            .ok_or_else(|| "no pseudonym change after freePseudonymChange".to_string())?;
        check(first == FREE_AT, || {
            format!(
                "the first change at call {}, not at the first call after the free ({})",
                first + 1,
                FREE_AT + 1
            )
        })?;
        check(s.deferred > 0, || "no change was due while blocked".into())?;
        Ok(format!(
            "{CALLS} signatures and verifications in the log; blocked for an hour, freed \
             before call {}: {} deferred, then {} changes, the first at once",
            FREE_AT + 1,
            s.deferred,
            s.changes
        ))
    }

    fn verification_on_demand(&self) -> Checked {
        const EVERY: u64 = 10;
        let (vss, stats) = self.entity(
            "Test_Verification_On_Demand_VB_01",
            Self::rules(false),
            VerificationConfig {
                policy: PolicyKind::Sampling,
                sample_every: EVERY,
                ..VerificationConfig::default()
            },
        )?;
        vss.register_network_id_listener(Arc::new(NetworkId::default()));
        let body = Self::body(&vss, None, |_, _| {})?;
        let expected = body.sampled(EVERY);
        Self::log_successes(&stats, expected)?;
        let counts = vss.verify_counts();
        check(
            counts.policy.verified == expected && counts.policy.skipped == CALLS as u64 - expected,
            || {
                format!(
                    "{} verified and {} skipped; the configuration means {expected} and {}",
                    counts.policy.verified,
                    counts.policy.skipped,
                    CALLS as u64 - expected
                )
            },
        )?;
        for (id, payload) in &body.skipped {
            match vss.verify_on_demand(*id).map_err(because("on demand"))? {
                Outcome::Valid { payload: p, .. } if p == *payload => {}
                other => return Err(format!("message {id} on demand: {other:?}")),
            }
        }
        let counts = vss.verify_counts();
        check(counts.on_demand == body.skipped.len() as u64, || {
            format!("{} verified on demand", counts.on_demand)
        })?;
        Ok(format!(
            "sampling 1 in {EVERY} per pseudonym over {} pseudonyms: {expected} of {CALLS} \
             verified on arrival (as in the log), {} skipped, each valid when asked for on \
             demand",
            body.distinct(),
            body.skipped.len()
        ))
    }
}

/// A validator trusting `pki`'s root.
fn validator(pki: &TestbedPki) -> std::result::Result<Validator, String> {
    let mut anchors = TrustAnchors::new();
    anchors
        .add(pki.certs.root.clone())
        .map_err(because("the root"))?;
    Ok(Validator::new(anchors, 16))
}

/// The names of the cases, in the order they run.
pub const CASES: [&str; 15] = [
    "Test_LTCREQ_VB_01",
    "Test_LTCREQ_VB_02",
    "Test_LTCREQ_VB_03",
    "Test_PSNYMREQ_VB_01",
    "Test_PSNYMREQ_VB_02",
    "Test_PSNYMREQ_VB_03",
    "Test_PSNYMREQ_VB_04",
    "Test_PSNYMREQ_VB_05",
    "Test_Sign_Verify_VB_01",
    "Test_Sign_Verify_VB_02",
    "Test_Sign_Verify_VB_03",
    "Test_Sign_Verify_VB_04",
    "Test_Sign_Verify_VB_05",
    "Test_Sign_Verify_VB_06",
    "Test_Verification_On_Demand_VB_01",
];

/// Runs every case in order; `on_case` sees each report as it ends. Fails only when the
/// testbed itself cannot be set up.
pub fn run(
    options: &SelftestOptions,
    on_case: &mut dyn FnMut(&CaseReport),
) -> Result<Vec<CaseReport>> {
    let testbed = Testbed::new(&[PKI_A, PKI_B])?;
    let car_a = testbed.station("car-a", &options.hsm)?;
    let car_b = testbed.station("car-b", &options.hsm)?;
    let mut suite = Suite {
        testbed,
        options: options.clone(),
        car_a,
        car_b,
        car_fpga: None,
    };
    let mut reports = Vec::new();
    for name in CASES {
        let start = Instant::now();
        let result = suite.case(name);
        let report = CaseReport {
            name,
            passed: result.is_ok(),
            detail: result.unwrap_or_else(|e| e),
            elapsed: start.elapsed(),
        };
        on_case(&report);
        reports.push(report);
    }
    Ok(reports)
}

/// Runs every case as [`run`] does, with the PKCS#11 tokens in a SoftHSMv2 token directory
/// of this run's own (`SOFTHSM2_CONF` is set: call it before any other thread starts), and
/// lays the reports out; its check passes only when every case passed.
pub fn suite(
    options: &SelftestOptions,
    on_case: &mut dyn FnMut(&CaseReport),
) -> anyhow::Result<Report> {
    let tokens = tempfile::Builder::new()
        .prefix("vss-selftest-tokens-")
        .tempdir()
        .map_err(|e| anyhow::anyhow!("cannot create a token directory: {e}"))?;
    std::env::set_var("SOFTHSM2_CONF", softhsm_config(tokens.path())?);
    let reports = run(options, on_case)?;
    Ok(report(options, &reports))
}

/// The reports as JSON and as a table.
fn report(options: &SelftestOptions, reports: &[CaseReport]) -> Report {
    let failed = reports.iter().filter(|r| !r.passed).count();
    let json = json!({
        "hsm": options.hsm.backend.name(),
        "cases": reports.iter().map(|r| json!({
            "case": r.name,
            "result": r.verdict(),
            "seconds": r.elapsed.as_secs_f64(),
            "detail": r.detail,
        })).collect::<Vec<_>>(),
        "passed": reports.len() - failed,
        "failed": failed,
    });
    let mut table = Table::new(&["case", "result", "seconds", "checked"]);
    for r in reports {
        table.row(vec![
            r.name.to_string(),
            r.verdict().to_string(),
            format!("{:.3}", r.elapsed.as_secs_f64()),
            r.detail.clone(),
        ]);
    }
    Report::checked(
        json,
        table.render(),
        failed == 0,
        format!("{failed} of {} cases failed", reports.len()),
    )
}

impl Suite {
    fn case(&mut self, name: &str) -> Checked {
        if name == "Test_LTCREQ_VB_03" {
            let fpga = HsmOptions::pkcs11(&self.options.pkcs11_module);
            let station = self
                .testbed
                .station("car-fpga", &fpga)
                .map_err(because("a station on the PKCS#11 HSM"))?;
            let checked = Self::long_term_certificate(&station, self.pki(PKI_A));
            self.car_fpga = Some(station);
            return checked;
        }
        let (a, b) = (self.pki(PKI_A), self.pki(PKI_B));
        match name {
            "Test_LTCREQ_VB_01" => Self::long_term_certificate(&self.car_a, a),
            "Test_LTCREQ_VB_02" => Self::long_term_certificate(&self.car_b, b),
            "Test_PSNYMREQ_VB_01" => Self::pseudonyms(&self.car_a, a, a),
            "Test_PSNYMREQ_VB_02" => Self::pseudonyms(&self.car_b, b, b),
            "Test_PSNYMREQ_VB_03" => Self::pseudonyms(&self.car_a, b, a),
            "Test_PSNYMREQ_VB_04" => Self::pseudonyms(&self.car_b, a, b),
            "Test_PSNYMREQ_VB_05" => match &self.car_fpga {
                Some(station) => Self::pseudonyms(station, a, a),
                None => Err("no station on the PKCS#11 HSM (Test_LTCREQ_VB_03 failed)".into()),
            },
            "Test_Sign_Verify_VB_01" => self.sign_verify_no_listener(),
            "Test_Sign_Verify_VB_02" => self.sign_verify_changes(),
            "Test_Sign_Verify_VB_03" => self.sign_verify_refill(),
            "Test_Sign_Verify_VB_04" => self.sign_verify_block_long(),
            "Test_Sign_Verify_VB_05" => self.sign_verify_block_short(),
            "Test_Sign_Verify_VB_06" => self.sign_verify_free(),
            "Test_Verification_On_Demand_VB_01" => self.verification_on_demand(),
            other => Err(format!("no case {other}")),
        }
    }
}
