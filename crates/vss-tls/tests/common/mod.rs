//! What the terminator's tests share: a soft store with an RSA and an EC key and their
//! certificates, an echo backend, a terminator in front of it, and a client configuration.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use openssl::asn1::Asn1Time;
use openssl::bn::BigNum;
use openssl::ec::{EcGroup, EcKey};
use openssl::hash::MessageDigest;
use openssl::nid::Nid;
use openssl::pkey::{PKey, Private};
use openssl::x509::extension::SubjectAlternativeName;
use openssl::x509::{X509Builder, X509NameBuilder, X509};
use rustls::pki_types::CertificateDer;
use rustls::{ClientConfig, RootCertStore};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use vss_crypto::{Curve, RsaBits};
use vss_hsm::{GenerateKeyRequest, Hsm, SoftHsm};
use vss_net::ServeLimits;
use vss_tls::{
    certified_key, serve, server_config, Backend, BatchConfig, ServeStats, SignBatcher, SniResolver,
};

/// A soft store with an RSA key "rsa" and an EC key "ec", certificates for them
/// ("rsa.test", "ec.test") and the CA that issued them.
pub struct Pki {
    _dir: tempfile::TempDir,
    /// The store.
    pub hsm: Arc<dyn Hsm>,
    /// The CA.
    pub ca: X509,
    /// The certificate of "rsa", for rsa.test.
    pub rsa_cert: PathBuf,
    /// The certificate of "ec", for ec.test.
    pub ec_cert: PathBuf,
}

fn name(cn: &str) -> openssl::x509::X509Name {
    let mut name = X509NameBuilder::new().expect("name");
    name.append_entry_by_text("CN", cn).expect("cn");
    name.build()
}

/// A certificate builder for `subject` from `issuer` with `key`, valid for 30 days.
fn builder(
    subject: &openssl::x509::X509NameRef,
    issuer: &openssl::x509::X509NameRef,
    key: &PKey<impl openssl::pkey::HasPublic>,
    serial: u32,
) -> X509Builder {
    let mut builder = X509Builder::new().expect("builder");
    builder.set_version(2).expect("version");
    let serial = BigNum::from_u32(serial).expect("bn");
    builder
        .set_serial_number(&serial.to_asn1_integer().expect("int"))
        .expect("serial");
    builder.set_subject_name(subject).expect("subject");
    builder.set_issuer_name(issuer).expect("issuer");
    builder.set_pubkey(key).expect("pubkey");
    let not_before = Asn1Time::days_from_now(0).expect("t");
    builder.set_not_before(&not_before).expect("nb");
    let not_after = Asn1Time::days_from_now(30).expect("t");
    builder.set_not_after(&not_after).expect("na");
    builder
}

/// A certificate for `spki` (the store's public key) with `dns` as its name, issued by `ca`.
fn issue(ca: &X509, ca_key: &PKey<Private>, spki: &[u8], dns: &str, serial: u32) -> X509 {
    let public = PKey::public_key_from_der(spki).expect("spki");
    let mut builder = builder(&name(dns), ca.subject_name(), &public, serial);
    let san = SubjectAlternativeName::new()
        .dns(dns)
        .build(&builder.x509v3_context(Some(ca), None))
        .expect("san");
    builder.append_extension(san).expect("ext");
    builder.sign(ca_key, MessageDigest::sha256()).expect("sign");
    builder.build()
}

fn write_pem(dir: &Path, name: &str, cert: &X509) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, cert.to_pem().expect("pem")).expect("write");
    path
}

/// A new [`Pki`] in a temporary directory.
pub fn pki() -> Pki {
    let dir = tempfile::tempdir().expect("dir");
    let store = dir.path().join("store");
    SoftHsm::init(&store, "1234", "12345678").expect("init");
    let hsm: Arc<dyn Hsm> = Arc::from(vss_hsm::open(&store, "1234").expect("open"));
    let rsa = hsm
        .generate_key(&GenerateKeyRequest::new("rsa", RsaBits::B2048))
        .expect("rsa");
    let ec = hsm
        .generate_key(&GenerateKeyRequest::new("ec", Curve::P256))
        .expect("ec");
    let ca_key = PKey::from_ec_key(
        EcKey::generate(&EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).expect("g")).expect("k"),
    )
    .expect("pkey");
    let ca_name = name("test CA");
    let mut builder = builder(&ca_name, &ca_name, &ca_key, 0);
    builder
        .append_extension(
            openssl::x509::extension::BasicConstraints::new()
                .critical()
                .ca()
                .build()
                .expect("bc"),
        )
        .expect("ext");
    builder
        .sign(&ca_key, MessageDigest::sha256())
        .expect("sign");
    let ca = builder.build();
    let rsa_spki = hsm
        .rsa_public_key(&rsa.handle)
        .expect("pub")
        .to_spki_der()
        .to_vec();
    let ec_spki = hsm
        .public_key(&ec.handle)
        .expect("pub")
        .to_spki_der()
        .expect("spki");
    let rsa_cert = write_pem(
        dir.path(),
        "rsa.pem",
        &issue(&ca, &ca_key, &rsa_spki, "rsa.test", 1),
    );
    let ec_cert = write_pem(
        dir.path(),
        "ec.pem",
        &issue(&ca, &ca_key, &ec_spki, "ec.test", 2),
    );
    Pki {
        _dir: dir,
        hsm,
        ca,
        rsa_cert,
        ec_cert,
    }
}

/// What makes the test backend answer without end: a client that asks for this and never
/// reads.
pub const FLOOD: &[u8] = b"flood";

/// What makes the test backend stop reading: a backend that hangs with a client sending.
pub const SINK: &[u8] = b"sink";

/// An echo server (what comes in goes back), except that a connection whose first bytes are
/// [`FLOOD`] gets zeros without end, until the write fails, and one whose first bytes are
/// [`SINK`] is held and never read again.
async fn echo_backend() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut first = [0u8; 64];
                let Ok(n) = stream.read(&mut first).await else {
                    return;
                };
                if first[..n].starts_with(FLOOD) {
                    let zeros = vec![0u8; 64 * 1024];
                    while stream.write_all(&zeros).await.is_ok() {}
                    return;
                }
                if first[..n].starts_with(SINK) {
                    let _held = stream;
                    return std::future::pending().await;
                }
                if stream.write_all(&first[..n]).await.is_err() {
                    return;
                }
                let (mut r, mut w) = stream.split();
                let _ = tokio::io::copy(&mut r, &mut w).await;
            });
        }
    });
    addr
}

/// A terminator serving in the background.
pub struct Terminator {
    /// Where it listens.
    pub addr: SocketAddr,
    /// Its counts.
    pub stats: Arc<ServeStats>,
    /// Its signer.
    pub batcher: SignBatcher,
}

/// A terminator for both keys of `pki` within `limits`, in front of [`echo_backend`].
pub async fn terminator(pki: &Pki, limits: ServeLimits) -> Terminator {
    let batcher = SignBatcher::new(Arc::clone(&pki.hsm), BatchConfig::default()).expect("batcher");
    let keys = vec![
        certified_key(pki.hsm.as_ref(), &pki.rsa_cert, "rsa", batcher.clone()).expect("rsa"),
        certified_key(pki.hsm.as_ref(), &pki.ec_cert, "ec", batcher.clone()).expect("ec"),
    ];
    let config = server_config(
        SniResolver::new(keys).expect("resolver"),
        &["http/1.1".into()],
    )
    .expect("config");
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let stats = Arc::new(ServeStats::default());
    let backend = echo_backend().await;
    tokio::spawn(serve(
        listener,
        Arc::new(config),
        Backend::new(backend),
        limits,
        Arc::clone(&stats),
        std::future::pending(),
    ));
    Terminator {
        addr,
        stats,
        batcher,
    }
}

/// A client configuration that trusts `pki`'s CA, for `versions`.
pub fn client(
    pki: &Pki,
    versions: &[&'static rustls::SupportedProtocolVersion],
) -> Arc<ClientConfig> {
    let mut roots = RootCertStore::empty();
    roots
        .add(CertificateDer::from(pki.ca.to_der().expect("der")))
        .expect("root");
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut config = ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(versions)
        .expect("versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Arc::new(config)
}
