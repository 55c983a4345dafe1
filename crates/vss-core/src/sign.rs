//! The [`SignService`] (seed 000's createSignature): signs a payload for a PSID with the
//! current pseudonym, naming the signer by digest, or by the whole certificate once a
//! second, after a pseudonym change, and when a peer asks for it (the CAM rule of
//! ETSI TS 103 097 §7.1.1).

use std::sync::{Arc, Mutex};

use vss_hsm::Hsm;
use vss_its::{HashedId3, HashedId8, HsmKey, ItsTime, SignedDataRequest, SignerKind};

use crate::pseudonym::{Clock, PseudonymManager};
use crate::{Error, Result};

/// How often the whole certificate goes out when no one asks (TS 103 097: once a second).
pub const CERTIFICATE_INTERVAL_MICROS: u64 = 1_000_000;

/// A signed message.
#[derive(Debug, Clone)]
pub struct Signed {
    /// `Ieee1609Dot2Data`, COER.
    pub bytes: Vec<u8>,
    /// The pseudonym that signed it.
    pub signer: HashedId8,
    /// Whether the whole certificate is in it (else its digest).
    pub with_certificate: bool,
}

#[derive(Default)]
struct CertificateRule {
    /// The certificate last sent whole, and when.
    last_sent: Option<(HashedId8, ItsTime)>,
    /// A peer asked for the certificate with this HashedId3.
    asked_for: Option<HashedId3>,
}

/// Signs with the current pseudonym.
pub struct SignService {
    pseudonyms: PseudonymManager,
    hsm: Arc<dyn Hsm>,
    clock: Arc<dyn Clock>,
    rule: Mutex<CertificateRule>,
}

impl SignService {
    /// Signs with the pseudonyms of `pseudonyms`, whose keys are in `hsm`.
    pub fn new(pseudonyms: PseudonymManager, hsm: Arc<dyn Hsm>, clock: Arc<dyn Clock>) -> Self {
        SignService {
            pseudonyms,
            hsm,
            clock,
            rule: Mutex::new(CertificateRule::default()),
        }
    }

    /// The pseudonym manager.
    pub fn pseudonyms(&self) -> &PseudonymManager {
        &self.pseudonyms
    }

    /// Signs `payload` for `psid`, generated now.
    pub fn sign(&self, psid: u64, payload: &[u8]) -> Result<Signed> {
        let lease = self.pseudonyms.acquire()?;
        if !vss_its::allows_psid(lease.cert.tbs(), psid) {
            return Err(Error::PsidNotPermitted(psid));
        }
        let now = self.clock.now();
        let id = lease.cert.hashed_id8();
        // Decided and noted under the lock, signed outside it, so signers run in parallel.
        let with_certificate = {
            let mut rule = self.rule.lock().unwrap_or_else(|p| p.into_inner());
            let asked = rule.asked_for == Some(lease.cert.hashed_id3());
            let due = match rule.last_sent {
                Some((sent, at)) => {
                    sent != id
                        || now.micros().saturating_sub(at.micros()) >= CERTIFICATE_INTERVAL_MICROS
                }
                None => true,
            };
            if asked || due {
                rule.last_sent = Some((id, now));
                rule.asked_for = None;
            }
            asked || due
        };
        let mut request = SignedDataRequest::new(psid, payload);
        request.generation_time = Some(now);
        request.signer = if with_certificate {
            SignerKind::Certificate
        } else {
            SignerKind::Digest
        };
        let key = HsmKey::new(self.hsm.as_ref(), &lease.key_label)?;
        let data = vss_its::sign_data(&request, Some(&lease.cert), &key)?;
        let bytes = vss_its::encode_data(&data)?;
        Ok(Signed {
            bytes,
            signer: id,
            with_certificate,
        })
    }

    /// A peer asked for the certificate with `id` (inline P2PCD): if it is the current
    /// pseudonym's, the next message carries it whole.
    pub fn certificate_requested(&self, id: HashedId3) {
        self.rule
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .asked_for = Some(id);
    }
}
