//! The user service's card setup over real HTTP with this crate's software card: a PIN or
//! PUK the card refuses as malformed is the client's fault, answered 400 with the reason,
//! and leaves the service ready for a good one; a card set up already is answered 409.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use vss_cred::service::user::{CardOpener, UserConfig, UserService};
use vss_cred::service::{default_limits, serve, Role};
use vss_cred::spec::SystemParameters;

/// `POST PATH` with `body`: status and JSON answer.
fn post(url: &str, path: &str, body: &Value) -> (u16, Value) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into();
    let mut response = agent
        .post(&format!("{url}{path}"))
        .header("content-type", "application/json")
        .send(serde_json::to_vec(body).expect("json").as_slice())
        .expect("HTTP exchange");
    let status = response.status().as_u16();
    let text = response.body_mut().read_to_string().expect("body");
    (status, serde_json::from_str(&text).expect("JSON answer"))
}

/// `POST /createSmartcard` with `body`: status and JSON answer.
fn create(url: &str, body: &Value) -> (u16, Value) {
    post(url, "/createSmartcard", body)
}

/// The user service with `opener`, served on loopback until `runtime` drops: its URL.
fn user_service(runtime: &tokio::runtime::Runtime, opener: CardOpener) -> String {
    let service = UserService::new(UserConfig {
        opener,
        card: None,
        pin: None,
        issuers: Vec::new(),
        revocation: None,
    });
    runtime.block_on(async {
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
    })
}

#[test]
fn a_pin_or_puk_the_card_refuses_is_answered_400() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    // The opener of `vss cred serve`.
    let opener: CardOpener =
        Arc::new(|address: &str| Ok(vss_card::connect::open_address(address)?));
    let url = user_service(&runtime, opener);
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

#[test]
fn a_card_set_up_already_is_answered_409() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    // Every card this opener opens was set up before.
    let opener: CardOpener = Arc::new(|address: &str| {
        let mut card = vss_card::connect::open_address(address)?;
        card.setup("1234", "12345678", &SystemParameters::generate())?;
        Ok(card)
    });
    let url = user_service(&runtime, opener);
    let body = json!({"address": "software", "pin": "5678", "puk": "87654321"});
    let (status, answer) = post(&url, "/initIoTsmartcard", &body);
    assert_eq!(status, 409, "{answer}");
    let reason = answer["error"].as_str().expect("a reason");
    assert!(reason.contains("already set up"), "{reason}");
}
