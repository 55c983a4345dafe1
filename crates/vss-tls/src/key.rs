//! The store's keys as rustls signing keys, certificates paired with them, and the choice of
//! certificate by SNI.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, SubjectPublicKeyInfoDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::{CertifiedKey, Signer, SigningKey};
use rustls::{SignatureAlgorithm, SignatureScheme};
use vss_crypto::{Curve, HashAlg, KeyAlgorithm, RsaSignatureScheme};
use vss_hsm::{Hsm, KeyInfo};

use crate::batch::{SignBatcher, SignRequest};
use crate::error::{Error, Result};

/// The largest certificate file read: 1 MiB.
pub const MAX_CERT_FILE: u64 = 1 << 20;

/// The schemes a key of `algorithm` signs with, in order of preference.
fn schemes(algorithm: KeyAlgorithm) -> &'static [SignatureScheme] {
    match algorithm {
        KeyAlgorithm::Rsa(_) => &[
            SignatureScheme::RSA_PSS_SHA256,
            SignatureScheme::RSA_PSS_SHA384,
            SignatureScheme::RSA_PSS_SHA512,
            SignatureScheme::RSA_PKCS1_SHA256,
            SignatureScheme::RSA_PKCS1_SHA384,
            SignatureScheme::RSA_PKCS1_SHA512,
        ],
        KeyAlgorithm::Ec(Curve::P256) => &[SignatureScheme::ECDSA_NISTP256_SHA256],
        KeyAlgorithm::Ec(Curve::P384) => &[SignatureScheme::ECDSA_NISTP384_SHA384],
        KeyAlgorithm::Ec(_) => &[],
    }
}

/// What a scheme hashes and how the digest is signed.
fn request(scheme: SignatureScheme, message: &[u8]) -> Option<SignRequest> {
    let rsa = |scheme, hash: HashAlg| SignRequest::Rsa {
        scheme,
        digest: hash.digest(message),
    };
    Some(match scheme {
        SignatureScheme::RSA_PSS_SHA256 => {
            rsa(RsaSignatureScheme::Pss(HashAlg::Sha256), HashAlg::Sha256)
        }
        SignatureScheme::RSA_PSS_SHA384 => {
            rsa(RsaSignatureScheme::Pss(HashAlg::Sha384), HashAlg::Sha384)
        }
        SignatureScheme::RSA_PSS_SHA512 => {
            rsa(RsaSignatureScheme::Pss(HashAlg::Sha512), HashAlg::Sha512)
        }
        SignatureScheme::RSA_PKCS1_SHA256 => {
            rsa(RsaSignatureScheme::Pkcs1(HashAlg::Sha256), HashAlg::Sha256)
        }
        SignatureScheme::RSA_PKCS1_SHA384 => {
            rsa(RsaSignatureScheme::Pkcs1(HashAlg::Sha384), HashAlg::Sha384)
        }
        SignatureScheme::RSA_PKCS1_SHA512 => {
            rsa(RsaSignatureScheme::Pkcs1(HashAlg::Sha512), HashAlg::Sha512)
        }
        SignatureScheme::ECDSA_NISTP256_SHA256 => SignRequest::Ecdsa {
            digest: HashAlg::Sha256.digest(message),
        },
        SignatureScheme::ECDSA_NISTP384_SHA384 => SignRequest::Ecdsa {
            digest: HashAlg::Sha384.digest(message),
        },
        _ => return None,
    })
}

/// A key of the store, as rustls sees it: the private key never leaves the store; each
/// signature goes through the [`SignBatcher`].
#[derive(Debug)]
pub struct HsmSigningKey {
    key: KeyInfo,
    spki: Vec<u8>,
    batcher: SignBatcher,
}

impl HsmSigningKey {
    /// The key labelled `label` in `hsm`, signing through `batcher`.
    pub fn new(hsm: &dyn Hsm, label: &str, batcher: SignBatcher) -> Result<Self> {
        let key = hsm.key(label)?;
        if schemes(key.algorithm).is_empty() {
            return Err(Error::KeyNotForTls {
                label: key.label,
                algorithm: key.algorithm,
            });
        }
        let spki = match key.algorithm {
            KeyAlgorithm::Rsa(_) => hsm.rsa_public_key(&key.handle)?.to_spki_der().to_vec(),
            KeyAlgorithm::Ec(_) => hsm.public_key(&key.handle)?.to_spki_der()?,
        };
        Ok(HsmSigningKey { key, spki, batcher })
    }
}

impl SigningKey for HsmSigningKey {
    fn choose_scheme(&self, offered: &[SignatureScheme]) -> Option<Box<dyn Signer>> {
        let scheme = schemes(self.key.algorithm)
            .iter()
            .copied()
            .find(|s| offered.contains(s))?;
        Some(Box::new(HsmSigner {
            key: self.key.handle.clone(),
            scheme,
            batcher: self.batcher.clone(),
        }))
    }

    fn public_key(&self) -> Option<SubjectPublicKeyInfoDer<'_>> {
        Some(SubjectPublicKeyInfoDer::from(self.spki.as_slice()))
    }

    fn algorithm(&self) -> SignatureAlgorithm {
        match self.key.algorithm {
            KeyAlgorithm::Rsa(_) => SignatureAlgorithm::RSA,
            KeyAlgorithm::Ec(_) => SignatureAlgorithm::ECDSA,
        }
    }
}

/// One handshake's signature with a chosen scheme.
#[derive(Debug)]
struct HsmSigner {
    key: vss_hsm::KeyHandle,
    scheme: SignatureScheme,
    batcher: SignBatcher,
}

impl Signer for HsmSigner {
    fn sign(&self, message: &[u8]) -> std::result::Result<Vec<u8>, rustls::Error> {
        let request = request(self.scheme, message)
            .ok_or_else(|| rustls::Error::General("unsupported signature scheme".into()))?;
        let sign = || self.batcher.sign(&self.key, request);
        // rustls calls this from a runtime worker: let the runtime move its other tasks
        // elsewhere while this one waits for its batch.
        let signed = match tokio::runtime::Handle::try_current() {
            Ok(handle) if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
                tokio::task::block_in_place(sign)
            }
            _ => sign(),
        };
        signed.map_err(|e| rustls::Error::General(e.to_string()))
    }

    fn scheme(&self) -> SignatureScheme {
        self.scheme
    }
}

/// A certificate chain (PEM, leaf first) with the store's key `label`; the certificate must
/// be for that key.
pub fn certified_key(
    hsm: &dyn Hsm,
    cert_file: &Path,
    label: &str,
    batcher: SignBatcher,
) -> Result<CertifiedKey> {
    let path = cert_file.display().to_string();
    let bad = |reason: String| Error::Certificate {
        path: path.clone(),
        reason,
    };
    let pem = vss_hsm::read_bounded(cert_file, MAX_CERT_FILE).map_err(|e| bad(e.to_string()))?;
    let chain = CertificateDer::pem_slice_iter(&pem)
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| bad(format!("not PEM certificates: {e}")))?;
    if chain.is_empty() {
        return Err(bad("no certificate in the file".into()));
    }
    let key = HsmSigningKey::new(hsm, label, batcher)?;
    let certified = CertifiedKey::new(chain, Arc::new(key));
    certified.keys_match().map_err(|_| Error::KeyMismatch {
        path: path.clone(),
        label: label.to_owned(),
    })?;
    Ok(certified)
}

/// The DNS names a certificate is for (its subjectAltName dNSNames).
fn dns_names(cert: &CertificateDer<'_>) -> Vec<String> {
    openssl::x509::X509::from_der(cert)
        .ok()
        .and_then(|x509| x509.subject_alt_names())
        .map(|names| {
            names
                .iter()
                .filter_map(|n| n.dnsname().map(str::to_ascii_lowercase))
                .collect()
        })
        .unwrap_or_default()
}

/// Chooses a certificate by the name the client asked for (SNI); the first certificate
/// serves clients that name none or an unknown one.
#[derive(Debug)]
pub struct SniResolver {
    by_name: HashMap<String, Arc<CertifiedKey>>,
    default: Arc<CertifiedKey>,
}

impl SniResolver {
    /// A resolver over `keys` (at least one); each serves the DNS names of its leaf
    /// certificate, the first of two claiming a name wins.
    pub fn new(keys: Vec<CertifiedKey>) -> Result<Self> {
        let mut keys = keys.into_iter().map(Arc::new);
        let default = keys
            .next()
            .ok_or(Error::Config("at least one certificate is needed"))?;
        let mut by_name = HashMap::new();
        for key in std::iter::once(Arc::clone(&default)).chain(keys) {
            if let Some(leaf) = key.cert.first() {
                for name in dns_names(leaf) {
                    by_name.entry(name).or_insert_with(|| Arc::clone(&key));
                }
            }
        }
        Ok(SniResolver { by_name, default })
    }
}

impl ResolvesServerCert for SniResolver {
    fn resolve(&self, client_hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        let chosen = client_hello
            .server_name()
            .and_then(|name| self.by_name.get(&name.to_ascii_lowercase()))
            .unwrap_or(&self.default);
        Some(Arc::clone(chosen))
    }
}
