//! The user service's card setup over real HTTP with this crate's software card: a PIN or
//! PUK the card refuses as malformed is the client's fault, answered 400 with the reason,
//! and leaves the service ready for a good one.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use vss_cred::service::user::{CardOpener, UserConfig, UserService};
use vss_cred::service::{default_limits, serve, Role};

/// `POST /createSmartcard` with `body`: status and JSON answer.
fn create(url: &str, body: &Value) -> (u16, Value) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into();
    let mut response = agent
        .post(&format!("{url}/createSmartcard"))
        .header("content-type", "application/json")
        .send(serde_json::to_vec(body).expect("json").as_slice())
        .expect("HTTP exchange");
    let status = response.status().as_u16();
    let text = response.body_mut().read_to_string().expect("body");
    (status, serde_json::from_str(&text).expect("JSON answer"))
}

#[test]
fn a_pin_or_puk_the_card_refuses_is_answered_400() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    // The opener of `vss cred serve`.
    let opener: CardOpener =
        Arc::new(|address: &str| Ok(vss_card::connect::open_address(address)?));
    let service = UserService::new(UserConfig {
        opener,
        card: None,
        pin: None,
        issuers: Vec::new(),
        revocation: None,
    });
    let url = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("address"));
        tokio::spawn(serve(
            Role::User(Arc::new(service)),
            listener,
            default_limits(),
        ));
        url
    });
    let long_pin = "1".repeat(300);
    for (pin, puk) in [
        ("12", "12345678"),
        ("12ab", "12345678"),
        ("123456789", "12345678"),
        (long_pin.as_str(), "12345678"),
        ("1234", "1234"),
    ] {
        let (status, body) = create(&url, &json!({"pin": pin, "puk": puk}));
        assert_eq!(status, 400, "PIN {pin}, PUK {puk}: {body}");
        let reason = body["error"].as_str().expect("a reason");
        assert!(reason.contains("PIN or PUK"), "{reason}");
    }
    let (status, body) = create(&url, &json!({"pin": "1234", "puk": "12345678"}));
    assert_eq!(status, 200, "{body}");
}
