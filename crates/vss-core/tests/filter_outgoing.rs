//! The filter's outgoing direction over real UDP sockets on loopback: each payload comes
//! back as signed data that a receiver trusting the station's root verifies, under the CAM
//! profile (the certificate first, then the digest), across pseudonym changes that the
//! events socket announces; a PSID the tickets do not permit is counted, not sent.

mod common;

use std::net::UdpSocket;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use vss_core::events::EventHub;
use vss_core::filter::{sending_socket, Outgoing, SignCounts};
use vss_core::Vss;
use vss_its::{ItsTime, Psid, SignedMessage, Verdict};

/// The payloads sent (the configuration changes pseudonyms every 5 signatures).
const PAYLOADS: usize = 12;

/// A socket receiving what the signer sends, and one sending to the signer's `listen`.
fn sockets() -> (UdpSocket, UdpSocket, UdpSocket) {
    let listen = UdpSocket::bind("127.0.0.1:0").expect("bind");
    let receiver = UdpSocket::bind("127.0.0.1:0").expect("bind");
    receiver
        .set_read_timeout(Some(Duration::from_secs(2)))
        .expect("timeout");
    let input = sending_socket(listen.local_addr().expect("addr")).expect("input");
    (listen, receiver, input)
}

#[test]
fn payloads_come_back_signed_and_pseudonym_changes_are_announced() {
    let s = common::station(4);
    let config = common::config_for(&s, "");
    let vss = Arc::new(Vss::open(&config, "1234").expect("entity"));
    let path = s.dir.path().join("events.sock");
    let hub = Arc::new(EventHub::bind(&path).expect("events"));
    let mut events = common::gn::listen(&path);
    let outgoing = Outgoing::new(vss, Psid::CAM, Some(hub));
    let (listen, receiver, input) = sockets();
    let to = sending_socket(receiver.local_addr().expect("addr")).expect("to");
    let signing = outgoing
        .spawn(listen, to, |e| panic!("cannot sign: {e}"))
        .expect("spawn");

    let mut validator = common::validator(&s);
    let mut signers = Vec::new();
    let mut by_digest = 0;
    let mut buffer = vec![0; 2048];
    for i in 0..PAYLOADS {
        let payload = format!("CAM {i}");
        input.send(payload.as_bytes()).expect("send");
        let len = receiver.recv(&mut buffer).expect("a signed message");
        let report = validator.verify_data(&buffer[..len], &[], ItsTime::now());
        assert_eq!(report.verdict, Verdict::Valid, "{i}: {}", report.reason);
        let message = SignedMessage::from_bytes(&buffer[..len]).expect("signed data");
        assert_eq!(message.psid(), Some(Psid::CAM));
        assert_eq!(message.payload(), Some(payload.as_bytes()));
        let signer = message.signer_id().expect("a signer");
        let with_certificate = message.signer_digest().is_none();
        by_digest += usize::from(!with_certificate);
        if signers.last() != Some(&signer) {
            assert!(with_certificate, "{i}: a new pseudonym's first CAM");
            signers.push(signer);
        }
    }
    let counts = signing.stop().expect("counts");
    assert_eq!(
        counts,
        SignCounts {
            received: PAYLOADS as u64,
            sent: PAYLOADS as u64,
            ..SignCounts::default()
        }
    );
    assert_eq!(signers.len(), PAYLOADS.div_ceil(5), "a change every 5");
    assert!(
        by_digest > 0,
        "within a second, a CAM names its signer by digest"
    );
    for (i, signer) in signers.iter().enumerate() {
        let event = common::gn::next_event(&mut events);
        assert_eq!(event["event"], "id_change");
        assert_eq!(event["signer"], signer.to_string());
        assert!(event.get("mac").is_none(), "UDP has no radio MAC: {event}");
        if i > 0 {
            assert_eq!(event["from"], signers[i - 1].to_string());
        }
    }
}

#[test]
fn a_psid_the_tickets_do_not_permit_is_counted_and_nothing_is_sent() {
    let s = common::station(1);
    let config = common::config_for(&s, "");
    let vss = Arc::new(Vss::open(&config, "1234").expect("entity"));
    let outgoing = Outgoing::new(vss, Psid::DENM, None);
    let (listen, receiver, input) = sockets();
    receiver
        .set_read_timeout(Some(Duration::from_millis(300)))
        .expect("timeout");
    let to = sending_socket(receiver.local_addr().expect("addr")).expect("to");
    let failures = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&failures);
    let signing = outgoing
        .spawn(listen, to, move |e| {
            assert!(
                matches!(e, vss_core::Error::PsidNotPermitted(p) if *p == Psid::DENM),
                "{e}"
            );
            counted.fetch_add(1, Ordering::SeqCst);
        })
        .expect("spawn");
    input.send(b"DENM").expect("send");
    let mut buffer = [0; 64];
    assert!(receiver.recv(&mut buffer).is_err(), "nothing is sent");
    let counts = signing.stop().expect("counts");
    assert_eq!(
        (counts.received, counts.sign_failed, counts.sent),
        (1, 1, 0)
    );
    assert_eq!(failures.load(Ordering::SeqCst), 1);
}
