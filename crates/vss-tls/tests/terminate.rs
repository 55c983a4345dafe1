//! The terminator on real loopback sockets, with a rustls client: certificates chosen by SNI
//! for an RSA and an EC key of a soft store, TLS 1.3 and 1.2, ALPN, resumption by ticket,
//! bytes passed to an echo backend, and the handshake timeout and connection cap.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{client, pki, terminator};
use openssl::x509::X509;
use rustls::pki_types::ServerName;
use rustls::{HandshakeKind, ProtocolVersion};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use vss_crypto::Curve;
use vss_hsm::GenerateKeyRequest;
use vss_net::ServeLimits;
use vss_tls::{certified_key, default_limits, BatchConfig, Error, SignBatcher};

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
