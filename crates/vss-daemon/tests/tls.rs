//! vssd over TCP with mutual TLS (`[daemon.tcp]`): certificates made by the openssl command;
//! a client with a certificate of the client CA is served, one without is refused.

mod common;

use common::{certificates, Daemon, Station};
use tonic::transport::{Certificate, ClientTlsConfig, Endpoint, Identity};
use vss_core::config::DaemonTcpConfig;
use vss_proto::proto::security_entity_client::SecurityEntityClient;
use vss_proto::proto::StatusRequest;

#[test]
fn mutual_tls_serves_a_client_with_a_certificate_and_refuses_one_without() {
    let tls = tempfile::tempdir().expect("dir");
    // The test command installs openssl: without it this test cannot pass.
    assert!(
        certificates(tls.path()),
        "the openssl command is missing or cannot make certificates"
    );
    let listen = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("port")
        .local_addr()
        .expect("addr");
    let station = Station::new(&["A"], 1, |c| {
        c.daemon.tcp = Some(DaemonTcpConfig {
            listen,
            certificate: tls.path().join("server.pem"),
            key: tls.path().join("server.key"),
            client_ca: tls.path().join("ca.pem"),
        });
    });
    let read = |name: &str| std::fs::read(tls.path().join(name)).expect(name);
    let daemon = Daemon::start(&station, &[]);
    tokio::runtime::Runtime::new()
        .expect("runtime")
        .block_on(async {
            let base = ClientTlsConfig::new()
                .ca_certificate(Certificate::from_pem(read("ca.pem")))
                .domain_name("localhost");
            let call = |config: ClientTlsConfig| async move {
                let channel = Endpoint::from_shared(format!("https://{listen}"))
                    .expect("uri")
                    .tls_config(config)
                    .expect("tls")
                    .connect()
                    .await
                    .map_err(|e| e.to_string())?;
                SecurityEntityClient::new(channel)
                    .status(StatusRequest {})
                    .await
                    .map_err(|e| e.to_string())
            };
            let with = base
                .clone()
                .identity(Identity::from_pem(read("client.pem"), read("client.key")));
            let served = call(with).await;
            assert!(served.is_ok(), "{served:?} {}", daemon.stderr());
            let refused = call(base).await;
            assert!(
                refused.is_err(),
                "a client without a certificate is refused"
            );
        });
}
