//! `vss bench pki`: enrolments and authorization tickets per second of one PKI process
//! (keys in a soft HSM, records in SQLite or, with `--database`, PostgreSQL), in-process and
//! over HTTP on loopback, as a ratio to the raw P-256 signing rate measured in the same run;
//! with `--clients N`, also tickets over HTTP from N concurrent clients, and with
//! `--postgres URL` the same PKI's tickets over HTTP on PostgreSQL.
//!
//! A ticket's time over HTTP is split, each part measured in the HTTP run: the store's calls,
//! the transport (the round trip of a request the AA refuses at once, less that refusal's
//! in-process time) and the rest, cryptography and codec. The crypto floor (1 sign, 2
//! verify, 2 ECDH, timed alone) is reported beside it, and so is the disk's flush (a page
//! written and synced beside the SQLite file, timed alone): a ticket waits for one, the AA's
//! durable record.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use clap::Args;
use serde_json::json;
use vss_crypto::{Curve, PrivateKey};
use vss_hsm::{Hsm, SoftHsm};
use vss_its::{Cert, ItsTime, TrustStore};
use vss_pki::authority::{init, Aa, Answer, Ea, InitRequest, KnownEa, LocalEa, PkiDir};
use vss_pki::station::{authorization_request, enrolment_request, Outer, TicketKeys};
use vss_pki::store::{process_cpu_time, PkiStore, Station, StoreLocation, Timed};

use super::finish;
use crate::commands::pki::GivenStore;
use crate::output::progress;
use crate::output::{Format, Table};

/// Options of `vss bench pki`.
#[derive(Args)]
pub struct PkiArgs {
    /// Enrolment requests in each measurement.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    enrolments: u32,
    /// Authorization requests in each measurement.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    tickets: u32,
    /// Where the records go: a postgres://… URL [default: SQLite in a temporary directory].
    #[arg(long, value_name = "URL|PATH", value_parser = GivenStore::parse)]
    database: Option<GivenStore>,
    /// Also measure tickets over HTTP with the records in this PostgreSQL database, from one
    /// client and from --clients clients.
    #[arg(long, value_name = "URL", value_parser = postgres_url)]
    postgres: Option<StoreLocation>,
    /// Concurrent HTTP clients for a further ticket measurement (1: none beyond the
    /// sequential one).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=256))]
    clients: u32,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// A `postgres://…` or `postgresql://…` URL, as `--postgres` takes.
fn postgres_url(text: &str) -> std::result::Result<StoreLocation, String> {
    match text.parse() {
        Ok(location @ StoreLocation::Postgres(_)) => Ok(location),
        _ => Err("a postgres://… or postgresql://… URL".into()),
    }
}

/// A throw-away PKI with one registered station.
struct Bench {
    _dir: tempfile::TempDir,
    dir: PkiDir,
    hsm: Arc<dyn Hsm>,
    store: Arc<Timed>,
    root: Cert,
    ea: Cert,
    aa: Cert,
    canonical: PrivateKey,
    /// The registered station's canonical id (fresh each run, so a shared database works).
    station: String,
}

impl Bench {
    fn new(database: Option<&StoreLocation>) -> Result<Self> {
        let tmp = tempfile::Builder::new()
            .prefix("vss-bench-pki-")
            .tempdir()?;
        let dir = PkiDir::new(tmp.path());
        let mut pin = [0u8; 16];
        vss_crypto::random_bytes(&mut pin)?;
        let pin = zeroize::Zeroizing::new(hex::encode(pin));
        SoftHsm::init(&dir.keys(), &pin, &format!("{}-puk", *pin))?;
        let hsm: Arc<dyn Hsm> = Arc::new(SoftHsm::open(&dir.keys(), &pin)?);
        let made = init(&dir, hsm.as_ref(), &InitRequest::new("bench"))?;
        let store = Arc::new(Timed::new(dir.open_store(database)?));
        let canonical = PrivateKey::generate(Curve::P256)?;
        let mut id = [0u8; 8];
        vss_crypto::random_bytes(&mut id)?;
        let station = format!("bench-station-{}", hex::encode(id));
        store.register_station(&Station::new(&station, canonical.public_key(), &[]))?;
        Ok(Bench {
            _dir: tmp,
            dir,
            hsm,
            store,
            root: made.root,
            ea: made.ea,
            aa: made.aa,
            canonical,
            station,
        })
    }

    fn ea(&self) -> Arc<Ea> {
        let mut trust = TrustStore::new();
        trust
            .add(self.root.clone())
            .expect("the bench root is self-signed");
        Arc::new(Ea::new(
            self.ea.clone(),
            self.hsm.clone(),
            self.store.clone(),
            trust,
        ))
    }

    /// An EC of the bench station from `ea`, and its key.
    fn enrolled(&self, ea: &Ea) -> Result<(Cert, PrivateKey)> {
        let ec_key = PrivateKey::generate(Curve::P256)?;
        let request = enrolment_request(
            &self.station,
            &ec_key,
            Outer::Canonical(&self.canonical),
            &self.ea,
            ItsTime::now(),
        )?;
        let Answer::Response { body, .. } = ea.enrol(&request.bytes, ItsTime::now())? else {
            return Err(anyhow!("the bench EA did not answer"));
        };
        let ec = request
            .read_response(&body, &self.ea)?
            .certificate
            .context("the bench EA refused to enrol")?;
        Ok((ec, ec_key))
    }

    /// Serves the PKI over HTTP on loopback as `vss pki serve` does; the runtime and URL.
    fn serve(&self) -> Result<(tokio::runtime::Runtime, String)> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?;
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))?;
        let url = format!("http://{}", listener.local_addr()?);
        let store: Arc<dyn PkiStore> = self.store.clone();
        let services = vss_pki::http::services(
            &self.dir,
            self.hsm.clone(),
            store,
            &vss_pki::http::ServedPki::both(),
        )?;
        runtime.spawn(async move {
            vss_pki::http::serve(listener, services, vss_pki::http::ServeConfig::default()).await
        });
        Ok((runtime, url))
    }

    fn enrolment_requests(&self, n: u32) -> Result<Vec<Vec<u8>>> {
        (0..n)
            .map(|_| {
                let key = PrivateKey::generate(Curve::P256)?;
                let outer = Outer::Canonical(&self.canonical);
                Ok(enrolment_request(&self.station, &key, outer, &self.ea, ItsTime::now())?.bytes)
            })
            .collect()
    }

    fn ticket_requests(&self, n: u32, ec: &Cert, ec_key: &PrivateKey) -> Result<Vec<Vec<u8>>> {
        (0..n)
            .map(|_| {
                let key = PrivateKey::generate(Curve::P256)?;
                let request = authorization_request(
                    TicketKeys::signing(&key),
                    ec,
                    ec_key,
                    &self.ea,
                    &self.aa,
                    &[36],
                    ItsTime::now(),
                )?;
                Ok(request.bytes)
            })
            .collect()
    }
}

/// Runs `handle` on every request; the time taken and whether every answer was `ok`.
fn measure<C: Copy + PartialEq>(
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

/// The time of one ticket's crypto floor as the issue and TS 102 941 count it: one P-256
/// signature, two verifications and two ECDH agreements, each timed on its own.
struct CryptoFloor {
    sign: Duration,
    verify: Duration,
    ecdh: Duration,
}

impl CryptoFloor {
    const ROUNDS: u32 = 2000;

    fn measure() -> Result<Self> {
        let key = PrivateKey::generate(Curve::P256)?;
        let peer = PrivateKey::generate(Curve::P256)?;
        let digest = [7u8; 32];
        let signature = key.sign_digest(&digest)?;
        let verifying = key.public_key().verifying_key()?;
        let each = |op: &mut dyn FnMut() -> Result<()>| -> Result<Duration> {
            let started = Instant::now();
            for _ in 0..Self::ROUNDS {
                op()?;
            }
            Ok(started.elapsed() / Self::ROUNDS)
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

    fn per_ticket(&self) -> Duration {
        self.sign + 2 * self.verify + 2 * self.ecdh
    }
}

/// The time of one flush of the disk under `dir`: a 4 KiB page written over the same place
/// of a file and synced (data only), as a WAL commit writes its frames and syncs them.
fn disk_flush(dir: &std::path::Path) -> Result<Duration> {
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

/// Tickets over HTTP: from one client, then from `clients` at once (when more than one).
struct HttpTickets {
    sequential: (Duration, bool),
    /// The time the store took during the sequential tickets.
    sequential_store: Duration,
    /// The CPU time of the sequential tickets.
    sequential_cpu: CpuSpent,
    concurrent: Option<((Duration, bool), CpuSpent)>,
}

/// The CPU time a measurement used: the whole process's (server and clients), and the
/// store's calls' within it.
#[derive(Clone, Copy)]
struct CpuSpent {
    process: Duration,
    store: Duration,
}

impl CpuSpent {
    /// Runs `measurement`, and the CPU time it used.
    fn of<T>(store: &Timed, measurement: impl FnOnce() -> Result<T>) -> Result<(T, CpuSpent)> {
        let (process, in_store) = (process_cpu_time(), store.cpu_spent());
        let result = measurement()?;
        Ok((
            result,
            CpuSpent {
                process: process_cpu_time().saturating_sub(process),
                store: store.cpu_spent().saturating_sub(in_store),
            },
        ))
    }

    /// The shares of this CPU time: the store's calls, the transport (`transport` per
    /// ticket, for `tickets`) and the rest, cryptography and codec.
    fn shares(&self, transport: Duration, tickets: u32) -> serde_json::Value {
        let whole = self.process.as_secs_f64();
        let store = self.store.as_secs_f64() / whole;
        let http = (transport * tickets).as_secs_f64() / whole;
        json!({"store": store, "http": http, "crypto_and_codec": 1.0 - store - http})
    }
}

fn http_tickets(
    requests: [Vec<Vec<u8>>; 2],
    clients: u32,
    url: &str,
    store: &Timed,
) -> Result<HttpTickets> {
    let [sequential, concurrent] = requests;
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
fn postgres_tickets(bench: &Bench, tickets: u32, clients: u32) -> Result<HttpTickets> {
    let (ec, ec_key) = bench.enrolled(&bench.ea())?;
    let (_runtime, served) = bench.serve()?;
    let requests = [
        bench.ticket_requests(tickets, &ec, &ec_key)?,
        bench.ticket_requests(if clients > 1 { tickets } else { 0 }, &ec, &ec_key)?,
    ];
    http_tickets(requests, clients, &served, &bench.store)
}

impl PkiArgs {
    /// Runs the benchmark.
    pub fn run(self) -> Result<ExitCode> {
        let database = GivenStore::location(self.database.as_ref());
        let bench = Bench::new(database)?;
        // Connected first, so that a database out of reach fails the run at once.
        let postgres_bench = self
            .postgres
            .as_ref()
            .map(|url| Bench::new(Some(url)))
            .transpose()?;
        let (e, t) = (self.enrolments, self.tickets);

        // The references: raw P-256 signatures and the crypto floor, the same run.
        let key = PrivateKey::generate(Curve::P256)?;
        let digest = [7u8; 32];
        let started = Instant::now();
        for _ in 0..2000 {
            key.sign_digest(&digest)?;
        }
        let raw_sign = 2000.0 / started.elapsed().as_secs_f64();
        let floor = CryptoFloor::measure()?;
        let flush = disk_flush(bench.dir.path())?;

        // In-process: the authorities without HTTP, the AA asking its EA in-process as
        // `pki serve` does when it serves both.
        let ea = bench.ea();
        let enrolments = bench.enrolment_requests(e)?;
        let ok_enrol = vss_pki::messages::EnrolmentResponseCode::Ok;
        let (enrol_time, enrol_ok) = measure(&enrolments, ok_enrol, "enrolments", |r| {
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
        let tickets = bench.ticket_requests(t, &ec, &ec_key)?;
        let ok_ticket = vss_pki::messages::AuthorizationResponseCode::Ok;
        let store_before = bench.store.spent();
        let (ticket_time, ticket_ok) = measure(&tickets, ok_ticket, "tickets", |r| {
            Ok(aa.authorize(r, ItsTime::now())?.code())
        })?;
        let store_time = bench.store.spent() - store_before;

        // Over HTTP on loopback, as `vss pki serve` runs.
        let (_runtime, url) = bench.serve()?;
        let enrolments = bench.enrolment_requests(e)?;
        let enrol_url = format!("{url}/ea/enrolment");
        let (http_enrol_time, http_enrol_ok) =
            measure(&enrolments, true, "enrolments over HTTP", |r| {
                Ok(vss_pki::http::post(&enrol_url, r).is_ok())
            })?;
        let concurrent_count = if self.clients > 1 { t } else { 0 };
        let requests = [
            bench.ticket_requests(t, &ec, &ec_key)?,
            bench.ticket_requests(concurrent_count, &ec, &ec_key)?,
        ];
        let http = http_tickets(requests, self.clients, &url, &bench.store)?;
        // The transport alone: a request the AA refuses before any cryptography (it is not
        // COER), over HTTP and in-process.
        let junk = vec![vec![0u8; 8]; t as usize];
        let refused = vss_pki::messages::AuthorizationResponseCode::ItsAaCantParse;
        let ((junk_in_process, _), junk_in_process_cpu) = CpuSpent::of(&bench.store, || {
            measure(&junk, refused, "refusals", |r| {
                Ok(aa.authorize(r, ItsTime::now())?.code())
            })
        })?;
        let junk_url = format!("{url}/aa/authorization");
        let ((junk_http, _), junk_http_cpu) = CpuSpent::of(&bench.store, || {
            measure(&junk, true, "refusals over HTTP", |r| {
                Ok(matches!(
                    vss_pki::http::post(&junk_url, r),
                    Err(vss_pki::http::HttpError::Refused { .. })
                ))
            })
        })?;
        let round_trip = junk_http.saturating_sub(junk_in_process) / t;
        let round_trip_cpu = junk_http_cpu
            .process
            .saturating_sub(junk_in_process_cpu.process)
            / t;
        let postgres = postgres_bench
            .as_ref()
            .map(|pg| postgres_tickets(pg, t, self.clients))
            .transpose()?;

        let per = |time: Duration, n: u32| f64::from(n) / time.as_secs_f64();
        let http_ticket_time = http.sequential.0;
        let (enrol_rate, ticket_rate) = (per(enrol_time, e), per(ticket_time, t));
        let (http_enrol_rate, http_ticket_rate) =
            (per(http_enrol_time, e), per(http_ticket_time, t));
        // Shares of a ticket's time over HTTP, each measured in the HTTP run: the store's
        // calls in the server, the transport (a refusal's round trip less its handling), and
        // the rest, the authorities' cryptography and codec.
        let whole = http_ticket_time.as_secs_f64();
        let store_share = http.sequential_store.as_secs_f64() / whole;
        let http_share = (round_trip * t).as_secs_f64() / whole;
        let crypto_share = 1.0 - store_share - http_share;
        let floor_share = floor.per_ticket().as_secs_f64() * f64::from(t) / whole;
        let flush_share = flush.as_secs_f64() * f64::from(t) / whole;
        let concurrent_rate = http.concurrent.map(|((time, _), _)| per(time, t));
        // Shares of a ticket's CPU time over HTTP (waits are not CPU time): the store's calls,
        // the transport (a refusal's round trip less its handling) and the rest.
        let mut cpu_share = json!({"one_client": http.sequential_cpu.shares(round_trip_cpu, t)});
        if let Some((_, cpu)) = http.concurrent {
            cpu_share["clients"] = cpu.shares(round_trip_cpu, t);
            cpu_share["clients"]["clients"] = json!(self.clients);
        }
        let all_answered =
            |h: &HttpTickets| h.sequential.1 && h.concurrent.is_none_or(|((_, ok), _)| ok);
        let success = enrol_ok
            && ticket_ok
            && http_enrol_ok
            && all_answered(&http)
            && postgres.as_ref().is_none_or(all_answered);
        let store_kind = database.map_or("sqlite", StoreLocation::kind);
        let micros = |d: Duration| d.as_secs_f64() * 1e6;
        let mut json = json!({
            "store": store_kind,
            "raw_p256_sign_per_second": raw_sign,
            "enrolments": e,
            "tickets": t,
            "in_process": {
                "enrolments_per_second": enrol_rate,
                "tickets_per_second": ticket_rate,
                "tickets_ratio_to_raw_sign": ticket_rate / raw_sign,
                "ticket_store_share": store_time.as_secs_f64() / ticket_time.as_secs_f64(),
            },
            "http": {
                "enrolments_per_second": http_enrol_rate,
                "tickets_per_second": http_ticket_rate,
                "enrolments_ratio_to_raw_sign": http_enrol_rate / raw_sign,
                "tickets_ratio_to_raw_sign": http_ticket_rate / raw_sign,
            },
            "ticket_time_share": {"store": store_share, "crypto_and_codec": crypto_share, "http": http_share},
            "ticket_cpu_share": cpu_share,
            "http_round_trip_us": micros(round_trip),
            "crypto_floor": {
                "sign_us": micros(floor.sign),
                "verify_us": micros(floor.verify),
                "ecdh_us": micros(floor.ecdh),
                "per_ticket_us": micros(floor.per_ticket()),
                "share_of_http_ticket": floor_share,
            },
            "disk_flush": {
                "us": micros(flush),
                "share_of_http_ticket": flush_share,
            },
            "success": success,
        });
        if let Some(rate) = concurrent_rate {
            json["http_concurrent"] = json!({
                "clients": self.clients,
                "tickets_per_second": rate,
                "tickets_ratio_to_raw_sign": rate / raw_sign,
            });
        }
        let postgres_rates = postgres.as_ref().map(|p| {
            (
                per(p.sequential.0, t),
                p.concurrent.map(|((time, _), _)| per(time, t)),
            )
        });
        if let Some((one, many)) = postgres_rates {
            json["postgresql_http"] = json!({
                "tickets_per_second_1_client": one,
                "clients": self.clients,
                "tickets_per_second_concurrent": many,
            });
        }
        let mut table = Table::new(&["measurement", "per second", "ratio to raw P-256 sign"]);
        table.row(vec![
            "raw P-256 sign".into(),
            format!("{raw_sign:.0}"),
            "1.000".into(),
        ]);
        let concurrent_name = format!("tickets over HTTP, {} clients", self.clients);
        let postgres_name = format!("PostgreSQL: tickets over HTTP, {} clients", self.clients);
        for (name, rate) in [
            ("enrolments, in-process", enrol_rate),
            ("tickets, in-process", ticket_rate),
            ("enrolments over HTTP", http_enrol_rate),
            ("tickets over HTTP", http_ticket_rate),
        ]
        .into_iter()
        .chain(concurrent_rate.map(|r| (concurrent_name.as_str(), r)))
        .chain(postgres_rates.map(|(r, _)| ("PostgreSQL: tickets over HTTP", r)))
        .chain(
            postgres_rates
                .and_then(|(_, r)| r)
                .map(|r| (postgres_name.as_str(), r)),
        ) {
            table.row(vec![
                name.into(),
                format!("{rate:.0}"),
                format!("{:.3}", rate / raw_sign),
            ]);
        }
        let mut text = format!(
            "store: {store_kind}\n{}\nticket time over HTTP: store {:.0}%, crypto and codec {:.0}%, \
             HTTP {:.0}%; the crypto floor (1 sign, 2 verify, 2 ECDH: {:.0} µs) is {:.0}%, one \
             flush of the disk ({:.0} µs) {:.0}%\n",
            table.render(),
            store_share * 100.0,
            crypto_share * 100.0,
            http_share * 100.0,
            micros(floor.per_ticket()),
            floor_share * 100.0,
            micros(flush),
            flush_share * 100.0,
        );
        let cpu_line = |name: &str, shares: &serde_json::Value| {
            let pct = |k: &str| shares[k].as_f64().unwrap_or(f64::NAN) * 100.0;
            format!(
                "ticket CPU time over HTTP, {name}: store {:.0}%, crypto and codec {:.0}%, HTTP {:.0}%\n",
                pct("store"),
                pct("crypto_and_codec"),
                pct("http")
            )
        };
        text += &cpu_line("1 client", &cpu_share["one_client"]);
        if cpu_share.get("clients").is_some() {
            text += &cpu_line(&format!("{} clients", self.clients), &cpu_share["clients"]);
        }
        finish(
            self.format,
            &json,
            &text,
            success,
            "a request of the benchmark was refused",
        )
    }
}
