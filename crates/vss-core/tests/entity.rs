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
use vss_its::HashedId8;

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
        let signed = vss.create_signature(36, &[i]).expect("sign");
        match vss.verify_signature(&signed.bytes).expect("verify") {
            Outcome::Valid { payload, .. } => assert_eq!(payload, [i]),
            other => panic!("message {i}: {other:?}"),
        }
    }
    // 12 signatures at 5 per pseudonym: two changes, plus the first choice.
    assert_eq!(vss.pseudonyms().stats().changes, 2);
    assert_eq!(network.0.load(Ordering::SeqCst), 3);
    assert_eq!(vss.verify_counts().valid, 12);
    assert!(vss.create_signature(37, b"x").is_err());

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
