//! `vss pki serve` observed from outside (issue 22, observability): its Prometheus endpoint
//! (`--metrics ADDR`) scraped with a real HTTP client while requests are answered, and its
//! logs on stderr as JSON lines (`--log-format json`).

mod common;

use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::served::serve;
use common::{run, vss, PIN, PUK};

/// A PKI made by `vss pki init` in `tmp`.
fn made_pki(tmp: &Path) -> PathBuf {
    let pki = tmp.join("pki");
    run(vss()
        .args(["pki", "init", "--name", "observed", "--dir"])
        .arg(&pki)
        .env("VSS_PIN", PIN)
        .env("VSS_PUK", PUK))
    .success();
    pki
}

/// `127.0.0.1:PORT` with a port that was free a moment ago.
fn free_address() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("address").to_string()
}

/// An HTTP client that hands back every status as an answer.
fn client() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into()
}

/// The status of `GET url`.
fn get(client: &ureq::Agent, url: &str) -> u16 {
    client.get(url).call().expect("GET").status().as_u16()
}

/// The text at `http://address/metrics`, checked to be the text format 0.0.4.
fn scrape(client: &ureq::Agent, address: &str) -> String {
    let mut answer = client
        .get(format!("http://{address}/metrics"))
        .call()
        .expect("scrape");
    assert_eq!(answer.status().as_u16(), 200);
    let content_type = answer
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    assert!(
        content_type.starts_with("text/plain; version=0.0.4"),
        "{content_type}"
    );
    answer.body_mut().read_to_string().expect("body")
}

/// The value of `vss_pki_http_requests_total` for `endpoint` and `code` in `text`.
fn counted(text: &str, endpoint: &str, code: u16) -> Option<u64> {
    let series = format!("vss_pki_http_requests_total{{endpoint=\"{endpoint}\",code=\"{code}\"}} ");
    text.lines()
        .find_map(|line| line.strip_prefix(&series))
        .map(|value| value.parse().expect("a count"))
}

#[test]
fn pki_requests_are_counted_by_response_code_at_the_metrics_endpoint() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let pki = made_pki(tmp.path());
    let metrics = free_address();
    let server = serve(&pki, &["--metrics", &metrics]);
    let client = client();

    let before = scrape(&client, &metrics);
    assert_eq!(counted(&before, "/ea/enrolment", 415), None, "{before}");

    // An enrolment request of the wrong media type, twice: 415 each time.
    for _ in 0..2 {
        let refused = client
            .post(format!("{}/ea/enrolment", server.url))
            .header("content-type", "text/plain")
            .send(&b"not an enrolment request"[..])
            .expect("POST");
        assert_eq!(refused.status().as_u16(), 415);
    }
    assert_eq!(get(&client, &format!("{}/health", server.url)), 200);
    assert_eq!(get(&client, &format!("{}/nowhere", server.url)), 404);

    let after = scrape(&client, &metrics);
    assert_eq!(counted(&after, "/ea/enrolment", 415), Some(2), "{after}");
    assert_eq!(counted(&after, "/health", 200), Some(1), "{after}");
    assert_eq!(counted(&after, "other", 404), Some(1), "{after}");
    assert!(
        after.contains(
            "vss_pki_http_request_duration_seconds_count{endpoint=\"/ea/enrolment\"} 2\n"
        ),
        "{after}"
    );
    // The endpoint serves /metrics only, to GET.
    assert_eq!(get(&client, &format!("http://{metrics}/")), 404);
    let posted = client
        .post(format!("http://{metrics}/metrics"))
        .send(&b""[..])
        .expect("POST");
    assert_eq!(posted.status().as_u16(), 405);
}

#[test]
fn log_format_json_writes_one_object_per_line_on_stderr() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let pki = made_pki(tmp.path());
    let listen = free_address();
    let mut child = vss()
        .args([
            "--log-format",
            "json",
            "pki",
            "serve",
            "--listen",
            &listen,
            "--dir",
        ])
        .arg(&pki)
        .env("VSS_PIN", PIN)
        .env_remove("VSS_LOG")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn vss pki serve");
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(&listen).is_err() {
        assert!(
            child.try_wait().expect("wait").is_none(),
            "vss pki serve exited"
        );
        assert!(Instant::now() < deadline, "vss pki serve did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    let client = client();
    assert_eq!(get(&client, &format!("http://{listen}/health")), 200);
    assert_eq!(get(&client, &format!("http://{listen}/nowhere")), 404);
    // Each request is logged before it is answered: all is on stderr by now.
    let _ = child.kill();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("piped")
        .read_to_string(&mut stderr)
        .expect("stderr");
    let _ = child.wait();

    let events: Vec<serde_json::Value> = stderr
        .lines()
        .map(|line| {
            let event: serde_json::Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("not a JSON line ({e}): {line:?}\n{stderr}"));
            assert!(event.is_object(), "{line}");
            event
        })
        .collect();
    let start = events
        .iter()
        .find(|e| e["message"] == "serving the PKI")
        .unwrap_or_else(|| panic!("no start event: {stderr}"));
    assert_eq!(start["level"], "INFO");
    assert_eq!(start["url"], format!("http://{listen}"));
    let request = |path: &str| {
        events
            .iter()
            .find(|e| e["message"] == "request" && e["path"] == path)
            .unwrap_or_else(|| panic!("no request event for {path}: {stderr}"))
    };
    let health = request("/health");
    assert_eq!(health["method"], "GET");
    assert_eq!(health["status"], 200);
    assert!(health["latency_ms"].is_f64(), "{health}");
    assert_eq!(request("/nowhere")["status"], 404);
}

#[test]
fn a_bad_log_filter_is_a_one_line_usage_error() {
    for filter in ["vss=loud", "", "info\u{1b}[31m"] {
        let refused = run(vss().args(["keys", "list", "--log-level", filter]))
            .failure()
            .one_line_stderr();
        assert_eq!(refused.status.code(), Some(2), "{refused:#?}");
        assert!(refused.stderr.contains("--log-level"), "{refused:#?}");
    }
    let refused = run(vss().args(["keys", "list"]).env("VSS_LOG", "vss=loud"))
        .failure()
        .one_line_stderr();
    assert_eq!(refused.status.code(), Some(2), "{refused:#?}");
}

#[test]
fn the_help_names_the_metrics_and_log_options() {
    let help = run(vss().args(["pki", "serve", "--help"])).success().stdout;
    for option in [
        "--metrics <ADDR>",
        "--log-format <FORMAT>",
        "--log-level <FILTER>",
    ] {
        assert!(help.contains(option), "{option} missing: {help}");
    }
    assert!(help.contains("vss_pki_http_requests_total"), "{help}");
}
