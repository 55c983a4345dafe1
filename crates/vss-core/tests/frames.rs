//! Frame encryption: a payload sealed for a certificate's encryption key opens with the
//! private key in the receiver's soft HSM; a changed byte, another receiver, truncated or
//! garbage bytes are refused with nothing released; the entity decrypts with its `[frames]`
//! certificate and key, and logs each call.

mod common;

use vss_core::frame::{encrypt_sending_frame, FrameContent, FrameReceiver};
use vss_crypto::{Curve, PrivateKey};
use vss_hsm::GenerateKeyRequest;
use vss_its::{asn, issue_certificate, Cert, CertificateRequest, ItsTime, Profile, Psid};

/// A certificate of the local AA for a station whose encryption key `label` is in its HSM.
fn receiver(s: &common::Station, label: &str) -> (Cert, FrameReceiver) {
    let enc = s
        .hsm
        .generate_key(&GenerateKeyRequest::new(label, Curve::P256))
        .expect("key");
    let mut request = CertificateRequest::new(
        Profile::At,
        PrivateKey::generate(Curve::P256)
            .expect("key")
            .public_key()
            .clone(),
        asn::Duration::Hours(24),
    );
    request.start = ItsTime::now();
    request.app_permissions = vec![vss_its::Permission::psid(Psid::CAM)];
    request.encryption_key = Some(s.hsm.public_key(&enc.handle).expect("public"));
    let cert = issue_certificate(&request, Some(&s.aa.cert), s.aa.key()).expect("cert");
    (cert.clone(), FrameReceiver::new(s.hsm.clone(), cert, label))
}

#[test]
fn a_frame_opens_for_its_receiver_only_and_unchanged() {
    let s = common::station(0);
    let (cert, rx) = receiver(&s, "enc-a");
    let (_, other) = receiver(&s, "enc-b");
    let frame = encrypt_sending_frame(b"platoon: close the gap", &cert).expect("seal");
    assert_eq!(
        rx.decrypt_received_frame(&frame).expect("open"),
        FrameContent::Payload(b"platoon: close the gap".to_vec())
    );
    assert!(
        other.decrypt_received_frame(&frame).is_err(),
        "another receiver"
    );
    let mut changed = frame.clone();
    let last = changed.len() - 1;
    changed[last] ^= 1;
    assert!(rx.decrypt_received_frame(&changed).is_err(), "changed tag");
    assert!(rx
        .decrypt_received_frame(&frame[..frame.len() - 5])
        .is_err());
    assert!(rx.decrypt_received_frame(b"not a frame").is_err());
    // Two frames of one payload differ (fresh key and nonce each time).
    assert_ne!(
        frame,
        encrypt_sending_frame(b"platoon: close the gap", &cert).expect("seal")
    );
}

#[test]
fn the_entity_decrypts_frames_for_its_configured_certificate_only() {
    let s = common::station(1);
    let (cert, _) = receiver(&s, "rx-enc");
    let (other, _) = receiver(&s, "other-enc");
    std::fs::write(s.dir.path().join("rx.cert"), cert.bytes()).expect("cert");
    let config = common::config_for(
        &s,
        "max_bytes = 100000\n[frames]\ncertificate = \"rx.cert\"\nkey = \"rx-enc\"\n",
    );
    let vss = vss_core::Vss::open_with_clock(&config, "1234", s.clock.clone()).expect("open");
    let frame = vss
        .encrypt_sending_frame(b"intersection: yield", &cert)
        .expect("seal");
    assert_eq!(
        vss.decrypt_received_frame(&frame).expect("open"),
        FrameContent::Payload(b"intersection: yield".to_vec())
    );
    let mut changed = frame.clone();
    changed[frame.len() / 2] ^= 0x80;
    assert!(vss.decrypt_received_frame(&changed).is_err(), "changed");
    let elsewhere = encrypt_sending_frame(b"not for us", &other).expect("seal");
    assert!(
        vss.decrypt_received_frame(&elsewhere).is_err(),
        "for another key"
    );
    let (summaries, _) = vss_core::stats::report(&config.statistics.dir).expect("report");
    let decrypt = summaries
        .iter()
        .find(|f| f.function == "decryptReceivedFrame")
        .expect("logged");
    assert_eq!(
        (decrypt.results.get("ok"), decrypt.results.get("error")),
        (Some(&1), Some(&2))
    );

    // Without [frames] a frame is refused with the reason; a missing key fails at open.
    let plain = common::config_for(&s, "max_bytes = 100000\n");
    let vss = vss_core::Vss::open_with_clock(&plain, "1234", s.clock.clone()).expect("open");
    assert!(matches!(
        vss.decrypt_received_frame(&frame),
        Err(vss_core::Error::NoFrameKey)
    ));
    let wrong = common::config_for(
        &s,
        "max_bytes = 100000\n[frames]\ncertificate = \"rx.cert\"\nkey = \"absent\"\n",
    );
    assert!(vss_core::Vss::open_with_clock(&wrong, "1234", s.clock.clone()).is_err());
}
