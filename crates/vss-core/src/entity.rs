//! The security entity as one object, built from the [`Config`]: the key store, the
//! certificate repository, the pseudonym manager (refilled from the PKI when `[pki]` is
//! set), the sign and verify services (signatures checked on the `[engine]`) and the
//! statistics log, with seed 000's functions (createSignature, verifySignature,
//! changePseudonym, blockPseudonymChange, freePseudonymChange,
//! registerRequestNetworkIdChange, encryptSendingFrame, decryptReceivedFrame) as methods.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use vss_hsm::Hsm;
use vss_its::{
    Cert, CertFileError, HashedId8, ItsTime, PreparedKeyPolicy, Psid, TrustAnchors, Validator,
    Verdict,
};
use vss_pki::station::{EctlSource, Repository, StationTrust};

use crate::config::{Config, TrustConfig};
use crate::frame::{FrameContent, FrameReceiver};
use crate::pseudonym::{ChangeListener, Clock, PkiTickets, SystemClock, TicketSource};
use crate::sign::{SignOptions, Signed};
use crate::stats::StatsLog;
use crate::verify::{Outcome, VerifyCounts};
use crate::{Error, PseudonymManager, Result, SignService, VerificationPolicy, VerifyService};

/// What the entity can tell of itself (SN-SAP's status): the pool, the current pseudonym
/// and the counters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntityStatus {
    /// Unused tickets valid now.
    pub pool_level: usize,
    /// The current pseudonym (none before the first signature).
    pub current_pseudonym: Option<HashedId8>,
    /// Messages verified and valid.
    pub verified_valid: u64,
    /// Messages verified and refused.
    pub verified_invalid: u64,
    /// Messages the verification policy skipped.
    pub skipped: u64,
    /// Pseudonym changes made.
    pub id_changes: u64,
    /// Pseudonym changes due but not made (locked, postponed, pool empty).
    pub id_changes_deferred: u64,
    /// Certificate cache hits.
    pub cache_hits: u64,
    /// Certificate cache misses.
    pub cache_misses: u64,
}

/// The security entity of one station.
pub struct Vss {
    hsm: Arc<dyn Hsm>,
    sign: SignService,
    verify: VerifyService,
    frames: Option<FrameReceiver>,
    stats: Option<StatsLog>,
    clock: Arc<dyn Clock>,
}

/// Reads a certificate file ([`Cert::read`]): a configuration error naming the file.
fn read_cert(path: &Path) -> Result<Cert> {
    Cert::read(path).map_err(|e| {
        let detail = match &e {
            CertFileError::Read { source, .. } => source.to_string(),
            CertFileError::Decode { source, .. } => source.to_string(),
        };
        Error::Config {
            path: path.to_path_buf(),
            detail,
        }
    })
}

/// The validator `config` describes: its trust anchors (the files, and the roots of the
/// trust store with their lists and EAs and AAs), and its authorities checked under them
/// and cached.
pub fn validator(config: &Config, clock: &dyn Clock) -> Result<Validator> {
    trust_validator(
        &config.trust,
        config.verification.prepared_keys(),
        clock.now(),
    )
}

/// The validator of `[trust]` at `now`, preparing signers' keys as `prepared` says (what
/// [`validator`] builds; `vss filter` builds it from its flags too).
pub fn trust_validator(
    trust: &TrustConfig,
    prepared: PreparedKeyPolicy,
    now: ItsTime,
) -> Result<Validator> {
    let mut anchors = match &trust.store {
        Some(dir) => StationTrust::load(dir, now)?.trust_store(trust.stale_crl)?,
        None => TrustAnchors::new(),
    };
    for path in &trust.anchors {
        anchors.add(read_cert(path)?)?;
    }
    let mut validator = Validator::new(anchors, trust.cache_capacity).with_prepared_keys(prepared);
    for path in &trust.authorities {
        let report = validator.verify_certificate(&read_cert(path)?, &[], now);
        if report.verdict != Verdict::Valid {
            return Err(Error::Config {
                path: path.clone(),
                detail: format!("not valid under the anchors: {}", report.reason),
            });
        }
    }
    Ok(validator)
}

/// `[trust.update]`: fetches the lists, verifies them and replaces the store at `now`;
/// whether there was an update to run.
fn update_trust_store(config: &Config, now: ItsTime) -> Result<bool> {
    let Some((dir, update)) = config.trust.update_of() else {
        return Ok(false);
    };
    let tlm = read_cert(&update.tlm_cert)?;
    StationTrust::fetch(&tlm, &EctlSource::parse(&update.ectl), now)?.save(dir)?;
    Ok(true)
}

/// What a trust refresh found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustRefresh {
    /// Whether the lists were fetched and the store replaced (`[trust.update]`).
    pub updated: bool,
    /// The root CAs trusted now.
    pub roots: usize,
    /// The roots whose CRL is past its next update.
    pub stale_crls: Vec<HashedId8>,
}

impl Vss {
    /// Opens the entity `config` describes, with the key store's `pin`.
    pub fn open(config: &Config, pin: &str) -> Result<Vss> {
        Self::open_with_clock(config, pin, Arc::new(SystemClock))
    }

    /// Opens the entity `config` describes without a prompt: the PIN comes from the
    /// configuration's PIN file, the systemd credential or the environment ([`crate::pin`]).
    pub fn open_unattended(config: &Config) -> Result<Vss> {
        let pin = crate::pin::read_pin(&config.hsm)?;
        Self::open(config, &pin)
    }

    /// The same with another clock (tests).
    pub fn open_with_clock(config: &Config, pin: &str, clock: Arc<dyn Clock>) -> Result<Vss> {
        let engine = config.engine.kind.engine()?;
        let hsm: Arc<dyn Hsm> = Arc::from(vss_hsm::open(&config.hsm.store, pin)?);
        let repository = || Repository::open(&config.repository.dir);
        if let Some((dir, _)) = config.trust.update_of() {
            if StationTrust::load(dir, clock.now()).is_err() {
                // No store yet (or none that loads): the first update makes it.
                update_trust_store(config, clock.now())?;
            }
        }
        let validator = validator(config, clock.as_ref())?;
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
        let frames = match &config.frames {
            Some(frames) => {
                let cert = read_cert(&frames.certificate)?;
                hsm.key(&frames.key)?;
                Some(FrameReceiver::new(hsm.clone(), cert, &frames.key))
            }
            None => None,
        };
        Ok(Vss {
            frames,
            sign: SignService::new(pseudonyms, hsm.clone(), clock.clone()),
            clock: clock.clone(),
            verify: VerifyService::new(
                validator,
                VerificationPolicy::new(&config.verification),
                clock,
                engine,
            )
            .with_replay_window(config.replay.window()),
            hsm,
            stats: StatsLog::open(&config.statistics)?,
        })
    }

    /// Runs `call` as `function`; with statistics on, its time and result (what `name`
    /// says of a success, `error` otherwise) are logged.
    fn logged<T>(
        &self,
        function: &str,
        call: impl FnOnce() -> Result<T>,
        name: impl FnOnce(&T) -> &'static str,
    ) -> Result<T> {
        let checkpoint = self.stats.as_ref().map(|s| s.checkpoint(function));
        let result = call();
        if let Some(c) = checkpoint {
            c.end(result.as_ref().map_or("error", name))?;
        }
        result
    }

    /// createSignature: `payload` signed for `psid` with the current pseudonym.
    pub fn create_signature(&self, psid: Psid, payload: &[u8]) -> Result<Signed> {
        self.logged(
            "createSignature",
            || self.sign.sign(psid, payload),
            |_| "ok",
        )
    }

    /// createSignature as `options` ask (an SSP the pseudonym must grant, the whole
    /// certificate this time).
    pub fn create_signature_with(&self, options: &SignOptions, payload: &[u8]) -> Result<Signed> {
        self.logged(
            "createSignature",
            || self.sign.sign_with(options, payload),
            |_| "ok",
        )
    }

    /// createSignature of a payload that names its signer ([`SignService::sign_for`]):
    /// `payload` is built for the pseudonym that signs it.
    pub fn create_signature_for<E: From<Error>>(
        &self,
        options: &SignOptions,
        payload: impl FnOnce(HashedId8) -> std::result::Result<Vec<u8>, E>,
    ) -> std::result::Result<Signed, E> {
        let checkpoint = self.stats.as_ref().map(|s| s.checkpoint("createSignature"));
        let result = self.sign.sign_for(options, payload);
        if let Some(c) = checkpoint {
            c.end(if result.is_ok() { "ok" } else { "error" })?;
        }
        result
    }

    /// verifySignature of several messages at once: the outcomes in order, as
    /// [`Vss::verify_signature`] one after the other would give, with the signatures checked
    /// in one batch on the engine. With statistics on, each message is logged with its
    /// share of the batch's time.
    pub fn verify_batch(&self, messages: &[&[u8]]) -> Result<Vec<Outcome>> {
        let started = Instant::now();
        let outcomes = self.verify.receive_batch(messages);
        if let Some(stats) = &self.stats {
            let count = u32::try_from(outcomes.len().max(1)).unwrap_or(u32::MAX);
            let share = started.elapsed() / count;
            for outcome in &outcomes {
                stats.record("verifySignature", share, outcome.name())?;
            }
        }
        Ok(outcomes)
    }

    /// The trust refresh of `[trust.update]` (vssd runs it every `every`): fetches the lists,
    /// verifies them, replaces the store, and verifies with it from now on (an empty cache,
    /// the store's EAs and AAs validated again). A failed update changes nothing.
    pub fn refresh_trust(&self, config: &Config) -> Result<TrustRefresh> {
        let updated = update_trust_store(config, self.clock.now())?;
        let validator = validator(config, self.clock.as_ref())?;
        let now = self.clock.now();
        let refresh = TrustRefresh {
            updated,
            roots: validator.trust().len(),
            stale_crls: validator.trust().stale_crls(now),
        };
        self.verify.replace_validator(validator);
        Ok(refresh)
    }

    /// Reloads the trust anchors, the authorities and the verification policy from
    /// `config` (SIGHUP): nothing changes when they do not load; the certificate cache
    /// starts empty and the policy's counts start again.
    pub fn reload(&self, config: &Config) -> Result<()> {
        let validator = validator(config, self.clock.as_ref())?;
        self.verify
            .reload(validator, VerificationPolicy::new(&config.verification));
        Ok(())
    }

    /// verifySignature: the outcome for a received message under the policy.
    pub fn verify_signature(&self, bytes: &[u8]) -> Result<Outcome> {
        self.logged(
            "verifySignature",
            || Ok(self.verify.receive(bytes)),
            Outcome::name,
        )
    }

    /// Verification on demand of a message the policy skipped.
    pub fn verify_on_demand(&self, id: u64) -> Result<Outcome> {
        self.logged(
            "verifyOnDemand",
            || self.verify.verify_on_demand(id),
            Outcome::name,
        )
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
        self.logged(
            "encryptSendingFrame",
            || crate::frame::encrypt_sending_frame(payload, recipient),
            |_| "ok",
        )
    }

    /// decryptReceivedFrame: a frame addressed to the `[frames]` certificate, opened with
    /// its key in the HSM; refused when it is for someone else, changed or malformed.
    pub fn decrypt_received_frame(&self, bytes: &[u8]) -> Result<FrameContent> {
        let frames = self.frames.as_ref().ok_or(Error::NoFrameKey)?;
        self.logged(
            "decryptReceivedFrame",
            || frames.decrypt_received_frame(bytes),
            |_| "ok",
        )
    }

    /// The pseudonym manager.
    pub fn pseudonyms(&self) -> &PseudonymManager {
        self.sign.pseudonyms()
    }

    /// The sign service (a peer's certificate request goes here).
    pub fn sign_service(&self) -> &SignService {
        &self.sign
    }

    /// The pool, the current pseudonym and the counters, at once.
    pub fn status(&self) -> EntityStatus {
        let pseudonyms = self.pseudonyms();
        let changes = pseudonyms.stats();
        let counts = self.verify_counts();
        let cache = self.cache_stats();
        EntityStatus {
            pool_level: pseudonyms.pool_len(),
            current_pseudonym: pseudonyms.current(),
            verified_valid: counts.valid,
            verified_invalid: counts.invalid,
            skipped: counts.policy.skipped,
            id_changes: changes.changes,
            id_changes_deferred: changes.deferred,
            cache_hits: cache.hits,
            cache_misses: cache.misses,
        }
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
