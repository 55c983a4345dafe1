//! The terminator on real loopback sockets, with a rustls client: certificates chosen by SNI
//! for an RSA and an EC key of a soft store, TLS 1.3 and 1.2, ALPN, resumption by ticket,
//! bytes passed to an echo backend, and the handshake timeout and connection cap.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use openssl::asn1::Asn1Time;
use openssl::bn::BigNum;
use openssl::ec::{EcGroup, EcKey};
use openssl::hash::MessageDigest;
use openssl::nid::Nid;
use openssl::pkey::{PKey, Private};
use openssl::x509::extension::SubjectAlternativeName;
use openssl::x509::{X509Builder, X509NameBuilder, X509};
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, HandshakeKind, ProtocolVersion, RootCertStore};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsConnector;
use vss_crypto::{Curve, RsaBits};
use vss_hsm::{GenerateKeyRequest, Hsm, SoftHsm};
use vss_net::ServeLimits;
use vss_tls::{
    certified_key, default_limits, serve, server_config, Backend, BatchConfig, Error, ServeStats,
    SignBatcher, SniResolver,
};

struct Pki {
    _dir: tempfile::TempDir,
    hsm: Arc<dyn Hsm>,
    ca: X509,
    rsa_cert: PathBuf,
    ec_cert: PathBuf,
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

fn pki() -> Pki {
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

/// An echo server: what comes in goes back.
async fn echo_backend() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let (mut r, mut w) = stream.split();
                let _ = tokio::io::copy(&mut r, &mut w).await;
            });
        }
    });
    addr
}

struct Terminator {
    addr: SocketAddr,
    stats: Arc<ServeStats>,
    batcher: SignBatcher,
}

async fn terminator(pki: &Pki, limits: ServeLimits) -> Terminator {
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

fn client(pki: &Pki, versions: &[&'static rustls::SupportedProtocolVersion]) -> Arc<ClientConfig> {
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sni_picks_the_certificate_bytes_pass_and_tickets_resume() {
    let pki = pki();
    let server = terminator(&pki, default_limits()).await;
    for (versions, version) in [
        (&[&rustls::version::TLS13][..], ProtocolVersion::TLSv1_3),
        (&[&rustls::version::TLS12][..], ProtocolVersion::TLSv1_2),
    ] {
        let config = client(&pki, versions);
        for (sni, expected) in [("rsa.test", &pki.rsa_cert), ("ec.test", &pki.ec_cert)] {
            for round in 0..2 {
                let connector = TlsConnector::from(Arc::clone(&config));
                let tcp = TcpStream::connect(server.addr).await.expect("connect");
                let mut tls = connector
                    .connect(ServerName::try_from(sni.to_owned()).expect("name"), tcp)
                    .await
                    .expect("handshake");
                let (_, conn) = tls.get_ref();
                assert_eq!(conn.protocol_version(), Some(version));
                assert_eq!(conn.alpn_protocol(), Some(&b"http/1.1"[..]));
                let served =
                    X509::from_der(&conn.peer_certificates().expect("certs")[0]).expect("x509");
                let wanted = X509::from_pem(&std::fs::read(expected).expect("read")).expect("pem");
                assert_eq!(served.to_der().expect("der"), wanted.to_der().expect("der"));
                let kind = conn.handshake_kind();
                let expected_kind = if round == 0 {
                    HandshakeKind::Full
                } else {
                    HandshakeKind::Resumed
                };
                assert_eq!(kind, Some(expected_kind), "{sni} {version:?} round {round}");
                tls.write_all(b"hello through the terminator")
                    .await
                    .expect("write");
                let mut echoed = [0u8; 28];
                tls.read_exact(&mut echoed).await.expect("read");
                assert_eq!(&echoed, b"hello through the terminator");
            }
        }
    }
    // Four full handshakes signed by the store (resumptions sign nothing).
    assert_eq!(server.batcher.stats().signatures(), 4);
    assert_eq!(server.stats.handshakes(), 8);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_clients_at_once_are_signed_in_batches() {
    let pki = pki();
    let server = terminator(&pki, default_limits()).await;
    // Every client makes a full handshake: one that started after another had finished
    // would otherwise resume with its ticket and need no signature.
    let mut full = (*client(&pki, &[&rustls::version::TLS13])).clone();
    full.resumption = rustls::client::Resumption::disabled();
    let config = Arc::new(full);
    let mut clients = Vec::new();
    for _ in 0..32 {
        let config = Arc::clone(&config);
        let addr = server.addr;
        clients.push(tokio::spawn(async move {
            let tcp = TcpStream::connect(addr).await.expect("connect");
            let mut tls = TlsConnector::from(config)
                .connect(ServerName::try_from("rsa.test").expect("name"), tcp)
                .await
                .expect("handshake");
            tls.write_all(b"x").await.expect("write");
            let mut one = [0u8; 1];
            tls.read_exact(&mut one).await.expect("read");
        }));
    }
    for c in clients {
        c.await.expect("client");
    }
    let stats = server.batcher.stats();
    assert_eq!(stats.signatures(), 32);
    assert!(stats.batches() <= 32);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_client_is_closed_at_the_handshake_timeout_and_the_cap_closes_the_rest() {
    let pki = pki();
    let limits = ServeLimits {
        header_timeout: Duration::from_millis(300),
        max_connections: 1,
        ..default_limits()
    };
    let server = terminator(&pki, limits).await;
    let start = Instant::now();
    let mut silent = TcpStream::connect(server.addr).await.expect("connect");
    tokio::time::sleep(Duration::from_millis(50)).await;
    // The one slot is taken: the next connection is closed at once.
    let mut refused = TcpStream::connect(server.addr).await.expect("connect");
    let mut byte = [0u8; 1];
    let n = tokio::time::timeout(Duration::from_secs(2), refused.read(&mut byte))
        .await
        .expect("closed promptly")
        .unwrap_or(0);
    assert_eq!(n, 0);
    let n = tokio::time::timeout(Duration::from_secs(5), silent.read(&mut byte))
        .await
        .expect("closed by the server")
        .unwrap_or(0);
    assert_eq!(n, 0);
    assert!(start.elapsed() >= Duration::from_millis(300));
    assert_eq!(server.stats.refused(), 1);
    assert_eq!(server.stats.failed(), 1);
}

#[test]
fn a_certificate_for_another_key_and_a_brainpool_key_are_refused() {
    let pki = pki();
    let batcher = SignBatcher::new(Arc::clone(&pki.hsm), BatchConfig::default()).expect("batcher");
    assert!(matches!(
        certified_key(pki.hsm.as_ref(), &pki.rsa_cert, "ec", batcher.clone()),
        Err(Error::KeyMismatch { .. })
    ));
    pki.hsm
        .generate_key(&GenerateKeyRequest::new("bp", Curve::Bp256))
        .expect("bp");
    assert!(matches!(
        certified_key(pki.hsm.as_ref(), &pki.ec_cert, "bp", batcher.clone()),
        Err(Error::KeyNotForTls { .. })
    ));
    let junk = pki.rsa_cert.with_file_name("junk.pem");
    std::fs::write(&junk, b"not a certificate").expect("write");
    assert!(matches!(
        certified_key(pki.hsm.as_ref(), &junk, "rsa", batcher),
        Err(Error::Certificate { .. })
    ));
}
