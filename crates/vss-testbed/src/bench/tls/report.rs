//! The report of `vss bench tls`: the handshake table with each row's ratio to server (a),
//! `vss tls serve`'s signing batches, the transfer table, and seed 002's connection times.

use serde_json::{json, Value};
use vss_crypto::KeyAlgorithm;

use super::load::Load;
use super::server::Server;
use super::transfer::Transfer;
use crate::report::{Report, Table};

/// Seed 002's OpenVPN connection times (dual-core ARM, software → offload), seconds.
const SEED_CONNECTION: [(&str, f64, f64); 3] = [
    ("rsa1024", 0.042, 0.020),
    ("rsa2048", 0.203, 0.040),
    ("rsa4096", 1.437, 0.184),
];

/// One row of the report: a key against a server.
pub(super) struct Row {
    /// The server's key.
    pub(super) key: KeyAlgorithm,
    /// The server.
    pub(super) server: Server,
    /// What the load measured, or why the server did not run.
    pub(super) outcome: std::result::Result<Load, String>,
}

/// What the run measured: `clients` and `seconds` as given, the rows, the transfers of
/// `transfer` bytes; server (b) not running is a failure only when it could run here
/// (`pkcs11_available`).
pub(super) struct Measured<'a> {
    /// Client threads.
    pub(super) clients: u32,
    /// Seconds per server.
    pub(super) seconds: f64,
    /// Every key against every server.
    pub(super) rows: &'a [Row],
    /// The transfers through each server (first key only).
    pub(super) transfers: &'a [Transfer],
    /// The transfer's size, when asked for.
    pub(super) transfer: Option<u64>,
    /// Whether server (b)'s engine and module are here.
    pub(super) pkcs11_available: bool,
}

/// The report of a run; it fails when a server that could run did not.
pub(super) fn report(measured: &Measured) -> Report {
    let mut failed = Vec::new();
    let (mut text, json_rows) = handshakes(measured, &mut failed);
    let mut json_transfers = Vec::new();
    if let Some(size) = measured.transfer {
        let (table, json) = transfers(measured.transfers, &mut failed);
        json_transfers = json;
        text.push('\n');
        text.push_str(&format!("{} MB through each server:\n", size >> 20));
        text.push_str(&table);
    }
    text.push_str(&format!(
        "\n{} clients, {} s per server. Seed 002 (OpenVPN on a dual-core ARM, software → \
         offload): connection time {}.\n",
        measured.clients,
        measured.seconds,
        SEED_CONNECTION
            .iter()
            .map(|(k, sw, hw)| format!("{k} {sw} s → {hw} s"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let json = json!({
        "clients": measured.clients, "seconds": measured.seconds,
        "rows": json_rows, "transfer_bytes": measured.transfer, "transfer": json_transfers,
        "seed_002_connection_s": SEED_CONNECTION.iter()
            .map(|(k, sw, hw)| json!({"key": k, "software": sw, "offload": hw}))
            .collect::<Vec<_>>(),
    });
    Report::checked(
        json,
        text,
        failed.is_empty(),
        format!("some servers failed: {}", failed.join("; ")),
    )
}

/// The handshake table (and the signing batches' line under it) and its JSON rows; the
/// rows that failed are added to `failed`.
fn handshakes(measured: &Measured, failed: &mut Vec<String>) -> (String, Vec<Value>) {
    let rows = measured.rows;
    let reference = |key: KeyAlgorithm| {
        rows.iter()
            .find(|r| r.key == key && r.server == Server::OpensslFile)
            .and_then(|r| r.outcome.as_ref().ok())
            .map(|l| l.per_second)
    };
    let mut table = Table::new(&[
        "key",
        "server",
        "handshakes/s",
        "p50 ms",
        "p99 ms",
        "CPU ms/handshake",
        "× (a)",
    ]);
    let mut json_rows = Vec::new();
    let mut batch_lines = Vec::new();
    for row in rows {
        match &row.outcome {
            Ok(load) => {
                let ratio = reference(row.key).map(|r| load.per_second / r);
                table.row(vec![
                    row.key.to_string(),
                    row.server.name().into(),
                    format!("{:.0}", load.per_second),
                    format!("{:.2}", load.p50.as_secs_f64() * 1e3),
                    format!("{:.2}", load.p99.as_secs_f64() * 1e3),
                    format!("{:.3}", load.cpu_per_handshake.as_secs_f64() * 1e3),
                    ratio.map_or("-".into(), |r| format!("{r:.2}")),
                ]);
                json_rows.push(load_json(row, load, ratio));
                if let Some((signatures, batches, largest)) = load.batches {
                    batch_lines.push(format!(
                        "{}: {signatures} signatures in {batches} batches (mean {:.2}, largest {largest})",
                        row.key,
                        signatures as f64 / batches.max(1) as f64
                    ));
                }
            }
            Err(why) => {
                if row.server != Server::OpensslPkcs11 || measured.pkcs11_available {
                    failed.push(format!("{} / {}: {why}", row.key, row.server.id()));
                }
                let mut cells = vec![
                    row.key.to_string(),
                    row.server.name().into(),
                    format!("not run: {why}"),
                ];
                cells.resize(7, String::new());
                table.row(cells);
                json_rows.push(json!({
                    "key": row.key.name(), "server": row.server.id(), "error": why,
                }));
            }
        }
    }
    let mut text = table.render();
    if !batch_lines.is_empty() {
        text.push_str(&format!(
            "vss tls serve signing: {}\n",
            batch_lines.join("; ")
        ));
    }
    (text, json_rows)
}

/// One measured row as JSON.
fn load_json(row: &Row, load: &Load, ratio: Option<f64>) -> Value {
    json!({
        "key": row.key.name(), "server": row.server.id(),
        "handshakes": load.handshakes, "per_second": load.per_second,
        "p50_ms": load.p50.as_secs_f64() * 1e3,
        "p99_ms": load.p99.as_secs_f64() * 1e3,
        "cpu_ms_per_handshake": load.cpu_per_handshake.as_secs_f64() * 1e3,
        "ratio_to_openssl_file": ratio,
        "signing_batches": load.batches.map(|(signatures, batches, largest)| json!({
            "signatures": signatures, "batches": batches, "largest": largest,
            "mean": signatures as f64 / batches.max(1) as f64,
        })),
    })
}

/// The transfer table and its JSON rows; the transfers that failed are added to `failed`.
fn transfers(transfers: &[Transfer], failed: &mut Vec<String>) -> (String, Vec<Value>) {
    let file = transfers
        .iter()
        .find(|t| t.server == Server::OpensslFile)
        .and_then(|t| t.outcome.as_ref().ok())
        .map(|(mb_s, _)| *mb_s);
    let mut t = Table::new(&["transfer (AES-256-GCM)", "MB/s", "server CPU s/MB", "× (a)"]);
    let mut json_transfers = Vec::new();
    for transfer in transfers {
        match &transfer.outcome {
            Ok((mb_s, cpu)) => {
                let ratio = file.map(|f| mb_s / f);
                t.row(vec![
                    transfer.server.name().into(),
                    format!("{mb_s:.0}"),
                    format!("{cpu:.5}"),
                    ratio.map_or("-".into(), |r| format!("{r:.2}")),
                ]);
                json_transfers.push(json!({
                    "server": transfer.server.id(), "mb_per_s": mb_s,
                    "cpu_s_per_mb": cpu, "ratio_to_openssl_file": ratio,
                }));
            }
            Err(why) => {
                failed.push(format!("transfer / {}: {why}", transfer.server.id()));
                t.row(vec![
                    transfer.server.name().into(),
                    format!("failed: {why}"),
                    String::new(),
                    String::new(),
                ]);
                json_transfers.push(json!({"server": transfer.server.id(), "error": why}));
            }
        }
    }
    (t.render(), json_transfers)
}
