//! The TLS of `[daemon.tcp]`: the server's identity, a client certificate from `client_ca`
//! required, HTTP/2 by ALPN, TLS 1.3 and 1.2 on AWS-LC. The handshake runs within the
//! connection's wait (`header_timeout`), see [`super::wait`].

use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use tokio_rustls::TlsAcceptor;
use vss_core::config::DaemonTcpConfig;

use crate::error::DaemonError;

/// The acceptor of `[daemon.tcp]`.
pub fn acceptor(tcp: &DaemonTcpConfig) -> Result<TlsAcceptor, DaemonError> {
    let read = |path: &Path| {
        std::fs::read(path).map_err(|source| DaemonError::Io {
            path: path.to_path_buf(),
            source,
        })
    };
    let tls = |what: &str, e: &dyn std::fmt::Display| DaemonError::Tls(format!("{what}: {e}"));
    let chain = CertificateDer::pem_slice_iter(&read(&tcp.certificate)?)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| tls("certificate", &e))?;
    let key = PrivateKeyDer::from_pem_slice(&read(&tcp.key)?).map_err(|e| tls("key", &e))?;
    let mut roots = rustls::RootCertStore::empty();
    for ca in CertificateDer::pem_slice_iter(&read(&tcp.client_ca)?) {
        roots
            .add(ca.map_err(|e| tls("client_ca", &e))?)
            .map_err(|e| tls("client_ca", &e))?;
    }
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider.clone())
        .build()
        .map_err(|e| tls("client_ca", &e))?;
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(rustls::ALL_VERSIONS)
        .map_err(|e| tls("protocols", &e))?
        .with_client_cert_verifier(verifier)
        .with_single_cert(chain, key)
        .map_err(|e| tls("certificate", &e))?;
    config.alpn_protocols = vec![b"h2".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}
