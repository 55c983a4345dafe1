//! The whole entity from a configuration file: a station's key store and repository, the
//! trust anchor and the AA known in advance, statistics on. It signs, verifies its own
//! messages, changes pseudonyms with the stack told, and logs each call to the rotating
//! statistics files, which the report reads back.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use vss_core::pseudonym::ChangeListener;
use vss_core::verify::Outcome;
use vss_core::{Error, Vss};
use vss_its::{HashedId8, Psid};

/// Counts the network-id changes it is told of.
#[derive(Default)]
struct NetworkId(AtomicUsize);

impl ChangeListener for NetworkId {
    fn before_change(&self, _: Option<HashedId8>, _: HashedId8) -> bool {
        true
    }

    fn after_change(&self, _: Option<HashedId8>, _: HashedId8) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn the_entity_signs_verifies_changes_and_logs_statistics() {
    let s = common::station(3);
    let config = common::config_for(&s, "max_bytes = 100000\n");
    let vss = Vss::open_with_clock(&config, "1234", s.clock.clone()).expect("open");
    let network = Arc::new(NetworkId::default());
    vss.register_network_id_listener(network.clone());
    for i in 0..12u8 {
        let signed = vss.create_signature(Psid::CAM, &[i]).expect("sign");
        match vss.verify_signature(&signed.bytes).expect("verify") {
            Outcome::Valid { payload, .. } => assert_eq!(payload, [i]),
            other => panic!("message {i}: {other:?}"),
        }
    }
    // 12 signatures at 5 per pseudonym: two changes, plus the first choice.
    assert_eq!(vss.pseudonyms().stats().changes, 2);
    assert_eq!(network.0.load(Ordering::SeqCst), 3);
    assert_eq!(vss.verify_counts().valid, 12);
    assert!(vss.create_signature(Psid::DENM, b"x").is_err());

    let (summary, skipped) = vss_core::stats::report(&s.dir.path().join("stats")).expect("report");
    assert_eq!(skipped, 0);
    let calls = |name: &str| {
        summary
            .iter()
            .find(|f| f.function == name)
            .map(|f| (f.calls, f.results.clone()))
            .expect(name)
    };
    let (signs, results) = calls("createSignature");
    assert_eq!((signs, results["ok"], results["error"]), (13, 12, 1));
    let (verifies, results) = calls("verifySignature");
    assert_eq!((verifies, results["Valid"]), (12, 12));
}

#[test]
fn a_wrong_pin_or_an_unknown_authority_stops_the_entity_with_a_clear_error() {
    let s = common::station(1);
    let config = common::config_for(&s, "");
    assert!(matches!(Vss::open(&config, "9999"), Err(Error::Hsm(_))));
    // An AA that does not chain to the anchor is refused at start.
    let other = common::station(0);
    std::fs::write(s.dir.path().join("aa.cert"), other.aa.cert.bytes()).expect("aa");
    let err = Vss::open(&config, "1234").err().expect("refused");
    assert!(err.to_string().contains("aa.cert"), "{err}");
}

#[test]
fn a_batch_verifies_in_order_and_a_reload_changes_the_anchors_only_when_they_load() {
    use vss_core::sign::SignOptions;
    use vss_its::Verdict;

    let s = common::station(3);
    let mut config = common::config_for(&s, "");
    let vss = Vss::open_with_clock(&config, "1234", s.clock.clone()).expect("open");
    vss.register_network_id_listener(Arc::new(NetworkId::default()));
    let sign = |payload: &[u8]| {
        vss.create_signature(Psid::CAM, payload)
            .expect("sign")
            .bytes
    };

    let (first, second) = (sign(b"one"), sign(b"two"));
    let mut tampered = sign(b"three");
    let last = tampered.len() - 1;
    tampered[last] ^= 1;
    let outcomes = vss
        .verify_batch(&[&first, &tampered, b"\x03junk", &second])
        .expect("batch");
    let verdict = |o: &Outcome| match o {
        Outcome::Valid { payload, .. } => Ok(payload.clone()),
        Outcome::Invalid { verdict, .. } => Err(*verdict),
        Outcome::Skipped { .. } => panic!("skipped"),
    };
    assert_eq!(verdict(&outcomes[0]), Ok(b"one".to_vec()));
    assert_eq!(verdict(&outcomes[1]), Err(Verdict::FalseSignature));
    assert_eq!(verdict(&outcomes[2]), Err(Verdict::Malformed));
    assert_eq!(verdict(&outcomes[3]), Ok(b"two".to_vec()));

    // An SSP the ticket does not grant is refused; the certificate goes whole when asked.
    let asked = SignOptions {
        ssp: vec![1],
        ..SignOptions::psid(Psid::CAM)
    };
    assert!(matches!(
        vss.create_signature_with(&asked, b"x"),
        Err(Error::SspNotGranted(Psid::CAM))
    ));
    assert!(
        !vss.create_signature(Psid::CAM, b"digest")
            .expect("sign")
            .with_certificate
    );
    let whole = SignOptions {
        with_certificate: true,
        ..SignOptions::psid(Psid::CAM)
    };
    assert!(
        vss.create_signature_with(&whole, b"c")
            .expect("sign")
            .with_certificate
    );

    // Anchors that do not load change nothing; another root makes the station untrusted;
    // the first configuration again makes it trusted.
    let good = config.clone();
    config.trust.anchors = vec![s.dir.path().join("missing.cert")];
    assert!(matches!(vss.reload(&config), Err(Error::Config { .. })));
    let still = vss.create_signature_with(&whole, b"still").expect("sign");
    let still = vss.verify_signature(&still.bytes).expect("verify");
    assert!(matches!(still, Outcome::Valid { .. }), "{still:?}");
    let other = common::other_root(&s);
    config.trust.anchors = vec![other];
    config.trust.authorities = Vec::new();
    vss.reload(&config).expect("reload");
    let refused = vss.create_signature_with(&whole, b"after").expect("sign");
    assert!(matches!(
        vss.verify_signature(&refused.bytes).expect("verify"),
        Outcome::Invalid { .. }
    ));
    vss.reload(&good).expect("reload");
    let trusted = vss.create_signature_with(&whole, b"again").expect("sign");
    assert!(matches!(
        vss.verify_signature(&trusted.bytes).expect("verify"),
        Outcome::Valid { .. }
    ));

    let (summary, _) = vss_core::stats::report(&s.dir.path().join("stats")).expect("report");
    let verifies = summary
        .iter()
        .find(|f| f.function == "verifySignature")
        .expect("verifySignature");
    assert_eq!(verifies.calls, 7);
}
