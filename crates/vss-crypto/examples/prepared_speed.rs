//! Prepared verification keys against the library on one core: verifications per second
//! of a warm signer, the table's build time and its memory per key, for windows of 4 to 7
//! bits. Times are the thread's CPU time where Linux gives it (`/proc/thread-self/schedstat`),
//! as `openssl speed` counts, so that other processes on the machine distort less; the wall
//! clock elsewhere.
//!
//! `cargo run --release -p vss-crypto --example prepared_speed [p256 bp256 p384 bp384 …]`
//! (P-256 and brainpoolP256r1 when no curve is named).

use std::time::{Duration, Instant};

use vss_crypto::{Curve, PreparedKey, PrivateKey, Signature};

/// How long each rate is measured.
const MEASURE: Duration = Duration::from_secs(2);
/// Distinct signatures of the one key, verified in turn.
const SIGNATURES: usize = 64;

/// The time this thread has run on a CPU, if Linux says.
fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos = stat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

/// A clock: the thread's CPU time, or the wall clock.
struct Clock {
    wall: Instant,
    cpu: Option<Duration>,
}

impl Clock {
    fn start() -> Self {
        Clock {
            wall: Instant::now(),
            cpu: cpu_time(),
        }
    }

    fn elapsed(&self) -> Duration {
        match (self.cpu, cpu_time()) {
            (Some(start), Some(now)) => now.saturating_sub(start),
            _ => self.wall.elapsed(),
        }
    }
}

/// Operations per second of `op` (given 0 … SIGNATURES − 1 in turn), run in batches for at
/// least [`MEASURE`].
fn rate(mut op: impl FnMut(usize) -> bool) -> f64 {
    let clock = Clock::start();
    let mut done = 0usize;
    while clock.elapsed() < MEASURE {
        for i in 0..SIGNATURES {
            assert!(op(i), "a valid signature refused, or a key not prepared");
        }
        done += SIGNATURES;
    }
    done as f64 / clock.elapsed().as_secs_f64()
}

fn measure(curve: Curve) -> vss_crypto::Result<()> {
    let key = PrivateKey::generate(curve)?;
    let mut signed: Vec<(Vec<u8>, Signature)> = Vec::with_capacity(SIGNATURES);
    for i in 0..SIGNATURES {
        let digest = curve.default_hash().digest(&i.to_be_bytes());
        let signature = key.sign_digest(&digest)?;
        signed.push((digest, signature));
    }
    let library = key.public_key().verifying_key()?;
    let library_rate = rate(|i| library.verify_digest(&signed[i].0, &signed[i].1));
    PreparedKey::warm_up(curve);
    println!("{curve}: library verify {library_rate:.0}/s");
    for window in 4..=7 {
        let prepared = PreparedKey::with_window(key.public_key(), window)?;
        let builds = rate(|_| PreparedKey::with_window(key.public_key(), window).is_ok());
        let prepared_rate = rate(|i| prepared.verify_digest(&signed[i].0, &signed[i].1));
        println!(
            "{curve}: w = {window}: prepared verify {prepared_rate:.0}/s ({:.2}× the library), \
             table build {:.2} ms, {} KiB per key",
            prepared_rate / library_rate,
            1e3 / builds,
            prepared.memory_bytes() / 1024,
        );
    }
    Ok(())
}

fn main() -> vss_crypto::Result<()> {
    let named: Vec<String> = std::env::args().skip(1).collect();
    let curves = if named.is_empty() {
        vec![Curve::P256, Curve::Bp256]
    } else {
        named
            .iter()
            .map(|name| name.parse())
            .collect::<vss_crypto::Result<Vec<Curve>>>()?
    };
    for curve in curves {
        measure(curve)?;
    }
    Ok(())
}
