//! The user service's sessions: one address opening sessions (offers answered with choices,
//! no card needed) is refused 429 past its cap, before any work, while another is served.

use super::{ask, start, Server, ATTACKER, HONEST, MARGIN, PIN, PUK};
use std::sync::Arc;
use std::time::Instant;
use vss_cred::roles::Issuer;
use vss_cred::service::user::{CardOpener, UserConfig, UserService, MAX_SESSIONS_PER_CLIENT};
use vss_cred::service::{default_limits, Role};

/// The user service accepting the VIP ticket's issuer, without a card; an offer of it as
/// the request that opens a session.
fn user() -> (Server, Vec<u8>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let issuer =
        Issuer::create(dir.path(), vss_cred::scenario::vip_ticket(), PIN, PUK).expect("issuer");
    let attributes = [
        ("first_name", "John"),
        ("last_name", "Dow"),
        ("birthday", "1985-05-05Z"),
        ("member_number", "23784638726"),
        ("matchday", "2013-08-07Z"),
    ]
    .map(|(n, v)| (n.to_string(), v.to_string()));
    let offer = serde_json::to_string(&issuer.offer(&attributes).expect("offer")).expect("json");
    let request = format!(
        "POST /issuanceProtocolStep HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{offer}",
        offer.len()
    );
    let opener: CardOpener = Arc::new(|_: &str| Err("no card in this test".into()));
    let service = UserService::new(UserConfig {
        opener,
        card: None,
        pin: None,
        issuers: vec![issuer.parameters().clone()],
        revocation: None,
    });
    let server = start(Role::User(Arc::new(service)), default_limits(), dir);
    (server, request.into_bytes())
}

#[test]
fn one_address_holds_at_most_its_cap_of_sessions() {
    let (server, request) = user();
    let open = |from| {
        let answer = server.runtime.block_on(ask(server.addr, from, &request));
        let (code, text) = answer.expect("an answer");
        (
            code,
            text.to_ascii_lowercase().contains("\r\nretry-after: "),
        )
    };
    let answers: Vec<_> = (0..2 * MAX_SESSIONS_PER_CLIENT)
        .map(|_| open(ATTACKER))
        .collect();
    let opened = answers.iter().filter(|(code, _)| *code == 200).count();
    assert_eq!(opened, MAX_SESSIONS_PER_CLIENT, "{answers:?}");
    for (code, retry_after) in &answers[MAX_SESSIONS_PER_CLIENT..] {
        assert_eq!((*code, *retry_after), (429, true));
    }
    let started = Instant::now();
    assert_eq!(open(HONEST).0, 200, "another address is served");
    assert!(started.elapsed() < MARGIN, "{:?}", started.elapsed());
}
