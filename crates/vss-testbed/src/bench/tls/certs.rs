//! The files of one key's run: a throw-away store holding the key, a CA made with OpenSSL,
//! the certificate of a file key for server (a) and of the store's key for (b) and (c), and
//! the client configuration that trusts the CA.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;
use rustls::{ClientConfig, RootCertStore};
use vss_crypto::{Curve, KeyAlgorithm};
use vss_hsm::scratch::ScratchStore;
use vss_hsm::{Backend, GenerateKeyRequest};

/// The label of the benchmark key in its throw-away store.
pub(super) const LABEL: &str = "bench";

/// One key's run: its store (in a temporary directory, removed when dropped) and, in the
/// same directory, the CA, the keys and certificates the servers use.
pub(super) struct Setup {
    store: ScratchStore,
}

impl Setup {
    /// Makes the store with the key `key` labelled [`LABEL`], a CA, a file key of the same
    /// algorithm with its certificate (`file.key`, `file.pem`), and the store key's
    /// certificate (`vss.pem`), each for `localhost`.
    pub(super) fn new(key: KeyAlgorithm) -> Result<Self> {
        let store = ScratchStore::create("vss-bench-tls-", "store", Backend::Soft, Path::new(""))?;
        let setup = Setup { store };
        let hsm = setup.store.open()?;
        let info = hsm.generate_key(&GenerateKeyRequest::new(LABEL, key))?;
        let public_pem = match key {
            KeyAlgorithm::Rsa(_) => hsm.rsa_public_key(&info.handle)?.to_spki_pem()?,
            KeyAlgorithm::Ec(_) => hsm.public_key(&info.handle)?.to_spki_pem()?,
        };
        std::fs::write(setup.path("vss-pub.pem"), public_pem)?;
        std::fs::write(setup.path("san.ext"), "subjectAltName=DNS:localhost\n")?;
        certificates(setup.dir(), key)?;
        Ok(setup)
    }

    /// The run's directory.
    pub(super) fn dir(&self) -> &Path {
        self.store.dir()
    }

    /// A file in the run's directory.
    pub(super) fn path(&self, name: &str) -> PathBuf {
        self.dir().join(name)
    }

    /// The store holding the key.
    pub(super) fn store(&self) -> &Path {
        self.store.store()
    }

    /// The store's PIN.
    pub(super) fn pin(&self) -> &str {
        self.store.pin()
    }

    /// A client configuration trusting the run's CA, TLS 1.3 only, resumption off; with
    /// `aes_256_only`, AES-256-GCM is its one cipher suite.
    pub(super) fn client(&self, aes_256_only: bool) -> Result<Arc<ClientConfig>> {
        let mut roots = RootCertStore::empty();
        for cert in CertificateDer::pem_file_iter(self.path("ca.pem"))? {
            roots.add(cert?)?;
        }
        let mut provider = rustls::crypto::aws_lc_rs::default_provider();
        if aes_256_only {
            provider.cipher_suites =
                vec![rustls::crypto::aws_lc_rs::cipher_suite::TLS13_AES_256_GCM_SHA384];
        }
        let mut config = ClientConfig::builder_with_provider(Arc::new(provider))
            .with_protocol_versions(&[&rustls::version::TLS13])?
            .with_root_certificates(roots)
            .with_no_client_auth();
        config.resumption = rustls::client::Resumption::disabled();
        Ok(Arc::new(config))
    }
}

/// OpenSSL's `genpkey` options for a new key of `key`'s algorithm.
fn keygen(key: KeyAlgorithm) -> Vec<String> {
    match key {
        KeyAlgorithm::Rsa(bits) => vec![
            "-algorithm".into(),
            "RSA".into(),
            "-pkeyopt".into(),
            format!("rsa_keygen_bits:{}", bits.bits()),
        ],
        KeyAlgorithm::Ec(curve) => vec![
            "-algorithm".into(),
            "EC".into(),
            "-pkeyopt".into(),
            format!(
                "ec_paramgen_curve:{}",
                match curve {
                    Curve::P384 => "P-384",
                    _ => "P-256",
                }
            ),
        ],
    }
}

/// Makes, in `dir` (which holds `vss-pub.pem` and `san.ext`), the CA (`ca.key`, `ca.pem`),
/// a file key of `key`'s algorithm and its certificate (`file.key`, `file.pem`), and the
/// certificate of the store's public key (`vss.pem`).
fn certificates(dir: &Path, key: KeyAlgorithm) -> Result<()> {
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-subj",
            "/CN=vss bench CA",
            "-days",
            "2",
        ],
    )?;
    let mut genpkey = vec!["genpkey".to_owned()];
    genpkey.extend(keygen(key));
    genpkey.extend(["-out".into(), "file.key".into()]);
    openssl(dir, &genpkey.iter().map(String::as_str).collect::<Vec<_>>())?;
    openssl(
        dir,
        &[
            "req",
            "-new",
            "-key",
            "file.key",
            "-subj",
            "/CN=localhost",
            "-out",
            "file.csr",
        ],
    )?;
    openssl(
        dir,
        &[
            "x509", "-req", "-in", "file.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-extfile",
            "san.ext", "-days", "2", "-out", "file.pem",
        ],
    )?;
    openssl(
        dir,
        &[
            "x509",
            "-new",
            "-subj",
            "/CN=localhost",
            "-force_pubkey",
            "vss-pub.pem",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-extfile",
            "san.ext",
            "-days",
            "2",
            "-out",
            "vss.pem",
        ],
    )
}

/// Runs `openssl ARGS` in `dir`; its first line on stderr is the error when it fails.
fn openssl(dir: &Path, args: &[&str]) -> Result<()> {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .context("cannot run openssl (apt-get install openssl)")?;
    if !out.status.success() {
        bail!(
            "openssl {}: {}",
            args.first().unwrap_or(&""),
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .next()
                .unwrap_or("")
        );
    }
    Ok(())
}
