//! Frame encryption: a payload sealed for a certificate's encryption key opens with the
//! private key in the receiver's soft HSM; a changed byte, another receiver, truncated or
//! garbage bytes are refused with nothing released.

mod common;

use vss_core::frame::{encrypt_sending_frame, FrameContent, FrameReceiver};
use vss_crypto::{Curve, PrivateKey};
use vss_hsm::GenerateKeyRequest;
use vss_its::{asn, issue_certificate, Cert, CertificateRequest, ItsTime, Profile};

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
    request.app_permissions = vec![vss_its::Permission::psid(36)];
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
