//! The revocation authority's handles, never given back: one address asking for them is
//! refused 429 past its burst while another is served, and gets one more per interval.

use super::{ask, start, Server, ATTACKER, HONEST, MARGIN, PIN, PUK};
use std::sync::Arc;
use std::time::{Duration, Instant};
use vss_cred::roles::Revocation;
use vss_cred::service::revocation::{
    HandleGrant, RevocationService, HANDLE_BURST, HANDLE_INTERVAL,
};
use vss_cred::service::{default_limits, Role};

/// `POST /handle` as the issuer sends it.
const HANDLE: &[u8] = b"POST /handle HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
                        content-length: 2\r\nconnection: close\r\n\r\n{}";

fn revocation() -> Server {
    let dir = tempfile::tempdir().expect("tempdir");
    Revocation::create(dir.path(), PIN, PUK).expect("revocation authority");
    let service = RevocationService::open(dir.path(), PIN).expect("service");
    start(Role::Revocation(Arc::new(service)), default_limits(), dir)
}

/// The status of a handle asked from `from`, whether it came with `Retry-After`, and
/// whether a 200 carries a grant.
fn handle(server: &Server, from: std::net::IpAddr) -> (u16, bool) {
    let answer = server.runtime.block_on(ask(server.addr, from, HANDLE));
    let (code, text) = answer.expect("an answer");
    if code == 200 {
        let body = text.split_once("\r\n\r\n").expect("head and body").1;
        serde_json::from_str::<HandleGrant>(body).expect("a grant");
    }
    (
        code,
        text.to_ascii_lowercase().contains("\r\nretry-after: "),
    )
}

#[test]
fn one_address_takes_its_burst_of_handles_then_one_per_interval() {
    let server = revocation();
    let burst = HANDLE_BURST as usize;
    let started = Instant::now();
    let answers: Vec<_> = (0..burst + 4).map(|_| handle(&server, ATTACKER)).collect();
    // Within this time at most one handle more came back to the attacker.
    let elapsed = started.elapsed();
    let granted = answers.iter().filter(|(code, _)| *code == 200).count();
    let refilled = (elapsed.as_secs_f64() / HANDLE_INTERVAL.as_secs_f64()) as usize;
    assert!(
        granted >= burst && granted <= burst + refilled,
        "{granted} in {elapsed:?}: {answers:?}"
    );
    assert_eq!(answers.last(), Some(&(429, true)), "{answers:?}");
    let asked = Instant::now();
    assert_eq!(handle(&server, HONEST).0, 200, "another address is served");
    assert!(asked.elapsed() < MARGIN, "{:?}", asked.elapsed());
    std::thread::sleep(HANDLE_INTERVAL + Duration::from_millis(100));
    assert_eq!(
        handle(&server, ATTACKER).0,
        200,
        "one more after the interval"
    );
}
