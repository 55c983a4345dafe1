//! The [`SignService`] (seed 000's createSignature): signs a payload for a PSID with the
//! current pseudonym, naming the signer by digest, or by the whole certificate once a
//! second, after a pseudonym change, and when a peer asks for it (the CAM rule of
//! ETSI TS 103 097 §7.1.1).

use std::sync::{Arc, Mutex};

use vss_hsm::Hsm;
use vss_its::asn::{ServiceSpecificPermissions, ThreeDLocation, ToBeSignedCertificate};
use vss_its::{HashedId3, HashedId8, HsmKey, ItsTime, Psid, SignedDataRequest, SignerKind};

use crate::pseudonym::{Clock, Lease, PseudonymManager};
use crate::{Error, Result};

/// How often the whole certificate goes out when no one asks (TS 103 097: once a second).
pub const CERTIFICATE_INTERVAL_MICROS: u64 = 1_000_000;

/// Certificates asked for at once in one CAM's inline P2PCD request.
pub const MAX_WANTED: usize = 8;

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

/// What one signature is asked for beyond its payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignOptions {
    /// The ITS-AID (PSID) the payload is signed for.
    pub psid: Psid,
    /// Service specific permissions the signing certificate must grant for `psid` (empty:
    /// none asked); see [`grants_ssp`].
    pub ssp: Vec<u8>,
    /// The whole certificate goes out this time (else the CAM rule decides).
    pub with_certificate: bool,
    /// Where the payload was generated (the header's `generationLocation`, which TS 103 097
    /// §7.1.2 asks of DENMs); none: left out.
    pub generation_location: Option<ThreeDLocation>,
}

impl SignOptions {
    /// Signing for `psid`, nothing more asked.
    pub fn psid(psid: Psid) -> Self {
        SignOptions {
            psid,
            ssp: Vec::new(),
            with_certificate: false,
            generation_location: None,
        }
    }

    /// The options of ETSI TS 103 097 V2.1.1 §7.1 for a message under `psid` generated at
    /// `location` (where known): a CAM (§7.1.1) and others (§7.1.3) name their signer by
    /// digest, the whole certificate once a second or when a peer asks (the sign service's
    /// rule); a DENM (§7.1.2) carries the certificate and its generation location.
    pub fn profile(psid: Psid, location: Option<ThreeDLocation>) -> Self {
        let mut options = SignOptions::psid(psid);
        if psid == Psid::DENM {
            options.with_certificate = true;
            options.generation_location = location;
        }
        options
    }
}

/// Whether `cert` grants `ssp` for `psid`: an empty `ssp` asks for nothing; otherwise the
/// certificate's SSP for `psid` (opaque or bitmap) has the same length and sets every bit
/// that `ssp` sets.
pub fn grants_ssp(cert: &ToBeSignedCertificate, psid: Psid, ssp: &[u8]) -> bool {
    if ssp.is_empty() {
        return true;
    }
    cert.app_permissions
        .iter()
        .flat_map(|s| s.0.iter())
        .filter(|p| Psid::from_asn(&p.psid) == Some(psid))
        .filter_map(|p| match &p.ssp {
            Some(ServiceSpecificPermissions::Opaque(bytes)) => Some(bytes.to_vec()),
            Some(ServiceSpecificPermissions::BitmapSsp(bitmap)) => Some(bitmap.0.to_vec()),
            _ => None,
        })
        .any(|granted| {
            granted.len() == ssp.len() && granted.iter().zip(ssp).all(|(g, s)| s & !g == 0)
        })
}

#[derive(Default)]
struct CertificateRule {
    /// The certificate last sent whole, and when.
    last_sent: Option<(HashedId8, ItsTime)>,
    /// A peer asked for the certificate with this HashedId3.
    asked_for: Option<HashedId3>,
    /// Certificates this station asks its peers for in its next CAM (inline P2PCD).
    wanted: Vec<HashedId3>,
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
    pub fn sign(&self, psid: Psid, payload: &[u8]) -> Result<Signed> {
        self.sign_with(&SignOptions::psid(psid), payload)
    }

    /// Signs `payload` as `options` ask, generated now: refused when the current pseudonym
    /// does not permit the PSID or does not grant the SSP.
    pub fn sign_with(&self, options: &SignOptions, payload: &[u8]) -> Result<Signed> {
        let lease = self.lease_for(options)?;
        self.sign_leased(&lease, options, payload)
    }

    /// [`SignService::sign_with`] for a payload that names its signer: `payload` is given
    /// the HashedId8 of the pseudonym that signs (chosen, and changed if due, first), so a
    /// packet can carry the addresses of the pseudonym that signs it.
    pub fn sign_for<E: From<Error>>(
        &self,
        options: &SignOptions,
        payload: impl FnOnce(HashedId8) -> Result<Vec<u8>, E>,
    ) -> Result<Signed, E> {
        let lease = self.lease_for(options)?;
        let bytes = payload(lease.cert.hashed_id8())?;
        Ok(self.sign_leased(&lease, options, &bytes)?)
    }

    /// The pseudonym to sign with as `options` ask: refused when it does not permit the
    /// PSID or does not grant the SSP.
    fn lease_for(&self, options: &SignOptions) -> Result<Lease> {
        let psid = options.psid;
        let lease = self.pseudonyms.acquire()?;
        if !vss_its::allows_psid(lease.cert.tbs(), psid) {
            return Err(Error::PsidNotPermitted(psid));
        }
        if !grants_ssp(lease.cert.tbs(), psid, &options.ssp) {
            return Err(Error::SspNotGranted(psid));
        }
        Ok(lease)
    }

    /// Signs `payload` with `lease`, generated now.
    fn sign_leased(&self, lease: &Lease, options: &SignOptions, payload: &[u8]) -> Result<Signed> {
        let psid = options.psid;
        let now = self.clock.now();
        let id = lease.cert.hashed_id8();
        // Decided and noted under the lock, signed outside it, so signers run in parallel.
        let (with_certificate, wanted) = {
            let mut rule = self.rule.lock().unwrap_or_else(|p| p.into_inner());
            let wanted = if psid == Psid::CAM {
                std::mem::take(&mut rule.wanted)
            } else {
                Vec::new()
            };
            let asked = options.with_certificate || rule.asked_for == Some(lease.cert.hashed_id3());
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
            (asked || due, wanted)
        };
        let mut request = SignedDataRequest::new(psid, payload);
        request.generation_time = Some(now);
        request.generation_location = options.generation_location.clone();
        request.inline_p2pcd_request = wanted;
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

    /// This station met a signer whose certificate it does not have: the next CAM asks its
    /// peers for it (inline P2PCD, TS 103 097 §7.1.1), with at most [`MAX_WANTED`] such
    /// requests at once (more are let go until then).
    pub fn request_certificate(&self, id: HashedId3) {
        let mut rule = self.rule.lock().unwrap_or_else(|p| p.into_inner());
        if !rule.wanted.contains(&id) && rule.wanted.len() < MAX_WANTED {
            rule.wanted.push(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vss_crypto::{Curve, PrivateKey};
    use vss_its::asn::{PsidSsp, SequenceOfPsidSsp};
    use vss_its::{issue_certificate, CertificateRequest, Profile};

    /// A certificate's contents whose appPermissions grant PSID 36 with the SSP `granted`.
    fn granting(granted: Option<ServiceSpecificPermissions>) -> ToBeSignedCertificate {
        let key = PrivateKey::generate(Curve::P256).expect("key");
        let request = CertificateRequest::new(
            Profile::Root,
            key.public_key().clone(),
            vss_its::asn::Duration::Years(1),
        );
        let mut tbs = issue_certificate(&request, None, &key)
            .expect("root")
            .tbs()
            .clone();
        tbs.app_permissions = Some(SequenceOfPsidSsp(vec![PsidSsp {
            psid: Psid::CAM.to_asn(),
            ssp: granted,
        }]));
        tbs
    }

    #[test]
    fn an_ssp_is_granted_when_the_certificate_sets_every_bit_asked() {
        let opaque = granting(Some(ServiceSpecificPermissions::Opaque(
            [0x01, 0b1100_0000][..].into(),
        )));
        assert!(grants_ssp(&opaque, Psid::CAM, &[]), "nothing asked");
        assert!(grants_ssp(&opaque, Psid::CAM, &[0x01, 0b1000_0000]));
        assert!(grants_ssp(&opaque, Psid::CAM, &[0x01, 0b1100_0000]));
        assert!(
            !grants_ssp(&opaque, Psid::CAM, &[0x01, 0b0010_0000]),
            "a bit not set"
        );
        assert!(!grants_ssp(&opaque, Psid::CAM, &[0x01]), "another length");
        assert!(
            !grants_ssp(&opaque, Psid::DENM, &[0x01, 0b1000_0000]),
            "another PSID"
        );
        assert!(
            !grants_ssp(&granting(None), Psid::CAM, &[0x01]),
            "no SSP at all"
        );
        assert!(grants_ssp(&granting(None), Psid::CAM, &[]));
    }
}
