//! Validation of signed data and certificates (1609.2 5.2, clause 4.2.2.3.2): find the
//! signer, validate its chain up to a trust anchor (once per certificate, through the
//! cache), check the signature, the times, the PSID and the region. The answer is one
//! [`Verdict`] with a reason.
//!
//! A message is validated in two phases: [`Validator::prepare_message`] does every check
//! but the message's own signature and gives a [`Prepared`]: a refusal, or a
//! [`PendingSignature`] (curve, key, digest, signature as plain bytes). The caller checks
//! that signature, alone or in a batch with others, and [`PendingSignature::finish`]
//! turns the answer into the [`Report`]. [`Validator::verify_message`] is the two phases
//! in one call.
//!
//! A certificate that keeps signing gets its key prepared in the cache
//! ([`PreparedKeyPolicy`]): its signatures (a ticket's messages, an AA's certificates) are
//! then checked with the prepared key, with the same verdicts.

use std::sync::Arc;

use serde::Serialize;
use vss_crypto::{Curve, PreparedKey, Signature};

use crate::anchors::{AnchorLists, StaleCrlPolicy};
use crate::asn::SignerIdentifier;
use crate::cache::{CacheStats, CertCache, PreparedKeyPolicy, ValidatedCert};
use crate::cert::Issuer;
use crate::hashing::HashedId8;
use crate::keys::hash_for_curve;
use crate::permissions::{allows_psid, check_granted};
use crate::region::{contains_point, contains_region, Point};
use crate::signed_data::SignedMessage;
use crate::Psid;
use crate::{Cert, Error, ItsTime, TrustAnchors, Verdict};

/// A verdict with its reason, and what was learned of the message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The verdict.
    pub verdict: Verdict,
    /// Why, in one sentence (empty when valid).
    pub reason: String,
    /// The signer's (or the certificate's) HashedId8, when known.
    #[serde(serialize_with = "hex_id")]
    pub signer: Option<HashedId8>,
    /// The message's PSID.
    pub psid: Option<Psid>,
}

fn hex_id<S: serde::Serializer>(id: &Option<HashedId8>, s: S) -> Result<S::Ok, S::Error> {
    match id {
        Some(id) => s.serialize_str(&id.to_string()),
        None => s.serialize_none(),
    }
}

impl Report {
    /// The report for bytes that could not be decoded: `Malformed`, or
    /// `UnsupportedAlgorithm` for a form VSS does not implement.
    pub fn of_error(error: &Error) -> Report {
        Report {
            verdict: verdict_of(error),
            reason: error.to_string(),
            signer: None,
            psid: None,
        }
    }

    /// Whether the verdict is `Valid`.
    pub fn is_valid(&self) -> bool {
        self.verdict == Verdict::Valid
    }
}

/// A failed check: the verdict and why.
#[derive(Debug)]
struct Failure(Verdict, String);

/// A message after [`Validator::prepare_message`].
#[derive(Debug)]
pub enum Prepared {
    /// Refused before its signature was needed: the report.
    Refused(Report),
    /// Every check done but the message's signature.
    Pending(PendingSignature),
}

impl Prepared {
    /// The report, checking a pending signature here with the signer's parsed key.
    pub fn complete(self) -> Report {
        match self {
            Prepared::Refused(report) => report,
            Prepared::Pending(pending) => {
                let valid = pending.verify();
                pending.finish(valid)
            }
        }
    }
}

/// A message whose signer is validated, waiting for its own ECDSA signature to be checked.
#[derive(Debug)]
pub struct PendingSignature {
    signer: Arc<ValidatedCert>,
    /// The signer's prepared key, when the cache keeps one.
    prepared: Option<Arc<PreparedKey>>,
    digest: Vec<u8>,
    signature: Signature,
    /// The checks that follow the signature's (PSID, times, region): their failure is the
    /// verdict only when the signature verifies.
    after: Result<(), Failure>,
    signer_id: Option<HashedId8>,
    psid: Option<Psid>,
}

impl PendingSignature {
    /// The curve of the signer's key (and of the signature).
    pub fn curve(&self) -> Curve {
        self.signer.key.public_key().curve()
    }

    /// The signer's public key, SEC 1 uncompressed.
    pub fn public_key(&self) -> &[u8] {
        self.signer.key.public_key().to_sec1_uncompressed()
    }

    /// The digest that was signed (1609.2 5.3.1: over the data and the signer's certificate).
    pub fn digest(&self) -> &[u8] {
        &self.digest
    }

    /// The signature, r ‖ s.
    pub fn signature(&self) -> &[u8] {
        self.signature.to_p1363()
    }

    /// The signer's prepared key, when the cache keeps one (checking with it is faster
    /// than the library, with the same verdict).
    pub fn prepared_key(&self) -> Option<&PreparedKey> {
        self.prepared.as_deref()
    }

    /// Whether the signature verifies, with the signer's prepared key or else its parsed
    /// key.
    pub fn verify(&self) -> bool {
        verify_with(
            &self.signer,
            self.prepared.as_deref(),
            &self.digest,
            &self.signature,
        )
    }

    /// The report, given whether the signature verifies: `FalseSignature` when it does not,
    /// else the verdict of the checks that follow it.
    pub fn finish(self, signature_valid: bool) -> Report {
        let result = if signature_valid {
            self.after
        } else {
            false_signature()
        };
        report(result, self.signer_id, self.psid)
    }
}

/// Whether `signature` of `digest` verifies under `signer`'s key: with its prepared key
/// when there is one, else with the library.
fn verify_with(
    signer: &ValidatedCert,
    prepared: Option<&PreparedKey>,
    digest: &[u8],
    signature: &Signature,
) -> bool {
    match prepared {
        Some(key) => key.verify_digest(digest, signature),
        None => signer.key.verify_digest(digest, signature),
    }
}

/// A detached payload is given exactly when the message signs one, and it is that one.
fn check_payload(message: &SignedMessage, external: Option<&[u8]>) -> Result<(), Failure> {
    match (message.external_hash().is_some(), external) {
        (false, None) => Ok(()),
        (true, Some(payload)) if message.covers_external(payload) => Ok(()),
        (true, Some(_)) => fail(
            Verdict::FalseSignature,
            "the detached payload is not the one the message signs",
        ),
        (true, None) => fail(
            Verdict::UnsupportedAlgorithm,
            "the payload is detached (extDataHash): verify it with its payload",
        ),
        (false, Some(_)) => fail(
            Verdict::Malformed,
            "the message carries its payload: it is not a detached signature",
        ),
    }
}

fn fail<T>(verdict: Verdict, reason: impl Into<String>) -> Result<T, Failure> {
    Err(Failure(verdict, reason.into()))
}

/// The message's own signature does not verify.
fn false_signature<T>() -> Result<T, Failure> {
    fail(
        Verdict::FalseSignature,
        "the message signature does not verify",
    )
}

/// The verdict for an error from decoding or key handling.
fn verdict_of(error: &Error) -> Verdict {
    match error {
        Error::Unsupported(_) => Verdict::UnsupportedAlgorithm,
        _ => Verdict::Malformed,
    }
}

impl From<vss_crypto::Error> for Failure {
    fn from(e: vss_crypto::Error) -> Self {
        Error::from(e).into()
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure(verdict_of(&e), e.to_string())
    }
}

/// How strict validation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// The longest chain, trust anchor included.
    pub max_chain_len: usize,
    /// How far in the future a generation time may lie, in microseconds.
    pub max_clock_skew_micros: u64,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            max_chain_len: 6,
            max_clock_skew_micros: 5_000_000,
        }
    }
}

/// Validates messages and certificates against trust anchors, with a certificate cache.
pub struct Validator {
    trust: TrustAnchors,
    cache: CertCache,
    policy: Policy,
    /// When a root's CRL next becomes stale under a refusing policy: the cache is emptied
    /// then, so what was validated through that root is validated again.
    crl_due: Option<ItsTime>,
}

impl Validator {
    /// A validator trusting `trust`, caching up to `cache_capacity` certificates and
    /// preparing their keys under the default [`PreparedKeyPolicy`].
    pub fn new(trust: TrustAnchors, cache_capacity: usize) -> Self {
        Validator {
            crl_due: trust.next_crl_due(ItsTime::EPOCH),
            trust,
            cache: CertCache::new(cache_capacity),
            policy: Policy::default(),
        }
    }

    /// Trusts `trust` from now on (a trust store updated from its lists): the cache is
    /// emptied, since what it holds was validated under the old one.
    pub fn set_trust(&mut self, trust: TrustAnchors) {
        self.crl_due = trust.next_crl_due(ItsTime::EPOCH);
        self.trust = trust;
        self.cache.clear();
        self.warm_up();
    }

    /// The same, preparing keys under `policy`; the generator tables of the trust anchors'
    /// curves are built now rather than at the first prepared verification.
    pub fn with_prepared_keys(mut self, policy: PreparedKeyPolicy) -> Self {
        self.cache.set_prepared_policy(policy);
        self.warm_up();
        self
    }

    /// Builds the generator tables of prepared verification for the anchors' curves, when
    /// keys are prepared.
    fn warm_up(&self) {
        if self.cache.prepared_policy().enabled() {
            self.trust.curves().for_each(PreparedKey::warm_up);
        }
    }

    /// The trust store.
    pub fn trust(&self) -> &TrustAnchors {
        &self.trust
    }

    /// Empties the cache once a root's CRL has become stale (under a refusing policy).
    fn expire_stale_lists(&mut self, now: ItsTime) {
        if self.crl_due.is_some_and(|due| now >= due) {
            self.cache.clear();
            self.crl_due = self.trust.next_crl_due(now);
        }
    }

    /// The same with another policy.
    pub fn with_policy(mut self, policy: Policy) -> Self {
        self.policy = policy;
        self
    }

    /// The cache.
    pub fn cache(&self) -> &CertCache {
        &self.cache
    }

    /// The cache's counters.
    pub fn cache_stats(&self) -> CacheStats {
        self.cache.stats()
    }

    /// Validates a certificate and its chain at `now`; `chain` offers issuers that are
    /// neither cached nor trusted. A valid certificate is cached.
    pub fn verify_certificate(&mut self, cert: &Cert, chain: &[Cert], now: ItsTime) -> Report {
        self.expire_stale_lists(now);
        let result = self.validate(cert, chain, now, 0);
        report(result.map(|_| ()), Some(cert.hashed_id8()), None)
    }

    /// Validates signed data (COER `Ieee1609Dot2Data`) at `now`; `chain` offers issuers of
    /// the signer that are neither cached nor trusted nor in the message.
    pub fn verify_data(&mut self, bytes: &[u8], chain: &[Cert], now: ItsTime) -> Report {
        let message = match SignedMessage::from_bytes(bytes) {
            Ok(m) => m,
            Err(e) => return Report::of_error(&e),
        };
        self.verify_message(&message, chain, now)
    }

    /// Validates a decoded signed message at `now`. A message whose payload is detached
    /// (`extDataHash`) needs [`Validator::verify_detached`].
    pub fn verify_message(
        &mut self,
        message: &SignedMessage,
        chain: &[Cert],
        now: ItsTime,
    ) -> Report {
        self.prepare_message(message, chain, now).complete()
    }

    /// The first phase of [`Validator::verify_message`]: every check but the message's own
    /// signature (signers are validated and cached as there).
    pub fn prepare_message(
        &mut self,
        message: &SignedMessage,
        chain: &[Cert],
        now: ItsTime,
    ) -> Prepared {
        self.prepare_with(message, None, chain, now)
    }

    /// Validates a message whose payload travels apart from it (`extDataHash`, as in TS 102
    /// 941's EC signature): `payload` must be the one whose SHA-256 was signed.
    pub fn verify_detached(
        &mut self,
        message: &SignedMessage,
        payload: &[u8],
        chain: &[Cert],
        now: ItsTime,
    ) -> Report {
        self.prepare_with(message, Some(payload), chain, now)
            .complete()
    }

    fn prepare_with(
        &mut self,
        message: &SignedMessage,
        external: Option<&[u8]>,
        chain: &[Cert],
        now: ItsTime,
    ) -> Prepared {
        self.expire_stale_lists(now);
        let psid = message.psid();
        let mut signer_id = message.signer_digest();
        match check_payload(message, external)
            .and_then(|()| self.check_signer(message, chain, now, &mut signer_id))
        {
            Ok((signer, digest, signature)) => Prepared::Pending(PendingSignature {
                after: self.check_after_signature(message, &signer, now),
                prepared: self.cache.prepared_key(&signer, now),
                signer,
                digest,
                signature,
                signer_id,
                psid,
            }),
            Err(failure) => Prepared::Refused(report(Err(failure), signer_id, psid)),
        }
    }

    /// Finds and validates the signer, and gives it with the digest and the signature to
    /// check.
    fn check_signer(
        &mut self,
        message: &SignedMessage,
        chain: &[Cert],
        now: ItsTime,
        signer_id: &mut Option<HashedId8>,
    ) -> Result<(Arc<ValidatedCert>, Vec<u8>, Signature), Failure> {
        let signer = match &message.signed().signer {
            SignerIdentifier::Digest(_) => {
                let id = signer_id.expect("a digest signer");
                match self.known(&id, chain, now, 1) {
                    Some(found) => found?,
                    None => {
                        return fail(Verdict::SignerNotFound, format!("signer {id} is not known"))
                    }
                }
            }
            SignerIdentifier::Certificate(certs) => {
                let mut decoded = Vec::with_capacity(certs.0.len());
                for c in &certs.0 {
                    decoded.push(Cert::from_asn(c.clone())?);
                }
                let Some((first, rest)) = decoded.split_first() else {
                    return fail(
                        Verdict::Malformed,
                        "the signer is an empty list of certificates",
                    );
                };
                *signer_id = Some(first.hashed_id8());
                let offered: Vec<Cert> = rest.iter().chain(chain).cloned().collect();
                self.validate(first, &offered, now, 1)?
            }
            _ => {
                return fail(
                    Verdict::UntrustedRoot,
                    "the message is self-signed: no certificate vouches for its key",
                )
            }
        };
        let key = &signer.key;
        let hash = crate::hashing::hash_alg(message.signed().hash_id)?;
        if hash_for_curve(key.public_key().curve())? != hash {
            return fail(
                Verdict::UnsupportedAlgorithm,
                format!("{} with a key on {}", hash.name(), key.public_key().curve()),
            );
        }
        let digest = message.signed_digest(Some(&signer.cert))?;
        let signature = message.signature()?;
        if signature.curve() != key.public_key().curve() {
            return false_signature();
        }
        Ok((signer, digest, signature))
    }

    /// The checks that follow the signature's: PSID, times and region.
    fn check_after_signature(
        &self,
        message: &SignedMessage,
        signer: &ValidatedCert,
        now: ItsTime,
    ) -> Result<(), Failure> {
        let Some(psid) = message.psid() else {
            return fail(Verdict::InsufficientPermissions, "the PSID is out of range");
        };
        if !allows_psid(signer.cert.tbs(), psid) {
            return fail(
                Verdict::InsufficientPermissions,
                format!("the signer's certificate does not permit PSID {psid}"),
            );
        }
        let header = message.header();
        for (field, time) in [
            ("generation", &header.generation_time),
            ("expiry", &header.expiry_time),
        ] {
            if let Some(time) = time.as_ref().map(ItsTime::from_time64) {
                if time > ItsTime::LAST {
                    return fail(
                        Verdict::InvalidTimestamp,
                        format!("the {field} time is no real time: {time}"),
                    );
                }
            }
        }
        if let Some(generated) = header.generation_time.as_ref().map(ItsTime::from_time64) {
            let validity = signer.cert.validity();
            if generated >= validity.end {
                return fail(
                    Verdict::Expired,
                    format!(
                        "generated at {generated}, after the signer's certificate expired ({})",
                        validity.end
                    ),
                );
            }
            if generated < validity.start {
                return fail(
                    Verdict::NotYetValid,
                    format!(
                        "generated at {generated}, before the signer's certificate was valid ({})",
                        validity.start
                    ),
                );
            }
            if generated > now.plus_micros(self.policy.max_clock_skew_micros) {
                return fail(
                    Verdict::NotYetValid,
                    format!("generated at {generated}, in the future (now {now})"),
                );
            }
            if let Some(expiry) = header.expiry_time.as_ref().map(ItsTime::from_time64) {
                if expiry <= generated {
                    return fail(
                        Verdict::Malformed,
                        "the expiry time is not after the generation time",
                    );
                }
            }
        }
        if let Some(expiry) = header.expiry_time.as_ref().map(ItsTime::from_time64) {
            if expiry <= now {
                return fail(Verdict::Expired, format!("the message expired at {expiry}"));
            }
        }
        if let (Some(location), Some(region)) = (&header.generation_location, &signer.region) {
            let point = Point::from_units(*location.latitude.0, location.longitude.0 .0);
            if contains_point(region, point) == Some(false) {
                return fail(
                    Verdict::OutsideRegion,
                    "generated outside the signer's region",
                );
            }
        }
        Ok(())
    }

    /// A certificate named `id` that is cached, trusted, or offered or a known issuer of the
    /// trust store (then validated, with `depth` certificates below it).
    fn known(
        &mut self,
        id: &HashedId8,
        offered: &[Cert],
        now: ItsTime,
        depth: usize,
    ) -> Option<Result<Arc<ValidatedCert>, Failure>> {
        if let Some(hit) = self.cache.get(id, now) {
            return Some(Ok(hit));
        }
        if let Some(anchor) = self.trust.get(id) {
            return Some(check_time(&anchor.cert, now).map(|()| anchor));
        }
        let cert = match offered.iter().find(|c| c.hashed_id8() == *id) {
            Some(cert) => cert.clone(),
            None => self.trust.issuer(id)?.clone(),
        };
        Some(self.validate_chain(&cert, offered, now, depth))
    }

    /// Validates `cert` up to a trust anchor, unless it is cached or trusted already;
    /// `depth` counts the certificates below it.
    fn validate(
        &mut self,
        cert: &Cert,
        offered: &[Cert],
        now: ItsTime,
        depth: usize,
    ) -> Result<Arc<ValidatedCert>, Failure> {
        let id = cert.hashed_id8();
        if let Some(hit) = self.cache.get(&id, now) {
            if hit.cert.canonical_bytes() == cert.canonical_bytes() {
                return Ok(hit);
            }
        }
        if let Some(anchor) = self.trust.get(&id) {
            if anchor.cert.canonical_bytes() == cert.canonical_bytes() {
                check_time(cert, now)?;
                return Ok(anchor);
            }
        }
        self.validate_chain(cert, offered, now, depth)
    }

    /// Validates `cert` against its issuer (found, and validated in turn, through
    /// [`Validator::known`]) and caches it.
    fn validate_chain(
        &mut self,
        cert: &Cert,
        offered: &[Cert],
        now: ItsTime,
        depth: usize,
    ) -> Result<Arc<ValidatedCert>, Failure> {
        let id = cert.hashed_id8();
        if depth >= self.policy.max_chain_len {
            return fail(
                Verdict::InvalidChain,
                format!(
                    "the chain is longer than {} certificates",
                    self.policy.max_chain_len
                ),
            );
        }
        let issuer_id = match cert.issuer() {
            Issuer::SelfSigned(_) => {
                return fail(
                    Verdict::UntrustedRoot,
                    format!("{id} is self-signed and not a trust anchor"),
                )
            }
            Issuer::Digest(_, issuer_id) => issuer_id,
        };
        let issuer = match self.known(&issuer_id, offered, now, depth + 1) {
            Some(found) => found?,
            None => {
                return fail(
                    Verdict::SignerNotFound,
                    format!("issuer {issuer_id} of certificate {id} is not known"),
                )
            }
        };
        if let Some(lists) = self.trust.lists(&issuer_id) {
            check_lists(lists, self.trust.stale_crl(), &id, &issuer_id, now)?;
        }
        check_time(cert, now)?;
        if !issuer.cert.validity().covers(&cert.validity()) {
            return fail(
                Verdict::InvalidChain,
                format!("the validity of {id} is not inside its issuer's"),
            );
        }
        if hash_for_curve(issuer.key.public_key().curve())? != cert.issuer().hash() {
            return fail(
                Verdict::UnsupportedAlgorithm,
                format!("{id} names a hash its issuer's key does not sign with"),
            );
        }
        let digest = cert.signed_digest(Some(&issuer.cert));
        let prepared = self.cache.prepared_key(&issuer, now);
        if !verify_with(&issuer, prepared.as_deref(), &digest, &cert.signature()?) {
            let verdict = if depth == 0 {
                Verdict::FalseSignature
            } else {
                Verdict::InvalidChain
            };
            return fail(
                verdict,
                format!("the issuer's signature on {id} does not verify"),
            );
        }
        let groups = issuer.cert.tbs().cert_issue_permissions.as_ref();
        if let Err(why) = check_granted(cert.tbs(), groups.map_or(&[][..], |g| &g.0[..])) {
            return fail(Verdict::InsufficientPermissions, format!("{id}: {why}"));
        }
        let region = match (&cert.tbs().region, &issuer.region) {
            (Some(own), Some(outer)) => {
                if contains_region(outer, own) == Some(false) {
                    return fail(
                        Verdict::OutsideRegion,
                        format!("the region of {id} is not inside its issuer's"),
                    );
                }
                Some(own.clone())
            }
            (own, outer) => own.clone().or_else(|| outer.clone()),
        };
        let validated = Arc::new(ValidatedCert {
            key: cert.verification_key()?.verifying_key()?,
            cert: cert.clone(),
            region,
        });
        self.cache.insert(Arc::clone(&validated));
        Ok(validated)
    }
}

/// Whether the lists of the root `root` accept the certificate `id` it issued at `now`: on
/// its CTL, not on its CRL, and the CRL current unless the policy only warns.
fn check_lists(
    lists: &AnchorLists,
    stale_crl: StaleCrlPolicy,
    id: &HashedId8,
    root: &HashedId8,
    now: ItsTime,
) -> Result<(), Failure> {
    if lists.revoked.contains(id) {
        return fail(
            Verdict::Revoked,
            format!("{id} is on the CRL of root {root}"),
        );
    }
    if !lists.listed.contains(id) {
        return fail(
            Verdict::UnlistedCa,
            format!("{id} is not on the CTL of root {root}"),
        );
    }
    if stale_crl == StaleCrlPolicy::Refuse && lists.crl_next_update <= now {
        return fail(
            Verdict::UnlistedCa,
            format!(
                "the CRL of root {root} was due at {}: revocation since cannot be ruled out",
                lists.crl_next_update
            ),
        );
    }
    Ok(())
}

/// Whether a certificate is valid at `now`.
fn check_time(cert: &Cert, now: ItsTime) -> Result<(), Failure> {
    let validity = cert.validity();
    if now >= validity.end {
        return fail(
            Verdict::Expired,
            format!(
                "certificate {} expired at {}",
                cert.hashed_id8(),
                validity.end
            ),
        );
    }
    if now < validity.start {
        return fail(
            Verdict::NotYetValid,
            format!(
                "certificate {} is valid from {}",
                cert.hashed_id8(),
                validity.start
            ),
        );
    }
    Ok(())
}

fn report(result: Result<(), Failure>, signer: Option<HashedId8>, psid: Option<Psid>) -> Report {
    let (verdict, reason) = match result {
        Ok(()) => (Verdict::Valid, String::new()),
        Err(Failure(verdict, reason)) => (verdict, reason),
    };
    Report {
        verdict,
        reason,
        signer,
        psid,
    }
}
