//! The measurements: requests timed one after another or from concurrent clients, the
//! references (raw P-256 signatures, the crypto floor, the disk's flush), and the phases of
//! the benchmark (in-process, tickets over HTTP, the transport alone, PostgreSQL).

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use vss_crypto::{Curve, PrivateKey};
use vss_its::{Cert, ItsTime};
use vss_pki::authority::{Aa, KnownEa, LocalEa};
use vss_pki::messages::{AuthorizationResponseCode, EnrolmentResponseCode};
use vss_pki::store::Timed;

use super::cpu::CpuSpent;
use super::setup::Bench;
use crate::report::progress;

/// Runs `handle` on every request; the time taken and whether every answer was `ok`.
pub(super) fn measure<C: Copy + PartialEq>(
    requests: &[Vec<u8>],
    ok: C,
    what: &str,
    mut handle: impl FnMut(&[u8]) -> Result<C>,
) -> Result<(Duration, bool)> {
    let bar = progress(requests.len() as u64, what);
    let started = Instant::now();
    let mut all_ok = true;
    for request in requests {
        all_ok &= handle(request)? == ok;
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok((started.elapsed(), all_ok))
}

/// Posts `requests` to `url` from `clients` threads at once; the time taken and whether
/// every request was answered.
fn measure_concurrent(requests: &[Vec<u8>], clients: u32, url: &str) -> Result<(Duration, bool)> {
    let bar = progress(requests.len() as u64, "tickets over HTTP, concurrent");
    let chunk = requests.len().div_ceil(clients as usize).max(1);
    let started = Instant::now();
    let all_ok = std::thread::scope(|s| {
        let workers: Vec<_> = requests
            .chunks(chunk)
            .map(|share| {
                let bar = bar.clone();
                s.spawn(move || {
                    share.iter().fold(true, |ok, r| {
                        let answered = vss_pki::http::post(url, r).is_ok();
                        bar.inc(1);
                        ok && answered
                    })
                })
            })
            .collect();
        workers.into_iter().all(|w| w.join().unwrap_or(false))
    });
    let elapsed = started.elapsed();
    bar.finish_and_clear();
    Ok((elapsed, all_ok))
}

/// The time `rounds` runs of `op` take together.
fn timed(rounds: u32, op: &mut dyn FnMut() -> Result<()>) -> Result<Duration> {
    let started = Instant::now();
    for _ in 0..rounds {
        op()?;
    }
    Ok(started.elapsed())
}

/// Raw P-256 signatures per second, the reference of the benchmark's rates.
pub(super) fn raw_sign_rate() -> Result<f64> {
    const ROUNDS: u32 = 2000;
    let key = PrivateKey::generate(Curve::P256)?;
    let digest = [7u8; 32];
    let elapsed = timed(ROUNDS, &mut || {
        key.sign_digest(&digest).map(drop).map_err(Into::into)
    })?;
    Ok(f64::from(ROUNDS) / elapsed.as_secs_f64())
}

/// The time of one ticket's crypto floor as the issue and TS 102 941 count it: one P-256
/// signature, two verifications and two ECDH agreements, each timed on its own.
pub(super) struct CryptoFloor {
    pub(super) sign: Duration,
    pub(super) verify: Duration,
    pub(super) ecdh: Duration,
}

impl CryptoFloor {
    const ROUNDS: u32 = 2000;

    /// Times each operation of the floor.
    pub(super) fn measure() -> Result<Self> {
        let key = PrivateKey::generate(Curve::P256)?;
        let peer = PrivateKey::generate(Curve::P256)?;
        let digest = [7u8; 32];
        let signature = key.sign_digest(&digest)?;
        let verifying = key.public_key().verifying_key()?;
        let each = |op: &mut dyn FnMut() -> Result<()>| -> Result<Duration> {
            Ok(timed(Self::ROUNDS, op)? / Self::ROUNDS)
        };
        Ok(CryptoFloor {
            sign: each(&mut || key.sign_digest(&digest).map(drop).map_err(Into::into))?,
            verify: each(&mut || {
                verifying
                    .verify_digest(&digest, &signature)
                    .then_some(())
                    .context("the floor's signature does not verify")
            })?,
            ecdh: each(&mut || {
                key.diffie_hellman(peer.public_key())
                    .map(drop)
                    .map_err(Into::into)
            })?,
        })
    }

    /// The floor of one ticket: one signature, two verifications, two agreements.
    pub(super) fn per_ticket(&self) -> Duration {
        self.sign + 2 * self.verify + 2 * self.ecdh
    }
}

/// The time of one flush of the disk under `dir`: a 4 KiB page written over the same place
/// of a file and synced (data only), as a WAL commit writes its frames and syncs them.
pub(super) fn disk_flush(dir: &std::path::Path) -> Result<Duration> {
    use std::io::{Seek, SeekFrom, Write};
    const ROUNDS: u32 = 200;
    let path = dir.join("flush-probe");
    let mut file = std::fs::File::create(&path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    let page = [0x5au8; 4096];
    let mut once = || -> std::io::Result<()> {
        file.seek(SeekFrom::Start(0))?;
        file.write_all(&page)?;
        file.sync_data()
    };
    // The first sync allocates the block; the rounds overwrite it, as a reused WAL does.
    once()?;
    let started = Instant::now();
    for _ in 0..ROUNDS {
        once()?;
    }
    let flush = started.elapsed() / ROUNDS;
    std::fs::remove_file(&path).with_context(|| format!("cannot remove {}", path.display()))?;
    Ok(flush)
}

/// The authorities without HTTP: the times of the enrolments and of the tickets, whether
/// every answer was a success, and the time the store took during the tickets.
pub(super) struct InProcess {
    pub(super) enrol: (Duration, bool),
    pub(super) tickets: (Duration, bool),
    pub(super) store: Duration,
}

/// The station's EC and its key, and the AA (asking its EA in-process, as `pki serve` does
/// when it serves both) that the later phases use.
pub(super) struct Enrolled {
    pub(super) aa: Aa,
    pub(super) ec: Cert,
    pub(super) ec_key: PrivateKey,
}

/// Measures `enrolments` enrolments and `tickets` tickets of `bench` in-process.
pub(super) fn in_process(
    bench: &Bench,
    enrolments: u32,
    tickets: u32,
) -> Result<(InProcess, Enrolled)> {
    let ea = bench.ea();
    let requests = bench.enrolment_requests(enrolments)?;
    let enrol = measure(&requests, EnrolmentResponseCode::Ok, "enrolments", |r| {
        Ok(ea.enrol(r, ItsTime::now())?.code())
    })?;
    let (ec, ec_key) = bench.enrolled(&ea)?;
    let aa = Aa::new(
        bench.aa.clone(),
        bench.hsm.clone(),
        bench.store.clone(),
        vec![KnownEa {
            cert: bench.ea.clone(),
            link: Arc::new(LocalEa(ea.clone())),
        }],
    );
    let requests = bench.ticket_requests(tickets, &ec, &ec_key)?;
    let store_before = bench.store.spent();
    let tickets = measure(&requests, AuthorizationResponseCode::Ok, "tickets", |r| {
        Ok(aa.authorize(r, ItsTime::now())?.code())
    })?;
    let store = bench.store.spent() - store_before;
    let measured = InProcess {
        enrol,
        tickets,
        store,
    };
    Ok((measured, Enrolled { aa, ec, ec_key }))
}

/// Tickets over HTTP: from one client, then from `clients` at once (when more than one).
pub(super) struct HttpTickets {
    pub(super) sequential: (Duration, bool),
    /// The time the store took during the sequential tickets.
    pub(super) sequential_store: Duration,
    /// The CPU time of the sequential tickets.
    pub(super) sequential_cpu: CpuSpent,
    pub(super) concurrent: Option<((Duration, bool), CpuSpent)>,
}

impl HttpTickets {
    /// Whether every ticket request was answered.
    pub(super) fn all_answered(&self) -> bool {
        self.sequential.1 && self.concurrent.is_none_or(|((_, ok), _)| ok)
    }
}

/// Measures `tickets` tickets of the station (its EC `ec`, key `ec_key`) over HTTP from
/// the PKI at `url`, from one client and, when `clients` is more than one, from `clients`
/// at once.
pub(super) fn http_tickets(
    bench: &Bench,
    (ec, ec_key): (&Cert, &PrivateKey),
    tickets: u32,
    clients: u32,
    url: &str,
) -> Result<HttpTickets> {
    let concurrent_count = if clients > 1 { tickets } else { 0 };
    let sequential = bench.ticket_requests(tickets, ec, ec_key)?;
    let concurrent = bench.ticket_requests(concurrent_count, ec, ec_key)?;
    let store = &bench.store;
    let ticket_url = format!("{url}/aa/authorization");
    let store_before = store.spent();
    let (sequential, sequential_cpu) = CpuSpent::of(store, || {
        measure(&sequential, true, "tickets over HTTP", |r| {
            Ok(vss_pki::http::post(&ticket_url, r).is_ok())
        })
    })?;
    let sequential_store = store.spent() - store_before;
    let concurrent = (clients > 1)
        .then(|| {
            CpuSpent::of(store, || {
                measure_concurrent(&concurrent, clients, &ticket_url)
            })
        })
        .transpose()?;
    Ok(HttpTickets {
        sequential,
        sequential_store,
        sequential_cpu,
        concurrent,
    })
}

/// Tickets over HTTP from `bench`, a PKI with its records in PostgreSQL.
pub(super) fn postgres_tickets(bench: &Bench, tickets: u32, clients: u32) -> Result<HttpTickets> {
    let (ec, ec_key) = bench.enrolled(&bench.ea())?;
    let (_runtime, served) = bench.serve()?;
    http_tickets(bench, (&ec, &ec_key), tickets, clients, &served)
}

/// The transport alone: the round trip of a request the AA refuses before any
/// cryptography (it is not COER), over HTTP less in-process, per request, in wall-clock
/// and in CPU time.
pub(super) struct Transport {
    pub(super) round_trip: Duration,
    pub(super) round_trip_cpu: Duration,
}

/// Measures the transport with `count` refused requests to `aa`, in-process and to the
/// same PKI served at `url`.
pub(super) fn transport(aa: &Aa, url: &str, count: u32, store: &Timed) -> Result<Transport> {
    let junk = vec![vec![0u8; 8]; count as usize];
    let refused = AuthorizationResponseCode::ItsAaCantParse;
    let ((junk_in_process, _), junk_in_process_cpu) = CpuSpent::of(store, || {
        measure(&junk, refused, "refusals", |r| {
            Ok(aa.authorize(r, ItsTime::now())?.code())
        })
    })?;
    let junk_url = format!("{url}/aa/authorization");
    let ((junk_http, _), junk_http_cpu) = CpuSpent::of(store, || {
        measure(&junk, true, "refusals over HTTP", |r| {
            Ok(matches!(
                vss_pki::http::post(&junk_url, r),
                Err(vss_pki::http::HttpError::Refused { .. })
            ))
        })
    })?;
    Ok(Transport {
        round_trip: junk_http.saturating_sub(junk_in_process) / count,
        round_trip_cpu: junk_http_cpu
            .process
            .saturating_sub(junk_in_process_cpu.process)
            / count,
    })
}
