//! A small PKI for the tests: root → EA, root → AA → AT, EA → EC.

#![allow(dead_code)]

use vss_crypto::{Curve, PrivateKey};
use vss_its::asn::{Duration, GeographicRegion};
use vss_its::{
    issue_certificate, Cert, CertificateRequest, ItsTime, Permission, Profile, Psid, TrustAnchors,
};

/// 2026-01-01T00:00:00Z as the tests' "now" reference for certificate starts.
pub fn start() -> ItsTime {
    ItsTime::from_system_time(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_767_225_600))
        .expect("2026 is a 1609.2 time")
}

/// A CAM-like request of `psid` at [`now`], signed as `signer` says.
pub fn message(psid: Psid, signer: vss_its::SignerKind) -> vss_its::SignedDataRequest<'static> {
    let mut r = vss_its::SignedDataRequest::new(psid, b"a CAM payload");
    r.generation_time = Some(now());
    r.signer = signer;
    r
}

/// A message signed by `pki`'s AT (signer named by `signer`) whose header claims SHA-384,
/// which a P-256 signature does not use.
pub fn claiming_sha384(pki: &Pki, signer: vss_its::SignerKind) -> Vec<u8> {
    let mut data = vss_its::sign_data(&message(Psid::CAM, signer), Some(&pki.at.cert), &pki.at.key)
        .expect("sign");
    if let vss_its::asn::Ieee1609Dot2Content::SignedData(s) = &mut data.content {
        s.hash_id = vss_its::asn::HashAlgorithm::Sha384;
    }
    vss_its::encode_data(&data).expect("encode")
}

/// An hour after [`start`]: inside every certificate's validity.
pub fn now() -> ItsTime {
    start().plus_micros(3_600_000_000)
}

/// One certificate with its private key.
pub struct Issued {
    pub cert: Cert,
    pub key: PrivateKey,
}

/// A request for `profile` on `curve`, starting at [`start`].
pub fn request(profile: Profile, key: &PrivateKey, duration: Duration) -> CertificateRequest {
    let mut r = CertificateRequest::new(profile, key.public_key().clone(), duration);
    r.start = start();
    if matches!(profile, Profile::Ea | Profile::Aa) {
        r.encryption_key = Some(
            PrivateKey::generate(Curve::P256)
                .expect("test setup")
                .public_key()
                .clone(),
        );
    }
    if profile != Profile::At {
        r.name = Some(format!("{profile}.test"));
    }
    r
}

/// Issues `request` by `issuer` (a root when `None`, signed with `key`).
pub fn issue(request: &CertificateRequest, issuer: Option<&Issued>, key: PrivateKey) -> Issued {
    let signer = issuer.map_or(&key, |i| &i.key);
    let cert = issue_certificate(request, issuer.map(|i| &i.cert), signer).expect("issue");
    Issued { cert, key }
}

/// The PKI of the tests.
pub struct Pki {
    pub root: Issued,
    pub ea: Issued,
    pub aa: Issued,
    pub at: Issued,
    pub ec: Issued,
}

impl Pki {
    /// Root (curve `ca`) → EA, AA; AA → AT (p256, PSIDs 36 and 37); EA → EC.
    pub fn new(ca: Curve, region: Option<GeographicRegion>) -> Self {
        let key = || PrivateKey::generate(ca).expect("test setup");
        let root_key = key();
        let mut r = request(Profile::Root, &root_key, Duration::Years(10));
        r.region = region;
        let root = issue(&r, None, root_key);
        let ea_key = key();
        let ea = issue(
            &request(Profile::Ea, &ea_key, Duration::Years(4)),
            Some(&root),
            ea_key,
        );
        let aa_key = key();
        let mut r = request(Profile::Aa, &aa_key, Duration::Years(4));
        r.issue_psids = vec![Psid::CAM, Psid::DENM];
        let aa = issue(&r, Some(&root), aa_key);
        let at_key = PrivateKey::generate(Curve::P256).expect("test setup");
        let mut r = request(Profile::At, &at_key, Duration::Hours(168));
        r.app_permissions = vec![Permission::psid(Psid::CAM), Permission::psid(Psid::DENM)];
        let at = issue(&r, Some(&aa), at_key);
        let ec_key = PrivateKey::generate(Curve::P256).expect("test setup");
        let ec = issue(
            &request(Profile::Ec, &ec_key, Duration::Years(2)),
            Some(&ea),
            ec_key,
        );
        Pki {
            root,
            ea,
            aa,
            at,
            ec,
        }
    }

    /// A trust store holding the root.
    pub fn trust(&self) -> TrustAnchors {
        let mut t = TrustAnchors::new();
        t.add(self.root.cert.clone()).expect("test setup");
        t
    }
}

/// A copy of `cert` with its `toBeSigned` changed by `change` and signed again by `issuer`
/// (bypassing the builder's checks, to make certificates a CA would refuse to issue).
pub fn forge(
    cert: &Cert,
    issuer: &Issued,
    change: impl FnOnce(&mut vss_its::asn::ToBeSignedCertificate),
) -> Cert {
    use vss_its::asn::{Certificate, CertificateBase, ExplicitCertificate};
    let mut base: CertificateBase = (**cert.asn()).clone();
    change(&mut base.to_be_signed);
    let tbs = rasn::coer::encode(&base.to_be_signed).expect("encode");
    let hash = cert.issuer().hash();
    let digest = vss_its::signing_digest(hash, &tbs, Some(issuer.cert.canonical_bytes()));
    let signature = issuer.key.sign_digest(&digest).expect("sign");
    base.signature = Some(vss_its::signature_to_asn(&signature).expect("signature"));
    let asn = Certificate::from(ExplicitCertificate::new(base).expect("explicit"));
    Cert::from_asn(asn).expect("encode")
}
