//! Seed 003's table for this machine: the VIP-ticket scenario run N times (the seed's 20)
//! with the card in this process, as a process on TCP and behind pcscd, per step mean, p50
//! and p99, the card's APDUs and bytes and its peak RSS; and, measured in the same run as
//! the reference, a bare BBS proof of the same seven messages (generation and verification).

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::json;
use vss_card::connect::{self, CardAddress};
use vss_card::process::{card_binary, CardProcess, START_TIMEOUT};
use vss_cred::bbs::{self, SecretKey};
use vss_cred::group::random_scalar;
use vss_cred::holder::Card;
use vss_cred::scenario;

use crate::report::{progress, Report, Table};

/// Options of the credential benchmark.
#[derive(Debug, Clone)]
pub struct CredOptions {
    /// Runs per card (the seed's 20).
    pub runs: u32,
    /// The cards: soft (in this process), tcp (a card process), pcsc (a card process behind
    /// pcscd's vpcd reader; skipped with a note when pcscd is not running).
    pub cards: Vec<String>,
    /// vpcd's port for the pcsc card.
    pub vpcd: String,
}

/// One step of seed 003's table.
struct SeedStep {
    step: &'static str,
    ms: f64,
    /// APDUs and bytes, where the seed gives them.
    traffic: Option<(u64, u64)>,
}

/// Seed 003's figures (Omega2 card over TCP from a Raspberry Pi 3, P2ABCE, 1,024-bit keys).
const SEED: [SeedStep; 4] = [
    SeedStep {
        step: "setup",
        ms: 3_770.0,
        traffic: None,
    },
    SeedStep {
        step: "card-setup",
        ms: 19_190.0,
        traffic: Some((30, 1_109)),
    },
    SeedStep {
        step: "issue",
        ms: 36_480.0,
        traffic: Some((45, 3_197)),
    },
    SeedStep {
        step: "present",
        ms: 32_840.0,
        traffic: Some((28, 1_939)),
    },
];

/// Mean, p50 and p99 of milliseconds.
fn stats(ms: &mut [f64]) -> (f64, f64, f64) {
    ms.sort_by(f64::total_cmp);
    let pick = |q: f64| ms[((ms.len() - 1) as f64 * q).round() as usize];
    (
        ms.iter().sum::<f64>() / ms.len() as f64,
        pick(0.5),
        pick(0.99),
    )
}

/// The card of one kind, with the process behind it when there is one.
struct BenchCard {
    card: Box<dyn Card + Send>,
    _process: Option<CardProcess>,
}

fn open_card(kind: &str, dir: &Path, vpcd: &str) -> Result<Option<BenchCard>> {
    let state = dir.join(format!("{kind}.state"));
    Ok(Some(match kind {
        "soft" => BenchCard {
            card: connect::open(&CardAddress::Software)?,
            _process: None,
        },
        "tcp" => {
            let (process, addr) = CardProcess::start_tcp(&card_binary(), &state, false)?;
            BenchCard {
                card: connect::open(&CardAddress::Tcp(addr.to_string()))?,
                _process: Some(process),
            }
        }
        "pcsc" => {
            if !Path::new("/run/pcscd/pcscd.comm").exists() {
                eprintln!(
                    "vss: bench cred: pcsc skipped: pcscd is not running (/run/pcscd/pcscd.comm)"
                );
                return Ok(None);
            }
            let process = CardProcess::start(&card_binary(), &state, &["--vpcd", vpcd], false)?;
            process.wait_for("connected to vpcd", START_TIMEOUT)?;
            let deadline = Instant::now() + START_TIMEOUT;
            let card = loop {
                match connect::open(&CardAddress::Pcsc(None)) {
                    Ok(card) => break card,
                    Err(e) if Instant::now() > deadline => {
                        return Err(e).context("the card behind pcscd")
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(50)),
                }
            };
            BenchCard {
                card,
                _process: Some(process),
            }
        }
        other => bail!("unknown card {other:?}: soft, tcp or pcsc"),
    }))
}

/// A bare BBS proof of seven messages, one disclosed: generation and verification in ms.
fn bare_proof() -> Result<(f64, f64)> {
    let sk = SecretKey::random();
    let pk = sk.public_key();
    let messages: Vec<_> = (0..7).map(|_| random_scalar()).collect();
    let signature = bbs::sign(&sk, &pk, b"bench", &messages)?;
    let start = Instant::now();
    let proof = bbs::proof_gen(&pk, &signature, b"bench", b"ph", &messages, &[6])?;
    let gen = start.elapsed().as_secs_f64() * 1e3;
    let start = Instant::now();
    bbs::proof_verify(&pk, &proof, b"bench", b"ph", &[(6, messages[6])])?;
    Ok((gen, start.elapsed().as_secs_f64() * 1e3))
}

/// One card's runs: the scenario's reports and the card's peak RSS.
struct CardRuns {
    kind: String,
    reports: Vec<scenario::Report>,
    rss: u32,
}

/// Runs `options.runs` scenarios on the card `card` of `kind`, with a bare proof after each
/// (its generation and verification times go to `bare`); whether every check passed.
fn run_card(
    options: &CredOptions,
    kind: &str,
    card: &mut BenchCard,
    dir: &Path,
    bare: &mut (Vec<f64>, Vec<f64>),
) -> Result<(CardRuns, bool)> {
    let (pin, puk) = ("4711", "12345678");
    let bar = progress(u64::from(options.runs), &format!("cred {kind}"));
    let mut reports = Vec::new();
    let mut all_ok = true;
    for run in 0..options.runs {
        if run > 0 {
            card.card
                .erase(puk)
                .context("erasing the card between runs")?;
        }
        let roles = dir.join(format!("{kind}-{run}"));
        let report = scenario::run(card.card.as_mut(), &roles, pin, puk)?;
        all_ok &= report.passed();
        let (g, v) = bare_proof()?;
        bare.0.push(g);
        bare.1.push(v);
        reports.push(report);
        bar.inc(1);
        std::fs::remove_dir_all(&roles)?;
    }
    bar.finish_and_clear();
    let rss = reports.iter().map(|r| r.card_max_rss_kb).max().unwrap_or(0);
    let runs = CardRuns {
        kind: kind.to_owned(),
        reports,
        rss,
    };
    Ok((runs, all_ok))
}

/// Runs the benchmark; its check fails if a scenario check failed.
pub fn run(options: &CredOptions) -> Result<Report> {
    if let Some(other) = options
        .cards
        .iter()
        .find(|c| !["soft", "tcp", "pcsc"].contains(&c.as_str()))
    {
        bail!("unknown card {other:?}: soft, tcp or pcsc");
    }
    let dir = tempfile::Builder::new()
        .prefix("vss-bench-cred-")
        .tempdir()?;
    let mut results = Vec::new();
    let mut bare = (Vec::new(), Vec::new());
    let mut all_ok = true;
    for kind in &options.cards {
        let Some(mut card) = open_card(kind, dir.path(), &options.vpcd)? else {
            continue;
        };
        let (runs, ok) = run_card(options, kind, &mut card, dir.path(), &mut bare)?;
        all_ok &= ok;
        results.push(runs);
    }
    if results.is_empty() {
        bail!("no card could be benchmarked");
    }
    let (bare_gen, _, _) = stats(&mut bare.0);
    let (bare_verify, _, _) = stats(&mut bare.1);
    let (table, json_cards) = steps(&results);
    let verify_ratio = verify_ratio(&results, bare_verify);
    let text = summary(&results, table, bare_gen, bare_verify, verify_ratio);
    let report = json!({
        "runs": options.runs,
        "cards": json_cards,
        "reference": {"bare_proof_gen_ms": bare_gen, "bare_proof_verify_ms": bare_verify,
                      "verify_over_bare": verify_ratio},
        "seed": {"platform": "Omega2 card over TCP from a Raspberry Pi 3 (P2ABCE, 1,024-bit keys)",
                 "steps": SEED.iter().map(|s| json!({"step": s.step, "ms": s.ms, "apdus_bytes": s.traffic})).collect::<Vec<_>>()},
    });
    Ok(Report::checked(
        report,
        text,
        all_ok,
        "a scenario check failed (refusal, pseudonym or inspection)",
    ))
}

/// Each card's steps beside the seed's: the table, and the same figures as JSON by card.
fn steps(results: &[CardRuns]) -> (Table, serde_json::Map<String, serde_json::Value>) {
    let mut table = Table::new(&[
        "card",
        "step",
        "mean ms",
        "p50 ms",
        "p99 ms",
        "APDUs",
        "bytes",
        "seed ms",
        "seed APDUs/bytes",
    ]);
    let mut json_cards = serde_json::Map::new();
    for CardRuns { kind, reports, rss } in results {
        let mut json_steps = serde_json::Map::new();
        for (k, (name, last)) in reports[reports.len() - 1]
            .steps
            .named()
            .into_iter()
            .enumerate()
        {
            let mut ms: Vec<f64> = reports.iter().map(|r| r.steps.named()[k].1.ms).collect();
            let (mean, p50, p99) = stats(&mut ms);
            let seed = SEED.iter().find(|s| s.step == name);
            table.row(vec![
                kind.clone(),
                name.into(),
                format!("{mean:.2}"),
                format!("{p50:.2}"),
                format!("{p99:.2}"),
                last.apdus.to_string(),
                last.bytes.to_string(),
                seed.map_or("-".into(), |s| format!("{:.0}", s.ms)),
                seed.and_then(|s| s.traffic)
                    .map_or("-".into(), |(a, b)| format!("{a}/{b}")),
            ]);
            json_steps.insert(
                name.into(),
                json!({"mean_ms": mean, "p50_ms": p50, "p99_ms": p99, "apdus": last.apdus, "bytes": last.bytes,
                       "seed_ms": seed.map(|s| s.ms)}),
            );
        }
        json_cards.insert(
            kind.clone(),
            json!({"steps": json_steps, "card_max_rss_kb": rss, "runs": reports.len()}),
        );
    }
    (table, json_cards)
}

/// The mean verification over every card's runs, as a ratio to the bare proof's.
fn verify_ratio(results: &[CardRuns], bare_verify: f64) -> f64 {
    let mut ms: Vec<f64> = results
        .iter()
        .flat_map(|c| c.reports.iter().map(|r| r.steps.verify.ms))
        .collect();
    stats(&mut ms).0 / bare_verify
}

/// The table, then the reference and each card's ratios to it, as text.
fn summary(
    results: &[CardRuns],
    table: Table,
    bare_gen: f64,
    bare_verify: f64,
    verify_ratio: f64,
) -> String {
    let present_ratio = |kind: &str| {
        results.iter().find(|c| c.kind == kind).map(|c| {
            let mut ms: Vec<f64> = c.reports.iter().map(|r| r.steps.present.ms).collect();
            stats(&mut ms).0 / bare_gen
        })
    };
    let mut text = table.render();
    text.push_str(&format!(
        "reference (same run): bare BBS proof of 7 messages, gen {bare_gen:.2} ms, verify {bare_verify:.2} ms\n"
    ));
    for CardRuns { kind, rss, .. } in results {
        text.push_str(&format!(
            "{kind}: presentation {:.1}x the bare proof's generation; card peak RSS {rss} kB\n",
            present_ratio(kind).unwrap_or(f64::NAN)
        ));
    }
    text.push_str(&format!(
        "verification {verify_ratio:.1}x the bare proof's verification\n"
    ));
    text
}
