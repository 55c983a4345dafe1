//! What the server records of each request it answers: a log event at info (method, path,
//! status, latency; never a header or a body) and, where asked, Prometheus metrics by
//! endpoint and response code ([`HttpMetrics`]).

use std::time::Instant;

use axum::http::{Method, StatusCode};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

use super::dc::{GET_CRL, GET_CTL, GET_DELTA_CTL, GET_ECTL};
use super::server::{AUTHORIZATION, ENROLMENT, HEALTH, VALIDATION};

/// The endpoint label of a request to a path the server does not route.
pub const OTHER_ENDPOINT: &str = "other";

/// The most characters of a request's method and of its path that are logged; past them, `…`.
pub const MAX_LOGGED: usize = 256;

/// A request's counter labels: its route and the status it was answered with.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Answered {
    endpoint: &'static str,
    code: u16,
}

/// A request's histogram label: its route.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Endpoint {
    endpoint: &'static str,
}

/// The latency histogram's buckets: 0.5 ms doubling to 16 s.
fn latency_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.0005, 2.0, 16))
}

/// The PKI server's request metrics: `vss_pki_http_requests_total{endpoint, code}` and
/// `vss_pki_http_request_duration_seconds{endpoint}`, the endpoint a route's path or
/// [`OTHER_ENDPOINT`] (so a client cannot add labels).
#[derive(Clone, Debug)]
pub struct HttpMetrics {
    requests: Family<Answered, Counter>,
    latency: Family<Endpoint, Histogram, fn() -> Histogram>,
}

impl HttpMetrics {
    /// The metrics, registered in `registry`.
    pub fn register(registry: &mut Registry) -> HttpMetrics {
        let metrics = HttpMetrics {
            requests: Family::default(),
            latency: Family::new_with_constructor(latency_histogram),
        };
        registry.register(
            "vss_pki_http_requests",
            "PKI requests answered, by endpoint and HTTP response code",
            metrics.requests.clone(),
        );
        registry.register(
            "vss_pki_http_request_duration_seconds",
            "Time from a PKI request's head to its answer's head, by endpoint",
            metrics.latency.clone(),
        );
        metrics
    }
}

/// The route `path` is counted as.
fn endpoint(path: &str) -> &'static str {
    let list = |prefix: &str| {
        path.strip_prefix(prefix)
            .and_then(|rest| rest.strip_prefix('/'))
            .is_some_and(|id| id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit()))
    };
    [HEALTH, ENROLMENT, VALIDATION, AUTHORIZATION]
        .into_iter()
        .find(|route| *route == path)
        .or_else(|| {
            [GET_CTL, GET_DELTA_CTL, GET_CRL, GET_ECTL]
                .into_iter()
                .find(|p| list(p))
        })
        .unwrap_or(OTHER_ENDPOINT)
}

/// `text` cut to [`MAX_LOGGED`] characters.
fn bounded(text: &str) -> String {
    match text.char_indices().nth(MAX_LOGGED) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// A request being answered, as its head named it.
pub(super) struct Observed {
    method: Method,
    path: String,
    started: Instant,
}

impl Observed {
    /// Starts the clock on a request for `path` (without its query) with `method`.
    pub(super) fn start(method: &Method, path: &str) -> Observed {
        Observed {
            method: method.clone(),
            path: path.to_string(),
            started: Instant::now(),
        }
    }

    /// Logs the request answered with `status`, and counts it in `metrics`.
    pub(super) fn answered(self, status: StatusCode, metrics: Option<&HttpMetrics>) {
        let latency = self.started.elapsed();
        let endpoint = endpoint(&self.path);
        tracing::info!(
            method = bounded(self.method.as_str()),
            path = bounded(&self.path),
            status = status.as_u16(),
            latency_ms = latency.as_secs_f64() * 1e3,
            "request"
        );
        if let Some(metrics) = metrics {
            metrics
                .requests
                .get_or_create(&Answered {
                    endpoint,
                    code: status.as_u16(),
                })
                .inc();
            metrics
                .latency
                .get_or_create(&Endpoint { endpoint })
                .observe(latency.as_secs_f64());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_counts_as_its_route_or_as_other() {
        assert_eq!(endpoint("/ea/enrolment"), "/ea/enrolment");
        assert_eq!(endpoint("/health"), "/health");
        assert_eq!(endpoint("/health/"), OTHER_ENDPOINT);
        assert_eq!(endpoint("/x"), OTHER_ENDPOINT);
        // A distribution centre's lists count by kind, whatever the certificate.
        assert_eq!(endpoint("/getctl/0123456789ABCDEF"), "/getctl");
        assert_eq!(endpoint("/getcrl/0123456789abcdef"), "/getcrl");
        assert_eq!(endpoint("/getectl/E7A4B2B045E7ACF9"), "/getectl");
        assert_eq!(endpoint("/getctl/not-an-id-at-all"), OTHER_ENDPOINT);
        assert_eq!(endpoint("/getctl"), OTHER_ENDPOINT);
    }

    #[test]
    fn a_long_path_is_logged_cut() {
        assert_eq!(bounded("/health"), "/health");
        let long = "/".repeat(MAX_LOGGED + 10);
        assert_eq!(bounded(&long), format!("{}…", "/".repeat(MAX_LOGGED)));
    }

    #[test]
    fn answered_requests_are_counted_by_endpoint_and_code() {
        let mut registry = Registry::default();
        let metrics = HttpMetrics::register(&mut registry);
        for (path, status) in [
            ("/ea/enrolment", StatusCode::UNSUPPORTED_MEDIA_TYPE),
            ("/ea/enrolment", StatusCode::UNSUPPORTED_MEDIA_TYPE),
            ("/nowhere", StatusCode::NOT_FOUND),
        ] {
            Observed::start(&Method::POST, path).answered(status, Some(&metrics));
        }
        let text = vss_net::metrics::render(&registry);
        assert!(
            text.contains(
                "vss_pki_http_requests_total{endpoint=\"/ea/enrolment\",code=\"415\"} 2\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("vss_pki_http_requests_total{endpoint=\"other\",code=\"404\"} 1\n"),
            "{text}"
        );
        assert!(
            text.contains(
                "vss_pki_http_request_duration_seconds_count{endpoint=\"/ea/enrolment\"} 2\n"
            ),
            "{text}"
        );
    }
}
