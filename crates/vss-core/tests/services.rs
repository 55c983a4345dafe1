//! The sign and verify services together: a station signs with its pseudonyms (keys in a
//! soft HSM), a receiver verifies under the root; the certificate goes whole once a second,
//! after a change and when a peer asks; only valid payloads are released; sampling and
//! on-demand verification count what they skip and verify it when asked.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{manager, rules, station, Station};
use vss_core::config::{PolicyKind, VerificationConfig};
use vss_core::replay::ReplayConfig;
use vss_core::sign::Signed;
use vss_core::verify::Outcome;
use vss_core::{Error, SignService, VerificationPolicy, VerifyService};
use vss_engine::CpuEngine;
use vss_its::{Psid, Verdict};

fn signer(s: &Station, max_uses: u64) -> SignService {
    SignService::new(
        manager(s, rules(max_uses, 0, false), false),
        s.hsm.clone(),
        s.clock.clone(),
    )
}

fn receiver(s: &Station, policy: PolicyKind, sample_every: u64) -> VerifyService {
    VerifyService::new(
        common::validator(s),
        VerificationPolicy::new(&VerificationConfig {
            policy,
            sample_every,
            ..VerificationConfig::default()
        }),
        s.clock.clone(),
        Arc::new(CpuEngine::new(2)),
    )
}

fn payload_of(outcome: Outcome) -> Vec<u8> {
    match outcome {
        Outcome::Valid { payload, psid, .. } => {
            assert_eq!(psid, Psid::CAM);
            payload
        }
        other => panic!("not valid: {other:?}"),
    }
}

#[test]
fn signed_messages_verify_and_the_certificate_goes_whole_once_a_second() {
    let s = station(3);
    let (tx, rx) = (signer(&s, 100), receiver(&s, PolicyKind::Always, 1));
    let first = tx.sign(Psid::CAM, b"cam 1").expect("sign");
    assert!(first.with_certificate);
    assert_eq!(payload_of(rx.receive(&first.bytes)), b"cam 1");
    let second = tx.sign(Psid::CAM, b"cam 2").expect("sign");
    assert!(!second.with_certificate, "digest within the second");
    assert_eq!(payload_of(rx.receive(&second.bytes)), b"cam 2");
    s.clock.advance(Duration::from_secs(1));
    assert!(tx.sign(Psid::CAM, b"cam 3").expect("sign").with_certificate);
    assert!(!tx.sign(Psid::CAM, b"cam 4").expect("sign").with_certificate);
    // A peer asks for the certificate (inline P2PCD): the next message carries it.
    let current = tx.pseudonyms().current().expect("current");
    let entry_id3 = first_id3(&s, current);
    tx.certificate_requested(entry_id3);
    assert!(tx.sign(Psid::CAM, b"cam 5").expect("sign").with_certificate);
    // After a change, the new certificate goes whole at once.
    tx.pseudonyms().change_pseudonym().expect("change");
    let after = tx.sign(Psid::CAM, b"cam 6").expect("sign");
    assert!(after.with_certificate);
    assert_ne!(after.signer, current);
    assert_eq!(payload_of(rx.receive(&after.bytes)), b"cam 6");
    assert_eq!(rx.counts().valid, 3);
}

/// The HashedId3 of the ticket with HashedId8 `id` in the station's repository.
fn first_id3(s: &Station, id: vss_its::HashedId8) -> vss_its::HashedId3 {
    let repository =
        vss_pki::station::Repository::open(&s.dir.path().join("repository")).expect("repo");
    repository
        .list(vss_pki::station::CertKind::Pseudonym)
        .expect("list")
        .into_iter()
        .find(|e| e.cert.hashed_id8() == id)
        .expect("the current ticket")
        .cert
        .hashed_id3()
}

#[test]
fn a_tampered_or_malformed_message_releases_nothing() {
    let s = station(1);
    let (tx, rx) = (signer(&s, 100), receiver(&s, PolicyKind::Always, 1));
    let signed = tx.sign(Psid::CAM, b"brake!").expect("sign");
    let mut tampered = signed.bytes.clone();
    let at = tampered
        .windows(6)
        .position(|w| w == b"brake!")
        .expect("payload in the message");
    tampered[at] ^= 0x20;
    assert!(matches!(
        rx.receive(&tampered),
        Outcome::Invalid {
            verdict: Verdict::FalseSignature,
            ..
        }
    ));
    assert!(matches!(
        rx.receive(&signed.bytes[..signed.bytes.len() / 2]),
        Outcome::Invalid {
            verdict: Verdict::Malformed,
            ..
        }
    ));
    assert_eq!(rx.counts().invalid, 2);
    assert_eq!(rx.counts().valid, 0);
}

#[test]
fn a_psid_the_pseudonym_does_not_permit_is_refused() {
    let s = station(1);
    let tx = signer(&s, 100);
    assert!(matches!(
        tx.sign(Psid::DENM, b"denm"),
        Err(Error::PsidNotPermitted(Psid::DENM))
    ));
}

#[test]
fn sampling_verifies_one_in_n_and_the_rest_on_demand() {
    let s = station(1);
    let (tx, rx) = (signer(&s, 100), receiver(&s, PolicyKind::Sampling, 3));
    let outcomes: Vec<Outcome> = (0..7)
        .map(|i| rx.receive(&tx.sign(Psid::CAM, &[i]).expect("sign").bytes))
        .collect();
    let verified: Vec<usize> = outcomes
        .iter()
        .enumerate()
        .filter(|(_, o)| matches!(o, Outcome::Valid { .. }))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(verified, [0, 3, 6]);
    let counts = rx.counts();
    assert_eq!((counts.policy.verified, counts.policy.skipped), (3, 4));
    let Outcome::Skipped { id } = outcomes[1] else {
        panic!("message 1 was skipped");
    };
    assert_eq!(payload_of(rx.verify_on_demand(id).expect("pending")), [1]);
    assert!(matches!(
        rx.verify_on_demand(id),
        Err(Error::UnknownMessage(_))
    ));
    assert!(matches!(
        rx.verify_on_demand(9999),
        Err(Error::UnknownMessage(_))
    ));
    assert_eq!(rx.counts().on_demand, 1);
}

#[test]
fn on_demand_verifies_nothing_until_asked() {
    let s = station(1);
    let (tx, rx) = (signer(&s, 100), receiver(&s, PolicyKind::OnDemand, 1));
    let ids: Vec<u64> = (0..4)
        .map(
            |i| match rx.receive(&tx.sign(Psid::CAM, &[i]).expect("sign").bytes) {
                Outcome::Skipped { id } => id,
                other => panic!("verified without being asked: {other:?}"),
            },
        )
        .collect();
    assert_eq!(rx.counts().valid + rx.counts().invalid, 0);
    // The first carries the certificate; once it is verified, the digests resolve.
    for (i, id) in ids.into_iter().enumerate() {
        assert_eq!(
            payload_of(rx.verify_on_demand(id).expect("pending")),
            [i as u8]
        );
    }
    let counts = rx.counts();
    assert_eq!(
        (counts.on_demand, counts.valid, counts.policy.skipped),
        (4, 4, 4)
    );
}

#[test]
fn services_can_be_shared_between_threads() {
    let s = station(2);
    let (tx, rx) = (
        Arc::new(signer(&s, 10)),
        Arc::new(receiver(&s, PolicyKind::Always, 1)),
    );
    // Four threads sign five messages each at once; then four threads receive them at once,
    // those that carry their certificate first (a digest-signed message that overtook its
    // certificate would be refused as from an unknown signer, which is not what this tests).
    let signed: Vec<Signed> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..4u8)
            .map(|t| {
                let tx = tx.clone();
                scope.spawn(move || {
                    (0..5u8)
                        .map(|i| tx.sign(Psid::CAM, &[t, i]).expect("sign"))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("signer thread"))
            .collect()
    });
    assert_eq!(signed.len(), 20);
    let (whole, by_digest): (Vec<&Signed>, Vec<&Signed>) =
        signed.iter().partition(|m| m.with_certificate);
    for phase in [whole, by_digest] {
        std::thread::scope(|scope| {
            for share in phase.chunks(phase.len().div_ceil(4).max(1)) {
                let rx = rx.clone();
                scope.spawn(move || {
                    for message in share {
                        payload_of(rx.receive(&message.bytes));
                    }
                });
            }
        });
    }
    let counts = rx.counts();
    assert_eq!((counts.valid, counts.invalid), (20, 0));
    // Twenty signatures at ten per pseudonym: it changed while other threads were signing,
    // and no signature lost its key to the retirement of the old one.
    let stats = tx.pseudonyms().stats();
    assert_eq!(stats.changes, 1);
    assert_eq!(stats.retire_failures, 0);
}

#[test]
fn a_replay_window_accepts_a_message_once_and_only_inside_the_window() {
    let s = station(1);
    let tx = signer(&s, 100);
    let rx = receiver(&s, PolicyKind::Always, 1).with_replay_window(Some(ReplayConfig::default()));
    let signed = tx.sign(Psid::CAM, b"cam").expect("sign");
    assert_eq!(payload_of(rx.receive(&signed.bytes)), b"cam");
    // 199 more copies, one at a time and in a batch: each refused as a duplicate.
    let is_duplicate = |o: &Outcome| {
        matches!(
            o,
            Outcome::Invalid {
                verdict: Verdict::DuplicateMessage,
                ..
            }
        )
    };
    for _ in 0..99 {
        assert!(is_duplicate(&rx.receive(&signed.bytes)));
    }
    let copies: Vec<&[u8]> = (0..100).map(|_| signed.bytes.as_slice()).collect();
    assert!(rx.receive_batch(&copies).iter().all(is_duplicate));
    let counts = rx.counts();
    assert_eq!((counts.valid, counts.invalid), (1, 199));

    // A forged copy (a flipped signature byte) refused first does not take the real
    // message's place.
    let fresh = tx.sign(Psid::CAM, b"cam 2").expect("sign");
    let mut forged = fresh.bytes.clone();
    let last = forged.len() - 1;
    forged[last] ^= 1;
    assert!(matches!(
        rx.receive(&forged),
        Outcome::Invalid {
            verdict: Verdict::FalseSignature,
            ..
        }
    ));
    assert_eq!(payload_of(rx.receive(&fresh.bytes)), b"cam 2");

    // Generated more than max_age ago: refused as a timestamp out of the window.
    let old = tx.sign(Psid::CAM, b"cam 3").expect("sign");
    s.clock.advance(Duration::from_secs(11));
    match rx.receive(&old.bytes) {
        refused @ Outcome::Invalid {
            verdict: Verdict::InvalidTimestamp,
        } => assert_eq!(refused.code(), 12),
        other => panic!("an old message: {other:?}"),
    }

    // Without the window (the service's default) copies are accepted, as before.
    let plain = receiver(&s, PolicyKind::Always, 1);
    let again = tx.sign(Psid::CAM, b"cam 4").expect("sign");
    assert_eq!(payload_of(plain.receive(&again.bytes)), b"cam 4");
    assert_eq!(payload_of(plain.receive(&again.bytes)), b"cam 4");
}
