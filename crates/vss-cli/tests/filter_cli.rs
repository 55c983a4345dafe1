//! `vss filter` over real UDP sockets on loopback: 10,000 valid messages are forwarded
//! (payloads only, each once, unchanged, in order) and 10,000 invalid ones of every kind
//! (forged generation times among them) are dropped and counted by verdict, none wrongly,
//! one at a time and in batches; under a flood of copies each message goes out once (every
//! copy without the replay check); bad arguments are one-line errors.

mod common;

use std::collections::{BTreeMap, HashSet};
use std::io::{BufRead, BufReader};
use std::net::UdpSocket;
use std::process::Stdio;
use std::time::{Duration, SystemTime};

use common::{run, vss};
use vss_crypto::{Curve, PrivateKey};
use vss_its::{
    asn, issue_certificate, Cert, CertificateRequest, ItsTime, Permission, Profile, Psid,
    SignedDataRequest, SignerKind,
};

const VALID: usize = 10_000;
const INVALID: usize = 10_000;
/// Valid messages sent but not yet seen forwarded; keeps the filter's receive buffer from
/// overflowing (a forwarded payload proves every earlier datagram was handled).
const WINDOW: usize = 32;

/// A root and an AA below it (the AA may issue PSIDs 36 and 37).
struct Authority {
    root: Cert,
    aa: Cert,
    aa_key: PrivateKey,
    root_key: PrivateKey,
}

impl Authority {
    fn new(name: &str) -> Self {
        // Started three days ago, so an expired ticket fits inside; one start for both, so
        // the AA's year ends with the root's.
        let start = shifted(-72);
        let request = |profile, key: &PrivateKey, name: &str| {
            let mut r =
                CertificateRequest::new(profile, key.public_key().clone(), asn::Duration::Years(1));
            r.name = Some(name.into());
            r.start = start;
            r
        };
        let root_key = PrivateKey::generate(Curve::P256).expect("key");
        let root = issue_certificate(&request(Profile::Root, &root_key, name), None, &root_key)
            .expect("root");
        let aa_key = PrivateKey::generate(Curve::P256).expect("key");
        let mut aa = request(Profile::Aa, &aa_key, &format!("{name}-aa"));
        aa.issue_psids = vec![Psid::CAM, Psid::DENM];
        aa.encryption_key = Some(
            PrivateKey::generate(Curve::P256)
                .expect("key")
                .public_key()
                .clone(),
        );
        let aa = issue_certificate(&aa, Some(&root), &root_key).expect("aa");
        Authority {
            root,
            aa,
            aa_key,
            root_key,
        }
    }

    /// A ticket for `psid`, valid from `start` for a day.
    fn ticket(&self, psid: Psid, start: ItsTime) -> (Cert, PrivateKey) {
        let key = PrivateKey::generate(Curve::P256).expect("key");
        let mut r = CertificateRequest::new(
            Profile::At,
            key.public_key().clone(),
            asn::Duration::Hours(24),
        );
        r.start = start;
        r.app_permissions = vec![Permission::psid(psid)];
        (
            issue_certificate(&r, Some(&self.aa), &self.aa_key).expect("ticket"),
            key,
        )
    }
}

fn sign(ticket: &(Cert, PrivateKey), payload: &[u8], signer: SignerKind) -> Vec<u8> {
    sign_at(ticket, payload, signer, ItsTime::now())
}

fn sign_at(
    ticket: &(Cert, PrivateKey),
    payload: &[u8],
    signer: SignerKind,
    generated: ItsTime,
) -> Vec<u8> {
    let mut request = SignedDataRequest::new(Psid::CAM, payload);
    request.generation_time = Some(generated);
    request.signer = signer;
    let data = vss_its::sign_data(&request, Some(&ticket.0), &ticket.1).expect("sign");
    vss_its::encode_data(&data).expect("encode")
}

fn shifted(hours: i64) -> ItsTime {
    let now = SystemTime::now();
    let by = Duration::from_secs(hours.unsigned_abs() * 3600);
    ItsTime::from_system_time(if hours < 0 { now - by } else { now + by }).expect("a 1609.2 time")
}

/// The invalid messages, one kind after another in turn, with the verdict each must get.
fn invalid_messages(trusted: &Authority) -> Vec<(Vec<u8>, &'static str)> {
    let stranger = Authority::new("stranger");
    let untrusted = stranger.ticket(Psid::CAM, ItsTime::now());
    let expired = trusted.ticket(Psid::CAM, shifted(-48));
    let early = trusted.ticket(Psid::CAM, shifted(48));
    let denm_only = trusted.ticket(Psid::DENM, ItsTime::now());
    let unseen = trusted.ticket(Psid::CAM, ItsTime::now());
    let honest = trusted.ticket(Psid::CAM, ItsTime::now());
    let foreign_root = (stranger.root.clone(), stranger.root_key);
    (0..INVALID)
        .map(|i| {
            let payload = format!("refused #{i:05}");
            match i % 10 {
                0 => {
                    let mut bytes = sign(&honest, payload.as_bytes(), SignerKind::Certificate);
                    let last = bytes.len() - 1;
                    bytes[last] ^= 0x01;
                    (bytes, "FalseSignature")
                }
                1 => {
                    let mut bytes = sign(&honest, payload.as_bytes(), SignerKind::Certificate);
                    let at = bytes
                        .windows(payload.len())
                        .position(|w| w == payload.as_bytes())
                        .expect("payload inline");
                    bytes[at] ^= 0x20;
                    (bytes, "FalseSignature")
                }
                // The ticket's AA is known nowhere: its issuer cannot be found.
                2 => (
                    sign(&untrusted, payload.as_bytes(), SignerKind::Certificate),
                    "SignerNotFound",
                ),
                3 => (
                    sign(&expired, payload.as_bytes(), SignerKind::Certificate),
                    "Expired",
                ),
                4 => (
                    sign(&early, payload.as_bytes(), SignerKind::Certificate),
                    "NotYetValid",
                ),
                5 => (
                    sign(&denm_only, payload.as_bytes(), SignerKind::Certificate),
                    "InsufficientPermissions",
                ),
                6 => (
                    sign(&unseen, payload.as_bytes(), SignerKind::Digest),
                    "SignerNotFound",
                ),
                7 => (
                    sign(&foreign_root, payload.as_bytes(), SignerKind::Certificate),
                    "UntrustedRoot",
                ),
                // Issue 18: a generation time whose top byte is 0xFF stopped the filter.
                8 => (
                    sign_at(
                        &honest,
                        payload.as_bytes(),
                        SignerKind::Certificate,
                        ItsTime::from_time64(&asn::Time64(0xFF00_0000_0000_0000 | i as u64)),
                    ),
                    "InvalidTimestamp",
                ),
                _ => {
                    let bytes = sign(&honest, payload.as_bytes(), SignerKind::Digest);
                    let cut = 1 + i % (bytes.len() - 1);
                    (bytes[..cut].to_vec(), "Malformed")
                }
            }
        })
        .collect()
}

fn free_udp_port() -> u16 {
    UdpSocket::bind("127.0.0.1:0")
        .and_then(|s| s.local_addr())
        .expect("port")
        .port()
}

#[test]
fn ten_thousand_valid_messages_go_through_and_ten_thousand_invalid_ones_do_not() {
    filter_ten_thousand_each(&["--batch", "1"]);
}

#[test]
fn the_same_in_batches_of_256_within_2_ms() {
    filter_ten_thousand_each(&["--batch", "256", "--deadline-ms", "2"]);
}

/// Runs `vss filter` with `batching` over 10,000 valid and 10,000 invalid messages.
fn filter_ten_thousand_each(batching: &[&str]) {
    let dir = tempfile::tempdir().expect("tempdir");
    let trusted = Authority::new("trusted");
    let tickets: Vec<_> = (0..4)
        .map(|_| trusted.ticket(Psid::CAM, ItsTime::now()))
        .collect();
    let valid: Vec<(Vec<u8>, Vec<u8>)> = (0..VALID)
        .map(|i| {
            let payload = format!("CAM #{i:05} from station {}", i % 4).into_bytes();
            // Each ticket's first message carries it whole; later ones name it by digest.
            let signer = if i < 4 {
                SignerKind::Certificate
            } else {
                SignerKind::Digest
            };
            (sign(&tickets[i % 4], &payload, signer), payload)
        })
        .collect();
    let invalid = invalid_messages(&trusted);

    // The messages are all signed before the first is sent: on a slow machine that can take
    // longer than the default 10 s window.
    let options = [&["--replay-max-age-ms", "600000"][..], batching].concat();
    let (child, listen, receiver) = start_filter(dir.path(), &trusted, VALID + INVALID, &options);

    let sender = UdpSocket::bind("127.0.0.1:0").expect("sender");
    let mut forwarded: Vec<Vec<u8>> = Vec::with_capacity(VALID);
    let mut buffer = vec![0u8; 65_536];
    let mut receive_one = |forwarded: &mut Vec<Vec<u8>>| {
        let (len, _) = receiver
            .recv_from(&mut buffer)
            .expect("a forwarded payload");
        forwarded.push(buffer[..len].to_vec());
    };
    for (i, (message, _)) in valid.iter().enumerate() {
        sender.send_to(&invalid[i].0, &listen).expect("send");
        sender.send_to(message, &listen).expect("send");
        while i + 1 - forwarded.len() > WINDOW {
            receive_one(&mut forwarded);
        }
    }
    while forwarded.len() < VALID {
        receive_one(&mut forwarded);
    }
    let output = child.wait_with_output().expect("vss filter ends");
    assert!(output.status.success(), "{output:?}");

    // Exactly the valid payloads, each once and unchanged, in the order sent.
    let sent: Vec<&Vec<u8>> = valid.iter().map(|(_, p)| p).collect();
    assert_eq!(forwarded.len(), VALID);
    assert!(forwarded.iter().zip(&sent).all(|(f, s)| f == *s));
    assert_eq!(forwarded.iter().collect::<HashSet<_>>().len(), VALID);
    receiver
        .set_read_timeout(Some(Duration::from_millis(200)))
        .expect("timeout");
    assert!(receiver.recv_from(&mut buffer).is_err(), "nothing more");

    let summary: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON summary");
    let mut expected: BTreeMap<&str, u64> = BTreeMap::new();
    for (_, verdict) in &invalid {
        *expected.entry(verdict).or_default() += 1;
    }
    assert_eq!(summary["received"], (VALID + INVALID) as u64);
    assert_eq!(summary["forwarded"], VALID as u64);
    assert_eq!(summary["dropped"], INVALID as u64);
    assert_eq!(summary["dropped_by_reason"], serde_json::json!(expected));
}

/// Starts `vss filter` trusting `trusted`, with `extra` options, for `count` datagrams; the
/// child, where it listens, and the socket payloads come to.
fn start_filter(
    dir: &std::path::Path,
    trusted: &Authority,
    count: usize,
    extra: &[&str],
) -> (std::process::Child, String, UdpSocket) {
    std::fs::write(dir.join("root.cert"), trusted.root.bytes()).expect("root");
    std::fs::write(dir.join("aa.cert"), trusted.aa.bytes()).expect("aa");
    let receiver = UdpSocket::bind("127.0.0.1:0").expect("receiver");
    receiver
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    let listen = format!("127.0.0.1:{}", free_udp_port());
    let mut child = vss()
        .args(["filter", "--listen", &format!("udp:{listen}"), "--forward"])
        .arg(format!("udp:{}", receiver.local_addr().expect("address")))
        .arg("--anchor")
        .arg(dir.join("root.cert"))
        .arg("--authority")
        .arg(dir.join("aa.cert"))
        .args(["--count", &count.to_string(), "--format", "json"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("vss filter");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let mut line = String::new();
    stderr.read_line(&mut line).expect("first line");
    assert!(line.starts_with("filtering udp:"), "{line}");
    (child, listen, receiver)
}

#[test]
fn under_a_replay_flood_each_message_is_forwarded_once_and_every_copy_without_the_check() {
    let dir = tempfile::tempdir().expect("tempdir");
    let trusted = Authority::new("trusted");
    let ticket = trusted.ticket(Psid::CAM, ItsTime::now());
    const COPIES: usize = 200;
    for (extra, forwarded) in [(&[][..], 1), (&["--no-replay-check"][..], COPIES)] {
        let datagram = sign(&ticket, b"one CAM", SignerKind::Certificate);
        let (child, listen, receiver) = start_filter(dir.path(), &trusted, COPIES, extra);
        let sender = UdpSocket::bind("127.0.0.1:0").expect("sender");
        for i in 0..COPIES {
            sender.send_to(&datagram, &listen).expect("send");
            if i % 16 == 15 {
                // Keeps the filter's receive buffer from overflowing.
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        let output = child.wait_with_output().expect("vss filter ends");
        assert!(output.status.success(), "{output:?}");
        let summary: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("JSON summary");
        assert_eq!(summary["received"], COPIES as u64, "{extra:?}");
        assert_eq!(summary["forwarded"], forwarded as u64, "{extra:?}");
        let duplicates = summary["dropped_by_reason"]["DuplicateMessage"].as_u64();
        assert_eq!(
            duplicates.unwrap_or(0),
            (COPIES - forwarded) as u64,
            "{extra:?}"
        );
        let mut buffer = [0u8; 64];
        for _ in 0..forwarded {
            let (len, _) = receiver.recv_from(&mut buffer).expect("a payload");
            assert_eq!(&buffer[..len], b"one CAM");
        }
        receiver
            .set_read_timeout(Some(Duration::from_millis(200)))
            .expect("timeout");
        assert!(receiver.recv_from(&mut buffer).is_err(), "nothing more");
    }
}

#[test]
fn a_stale_message_is_refused_as_an_invalid_timestamp_and_windows_out_of_range_are_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let trusted = Authority::new("trusted");
    let ticket = trusted.ticket(Psid::CAM, shifted(-1));
    let minute_ago = ItsTime::from_system_time(SystemTime::now() - Duration::from_secs(60))
        .expect("a 1609.2 time");
    let stale = sign_at(&ticket, b"old CAM", SignerKind::Certificate, minute_ago);
    let (child, listen, _receiver) = start_filter(dir.path(), &trusted, 1, &[]);
    UdpSocket::bind("127.0.0.1:0")
        .expect("sender")
        .send_to(&stale, &listen)
        .expect("send");
    let output = child.wait_with_output().expect("vss filter ends");
    let summary: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(summary["forwarded"], 0);
    assert_eq!(summary["dropped_by_reason"]["InvalidTimestamp"], 1);

    for (flag, value) in [
        ("--replay-max-age-ms", "0"),
        ("--replay-max-age-ms", "3600001"),
        ("--replay-max-lead-ms", "60001"),
        ("--replay-capacity", "0"),
        ("--replay-capacity", "16777217"),
    ] {
        let out = run(vss().args([
            "filter",
            "--listen",
            "udp:127.0.0.1:0",
            "--forward",
            "udp:127.0.0.1:9",
            "--anchor",
            "root.cert",
            flag,
            value,
        ]))
        .failure();
        assert!(out.stderr.contains(flag), "{flag} {value}: {}", out.stderr);
    }
}

#[test]
fn bad_addresses_and_anchors_are_one_line_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = Authority::new("r").root;
    std::fs::write(dir.path().join("root.cert"), root.bytes()).expect("root");
    std::fs::write(dir.path().join("junk.cert"), b"not a certificate").expect("junk");
    let filter = |listen: &str, anchor: &str| {
        let mut cmd = vss();
        cmd.args([
            "filter",
            "--listen",
            listen,
            "--forward",
            "udp:127.0.0.1:9",
            "--anchor",
        ])
        .arg(dir.path().join(anchor));
        cmd
    };
    let out = run(&mut filter("tcp:127.0.0.1:4000", "root.cert")).failure();
    assert!(out.stderr.contains("udp:HOST:PORT"), "{}", out.stderr);
    let out = run(&mut filter("udp:127.0.0.1:0", "junk.cert"))
        .failure()
        .one_line_stderr();
    assert!(out.stderr.contains("junk.cert"), "{}", out.stderr);
    let out = run(&mut filter("udp:127.0.0.1:0", "missing.cert"))
        .failure()
        .one_line_stderr();
    assert!(out.stderr.contains("missing.cert"), "{}", out.stderr);
    for (flag, value) in [
        ("--batch", "0"),
        ("--deadline-ms", "0"),
        ("--engine", "fpga"),
    ] {
        let out = run(filter("udp:127.0.0.1:0", "root.cert").args([flag, value])).failure();
        assert!(out.stderr.contains(flag), "{flag} {value}: {}", out.stderr);
    }
}

/// Datagrams that only probe whether the events socket has taken its client yet.
const PROBES: usize = 100;

#[test]
fn every_dropped_datagram_is_told_on_the_events_socket_and_valid_ones_are_not() {
    let dir = tempfile::tempdir().expect("tempdir");
    let trusted = Authority::new("trusted");
    let honest = trusted.ticket(Psid::CAM, ItsTime::now());
    let socket = dir.path().join("events.sock");
    let socket_arg = socket.to_str().expect("UTF-8 path");
    let invalid: Vec<_> = invalid_messages(&trusted).into_iter().take(10).collect();
    let (child, listen, _receiver) = start_filter(
        dir.path(),
        &trusted,
        invalid.len() + 1 + PROBES,
        &["--events", socket_arg, "--batch", "1"],
    );
    let events = std::os::unix::net::UnixStream::connect(&socket).expect("events socket");
    events
        .set_read_timeout(Some(Duration::from_millis(100)))
        .expect("timeout");
    let control = events.try_clone().expect("a second handle");
    let mut lines = BufReader::new(events).lines();
    // The hub takes its client on a thread of its own: events published before that are
    // not this client's. Probes from another socket until one is told.
    let prober = UdpSocket::bind("127.0.0.1:0").expect("prober");
    let probe_source = format!("udp:{}", prober.local_addr().expect("address"));
    let mut probes = 0;
    loop {
        assert!(probes < PROBES, "no event within {PROBES} probes");
        prober.send_to(b"probe", &listen).expect("send");
        probes += 1;
        if lines.next().is_some_and(|line| line.is_ok()) {
            break;
        }
    }
    control
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    let sender = UdpSocket::bind("127.0.0.1:0").expect("sender");
    let from = format!("udp:{}", sender.local_addr().expect("address"));
    sender
        .send_to(&sign(&honest, b"valid", SignerKind::Certificate), &listen)
        .expect("send");
    for (datagram, _) in &invalid {
        sender.send_to(datagram, &listen).expect("send");
    }
    let mut told = lines.filter_map(|line| {
        let line = line.expect("a line");
        let event: serde_json::Value = serde_json::from_str(&line).expect("JSON");
        (event["source"] != probe_source.as_str()).then_some((line, event))
    });
    for (i, (datagram, verdict)) in invalid.iter().enumerate() {
        let (line, event) = told.next().expect("an event");
        assert_eq!(event["event"], "dropped", "{line}");
        assert_eq!(event["report"], *verdict, "#{i}: {line}");
        assert!(event["code"].as_u64().is_some_and(|c| c > 0), "{line}");
        assert_eq!(event["source"], from.as_str(), "{line}");
        match vss_its::SignedMessage::from_bytes(datagram) {
            Ok(message) => {
                assert_eq!(
                    event["its_aid"].as_u64(),
                    message.psid().map(|p| p.value()),
                    "{line}"
                );
                assert_eq!(
                    event["signer"].as_str(),
                    message.signer_id().map(|s| s.to_string()).as_deref(),
                    "{line}"
                );
            }
            Err(_) => assert!(event.get("signer").is_none(), "a malformed one: {line}"),
        }
    }
    // The probes not needed bring the filter to its count.
    for _ in probes..PROBES {
        prober.send_to(b"probe", &listen).expect("send");
    }
    let output = child.wait_with_output().expect("vss filter ends");
    assert!(output.status.success(), "{output:?}");
    let summary: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(summary["forwarded"], 1);
    assert_eq!(summary["dropped"], (invalid.len() + PROBES) as u64);
    assert!(!socket.exists(), "the events socket is removed at the end");
}
