//! The security entity as one object, built from the [`Config`]: the key store, the
//! certificate repository, the pseudonym manager (refilled from the PKI when `[pki]` is
//! set), the sign and verify services and the statistics log, with seed 000's functions
//! (createSignature, verifySignature, changePseudonym, blockPseudonymChange,
//! freePseudonymChange, registerRequestNetworkIdChange, encryptSendingFrame) as methods.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use vss_hsm::Hsm;
use vss_its::{Cert, HashedId8, TrustStore, Validator, Verdict};
use vss_pki::station::Repository;

use crate::config::Config;
use crate::pseudonym::{ChangeListener, Clock, PkiTickets, SystemClock, TicketSource};
use crate::sign::Signed;
use crate::stats::StatsLog;
use crate::verify::{Outcome, VerifyCounts};
use crate::{Error, PseudonymManager, Result, SignService, VerificationPolicy, VerifyService};

/// The security entity of one station.
pub struct Vss {
    hsm: Arc<dyn Hsm>,
    sign: SignService,
    verify: VerifyService,
    stats: Option<StatsLog>,
}

fn read_cert(path: &Path) -> Result<Cert> {
    let bytes = std::fs::read(path).map_err(|e| Error::Config {
        path: path.to_path_buf(),
        detail: e.to_string(),
    })?;
    Cert::from_bytes(&bytes).map_err(|e| Error::Config {
        path: path.to_path_buf(),
        detail: e.to_string(),
    })
}

impl Vss {
    /// Opens the entity `config` describes, with the key store's `pin`.
    pub fn open(config: &Config, pin: &str) -> Result<Vss> {
        Self::open_with_clock(config, pin, Arc::new(SystemClock))
    }

    /// The same with another clock (tests).
    pub fn open_with_clock(config: &Config, pin: &str, clock: Arc<dyn Clock>) -> Result<Vss> {
        let hsm: Arc<dyn Hsm> = Arc::from(vss_hsm::open(&config.hsm.store, pin)?);
        let repository = || Repository::open(&config.repository.dir);
        let mut anchors = TrustStore::new();
        for path in &config.trust.anchors {
            anchors.add(read_cert(path)?)?;
        }
        let mut validator = Validator::new(anchors, config.trust.cache_capacity);
        for path in &config.trust.authorities {
            let report = validator.verify_certificate(&read_cert(path)?, &[], clock.now());
            if report.verdict != Verdict::Valid {
                return Err(Error::Config {
                    path: path.clone(),
                    detail: format!("not valid under the anchors: {}", report.reason),
                });
            }
        }
        let source: Option<Arc<dyn TicketSource>> = match &config.pki {
            Some(pki) => Some(Arc::new(PkiTickets::new(
                hsm.clone(),
                repository()?,
                &pki.aa_url,
                read_cert(&pki.aa_cert)?,
                read_cert(&pki.ea_cert)?,
                &config.pseudonyms.psids,
            ))),
            None => None,
        };
        let pseudonyms = PseudonymManager::new(
            hsm.clone(),
            repository()?,
            config.pseudonyms.clone(),
            source,
            clock.clone(),
        )?;
        Ok(Vss {
            sign: SignService::new(pseudonyms, hsm.clone(), clock.clone()),
            verify: VerifyService::new(
                validator,
                VerificationPolicy::new(&config.verification),
                clock,
            ),
            hsm,
            stats: StatsLog::open(&config.statistics)?,
        })
    }

    /// createSignature: `payload` signed for `psid` with the current pseudonym.
    pub fn create_signature(&self, psid: u64, payload: &[u8]) -> Result<Signed> {
        let checkpoint = self.stats.as_ref().map(|s| s.checkpoint("createSignature"));
        let signed = self.sign.sign(psid, payload);
        if let Some(c) = checkpoint {
            c.end(if signed.is_ok() { "ok" } else { "error" })?;
        }
        signed
    }

    /// verifySignature: the outcome for a received message under the policy.
    pub fn verify_signature(&self, bytes: &[u8]) -> Result<Outcome> {
        let checkpoint = self.stats.as_ref().map(|s| s.checkpoint("verifySignature"));
        let outcome = self.verify.receive(bytes);
        if let Some(c) = checkpoint {
            c.end(outcome_name(&outcome))?;
        }
        Ok(outcome)
    }

    /// Verification on demand of a message the policy skipped.
    pub fn verify_on_demand(&self, id: u64) -> Result<Outcome> {
        let checkpoint = self.stats.as_ref().map(|s| s.checkpoint("verifyOnDemand"));
        let outcome = self.verify.verify_on_demand(id)?;
        if let Some(c) = checkpoint {
            c.end(outcome_name(&outcome))?;
        }
        Ok(outcome)
    }

    /// changePseudonym.
    pub fn change_pseudonym(&self) -> Result<HashedId8> {
        self.sign.pseudonyms().change_pseudonym()
    }

    /// blockPseudonymChange.
    pub fn block_pseudonym_change(&self, duration: Duration) {
        self.sign.pseudonyms().block_pseudonym_change(duration);
    }

    /// freePseudonymChange.
    pub fn free_pseudonym_change(&self) {
        self.sign.pseudonyms().free_pseudonym_change();
    }

    /// registerRequestNetworkIdChange: `listener` is asked before each pseudonym change
    /// and told after it (indicateNetworkIdChange).
    pub fn register_network_id_listener(&self, listener: Arc<dyn ChangeListener>) {
        self.sign.pseudonyms().add_listener(listener);
    }

    /// encryptSendingFrame: `payload` sealed for the holder of `recipient`'s encryption key.
    pub fn encrypt_sending_frame(&self, payload: &[u8], recipient: &Cert) -> Result<Vec<u8>> {
        crate::frame::encrypt_sending_frame(payload, recipient)
    }

    /// The pseudonym manager.
    pub fn pseudonyms(&self) -> &PseudonymManager {
        self.sign.pseudonyms()
    }

    /// The sign service (a peer's certificate request goes here).
    pub fn sign_service(&self) -> &SignService {
        &self.sign
    }

    /// What verification has seen.
    pub fn verify_counts(&self) -> VerifyCounts {
        self.verify.counts()
    }

    /// What the certificate cache did.
    pub fn cache_stats(&self) -> vss_its::CacheStats {
        self.verify.cache_stats()
    }

    /// The key store.
    pub fn hsm(&self) -> &Arc<dyn Hsm> {
        &self.hsm
    }
}

/// The result written to the statistics for an outcome.
fn outcome_name(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Valid { .. } => "Valid",
        Outcome::Invalid { verdict, .. } => verdict.name(),
        Outcome::Skipped { .. } => "Skipped",
    }
}
