//! Bulk verification: `VerifyService::receive_batch` gives the outcomes, counts, pending
//! queue and cache behaviour of one message at a time under every policy; the filter in
//! bulk mode forwards exactly the valid payloads in arrival order over UDP, and a partial
//! batch goes out when its deadline passes; under a flood of copies each message passes
//! once, and a flood of forged generation times does not hold up valid traffic; signers
//! with prepared keys get the outcomes of the library, checked where the service is rather
//! than on a library engine.

mod common;

use std::collections::BTreeMap;
use std::net::UdpSocket;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{manager, rules, station, Station};
use vss_core::config::{PolicyKind, VerificationConfig};
use vss_core::filter::{listen_socket, BatchConfig, Filter};
use vss_core::replay::ReplayConfig;
use vss_core::verify::Outcome;
use vss_core::{SignService, VerificationPolicy, VerifyService};
use vss_engine::{CpuEngine, CpuPath, VerifyEngine, VerifyJob};
use vss_its::{PreparedKeyPolicy, Psid};

/// Messages from several pseudonyms (four uses each, so new certificates go whole in the
/// middle), with tampered and truncated ones among them (a message that carries a new
/// certificate is not truncated: later ones name it by digest); the payloads of the valid
/// ones, and the invalid ones counted by verdict.
fn messages(s: &Station, n: u8) -> Corpus {
    let tx = SignService::new(
        manager(s, rules(4, 0, false), false),
        s.hsm.clone(),
        s.clock.clone(),
    );
    let (mut all, mut valid, mut invalid) = (Vec::new(), Vec::new(), BTreeMap::new());
    for i in 0..n {
        let payload = format!("cam {i:03}").into_bytes();
        let signed = tx.sign(Psid::CAM, &payload).expect("sign");
        let mut bytes = signed.bytes;
        match i % 5 {
            3 => {
                let at = bytes
                    .windows(payload.len())
                    .position(|w| w == payload)
                    .expect("payload inline");
                bytes[at] ^= 0x20;
                *invalid.entry("FalseSignature").or_default() += 1;
            }
            4 if !signed.with_certificate => {
                bytes.truncate(bytes.len() / 2);
                *invalid.entry("Malformed").or_default() += 1;
            }
            _ => valid.push(payload),
        }
        all.push(bytes);
    }
    Corpus {
        messages: all,
        valid,
        invalid,
    }
}

/// Received messages and what must become of them.
struct Corpus {
    messages: Vec<Vec<u8>>,
    /// The payloads of the valid ones, in order.
    valid: Vec<Vec<u8>>,
    /// The invalid ones, by verdict.
    invalid: BTreeMap<&'static str, u64>,
}

fn receiver(s: &Station, policy: PolicyKind) -> VerifyService {
    VerifyService::new(
        common::validator(s),
        VerificationPolicy::new(&VerificationConfig {
            policy,
            sample_every: 3,
            ..VerificationConfig::default()
        }),
        s.clock.clone(),
        Arc::new(CpuEngine::new(2)),
    )
}

#[test]
fn a_batch_gets_the_outcomes_counts_and_pending_queue_of_one_by_one() {
    let s = station(6);
    let Corpus {
        messages,
        valid: valid_payloads,
        invalid,
    } = messages(&s, 40);
    let well_formed = messages.len() - invalid["Malformed"] as usize;
    for policy in [
        PolicyKind::Always,
        PolicyKind::Sampling,
        PolicyKind::OnDemand,
    ] {
        let (one, bulk) = (receiver(&s, policy), receiver(&s, policy));
        let singly: Vec<Outcome> = messages.iter().map(|m| one.receive(m)).collect();
        let mut batched = Vec::new();
        // Batches of several sizes, one of them a single message.
        for chunk in [&messages[..1], &messages[1..17], &messages[17..]] {
            let chunk: Vec<&[u8]> = chunk.iter().map(Vec::as_slice).collect();
            batched.extend(bulk.receive_batch(&chunk));
        }
        assert_eq!(singly, batched, "{policy:?}");
        assert_eq!(one.counts(), bulk.counts(), "{policy:?}");
        assert_eq!(one.cache_stats(), bulk.cache_stats(), "{policy:?}");
        let valid = singly
            .iter()
            .filter(|o| matches!(o, Outcome::Valid { .. }))
            .count();
        let skipped: Vec<u64> = singly
            .iter()
            .filter_map(|o| match o {
                Outcome::Skipped { id } => Some(*id),
                _ => None,
            })
            .collect();
        match policy {
            PolicyKind::Always => assert_eq!((valid, skipped.len()), (valid_payloads.len(), 0)),
            PolicyKind::Sampling => assert!(valid > 0 && !skipped.is_empty()),
            PolicyKind::OnDemand => assert_eq!((valid, skipped.len()), (0, well_formed)),
        }
        for id in skipped {
            assert_eq!(
                one.verify_on_demand(id).expect("pending"),
                bulk.verify_on_demand(id).expect("pending"),
                "{policy:?} on demand {id}"
            );
        }
        assert_eq!(one.counts(), bulk.counts(), "{policy:?} after on demand");
    }
}

/// The CPU engine on the library path, counting the jobs it is sent.
struct Counting {
    engine: CpuEngine,
    jobs: AtomicUsize,
}

impl VerifyEngine for Counting {
    fn name(&self) -> &'static str {
        "counting"
    }

    fn device(&self) -> String {
        self.engine.device()
    }

    fn verify_batch(&self, jobs: &[VerifyJob<'_>]) -> Vec<bool> {
        self.jobs.fetch_add(jobs.len(), Ordering::Relaxed);
        self.engine.verify_batch(jobs)
    }

    fn prefers_prepared_keys(&self) -> bool {
        self.engine.prefers_prepared_keys()
    }
}

#[test]
fn prepared_keys_give_the_library_outcomes_and_spare_a_library_engine() {
    let s = station(6);
    let corpus = messages(&s, 40);
    let batch: Vec<&[u8]> = corpus.messages.iter().map(Vec::as_slice).collect();
    let receive = |policy: PreparedKeyPolicy| {
        let engine = Arc::new(Counting {
            engine: CpuEngine::with_path(1, CpuPath::Library).expect("the library path"),
            jobs: AtomicUsize::new(0),
        });
        let service = VerifyService::new(
            common::validator(&s).with_prepared_keys(policy),
            VerificationPolicy::new(&VerificationConfig::default()),
            s.clock.clone(),
            engine.clone(),
        );
        let outcomes = service.receive_batch(&batch);
        (outcomes, engine.jobs.load(Ordering::Relaxed), service)
    };
    let prepared = PreparedKeyPolicy {
        max_bytes: 4 << 20,
        after: 1,
    };
    let (with, with_jobs, service) = receive(prepared);
    let (without, without_jobs, _) = receive(PreparedKeyPolicy::OFF);
    assert_eq!(with, without);
    let valid = with
        .iter()
        .filter(|o| matches!(o, Outcome::Valid { .. }))
        .count();
    assert_eq!(valid, corpus.valid.len());
    let stats = service.cache_stats();
    assert!(stats.prepared_builds > 0, "{stats:?}");
    // Only each ticket's first signature went to the engine (the AA signs no message);
    // the others were checked with its prepared key.
    assert_eq!(with_jobs, stats.inserts as usize - 1, "{stats:?}");
    assert!(without_jobs > 4 * with_jobs, "{without_jobs} {with_jobs}");
}

/// Loopback sockets for a filter: where it listens, where it forwards from, where the
/// payloads arrive (with a read timeout), and a sender.
struct Sockets {
    listen: UdpSocket,
    forward: UdpSocket,
    receiver: UdpSocket,
    sender: UdpSocket,
}

impl Sockets {
    fn new(batch: &BatchConfig) -> Self {
        let bind = || UdpSocket::bind("127.0.0.1:0").expect("bind");
        let loopback = ([127, 0, 0, 1], 0).into();
        let listen = listen_socket(loopback, batch).expect("listen");
        let (forward, receiver, sender) = (bind(), bind(), bind());
        forward
            .connect(receiver.local_addr().expect("address"))
            .expect("connect");
        receiver
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        Sockets {
            listen,
            forward,
            receiver,
            sender,
        }
    }

    fn send(&self, datagram: &[u8]) {
        let to = self.listen.local_addr().expect("address");
        self.sender.send_to(datagram, to).expect("send");
    }

    fn forwarded(&self) -> Vec<u8> {
        let mut buffer = vec![0u8; 65_536];
        let (len, _) = self.receiver.recv_from(&mut buffer).expect("a payload");
        buffer.truncate(len);
        buffer
    }
}

#[test]
fn the_filter_in_bulk_mode_forwards_exactly_the_valid_payloads_in_order() {
    let s = station(6);
    let Corpus {
        messages,
        valid,
        invalid,
    } = messages(&s, 120);
    let batch = BatchConfig {
        max_batch: 16,
        deadline: Duration::from_millis(20),
    };
    let filter = Filter::new(
        common::validator(&s),
        Arc::new(CpuEngine::new(2)),
        batch,
        Some(ReplayConfig::default()),
    );
    let sockets = Sockets::new(&batch);
    let counts = std::thread::scope(|scope| {
        let running = scope.spawn(|| filter.run(&sockets.listen, &sockets.forward, Some(120)));
        for m in &messages {
            sockets.send(m);
        }
        let forwarded: Vec<Vec<u8>> = valid.iter().map(|_| sockets.forwarded()).collect();
        assert_eq!(forwarded, valid);
        running.join().expect("filter thread").expect("filter")
    });
    assert_eq!(
        (counts.received, counts.forwarded),
        (120, valid.len() as u64)
    );
    assert_eq!(counts.dropped, invalid);
    sockets
        .receiver
        .set_read_timeout(Some(Duration::from_millis(100)))
        .expect("timeout");
    assert!(
        sockets.receiver.recv_from(&mut [0u8; 64]).is_err(),
        "nothing more"
    );
}

#[test]
fn a_partial_batch_goes_out_when_its_deadline_passes() {
    let s = station(1);
    let Corpus {
        messages, valid, ..
    } = messages(&s, 4);
    let batch = BatchConfig {
        max_batch: 256,
        deadline: Duration::from_millis(2),
    };
    let filter = Filter::new(
        common::validator(&s),
        Arc::new(CpuEngine::new(2)),
        batch,
        Some(ReplayConfig::default()),
    );
    let sockets = Sockets::new(&batch);
    std::thread::scope(|scope| {
        let running = scope.spawn(|| filter.run(&sockets.listen, &sockets.forward, Some(4)));
        let sent = Instant::now();
        for m in &messages[..3] {
            sockets.send(m);
        }
        // Three of 256: only the deadline sends them on, and the fourth is not sent yet.
        let forwarded: Vec<Vec<u8>> = (0..3).map(|_| sockets.forwarded()).collect();
        assert!(
            sent.elapsed() < Duration::from_secs(2),
            "{:?}",
            sent.elapsed()
        );
        assert_eq!(forwarded, valid[..3]);
        sockets.send(&messages[3]);
        let counts = running.join().expect("filter thread").expect("filter");
        assert_eq!(counts.received, 4);
    });
}

#[test]
fn under_a_replay_flood_each_message_is_forwarded_once_and_forged_times_do_not_hold_it_up() {
    let s = station(4);
    let Corpus {
        messages: now,
        valid,
        ..
    } = messages(&s, 10);
    // Signed an hour ahead of the clock by a station whose clock is wrong (or a forger's).
    s.clock.advance(Duration::from_secs(3600));
    let Corpus {
        messages: ahead,
        valid: well_signed_ahead,
        ..
    } = messages(&s, 20);
    let filter = Filter::new(
        common::validator(&s),
        Arc::new(CpuEngine::new(2)),
        BatchConfig::default(),
        Some(ReplayConfig::default()),
    );
    // Each message, then 20 copies of it between the 20 messages from an hour ahead, in
    // batches of 16.
    let flood: Vec<&[u8]> = now
        .iter()
        .flat_map(|message| {
            std::iter::once(message.as_slice()).chain(
                ahead
                    .iter()
                    .flat_map(move |later| [message.as_slice(), later.as_slice()]),
            )
        })
        .collect();
    let mut forwarded = Vec::new();
    let mut dropped: BTreeMap<&str, u64> = BTreeMap::new();
    for batch in flood.chunks(16) {
        for result in filter.inspect_batch(batch) {
            match result {
                Ok(payload) => forwarded.push(payload),
                Err(reason) => *dropped.entry(reason).or_default() += 1,
            }
        }
    }
    assert_eq!(forwarded, valid, "{dropped:?}");
    assert_eq!(
        dropped.remove("DuplicateMessage"),
        Some(20 * valid.len() as u64)
    );
    // The rest, each refused: the invalid messages and their copies, and the messages from
    // an hour ahead (too early, tampered or truncated).
    let rest = 21 * (now.len() - valid.len()) + 20 * now.len();
    assert_eq!(dropped.values().sum::<u64>(), rest as u64, "{dropped:?}");
    // Each well-signed message from an hour ahead was sent once per message of now.
    assert_eq!(
        dropped["NotYetValid"],
        (now.len() * well_signed_ahead.len()) as u64,
        "{dropped:?}"
    );
}
