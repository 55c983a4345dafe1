//! The bench PKI: a root, an AA and tickets in memory, which the its-verify, traffic,
//! filter, daemon and GeoNetworking benches sign with.

use std::time::Instant;

use anyhow::Result;
use vss_crypto::{Curve, PrivateKey};
use vss_its::asn::Duration;
use vss_its::{
    issue_certificate, Cert, CertificateRequest, ItsTime, Permission, Profile, Psid,
    SignedDataRequest, SignedMessage, SignerKind, TrustAnchors,
};

/// A root, an AA (its key kept, to issue more tickets) and tickets, in memory.
pub(crate) struct Pki {
    root: Cert,
    pub(crate) aa: Cert,
    aa_key: PrivateKey,
    tickets: Vec<(Cert, PrivateKey)>,
    start: ItsTime,
}

/// Builds a root, an AA and `signers` tickets for PSID 36 on `curve`, starting `now`.
pub(crate) fn build_pki(curve: Curve, signers: u32, now: ItsTime) -> Result<Pki> {
    let request = |profile, key: &PrivateKey, duration| {
        let mut r = CertificateRequest::new(profile, key.public_key().clone(), duration);
        r.start = now;
        r
    };
    let root_key = PrivateKey::generate(curve)?;
    let mut r = request(Profile::Root, &root_key, Duration::Years(10));
    r.name = Some("bench-root".into());
    let root = issue_certificate(&r, None, &root_key)?;
    let aa_key = PrivateKey::generate(curve)?;
    let mut r = request(Profile::Aa, &aa_key, Duration::Years(4));
    r.name = Some("bench-aa".into());
    r.encryption_key = Some(PrivateKey::generate(Curve::P256)?.public_key().clone());
    let aa = issue_certificate(&r, Some(&root), &root_key)?;
    let mut pki = Pki {
        root,
        aa,
        aa_key,
        tickets: Vec::new(),
        start: now,
    };
    for _ in 0..signers {
        let key = PrivateKey::generate(curve)?;
        let ticket = pki.ticket(key.public_key().clone())?;
        pki.tickets.push((ticket, key));
    }
    Ok(pki)
}

impl Pki {
    /// The root.
    pub(crate) fn root(&self) -> &Cert {
        &self.root
    }

    /// How many tickets sign.
    pub(crate) fn signers(&self) -> usize {
        self.tickets.len()
    }

    /// A trust store holding the root.
    pub(crate) fn trust(&self) -> Result<TrustAnchors> {
        let mut t = TrustAnchors::new();
        t.add(self.root.clone())?;
        Ok(t)
    }

    /// A ticket for PSID 36 with the key `public`, issued by the AA, valid for a week from
    /// the PKI's start.
    pub(crate) fn ticket(&self, public: vss_crypto::PublicKey) -> Result<Cert> {
        let mut r = CertificateRequest::new(Profile::At, public, Duration::Hours(168));
        r.start = self.start;
        r.app_permissions = vec![Permission::psid(Psid::CAM)];
        Ok(issue_certificate(&r, Some(&self.aa), &self.aa_key)?)
    }

    /// Message `i`: its number signed by ticket `i mod signers`, generated `now`.
    pub(crate) fn sign(&self, i: usize, kind: SignerKind, now: ItsTime) -> Result<Vec<u8>> {
        self.sign_payload(i, &(i as u64).to_be_bytes(), kind, now)
    }

    /// Message `i` with `payload`, signed by ticket `i mod signers` under PSID 36.
    pub(crate) fn sign_payload(
        &self,
        i: usize,
        payload: &[u8],
        kind: SignerKind,
        now: ItsTime,
    ) -> Result<Vec<u8>> {
        self.sign_with(i % self.tickets.len(), payload, kind, now)
    }

    /// `payload` signed by ticket `ticket` (below the number of signers) under PSID 36.
    pub(crate) fn sign_with(
        &self,
        ticket: usize,
        payload: &[u8],
        kind: SignerKind,
        now: ItsTime,
    ) -> Result<Vec<u8>> {
        let (cert, key) = &self.tickets[ticket];
        let mut r = SignedDataRequest::new(Psid::CAM, payload);
        r.generation_time = Some(now);
        r.signer = kind;
        Ok(vss_its::encode_data(&vss_its::sign_data(
            &r,
            Some(cert),
            key,
        )?)?)
    }

    /// The raw ECDSA rate over `messages` (message `i` from ticket `i mod signers`): the
    /// same signatures over the same digests, keys already parsed; and how many verified.
    pub(crate) fn raw_verify_rate(&self, messages: &[Vec<u8>]) -> Result<(f64, usize)> {
        let mut inputs = Vec::with_capacity(messages.len());
        for (i, bytes) in messages.iter().enumerate() {
            let m = SignedMessage::from_bytes(bytes)?;
            let cert = &self.tickets[i % self.tickets.len()].0;
            inputs.push((
                i % self.tickets.len(),
                m.signed_digest(Some(cert))?,
                m.signature()?,
            ));
        }
        let keys = self
            .tickets
            .iter()
            .map(|(c, _)| Ok(c.verification_key()?.verifying_key()?))
            .collect::<Result<Vec<_>>>()?;
        let started = Instant::now();
        let ok = inputs
            .iter()
            .filter(|(k, digest, sig)| keys[*k].verify_digest(digest, sig))
            .count();
        Ok((messages.len() as f64 / started.elapsed().as_secs_f64(), ok))
    }
}
