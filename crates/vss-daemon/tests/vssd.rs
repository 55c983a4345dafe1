//! vssd end to end: the real binary on a real Unix socket, a tonic client, a testbed PKI
//! on loopback behind the station.

mod common;

use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use common::{command, stats_lines, Daemon, Station};
use tonic::Code;
use vss_proto::proto::*;

/// Runs `test` on a Tokio runtime (the testbed runs its own, so it is built outside).
fn run<F: std::future::Future>(test: F) -> F::Output {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(test)
}

fn free_port() -> std::net::SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr")
}

/// `GET /metrics` at `address`.
fn scrape(address: std::net::SocketAddr) -> String {
    let mut stream = std::net::TcpStream::connect(address).expect("metrics");
    stream
        .write_all(b"GET /metrics HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
        .expect("request");
    let mut text = String::new();
    stream.read_to_string(&mut text).expect("response");
    text
}

/// The value of the sample line starting with `prefix`.
fn sample(text: &str, prefix: &str) -> f64 {
    text.lines()
        .find(|l| l.starts_with(prefix))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0)
}

fn sign_request(payload: &[u8], signer: SignerChoice) -> SignRequest {
    SignRequest {
        payload: payload.to_vec(),
        psid: 36,
        signer: signer.into(),
        ..SignRequest::default()
    }
}

#[test]
fn sign_verify_and_the_refusals_each_get_their_code() {
    let metrics = free_port();
    let station = Station::new(&["A"], 3, |c| {
        c.daemon.metrics = Some(metrics);
        c.daemon.max_message_bytes = 4096;
    });
    run(async {
        let daemon = Daemon::start(&station, &[]);
        let mode = std::fs::metadata(&daemon.socket)
            .expect("socket")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o660);
        let mut client = daemon.client().await;

        let signed = client
            .sign(sign_request(b"cam", SignerChoice::Auto))
            .await
            .expect("sign")
            .into_inner();
        assert_eq!(signed.signer.len(), 8);
        assert!(
            signed.with_certificate,
            "the first message carries the certificate"
        );
        let verified = client
            .verify(VerifyRequest {
                data: signed.data.clone(),
                tag: 7,
            })
            .await
            .expect("verify")
            .into_inner();
        assert_eq!(
            verified.report(),
            ReportCode::Success,
            "{}",
            verified.reason
        );
        assert_eq!(
            (verified.payload.as_slice(), verified.psid, verified.tag),
            (&b"cam"[..], 36, 7)
        );
        assert_eq!(verified.signer, signed.signer);

        let mut tampered = client
            .sign(sign_request(b"denm", SignerChoice::Certificate))
            .await
            .expect("sign")
            .into_inner()
            .data;
        let last = tampered.len() - 1;
        tampered[last] ^= 0x01;
        let refused = client
            .verify(VerifyRequest {
                data: tampered,
                tag: 1,
            })
            .await
            .expect("verify")
            .into_inner();
        assert_eq!(
            refused.report(),
            ReportCode::FalseSignature,
            "{}",
            refused.reason
        );
        assert!(refused.payload.is_empty());

        let malformed = client
            .verify(VerifyRequest {
                data: b"\x03not coer".to_vec(),
                tag: 2,
            })
            .await
            .expect("verify")
            .into_inner();
        assert_eq!(malformed.report(), ReportCode::Malformed);

        let oversized = client
            .sign(sign_request(&[0; 4097], SignerChoice::Auto))
            .await
            .expect_err("oversized");
        assert_eq!(oversized.code(), Code::ResourceExhausted, "{oversized:?}");
        let ssp = client
            .sign(SignRequest {
                ssp: vec![1, 2],
                ..sign_request(b"x", SignerChoice::Auto)
            })
            .await
            .expect_err("ssp not granted");
        assert_eq!(ssp.code(), Code::FailedPrecondition);
        assert!(ssp.message().contains("SSP"), "{}", ssp.message());
        let psid = client
            .sign(SignRequest {
                psid: 9999,
                ..sign_request(b"x", SignerChoice::Auto)
            })
            .await
            .expect_err("psid");
        assert_eq!(psid.code(), Code::FailedPrecondition);
        let lock = client
            .lock_id_change(LockIdChangeRequest { seconds: 256 })
            .await
            .expect_err("256 s");
        assert_eq!(lock.code(), Code::InvalidArgument);

        let status = client
            .status(StatusRequest {})
            .await
            .expect("status")
            .into_inner();
        assert_eq!(status.signed, 2);
        assert_eq!((status.verified_valid, status.verified_invalid), (1, 2));
        assert_eq!(status.current_pseudonym, signed.signer);

        let text = scrape(metrics);
        assert_eq!(
            sample(&text, "vssd_verifications_total{report=\"SUCCESS\"}"),
            1.0,
            "{text}"
        );
        assert_eq!(
            sample(
                &text,
                "vssd_verifications_total{report=\"FALSE_SIGNATURE\"}"
            ),
            1.0
        );
        assert_eq!(
            sample(&text, "vssd_hsm_operations_total{operation=\"sign\"}"),
            2.0
        );
        assert_eq!(
            sample(
                &text,
                "vssd_requests_total{method=\"Sign\",code=\"RESOURCE_EXHAUSTED\"}"
            ),
            1.0
        );
        assert_eq!(sample(&text, "vssd_sign_latency_seconds_count"), 2.0);
        assert!(text.contains("vssd_pool_level"));
        client
            .verify(VerifyRequest {
                data: signed.data,
                tag: 3,
            })
            .await
            .expect("verify");
        let moved = scrape(metrics);
        assert_eq!(
            sample(
                &moved,
                "vssd_verifications_total{report=\"DUPLICATE_MESSAGE\"}"
            ),
            1.0,
            "{moved}"
        );
    });
}

/// The next event, within 10 s.
async fn next(events: &mut tonic::Streaming<IdChangeEvent>) -> IdChangeEvent {
    tokio::time::timeout(Duration::from_secs(10), events.message())
        .await
        .expect("an event in time")
        .expect("stream")
        .expect("event")
}

#[test]
fn id_changes_are_announced_and_none_while_locked() {
    let station = Station::new(&["A"], 4, |_| {});
    run(async {
        let daemon = Daemon::start(&station, &[]);
        let mut client = daemon.client().await;
        let mut events = client
            .subscribe_id_change(SubscribeIdChangeRequest {})
            .await
            .expect("subscribe")
            .into_inner();
        let first = client
            .trigger_id_change(TriggerIdChangeRequest {})
            .await
            .expect("trigger")
            .into_inner()
            .pseudonym;
        let prepare = next(&mut events).await;
        let commit = next(&mut events).await;
        assert_eq!(prepare.phase(), IdChangePhase::Prepare);
        assert_eq!(commit.phase(), IdChangePhase::Commit);
        assert_eq!((prepare.sequence, commit.sequence), (1, 1));
        assert_eq!(commit.new_pseudonym, first);

        client
            .lock_id_change(LockIdChangeRequest { seconds: 60 })
            .await
            .expect("lock");
        let locked = client
            .trigger_id_change(TriggerIdChangeRequest {})
            .await
            .expect_err("locked");
        assert_eq!(locked.code(), Code::FailedPrecondition);
        assert!(
            tokio::time::timeout(Duration::from_millis(500), events.message())
                .await
                .is_err(),
            "no event while locked"
        );
        client
            .unlock_id_change(UnlockIdChangeRequest {})
            .await
            .expect("unlock");
        let second = client
            .trigger_id_change(TriggerIdChangeRequest {})
            .await
            .expect("trigger")
            .into_inner()
            .pseudonym;
        let prepare = next(&mut events).await;
        let commit = next(&mut events).await;
        assert_eq!(
            (prepare.phase(), prepare.sequence),
            (IdChangePhase::Prepare, 2)
        );
        assert_eq!(
            (
                prepare.old_pseudonym.as_slice(),
                prepare.new_pseudonym.as_slice()
            ),
            (first.as_slice(), second.as_slice())
        );
        assert_eq!(
            (commit.phase(), commit.sequence),
            (IdChangePhase::Commit, 2)
        );
    });
}

/// `count` messages signed with the certificate (so any order verifies).
async fn signed_messages(
    client: &mut security_entity_client::SecurityEntityClient<tonic::transport::Channel>,
    count: usize,
) -> Vec<Vec<u8>> {
    let mut messages = Vec::new();
    for i in 0..count {
        let payload = format!("message {i}");
        messages.push(
            client
                .sign(sign_request(payload.as_bytes(), SignerChoice::Certificate))
                .await
                .expect("sign")
                .into_inner()
                .data,
        );
    }
    messages
}

#[test]
fn verify_streams_of_eight_clients_are_answered_in_order() {
    let station = Station::new(&["A"], 3, |c| {
        c.pseudonyms.max_uses = 1000;
        c.daemon.batch_max = 16;
    });
    run(async {
        let daemon = Daemon::start(&station, &[]);
        let messages = signed_messages(&mut daemon.client().await, 8 * 25).await;
        let mut clients = Vec::new();
        for (n, chunk) in messages.chunks(25).enumerate() {
            let mut client = daemon.client().await;
            let requests: Vec<VerifyRequest> = chunk
                .iter()
                .enumerate()
                .map(|(i, data)| VerifyRequest {
                    data: data.clone(),
                    tag: (n * 1000 + i) as u64,
                })
                .collect();
            clients.push(tokio::spawn(async move {
                let mut answers = client
                    .verify_stream(tokio_stream::iter(requests.clone()))
                    .await
                    .expect("stream")
                    .into_inner();
                let mut got = Vec::new();
                while let Some(answer) = answers.message().await.expect("answer") {
                    assert_eq!(answer.report(), ReportCode::Success, "{}", answer.reason);
                    got.push(answer.tag);
                }
                let sent: Vec<u64> = requests.iter().map(|r| r.tag).collect();
                assert_eq!(got, sent, "client {n}: every answer, in request order");
            }));
        }
        for client in clients {
            client.await.expect("client");
        }
    });
}

#[test]
fn sigterm_during_a_stream_answers_or_refuses_every_request_and_exits_zero() {
    let station = Station::new(&["A"], 3, |c| c.pseudonyms.max_uses = 1000);
    run(async {
        let notify = station.dir.join("notify.sock");
        let manager = std::os::unix::net::UnixDatagram::bind(&notify).expect("notify socket");
        manager
            .set_read_timeout(Some(Duration::from_secs(30)))
            .expect("timeout");
        let notify_text = notify.to_str().expect("utf-8").to_string();
        let mut daemon = Daemon::start(&station, &[("NOTIFY_SOCKET", &notify_text)]);
        let mut buf = [0u8; 64];
        let n = manager.recv(&mut buf).expect("READY");
        assert_eq!(&buf[..n], b"READY=1");

        let mut client = daemon.client().await;
        let messages = signed_messages(&mut client, 60).await;
        let (sender, requests) = tokio::sync::mpsc::channel(4);
        let mut answers = client
            .verify_stream(tokio_stream::wrappers::ReceiverStream::new(requests))
            .await
            .expect("stream")
            .into_inner();
        let feeder = tokio::spawn(async move {
            for (tag, data) in messages.into_iter().enumerate() {
                if sender
                    .send(VerifyRequest {
                        data,
                        tag: tag as u64,
                    })
                    .await
                    .is_err()
                {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        });
        let mut tags = Vec::new();
        let end = loop {
            match answers.message().await {
                Ok(Some(answer)) => {
                    assert_eq!(answer.report(), ReportCode::Success, "{}", answer.reason);
                    tags.push(answer.tag);
                    if tags.len() == 10 {
                        daemon.signal("TERM");
                    }
                }
                Ok(None) => break None,
                Err(status) => break Some(status),
            }
        };
        feeder.abort();
        let status = end.expect("the stream ends with a status: later requests are refused");
        assert_eq!(status.code(), Code::Unavailable, "{status:?}");
        assert_eq!(
            tags,
            (0..tags.len() as u64).collect::<Vec<_>>(),
            "answers in order, none lost"
        );
        assert!(tags.len() >= 10 && tags.len() < 60);
        let n = manager.recv(&mut buf).expect("STOPPING");
        assert_eq!(&buf[..n], b"STOPPING=1");
        let exit = daemon.wait();
        assert_eq!(exit.code(), Some(0), "{}", daemon.stderr());
        assert!(!daemon.socket.exists(), "the socket file is removed");
        assert_eq!(stats_lines(&station.stats(), "verifySignature"), tags.len());
        assert_eq!(stats_lines(&station.stats(), "createSignature"), 60);
    });
}

#[test]
fn sighup_reloads_the_trust_anchors() {
    let station = Station::new(&["A", "B"], 3, |c| c.pseudonyms.max_uses = 1000);
    run(async {
        let daemon = Daemon::start(&station, &[]);
        let mut client = daemon.client().await;
        let verify = |client: &mut security_entity_client::SecurityEntityClient<_>| {
            let mut client = client.clone();
            async move {
                let data = signed_messages(&mut client, 1).await.remove(0);
                client
                    .verify(VerifyRequest { data, tag: 0 })
                    .await
                    .expect("verify")
                    .into_inner()
                    .report()
            }
        };
        assert_eq!(verify(&mut client).await, ReportCode::Success);
        // Only PKI B's root is trusted now: A's tickets no longer verify.
        let mut only_b = station.config.clone();
        let b = station.testbed.pki("B").expect("B");
        only_b.trust.anchors = vec![b.dir.cert_path(vss_pki::store::Role::Root)];
        only_b.trust.authorities = Vec::new();
        station.write_config(&only_b);
        daemon.signal("HUP");
        let started = std::time::Instant::now();
        let refused = loop {
            let report = verify(&mut client).await;
            if report != ReportCode::Success || started.elapsed() > common::PATIENCE {
                break report;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        assert_ne!(refused, ReportCode::Success, "{}", daemon.stderr());
        station.write_config(&station.config);
        daemon.signal("HUP");
        let started = std::time::Instant::now();
        while verify(&mut client).await != ReportCode::Success {
            assert!(started.elapsed() < common::PATIENCE, "{}", daemon.stderr());
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
}

#[test]
fn a_bad_configuration_or_a_missing_pin_is_one_line_and_a_failure() {
    let station = Station::new(&["A"], 1, |_| {});
    let bad = station.dir.join("bad.toml");
    std::fs::write(&bad, "[hsm]\nstore = 3\n").expect("write");
    let mut no_pin = station.config.clone();
    no_pin.hsm.pin_file = None;
    let no_pin_path = station.dir.join("no-pin.toml");
    std::fs::write(&no_pin_path, toml::to_string(&no_pin).expect("toml")).expect("write");
    for (config, expected) in [(&bad, "bad.toml"), (&no_pin_path, "PIN")] {
        let (mut command, log) = command(config, &station.dir, &[]);
        let status = command.status().expect("vssd");
        let stderr = std::fs::read_to_string(&log).expect("log");
        assert!(!status.success());
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{stderr}");
        assert!(
            lines[0].starts_with("vssd: ") && lines[0].contains(expected),
            "{stderr}"
        );
    }
    // A log filter (VSS_LOG, or --log-level) that does not parse is a usage error (2), as
    // in `vss`.
    let (mut command, log) = command(&bad, &station.dir, &[("VSS_LOG", "vss=loud")]);
    let status = command.status().expect("vssd");
    let stderr = std::fs::read_to_string(&log).expect("log");
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--log-level"), "{stderr}");
}

#[test]
fn a_second_vssd_on_a_live_socket_is_refused() {
    let station = Station::new(&["A"], 1, |_| {});
    run(async {
        let _daemon = Daemon::start(&station, &[]);
        let (mut command, log) = command(&station.config_path, &station.dir, &[]);
        assert!(!command.status().expect("vssd").success());
        let stderr = std::fs::read_to_string(&log).expect("log");
        assert!(
            stderr.contains("another process is serving this socket"),
            "{stderr}"
        );
    });
}
