//! The benchmark's report: rates as ratios to the raw signing rate, the shares of a
//! ticket's time and CPU time over HTTP, as JSON and as text.

use std::time::Duration;

use serde_json::{json, Value};

use super::{Measured, PkiOptions};
use crate::report::{Report, Table};

/// The report of `measured`.
pub(super) fn report(options: &PkiOptions, measured: &Measured) -> Report {
    let figures = Figures::new(options, measured);
    Report::checked(
        figures.json(options, measured),
        figures.text(options, measured),
        figures.success,
        "a request of the benchmark was refused",
    )
}

/// `n` operations in `time`, per second.
fn per(time: Duration, n: u32) -> f64 {
    f64::from(n) / time.as_secs_f64()
}

/// Microseconds of `d`.
fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// What the report says, worked out from the measurements.
struct Figures {
    store_kind: &'static str,
    enrol_rate: f64,
    ticket_rate: f64,
    http_enrol_rate: f64,
    http_ticket_rate: f64,
    /// Tickets per second over HTTP from concurrent clients.
    concurrent_rate: Option<f64>,
    /// Tickets per second over HTTP on PostgreSQL, from one client and concurrent ones.
    postgres_rates: Option<(f64, Option<f64>)>,
    /// Shares of a ticket's time over HTTP, each measured in the HTTP run: the store's calls
    /// in the server, the transport (a refusal's round trip less its handling), and the
    /// rest, the authorities' cryptography and codec; the crypto floor's and the flush's.
    store_share: f64,
    http_share: f64,
    crypto_share: f64,
    floor_share: f64,
    flush_share: f64,
    /// Shares of a ticket's CPU time over HTTP (waits are not CPU time).
    cpu_share: Value,
    success: bool,
}

impl Figures {
    fn new(options: &PkiOptions, m: &Measured) -> Self {
        let (e, t) = (options.enrolments, options.tickets);
        let http_ticket_time = m.http.sequential.0;
        let whole = http_ticket_time.as_secs_f64();
        let store_share = m.http.sequential_store.as_secs_f64() / whole;
        let http_share = (m.transport.round_trip * t).as_secs_f64() / whole;
        let round_trip_cpu = m.transport.round_trip_cpu;
        let mut cpu_share = json!({"one_client": m.http.sequential_cpu.shares(round_trip_cpu, t)});
        if let Some((_, cpu)) = m.http.concurrent {
            cpu_share["clients"] = cpu.shares(round_trip_cpu, t);
            cpu_share["clients"]["clients"] = json!(options.clients);
        }
        let store_kind = match options.database.as_deref() {
            Some(url) if url.starts_with("postgres") => "postgresql",
            _ => "sqlite",
        };
        Figures {
            store_kind,
            enrol_rate: per(m.in_process.enrol.0, e),
            ticket_rate: per(m.in_process.tickets.0, t),
            http_enrol_rate: per(m.http_enrol.0, e),
            http_ticket_rate: per(http_ticket_time, t),
            concurrent_rate: m.http.concurrent.map(|((time, _), _)| per(time, t)),
            postgres_rates: m.postgres.as_ref().map(|p| {
                (
                    per(p.sequential.0, t),
                    p.concurrent.map(|((time, _), _)| per(time, t)),
                )
            }),
            store_share,
            http_share,
            crypto_share: 1.0 - store_share - http_share,
            floor_share: m.floor.per_ticket().as_secs_f64() * f64::from(t) / whole,
            flush_share: m.flush.as_secs_f64() * f64::from(t) / whole,
            cpu_share,
            success: m.in_process.enrol.1
                && m.in_process.tickets.1
                && m.http_enrol.1
                && m.http.all_answered()
                && m.postgres.as_ref().is_none_or(|p| p.all_answered()),
        }
    }

    fn json(&self, options: &PkiOptions, m: &Measured) -> Value {
        let raw_sign = m.raw_sign;
        let in_process = &m.in_process;
        let mut json = json!({
            "store": self.store_kind,
            "raw_p256_sign_per_second": raw_sign,
            "enrolments": options.enrolments,
            "tickets": options.tickets,
            "in_process": {
                "enrolments_per_second": self.enrol_rate,
                "tickets_per_second": self.ticket_rate,
                "tickets_ratio_to_raw_sign": self.ticket_rate / raw_sign,
                "ticket_store_share": in_process.store.as_secs_f64() / in_process.tickets.0.as_secs_f64(),
            },
            "http": {
                "enrolments_per_second": self.http_enrol_rate,
                "tickets_per_second": self.http_ticket_rate,
                "enrolments_ratio_to_raw_sign": self.http_enrol_rate / raw_sign,
                "tickets_ratio_to_raw_sign": self.http_ticket_rate / raw_sign,
            },
            "ticket_time_share": {"store": self.store_share, "crypto_and_codec": self.crypto_share, "http": self.http_share},
            "ticket_cpu_share": self.cpu_share,
            "http_round_trip_us": micros(m.transport.round_trip),
            "crypto_floor": {
                "sign_us": micros(m.floor.sign),
                "verify_us": micros(m.floor.verify),
                "ecdh_us": micros(m.floor.ecdh),
                "per_ticket_us": micros(m.floor.per_ticket()),
                "share_of_http_ticket": self.floor_share,
            },
            "disk_flush": {
                "us": micros(m.flush),
                "share_of_http_ticket": self.flush_share,
            },
            "success": self.success,
        });
        if let Some(rate) = self.concurrent_rate {
            json["http_concurrent"] = json!({
                "clients": options.clients,
                "tickets_per_second": rate,
                "tickets_ratio_to_raw_sign": rate / raw_sign,
            });
        }
        if let Some((one, many)) = self.postgres_rates {
            json["postgresql_http"] = json!({
                "tickets_per_second_1_client": one,
                "clients": options.clients,
                "tickets_per_second_concurrent": many,
            });
        }
        json
    }

    fn table(&self, options: &PkiOptions, raw_sign: f64) -> Table {
        let mut table = Table::new(&["measurement", "per second", "ratio to raw P-256 sign"]);
        table.row(vec![
            "raw P-256 sign".into(),
            format!("{raw_sign:.0}"),
            "1.000".into(),
        ]);
        let concurrent_name = format!("tickets over HTTP, {} clients", options.clients);
        let postgres_name = format!("PostgreSQL: tickets over HTTP, {} clients", options.clients);
        for (name, rate) in [
            ("enrolments, in-process", self.enrol_rate),
            ("tickets, in-process", self.ticket_rate),
            ("enrolments over HTTP", self.http_enrol_rate),
            ("tickets over HTTP", self.http_ticket_rate),
        ]
        .into_iter()
        .chain(self.concurrent_rate.map(|r| (concurrent_name.as_str(), r)))
        .chain(
            self.postgres_rates
                .map(|(r, _)| ("PostgreSQL: tickets over HTTP", r)),
        )
        .chain(
            self.postgres_rates
                .and_then(|(_, r)| r)
                .map(|r| (postgres_name.as_str(), r)),
        ) {
            table.row(vec![
                name.into(),
                format!("{rate:.0}"),
                format!("{:.3}", rate / raw_sign),
            ]);
        }
        table
    }

    fn text(&self, options: &PkiOptions, m: &Measured) -> String {
        let mut text = format!(
            "store: {}\n{}\nticket time over HTTP: store {:.0}%, crypto and codec {:.0}%, \
             HTTP {:.0}%; the crypto floor (1 sign, 2 verify, 2 ECDH: {:.0} µs) is {:.0}%, one \
             flush of the disk ({:.0} µs) {:.0}%\n",
            self.store_kind,
            self.table(options, m.raw_sign).render(),
            self.store_share * 100.0,
            self.crypto_share * 100.0,
            self.http_share * 100.0,
            micros(m.floor.per_ticket()),
            self.floor_share * 100.0,
            micros(m.flush),
            self.flush_share * 100.0,
        );
        let cpu_line = |name: &str, shares: &Value| {
            let pct = |k: &str| shares[k].as_f64().unwrap_or(f64::NAN) * 100.0;
            format!(
                "ticket CPU time over HTTP, {name}: store {:.0}%, crypto and codec {:.0}%, HTTP {:.0}%\n",
                pct("store"),
                pct("crypto_and_codec"),
                pct("http")
            )
        };
        text += &cpu_line("1 client", &self.cpu_share["one_client"]);
        if self.cpu_share.get("clients").is_some() {
            text += &cpu_line(
                &format!("{} clients", options.clients),
                &self.cpu_share["clients"],
            );
        }
        text
    }
}
