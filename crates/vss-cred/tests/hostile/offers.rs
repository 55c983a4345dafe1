//! Open offers: one address flooding the issuer is refused 429 past its cap while another
//! is served; remote clients filling their share leave the local commands their reserve.

use super::{ask, start, Server, ATTACKER, HONEST, MARGIN, PIN, PUK};
use std::sync::Arc;
use std::time::Instant;
use vss_cred::layout;
use vss_cred::roles::{Issuer, MAX_OPEN_REMOTE};
use vss_cred::service::issuer::IssuerService;
use vss_cred::service::{default_limits, Role, MAX_OPEN_PER_CLIENT};

const OFFER: &str = r#"{"attributes": [["first_name", "John"], ["last_name", "Dow"],
    ["birthday", "1985-05-05Z"], ["member_number", "23784638726"],
    ["matchday", "2013-08-07Z"]]}"#;

fn john() -> Vec<(String, String)> {
    let request: serde_json::Value = serde_json::from_str(OFFER).expect("json");
    serde_json::from_value(request["attributes"].clone()).expect("pairs")
}

fn offer_request() -> Vec<u8> {
    format!(
        "POST /issuance/offer HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{OFFER}",
        OFFER.len()
    )
    .into_bytes()
}

/// The issuer of the VIP ticket, served with the default limits.
fn issuer() -> (Server, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().to_path_buf();
    Issuer::create(&path, vss_cred::scenario::vip_ticket(), PIN, PUK).expect("issuer");
    let service = IssuerService::open(&path, PIN, None).expect("service");
    (
        start(Role::Issuer(Arc::new(service)), default_limits(), dir),
        path,
    )
}

/// The status of an offer asked from `from`, and whether it came with `Retry-After`.
fn offer(server: &Server, from: std::net::IpAddr) -> (u16, bool) {
    let answer = server
        .runtime
        .block_on(ask(server.addr, from, &offer_request()));
    let (code, text) = answer.expect("an answer");
    (
        code,
        text.to_ascii_lowercase().contains("\r\nretry-after: "),
    )
}

#[test]
fn one_address_holds_at_most_its_cap_of_open_offers() {
    let (server, _) = issuer();
    let answers: Vec<_> = (0..2 * MAX_OPEN_PER_CLIENT)
        .map(|_| offer(&server, ATTACKER))
        .collect();
    let opened = answers.iter().filter(|(code, _)| *code == 200).count();
    assert_eq!(opened, MAX_OPEN_PER_CLIENT, "{answers:?}");
    for (code, retry_after) in &answers[MAX_OPEN_PER_CLIENT..] {
        assert_eq!((*code, *retry_after), (429, true));
    }
    let started = Instant::now();
    assert_eq!(offer(&server, HONEST).0, 200, "another address is served");
    assert!(started.elapsed() < MARGIN, "{:?}", started.elapsed());
}

#[test]
fn remote_clients_leave_the_local_commands_their_reserve() {
    let (server, dir) = issuer();
    // Remote clients' share of open offers, filled (as many addresses would fill it).
    let offers = layout::offers(&dir);
    std::fs::create_dir_all(&offers).expect("offers");
    for n in 0..MAX_OPEN_REMOTE {
        std::fs::write(offers.join(format!("{n:064x}.json")), b"{}").expect("offer file");
    }
    assert_eq!(offer(&server, HONEST), (503, true));
    let local = Issuer::open(&dir, PIN).expect("the issuer, locally");
    local.offer(&john()).expect("the local command's offer");
}
