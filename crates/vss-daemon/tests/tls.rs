//! vssd over TCP with mutual TLS (`[daemon.tcp]`): certificates made by the openssl command;
//! a client with a certificate of the client CA is served, one without is refused.

mod common;

use std::path::Path;
use std::process::Command;

use common::{Daemon, Station};
use tonic::transport::{Certificate, ClientTlsConfig, Endpoint, Identity};
use vss_core::config::DaemonTcpConfig;
use vss_proto::proto::security_entity_client::SecurityEntityClient;
use vss_proto::proto::StatusRequest;

fn openssl(dir: &Path, args: &[&str]) -> bool {
    Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A CA, a server certificate for localhost and a client certificate, PEM files in `dir`;
/// false when the openssl command is missing or fails.
fn certificates(dir: &Path) -> bool {
    let key = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
    ];
    let ca = [
        &["req", "-x509"][..],
        &key,
        &[
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-days",
            "1",
            "-subj",
            "/CN=vssd test CA",
        ],
        &["-addext", "basicConstraints=critical,CA:TRUE"],
        &["-addext", "keyUsage=critical,keyCertSign"],
    ]
    .concat();
    if !openssl(dir, &ca) {
        return false;
    }
    for (name, usage) in [("server", "serverAuth"), ("client", "clientAuth")] {
        let ext = format!("{name}.ext");
        std::fs::write(
            dir.join(&ext),
            format!(
                "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage={usage}\n"
            ),
        )
        .expect("ext");
        let (keyfile, csr, pem) = (
            format!("{name}.key"),
            format!("{name}.csr"),
            format!("{name}.pem"),
        );
        let request = [
            &["req"][..],
            &key,
            &["-keyout", &keyfile, "-out", &csr, "-subj", "/CN=localhost"],
        ]
        .concat();
        let sign = [
            "x509",
            "-req",
            "-in",
            &csr,
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            &pem,
            "-days",
            "1",
            "-extfile",
            &ext,
        ];
        if !openssl(dir, &request) || !openssl(dir, &sign) {
            return false;
        }
    }
    true
}

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
